"""`lamina.config`: global settings, as in `keras.config`."""

from lamina.backend.config import (
    backend,
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)
from lamina.layers.core import enable_unsafe_deserialization

__all__ = [
    "backend",
    "enable_unsafe_deserialization",
    "epsilon",
    "floatx",
    "image_data_format",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
]
