"""Image patches: `extract_patches`, `extract_patches_3d`, written once from `conv`.

>>> import numpy as np
>>> from lamina.ops import image
>>> image.extract_patches(np.zeros((1, 8, 8, 3)), 4).shape
(1, 2, 2, 48)
"""

from __future__ import annotations

import numpy as np

from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, declared_op, shape
from lamina.ops.image_layout import _batched, _channels_last, _tuple, _unbatch

_conv = declared_op("nn", "conv")


def _patches(images, size, strides, dilation_rate, padding, data_format, n, op):
    images, single = _batched(images, op, (n + 1, n + 2))
    size = _tuple(size, n)
    strides = size if strides is None else _tuple(strides, n)
    channels_axis = -1 if _channels_last(data_format) else 1
    channels = shape(images)[channels_axis]
    cells = int(np.prod(size)) * channels
    # One-hot kernel: output channel (i, j[, k], c) copies that pixel of the window.
    kernel = np.eye(cells, dtype=dtype(images) if "float" in dtype(images) else "float32")
    kernel = kernel.reshape((*size, channels, cells))
    out = _conv(
        cast(images, kernel.dtype),
        kernel,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilation_rate=dilation_rate,
    )
    return _unbatch(cast(out, dtype(images)), single)


@composite
def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    """Patches of `size` pixels, each flattened into the channel axis.

    A `(N, H, W, C)` batch gives `(N, rows, cols, size_h * size_w * C)`, each patch laid
    out row by row, pixel channels innermost (TensorFlow's `extract_patches` layout).

    Args:
        images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
            `data_format="channels_first"`).
        size: The patch size: an int (square) or `(size_h, size_w)`.
        strides: The step between patch origins: an int or a pair; `None` (default)
            takes `size` (non-overlapping patches).
        dilation_rate: The spacing of the pixels within a patch (an int or a pair).
        padding: `"valid"` (default: only whole patches) or `"same"` (zero padding so
            that `rows = ceil(H / stride_h)`, likewise `cols`).
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The patches, shape `(N, rows, cols, size_h * size_w * C)` (no batch axis for
        one image; channels first gives `(N, size_h * size_w * C, rows, cols)`), in the
        dtype of `images`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> patches = ops.image.extract_patches(np.arange(16.0).reshape(1, 4, 4, 1), 2)
    >>> ops.convert_to_numpy(patches).shape
    (1, 2, 2, 4)
    >>> ops.convert_to_numpy(patches)[0, 1, 1].tolist()
    [10.0, 11.0, 14.0, 15.0]
    """
    return _patches(
        images, size, strides, dilation_rate, padding, data_format, 2, "extract_patches"
    )


@composite
def extract_patches_3d(
    volumes, size, strides=None, dilation_rate=1, padding="valid", data_format=None
):
    """3-D patches of `(N, D, H, W, C)` volumes, each flattened into the channel axis.

    The volumetric `extract_patches`: each patch is laid out depth, then row, then
    column, pixel channels innermost.

    Args:
        volumes: One volume `(D, H, W, C)` or a batch `(N, D, H, W, C)` (channels first
            with `data_format="channels_first"`).
        size: The patch size: an int (cube) or `(size_d, size_h, size_w)`.
        strides: The step between patch origins: an int or a triple; `None` (default)
            takes `size` (non-overlapping patches).
        dilation_rate: The spacing of the voxels within a patch (an int or a triple).
        padding: `"valid"` (default: only whole patches) or `"same"` (zero padding).
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The patches, shape `(N, depth, rows, cols, size_d * size_h * size_w * C)` (no
        batch axis for one volume), in the dtype of `volumes`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> patches = ops.image.extract_patches_3d(np.zeros((1, 4, 4, 4, 2)), 2)
    >>> ops.convert_to_numpy(patches).shape
    (1, 2, 2, 2, 16)
    """
    return _patches(
        volumes, size, strides, dilation_rate, padding, data_format, 3, "extract_patches_3d"
    )


__all__ = [
    "extract_patches",
    "extract_patches_3d",
]
