"""Classic Keras's `keras.engine.training`: `Model`."""

from lamina.models import Model

__all__ = ["Model"]
