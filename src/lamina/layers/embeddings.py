"""Classic Keras's `keras.layers.embeddings`: `Embedding` (the same class as
`lamina.layers.Embedding`, defined in `lamina.layers.core`)."""

from lamina.layers.core import Embedding

__all__ = ["Embedding"]
