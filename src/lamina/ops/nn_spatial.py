"""Rearranging and pooling image grids: `depth_to_space`, `space_to_depth`, adaptive pools.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.depth_to_space(np.zeros((1, 2, 2, 8)), 2)).shape
(1, 4, 4, 2)
"""

from __future__ import annotations

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import composite, convert_to_tensor, shape


def _image4(x, op):
    x = convert_to_tensor(x)
    if len(shape(x)) != 4:
        raise ValueError(f"{op}: expected a 4-D batch of images, received shape {shape(x)}.")
    return x


@composite
def depth_to_space(x, block_size, data_format="channels_last"):
    """Move channels into space: each pixel's channels become a `block_size` square.

    The inverse of `space_to_depth` (PyTorch's `pixel_shuffle` for channels-first):
    `(N, H, W, C)` becomes `(N, H * b, W * b, C / b**2)`, `b = block_size`.

    Args:
        x: A 4-D batch of images whose channels divide by `block_size ** 2`.
        block_size: The side of the spatial blocks, a positive int.
        data_format: `"channels_last"` (the default) or `"channels_first"`.

    Returns:
        A 4-D tensor with `block_size` times the height and width.

    Raises:
        ValueError: If `x` is not 4-D.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.arange(4).reshape(1, 1, 1, 4)
    >>> ops.convert_to_numpy(ops.depth_to_space(x, 2))[0, :, :, 0].tolist()
    [[0, 1], [2, 3]]
    """
    x = _image4(x, "depth_to_space")
    b = int(block_size)
    if data_format == "channels_last":
        n, h, w, c = shape(x)
        x = lnp.reshape(x, (n, h, w, b, b, c // (b * b)))
        x = lnp.transpose(x, (0, 1, 3, 2, 4, 5))
        return lnp.reshape(x, (n, h * b, w * b, c // (b * b)))
    n, c, h, w = shape(x)
    x = lnp.reshape(x, (n, c // (b * b), b, b, h, w))
    x = lnp.transpose(x, (0, 1, 4, 2, 5, 3))
    return lnp.reshape(x, (n, c // (b * b), h * b, w * b))


@composite
def space_to_depth(x, block_size, data_format="channels_last"):
    """Move space into channels: each `block_size` square becomes one pixel.

    The inverse of `depth_to_space`: `(N, H, W, C)` becomes
    `(N, H / b, W / b, C * b**2)`, `b = block_size`.

    Args:
        x: A 4-D batch of images whose height and width divide by `block_size`.
        block_size: The side of the spatial blocks, a positive int.
        data_format: `"channels_last"` (the default) or `"channels_first"`.

    Returns:
        A 4-D tensor with `block_size ** 2` times the channels.

    Raises:
        ValueError: If `x` is not 4-D.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.arange(4).reshape(1, 2, 2, 1)
    >>> ops.convert_to_numpy(ops.space_to_depth(x, 2)).tolist()
    [[[[0, 1, 2, 3]]]]
    """
    x = _image4(x, "space_to_depth")
    b = int(block_size)
    if data_format == "channels_last":
        n, h, w, c = shape(x)
        x = lnp.reshape(x, (n, h // b, b, w // b, b, c))
        x = lnp.transpose(x, (0, 1, 3, 2, 4, 5))
        return lnp.reshape(x, (n, h // b, w // b, b * b * c))
    n, c, h, w = shape(x)
    x = lnp.reshape(x, (n, c, h // b, b, w // b, b))
    x = lnp.transpose(x, (0, 1, 3, 5, 2, 4))
    return lnp.reshape(x, (n, c * b * b, h // b, w // b))


def _bins(length, size):
    """PyTorch's adaptive bins: `[floor(i L / n), ceil((i + 1) L / n))` for each output i."""
    return [((i * length) // size, -((-(i + 1) * length) // size)) for i in range(size)]


def _adaptive_pool(inputs, output_size, data_format, reduce, op):
    x = convert_to_tensor(inputs)
    spatial = len(shape(x)) - 2
    if spatial not in (1, 2, 3):
        raise ValueError(
            f"{op}: expected a 3-D, 4-D or 5-D batch (1 to 3 spatial axes), received shape "
            f"{shape(x)}."
        )
    sizes = (output_size,) * spatial if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != spatial:
        raise ValueError(
            f"{op}: `output_size` {output_size!r} needs one size per spatial axis ({spatial})."
        )
    first = backend.standardize_data_format(data_format) == "channels_first"
    for i, size in enumerate(sizes):
        axis = i + 2 if first else i + 1
        parts = [
            reduce(lnp.take(x, lnp.arange(start, stop), axis=axis), axis)
            for start, stop in _bins(shape(x)[axis], int(size))
        ]
        x = lnp.stack(parts, axis=axis)
    return x


@composite
def adaptive_average_pool(inputs, output_size, data_format=None):
    """Average pooling to a fixed `output_size` per spatial axis.

    The windows are chosen from the input size, as PyTorch's adaptive pooling does:
    output `i` of an axis of length `L` pooled to `n` averages inputs
    `floor(i * L / n)` to `ceil((i + 1) * L / n) - 1` (windows may overlap).

    Args:
        inputs: A 3-D, 4-D or 5-D batch (1 to 3 spatial axes).
        output_size: Int or tuple of ints, one per spatial axis, the output size.
        data_format: `"channels_last"` or `"channels_first"`; default
            `keras.config.image_data_format()`.

    Returns:
        A tensor with spatial sizes `output_size` and the batch and channels of
        `inputs`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.arange(1.0, 6.0).reshape(1, 5, 1)
    >>> ops.convert_to_numpy(ops.adaptive_average_pool(x, 2))[0, :, 0].tolist()
    [2.0, 4.0]
    """
    return _adaptive_pool(
        inputs, output_size, data_format, lambda p, a: lnp.mean(p, axis=a), "adaptive_average_pool"
    )


@composite
def adaptive_max_pool(inputs, output_size, data_format=None):
    """Max pooling to a fixed `output_size` per spatial axis.

    The windows are chosen from the input size, as PyTorch's adaptive pooling does:
    output `i` of an axis of length `L` pooled to `n` is the max of inputs
    `floor(i * L / n)` to `ceil((i + 1) * L / n) - 1` (windows may overlap).

    Args:
        inputs: A 3-D, 4-D or 5-D batch (1 to 3 spatial axes).
        output_size: Int or tuple of ints, one per spatial axis, the output size.
        data_format: `"channels_last"` or `"channels_first"`; default
            `keras.config.image_data_format()`.

    Returns:
        A tensor with spatial sizes `output_size` and the batch and channels of
        `inputs`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.arange(1.0, 6.0).reshape(1, 5, 1)
    >>> ops.convert_to_numpy(ops.adaptive_max_pool(x, 2))[0, :, 0].tolist()
    [3.0, 5.0]
    """
    return _adaptive_pool(
        inputs, output_size, data_format, lambda p, a: lnp.max(p, axis=a), "adaptive_max_pool"
    )


__all__ = [
    "adaptive_average_pool",
    "adaptive_max_pool",
    "depth_to_space",
    "space_to_depth",
]
