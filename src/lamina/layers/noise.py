"""Classic Keras's `keras.layers.noise`: the noise layers (the same classes as
`lamina.layers`, defined in `lamina.layers.regularization`)."""

from lamina.layers.regularization import AlphaDropout, GaussianDropout, GaussianNoise

__all__ = ["AlphaDropout", "GaussianDropout", "GaussianNoise"]
