"""Image functions on JAX arrays: resizing and affine (projective) resampling."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from lamina.backend import config
from lamina.backend.common import shapes

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
    data_format = config.standardize_data_format(data_format)
    images = jnp.asarray(images)
    size = shapes.check_resize_args(
        interpolation,
        _METHODS,
        crop_to_aspect_ratio,
        pad_to_aspect_ratio,
        fill_mode,
        images.ndim,
        size,
    )
    if crop_to_aspect_ratio or pad_to_aspect_ratio:
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
    if crop:
        top, left, new_h, new_w = shapes.aspect_ratio_window(height, width, size, True)
        images = jax.lax.slice_in_dim(images, top, top + new_h, axis=h_axis)
        return jax.lax.slice_in_dim(images, left, left + new_w, axis=h_axis + 1)
    top, left = shapes.aspect_ratio_window(height, width, size, False)
    widths = [(0, 0)] * images.ndim
    widths[h_axis] = (top, top)
    widths[h_axis + 1] = (left, left)
    return jnp.pad(images, widths, constant_values=jnp.asarray(fill_value, images.dtype))


_ORDERS = shapes.AFFINE_ORDERS


def affine_transform(
    images,
    transform,
    interpolation="bilinear",
    fill_mode="constant",
    fill_value=0,
    data_format=None,
):
    """Resample images through projective transforms (Keras's 8-number convention).

    `transform` is `[a0, a1, a2, b0, b1, b2, c0, c1]` (or a batch of them): output pixel
    `(x, y)` (column, row) takes the input value at
    `((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)` with `k = c0 x + c1 y + 1`.
    Points outside the input are filled according to `fill_mode`.
    """
    shapes.check_affine_args(interpolation, fill_mode)
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


def _coordinate_array(coordinates):
    """`coordinates` as one stacked array (a sequence of per-axis arrays is stacked)."""
    if isinstance(coordinates, (list, tuple)):
        return jnp.stack([jnp.asarray(c) for c in coordinates])
    return jnp.asarray(coordinates)


def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """Interpolate `inputs` at `coordinates` (`jax.scipy.ndimage.map_coordinates`).

    `coordinates[i]` holds the positions along axis `i` of `inputs`; the result has the
    shape of `coordinates[0]`. `order` 0 takes the nearest element (halves rounded away
    from zero), 1 interpolates linearly; positions outside are filled by `fill_mode`.
    """
    inputs = jnp.asarray(inputs)
    coordinates = _coordinate_array(coordinates)
    shapes.check_map_coordinates_args(inputs.shape, coordinates.shape, order, fill_mode)
    return jax.scipy.ndimage.map_coordinates(
        inputs, list(coordinates), int(order), fill_mode, fill_value
    )


def scale_and_translate(
    images, output_shape, scale, translation, spatial_dims, method, antialias=True
):
    """Resample `images` to `output_shape` (`jax.image.scale_and_translate`).

    Along each axis in `spatial_dims`, input position `x` (half-pixel centres) lands at
    `x * scale + translation` in the output; output samples outside the input are zero.
    `antialias` widens the kernel when downsampling.
    """
    images = jnp.asarray(images)
    scale, translation = jnp.asarray(scale), jnp.asarray(translation)
    output_shape, spatial_dims = shapes.check_scale_and_translate_args(
        images.shape,
        output_shape,
        spatial_dims,
        scale.size,
        translation.size,
        method,
    )
    return _scale_and_translate(
        images,
        output_shape,
        spatial_dims,
        scale.reshape(-1),
        translation.reshape(-1),
        shapes.SCALE_AND_TRANSLATE_METHODS[method],
        bool(antialias),
    )


# Compiled once per shape and setting (eager, it is a dozen small programs).
_scale_and_translate = jax.jit(jax.image.scale_and_translate, static_argnums=(1, 2, 5, 6))
