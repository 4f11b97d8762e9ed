"""Classic Keras's `keras.utils.np_utils`: `to_categorical` and `normalize` (the same
functions as `lamina.utils`)."""

from lamina.utils.numerical import normalize, to_categorical

__all__ = ["normalize", "to_categorical"]
