"""Warps beyond an affine transform: `perspective_transform`, `elastic_transform`.

A perspective warp is the contract's `affine_transform` with coefficients solved from
four point pairs; an elastic warp displaces each pixel by smoothed random noise.
"""

from __future__ import annotations

import numpy as np

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops import random as lrandom
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, convert_to_numpy, convert_to_tensor, declared_op, shape
from lamina.ops.image_layout import _batched, _channels_last, _float, _unbatch

_depthwise_conv = declared_op("nn", "depthwise_conv")
_affine_transform = declared_op("image", "affine_transform")
_solve = declared_op("linalg", "solve")


def _perspective_coefficients(start_points, end_points):
    """The 8 numbers mapping output pixels (`end_points`) to input pixels (`start_points`)."""
    start, end = _float(start_points), _float(end_points)
    xs, ys = end[..., 0], end[..., 1]
    us, vs = start[..., 0], start[..., 1]
    zeros, ones = lnp.zeros_like(xs), lnp.ones_like(xs)
    rows_u = lnp.stack([xs, ys, ones, zeros, zeros, zeros, -xs * us, -ys * us], axis=-1)
    rows_v = lnp.stack([zeros, zeros, zeros, xs, ys, ones, -xs * vs, -ys * vs], axis=-1)
    matrix = lnp.concatenate([rows_u, rows_v], axis=-2)
    target = lnp.concatenate([us, vs], axis=-1)
    return lnp.squeeze(_solve(matrix, lnp.expand_dims(target, -1)), -1)


@composite
def perspective_transform(
    images, start_points, end_points, interpolation="bilinear", fill_value=0, data_format=None
):
    """`images` warped so that the 4 `start_points` `(x, y)` land on `end_points`.

    The projective transform taking each of the four `end_points` to its
    `start_point` is solved for, and every output pixel takes the input value there
    (as `affine_transform` does); positions outside the input get `fill_value`.

    Args:
        images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
            `data_format="channels_first"`).
        start_points: Four points `(x, y)` (column, row) in the input, shape `(4, 2)`,
            or one set per image `(N, 4, 2)`.
        end_points: Where those points land in the output, of the same shape.
        interpolation: `"bilinear"` (default) or `"nearest"`.
        fill_value: The value of output pixels that come from outside the input.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The warped images, of the shape and dtype of `images`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> corners = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0], [3.0, 3.0]])
    >>> x = np.arange(16.0).reshape(4, 4, 1)
    >>> y = ops.image.perspective_transform(x, corners, corners + [1.0, 0.0])  # 1 px right
    >>> ops.convert_to_numpy(y)[:, :, 0].tolist()
    [[0.0, 0.0, 1.0, 2.0], [0.0, 4.0, 5.0, 6.0], [0.0, 8.0, 9.0, 10.0], [0.0, 12.0, 13.0, 14.0]]
    """
    images, single = _batched(images, "perspective_transform")
    start, end = convert_to_tensor(start_points), convert_to_tensor(end_points)
    if len(shape(start)) == 2:
        start, end = lnp.expand_dims(start, 0), lnp.expand_dims(end, 0)
    if shape(start)[-2:] != (4, 2) or shape(end)[-2:] != (4, 2):
        raise ValueError(
            "perspective_transform: `start_points` and `end_points` must be 4 (x, y) points "
            f"each, shape (4, 2) or (batch, 4, 2); received {shape(start)} and {shape(end)}."
        )
    transform = _perspective_coefficients(start, end)
    if shape(transform)[0] != shape(images)[0]:
        transform = lnp.broadcast_to(transform, (shape(images)[0], 8))
    out = _affine_transform(
        images,
        cast(transform, dtype(_float(images))),
        interpolation=interpolation,
        fill_mode="constant",
        fill_value=fill_value,
        data_format=data_format,
    )
    return _unbatch(out, single)


# `elastic_transform`'s interpolations (as spline orders) and boundary modes.
_ELASTIC_ORDERS = {"nearest": 0, "bilinear": 1}


_ELASTIC_FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def _check_elastic_args(who, interpolation, fill_mode):
    if interpolation not in _ELASTIC_ORDERS:
        raise ValueError(
            f"{who}: unknown interpolation {interpolation!r}; expected one of "
            f"{list(_ELASTIC_ORDERS)}."
        )
    if fill_mode not in _ELASTIC_FILL_MODES:
        raise ValueError(
            f"{who}: unknown fill_mode {fill_mode!r}; expected one of {list(_ELASTIC_FILL_MODES)}."
        )


def _elastic_kernel_size(sigma) -> int:
    """The (odd) Gaussian window `elastic_transform` smooths with: `int(6 sigma) | 1`."""
    return int(6 * float(sigma)) | 1


def _elastic_warp(images, noise, alpha, sigma, kernel_size, order, fill_mode, fill_value):
    """Warp a channels-last float batch `(N, H, W, C)` by a random elastic displacement.

    `noise` holds standard normal draws `(2 N, H, W, 1)` (the row, then the column
    fields of each image); times `sigma`, they are smoothed by a `kernel_size` Gaussian of `sigma` (zero padding), scaled by `alpha`, and
    added to the pixel grid; each channel is then resampled there as `map_coordinates`
    does.
    `alpha` and `sigma` may be tensors (scalars); `kernel_size` is a Python int.
    """
    batch, height, width, channels = (int(d) for d in images.shape)
    work = dtype(images)
    noise = noise * sigma
    offsets = cast(np.arange(kernel_size) - (kernel_size - 1) / 2.0, work)
    # A zero sigma makes a zero field (the noise above); the floor keeps the window finite.
    bell = lnp.exp(-0.5 * lnp.square(offsets / lnp.maximum(sigma, 1e-6)))
    bell = bell / lnp.sum(bell)
    kernel = lnp.reshape(bell[:, None] * bell[None, :], (kernel_size, kernel_size, 1, 1))
    field = _depthwise_conv(noise, kernel, padding="same", data_format="channels_last")
    field = lnp.reshape(field, (2, batch, height, width)) * alpha
    rows, cols = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    src_y = field[0] + cast(rows, work)
    src_x = field[1] + cast(cols, work)
    return _sample(images, src_y, src_x, order, fill_mode, fill_value)


def _fix_index(index, size, mode):
    """Integer positions mapped into `[0, size)` by boundary mode (as
    `jax.scipy.ndimage.map_coordinates`; "constant" clamps, masked by the caller)."""
    if mode in ("constant", "nearest"):
        return lnp.clip(index, 0, size - 1)
    if mode == "wrap":
        return lnp.mod(index, size)
    if mode == "mirror":
        if size == 1:
            return lnp.zeros_like(index)
        return lnp.abs(lnp.mod(index + (size - 1), 2 * (size - 1)) - (size - 1))
    # "reflect": mirror on the doubled grid, halved.
    doubled = lnp.abs(lnp.mod(2 * index + 1 + 2 * size, 4 * size) - 2 * size)
    return lnp.floor_divide(doubled - 1, 2)


def _sample(images, src_y, src_x, order, fill_mode, fill_value):
    """`images` `(N, H, W, C)` at positions `(src_y, src_x)` (each `(N, H, W)`), shared
    by the channels: `map_coordinates` on each channel of each image, in one gather per
    neighbour."""
    batch, height, width, channels = (int(d) for d in images.shape)
    work = dtype(images)

    def nodes(position):
        if order == 0:
            nearest = lnp.sign(position) * lnp.floor(lnp.abs(position) + 0.5)
            return [(cast(nearest, "int32"), None)]
        lower = lnp.floor(position)
        upper_weight = position - lower
        index = cast(lower, "int32")
        return [(index, 1.0 - upper_weight), (index + 1, upper_weight)]

    flat = lnp.reshape(images, (batch, height * width, channels))
    out = None
    columns = nodes(src_x)
    for iy, wy in nodes(src_y):
        for ix, wx in columns:
            where = _fix_index(iy, height, fill_mode) * width + _fix_index(ix, width, fill_mode)
            where = lnp.broadcast_to(
                lnp.reshape(where, (batch, height * width, 1)), (batch, height * width, channels)
            )
            value = lnp.reshape(
                lnp.take_along_axis(flat, where, axis=1), (batch, height, width, channels)
            )
            if fill_mode == "constant":
                inside = (iy >= 0) & (iy < height) & (ix >= 0) & (ix < width)
                value = lnp.where(inside[..., None], value, cast(fill_value, work))
            if wy is not None:
                value = value * (wy * wx)[..., None]
            out = value if out is None else out + value
    return out


# One compiled program per shape and static setting where the engine compiles (JAX): the
# warp is dozens of small ops, each a compilation of its own when run eagerly.
_elastic_program = backend.jit(_elastic_warp, static_argnums=(4, 5, 6, 7))


@composite
def elastic_transform(
    images,
    alpha=20.0,
    sigma=5.0,
    interpolation="bilinear",
    fill_mode="reflect",
    fill_value=0.0,
    seed=None,
    data_format=None,
):
    """Elastic deformation of an image or a batch of images (Keras's algorithm).

    Each image gets two random displacement fields (rows and columns): standard normal
    draws times `sigma`, smoothed by a Gaussian of standard deviation `sigma` (window
    `int(6 * sigma) | 1`, zero padding), scaled by `alpha`. Every pixel then takes the
    input value at its displaced position (`"bilinear"` or `"nearest"` interpolation;
    positions outside are filled by `fill_mode`, as `map_coordinates` does). Unlike
    Keras's JAX backend, the two fields are independent draws.

    Args:
        images: one image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
            `data_format="channels_first"`).
        alpha: strength of the displacement (`0` returns the input).
        sigma: smoothness of the displacement (a Python number, `>= 0`).
        interpolation: `"bilinear"` or `"nearest"`.
        fill_mode: `"reflect"`, `"constant"`, `"nearest"`, `"wrap"` or `"mirror"`.
        fill_value: the value outside the image with `fill_mode="constant"`.
        seed: an int (the same field every call), a `SeedGenerator`, or `None` (the
            global generator).
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format).

    Returns:
        The deformed images, with the shape and dtype of `images`.

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.image.elastic_transform(np.zeros((2, 8, 8, 3)), seed=1)
    >>> ops.convert_to_numpy(y).shape
    (2, 8, 8, 3)
    """
    _check_elastic_args("elastic_transform", interpolation, fill_mode)
    try:
        sigma_value = float(convert_to_numpy(sigma))
    except Exception as e:  # a traced tensor has no value yet
        raise ValueError(
            "elastic_transform: sigma sets the smoothing window's size, so it must be a "
            f"Python number (or a concrete tensor); received {sigma!r}."
        ) from e
    if not sigma_value >= 0:
        raise ValueError(f"elastic_transform: sigma must be >= 0; received {sigma_value}.")
    images, single = _batched(images, "elastic_transform")
    last = _channels_last(data_format)
    x = _float(images)
    if not last:
        x = lnp.transpose(x, (0, 2, 3, 1))
    batch, height, width, _ = (int(d) for d in x.shape)
    # Drawn outside the compiled warp: the sampler's compilation is then shared by every
    # setting of the warp.
    noise = lrandom.normal((2 * batch, height, width, 1), dtype=dtype(x), seed=seed)
    out = _elastic_program(
        x,
        noise,
        cast(alpha, dtype(x)),
        cast(sigma_value, dtype(x)),
        _elastic_kernel_size(sigma_value),
        _ELASTIC_ORDERS[interpolation],
        fill_mode,
        float(fill_value),
    )
    if not last:
        out = lnp.transpose(out, (0, 3, 1, 2))
    if dtype(out) != dtype(images):
        out = cast(lnp.round(out) if "int" in dtype(images) else out, dtype(images))
    return _unbatch(out, single)


__all__ = [
    "elastic_transform",
    "perspective_transform",
]
