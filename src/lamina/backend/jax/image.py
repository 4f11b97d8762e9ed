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


def resize(
    images,
    size,
    interpolation="bilinear",
    antialias=False,
    crop_to_aspect_ratio=False,
    pad_to_aspect_ratio=False,
    fill_mode="constant",
    fill_value=0.0,
    data_format=None,
):
    """Resize the spatial axes of `images` (a batch or a single image) to `size`.

    Uses half-pixel centers (as `jax.image.resize`); `"nearest"`, `"bilinear"`,
    `"bicubic"`, `"lanczos3"` or `"lanczos5"` interpolation; `antialias=True` widens the
    kernel when downsampling. For 2-D images, `crop_to_aspect_ratio` first takes the
    largest centered crop with the aspect ratio of `size`, and `pad_to_aspect_ratio`
    instead pads evenly with `fill_value` (`fill_mode="constant"`) to that ratio.
    """
    if interpolation not in _METHODS:
        raise ValueError(
            f"resize: unknown interpolation {interpolation!r}; expected one of {list(_METHODS)}."
        )
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError(
            "resize: pass only one of crop_to_aspect_ratio=True and pad_to_aspect_ratio=True."
        )
    if fill_mode != "constant":
        raise ValueError(f"resize: fill_mode must be 'constant'; received {fill_mode!r}.")
    data_format = config.standardize_data_format(data_format)
    images = jnp.asarray(images)
    size = tuple(int(s) for s in size)
    if images.ndim < len(size) + 1:
        raise ValueError(
            f"resize: images of rank {images.ndim} cannot be resized to {len(size)} spatial "
            "dimensions (need at least a channel axis as well)."
        )
    if crop_to_aspect_ratio or pad_to_aspect_ratio:
        if len(size) != 2:
            raise ValueError(
                "resize: crop_to_aspect_ratio and pad_to_aspect_ratio need a 2-D `size` "
                f"(height, width); received {size}."
            )
        images = _fit_aspect_ratio(images, size, data_format, crop_to_aspect_ratio, fill_value)
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


def _fit_aspect_ratio(images, size, data_format, crop, fill_value):
    """Center-crop (or pad with `fill_value`) the (height, width) axes to `size`'s ratio."""
    h_axis = images.ndim - 3 if data_format == "channels_last" else images.ndim - 2
    height, width = images.shape[h_axis], images.shape[h_axis + 1]
    # The height that `width` needs at the target ratio, and the width that `height` needs.
    want_h = int(width * size[0] / size[1])
    want_w = int(height * size[1] / size[0])
    if crop:
        new_h, new_w = max(min(height, want_h), 1), max(min(width, want_w), 1)
        top, left = (height - new_h) // 2, (width - new_w) // 2
        images = jax.lax.slice_in_dim(images, top, top + new_h, axis=h_axis)
        return jax.lax.slice_in_dim(images, left, left + new_w, axis=h_axis + 1)
    # As Keras's op does: the same padding on both sides, half the shortfall rounded
    # down (so an odd shortfall leaves the ratio one pixel short).
    top, left = (max(height, want_h) - height) // 2, (max(width, want_w) - width) // 2
    widths = [(0, 0)] * images.ndim
    widths[h_axis] = (top, top)
    widths[h_axis + 1] = (left, left)
    return jnp.pad(images, widths, constant_values=jnp.asarray(fill_value, images.dtype))


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
