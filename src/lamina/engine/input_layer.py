"""Classic Keras's `keras.engine.input_layer`: `Input` and `InputLayer`."""

from lamina.layers import Input, InputLayer

__all__ = ["Input", "InputLayer"]
