"""Image functions on JAX arrays: resizing and affine (projective) resampling."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from lamina.backend import config

_METHODS = {
    "bilinear": "bilinear",
    "nearest": "nearest",
    "bicubic": "bicubic",
    "lanczos3": "lanczos3",
    "lanczos5": "lanczos5",
}


def resize(images, size, interpolation="bilinear", antialias=False, data_format=None):
    """Resize the spatial axes of `images` (a batch or a single image) to `size`.

    Uses half-pixel centers (as `jax.image.resize`); `"nearest"`, `"bilinear"`,
    `"bicubic"`, `"lanczos3"` or `"lanczos5"` interpolation; `antialias=True` widens the
    kernel when downsampling.
    """
    if interpolation not in _METHODS:
        raise ValueError(
            f"resize: unknown interpolation {interpolation!r}; expected one of {list(_METHODS)}."
        )
    data_format = config.standardize_data_format(data_format)
    images = jnp.asarray(images)
    size = tuple(int(s) for s in size)
    if images.ndim < len(size) + 1:
        raise ValueError(
            f"resize: images of rank {images.ndim} cannot be resized to {len(size)} spatial "
            "dimensions (need at least a channel axis as well)."
        )
    shape = list(images.shape)
    n = len(size)
    if data_format == "channels_last":
        shape[-n - 1 : -1] = size
    else:
        shape[-n:] = size
    dtype = images.dtype
    if not jnp.issubdtype(dtype, jnp.floating):
        images = images.astype("float32")
    out = jax.image.resize(
        images, tuple(shape), method=_METHODS[interpolation], antialias=bool(antialias)
    )
    return out.astype(dtype) if out.dtype != dtype and jnp.issubdtype(dtype, jnp.floating) else out


# Boundary modes (Keras's names are `jax.scipy.ndimage.map_coordinates`'s) and the
# spline order of each interpolation.
_FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
_ORDERS = {"nearest": 0, "bilinear": 1}


def affine_transform(
    images,
    transform,
    interpolation="bilinear",
    fill_mode="constant",
    fill_value=0.0,
    data_format=None,
):
    """Resample images through projective transforms (Keras's 8-number convention).

    `transform` is `[a0, a1, a2, b0, b1, b2, c0, c1]` (or a batch of them): output pixel
    `(x, y)` (column, row) takes the input value at
    `((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)` with `k = c0 x + c1 y + 1`.
    Points outside the input are filled according to `fill_mode`.
    """
    if interpolation not in _ORDERS:
        raise ValueError(
            f"affine_transform: unknown interpolation {interpolation!r}; expected one of "
            f"{list(_ORDERS)}."
        )
    if fill_mode not in _FILL_MODES:
        raise ValueError(
            f"affine_transform: unknown fill_mode {fill_mode!r}; expected one of "
            f"{list(_FILL_MODES)}."
        )
    data_format = config.standardize_data_format(data_format)
    images = jnp.asarray(images)
    transform = jnp.asarray(transform, dtype="float32")
    if images.ndim not in (3, 4):
        raise ValueError(
            "affine_transform: expected a single image (rank 3) or a batch (rank 4); "
            f"received shape {images.shape}."
        )
    unbatched = images.ndim == 3
    if unbatched:
        images = images[None]
    if transform.ndim == 1:
        transform = jnp.broadcast_to(transform, (images.shape[0], 8))
    if transform.shape != (images.shape[0], 8):
        raise ValueError(
            "affine_transform: expected one transform of 8 numbers per image, shape "
            f"({images.shape[0]}, 8); received shape {transform.shape}."
        )
    if data_format == "channels_first":
        images = jnp.moveaxis(images, 1, -1)
    out = _resample(images, transform, float(fill_value), _ORDERS[interpolation], fill_mode)
    if data_format == "channels_first":
        out = jnp.moveaxis(out, -1, 1)
    return out[0] if unbatched else out


@functools.partial(jax.jit, static_argnames=("fill_value", "order", "mode"))
def _resample(images, transform, fill_value, order, mode):
    """Channels-last batch resampling, compiled once per shape (eager calls are many
    small engine ops otherwise)."""
    dtype = images.dtype
    work = images.astype("float32") if not jnp.issubdtype(dtype, jnp.floating) else images
    height, width = work.shape[1], work.shape[2]
    rows, cols = jnp.meshgrid(
        jnp.arange(height, dtype="float32"), jnp.arange(width, dtype="float32"), indexing="ij"
    )

    def one(image, t):
        k = t[6] * cols + t[7] * rows + 1.0
        src_x = (t[0] * cols + t[1] * rows + t[2]) / k
        src_y = (t[3] * cols + t[4] * rows + t[5]) / k

        def channel(c):
            return jax.scipy.ndimage.map_coordinates(
                c, [src_y, src_x], order=order, mode=mode, cval=fill_value
            )

        return jax.vmap(channel, in_axes=-1, out_axes=-1)(image)

    return jax.vmap(one)(work, transform).astype(dtype)
