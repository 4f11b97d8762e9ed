"""Classic Keras's `keras.utils.conv_utils`: argument normalization and output-length
arithmetic for convolutions, as custom layers written for Keras 2 import them.

`normalize_tuple` is the check every lamina layer runs on its integer arguments
(`lamina.layers.argument_validation`), so NumPy integers are accepted and plain ints
come back.

>>> normalize_tuple(3, 2, "kernel_size")
(3, 3)
>>> conv_output_length(32, 3, "valid", 2)
15
"""

from __future__ import annotations

import numpy as np

from lamina.backend import standardize_data_format
from lamina.layers.argument_validation import int_tuple


def normalize_tuple(value, n: int, name: str) -> tuple:
    """An int or `n` ints -> a tuple of `n` Python ints (Keras 2 allowed any int >= 0)."""
    return int_tuple(value, n, name, "normalize_tuple", minimum=0)


def normalize_padding(value) -> str:
    """A padding name in lower case: `"valid"`, `"same"` or `"causal"`."""
    padding = str(value).lower()
    if padding not in ("valid", "same", "causal"):
        raise ValueError(f"padding must be 'valid', 'same' or 'causal'; received {value!r}.")
    return padding


def normalize_data_format(value=None) -> str:
    """`"channels_last"` or `"channels_first"`; None means `image_data_format()`."""
    return standardize_data_format(value)


def convert_kernel(kernel):
    """A convolution kernel with its spatial axes reversed (all but the last two), which
    turns a convolution kernel into a correlation kernel and back (Theano and TensorFlow
    weights differed so)."""
    kernel = np.asarray(kernel)
    flip = (slice(None, None, -1),) * (kernel.ndim - 2) + (slice(None),) * 2
    return np.copy(kernel[flip])


def conv_output_length(input_length, filter_size, padding, stride, dilation=1):
    """The length of a convolution's output along one axis (None stays None)."""
    if input_length is None:
        return None
    if padding not in ("same", "valid", "full", "causal"):
        raise ValueError(f"Unknown padding {padding!r}.")
    span = (filter_size - 1) * dilation + 1
    length = {
        "same": input_length,
        "causal": input_length,
        "valid": input_length - span + 1,
        "full": input_length + span - 1,
    }[padding]
    return (length + stride - 1) // stride


def conv_input_length(output_length, filter_size, padding, stride):
    """The input length a convolution needs for `output_length` (None stays None)."""
    if output_length is None:
        return None
    if padding not in ("same", "valid", "full"):
        raise ValueError(f"Unknown padding {padding!r}.")
    pad = {"same": filter_size // 2, "valid": 0, "full": filter_size - 1}[padding]
    return (output_length - 1) * stride - 2 * pad + filter_size


def deconv_length(dim_size, stride_size, kernel_size, padding, output_padding=None, dilation=1):
    """The output length of a transposed convolution along one axis."""
    if dim_size is None:
        return None
    if padding not in ("same", "valid", "full"):
        raise ValueError(f"Unknown padding {padding!r}.")
    kernel_size = kernel_size + (kernel_size - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return dim_size * stride_size + max(kernel_size - stride_size, 0)
        if padding == "full":
            return dim_size * stride_size - (stride_size + kernel_size - 2)
        return dim_size * stride_size
    pad = {"same": kernel_size // 2, "valid": 0, "full": kernel_size - 1}[padding]
    return (dim_size - 1) * stride_size + kernel_size - 2 * pad + output_padding


__all__ = [
    "conv_input_length",
    "conv_output_length",
    "convert_kernel",
    "deconv_length",
    "normalize_data_format",
    "normalize_padding",
    "normalize_tuple",
]
