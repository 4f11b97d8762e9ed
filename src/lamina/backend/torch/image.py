"""Image functions on torch tensors: resizing and affine (projective) resampling, with
the JAX engine's numerics.

`resize` follows `jax.image.resize` (half-pixel centres) rather than
`torch.nn.functional.interpolate`, whose bicubic kernel, antialiasing and edge handling
differ: each resized axis is one matrix product with the interpolation weights
`jax.image.resize` uses (built once per size pair and cached). `affine_transform`
gathers the neighbours as `jax.scipy.ndimage.map_coordinates` does, with its boundary
modes.
"""

from __future__ import annotations

import functools
import itertools
import math

import torch
import torch.nn.functional as F

from lamina.backend import config
from lamina.backend.common import shapes
from lamina.backend.torch.core import convert_to_tensor

_HALF = (torch.float16, torch.bfloat16)


def _triangle(x):
    return torch.clamp(1.0 - x, min=0.0)


def _keys_cubic(x):
    # Keys's cubic kernel with A = -0.5 (as `jax.image.resize`, Pillow and TensorFlow).
    out = (1.5 * x - 2.5) * x * x + 1.0
    out = torch.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return torch.where(x >= 2.0, 0.0, out)


def _lanczos(radius):
    def kernel(x):
        y = radius * torch.sin(math.pi * x) * torch.sin(math.pi * x / radius)
        safe = torch.where(x != 0, math.pi**2 * x * x, 1.0)
        out = torch.where(x > 1e-3, y / safe, 1.0)
        return torch.where(x > radius, 0.0, out)

    return kernel


# Interpolation name -> kernel (None: nearest neighbour, no kernel).
_KERNELS = {
    "bilinear": _triangle,
    "nearest": None,
    "bicubic": _keys_cubic,
    "lanczos3": _lanczos(3),
    "lanczos5": _lanczos(5),
}
_EPSILON_32 = float(torch.finfo(torch.float32).eps)


@functools.lru_cache(maxsize=128)
def _weights(in_size, out_size, interpolation, antialias, device):
    """The `(out_size, in_size)` float32 matrix of `jax.image.resize`'s weights."""
    inv_scale = in_size / out_size
    kernel_scale = max(inv_scale, 1.0) if antialias else 1.0
    sample = (torch.arange(out_size, dtype=torch.float32, device=device) + 0.5) * inv_scale - 0.5
    return _kernel_matrix(_KERNELS[interpolation], sample, in_size, kernel_scale)


def _kernel_matrix(kernel, sample, in_size, kernel_scale):
    """`(len(sample), in_size)` weights of `kernel` at the sample points, each row
    normalised to sum 1 as `jax.image` does (rows of ~0 total and sample points outside
    the input altogether get no weight)."""
    source = torch.arange(in_size, dtype=sample.dtype, device=sample.device)
    weights = kernel(torch.abs(sample[:, None] - source[None, :]) / kernel_scale)
    total = torch.sum(weights, dim=1, keepdim=True)
    weights = torch.where(
        torch.abs(total) > 1000.0 * _EPSILON_32,
        weights / torch.where(total != 0, total, 1.0),
        0.0,
    )
    inside = (sample >= -0.5) & (sample <= in_size - 0.5)
    return torch.where(inside[:, None], weights, 0.0)


@functools.lru_cache(maxsize=128)
def _nearest_indices(in_size, out_size, device):
    offsets = (torch.arange(out_size, dtype=torch.float32, device=device) + 0.5) * in_size
    return torch.floor(offsets / out_size).to(torch.int64)


def _contract(x, axis, weights):
    """`x` with axis `axis` (length `in`) replaced by `weights @ x` along it."""
    shape = x.shape
    lead, trail = math.prod(shape[:axis]), math.prod(shape[axis + 1 :])
    y = torch.matmul(weights, x.reshape(lead, shape[axis], trail))
    return y.reshape(*shape[:axis], weights.shape[0], *shape[axis + 1 :])


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
    images = convert_to_tensor(images)
    size = shapes.check_resize_args(
        interpolation,
        _KERNELS,
        crop_to_aspect_ratio,
        pad_to_aspect_ratio,
        fill_mode,
        images.ndim,
        size,
    )
    if crop_to_aspect_ratio or pad_to_aspect_ratio:
        images = _fit_aspect_ratio(images, size, data_format, crop_to_aspect_ratio, fill_value)
    n = len(size)
    first = images.ndim - n - 1 if data_format == "channels_last" else images.ndim - n
    dtype = images.dtype
    # Integers resize as float32 (and stay float32, as on JAX); half precision computes
    # in float32 and comes back.
    x = images if images.is_floating_point() and dtype not in _HALF else images.to(torch.float32)
    if interpolation == "bilinear" and n == 2 and x.ndim in (3, 4):
        # torch's own bilinear resampling gives jax.image.resize's numbers (half-pixel
        # centres, the same antialiasing triangle), several times faster.
        x = _interpolate_bilinear(x, size, bool(antialias), data_format)
        return x.to(dtype) if dtype in _HALF else x
    for axis, out_size in enumerate(size, start=first):
        in_size = x.shape[axis]
        if in_size == out_size:  # an identity for every kernel, skipped as on JAX
            continue
        if interpolation == "nearest":
            x = x.index_select(axis, _nearest_indices(in_size, out_size, x.device))
        else:
            weights = _weights(in_size, out_size, interpolation, bool(antialias), x.device)
            x = _contract(x, axis, weights if x.dtype == torch.float32 else weights.to(x.dtype))
    return x.to(dtype) if dtype in _HALF else x


def _interpolate_bilinear(x, size, antialias, data_format):
    unbatched = x.ndim == 3
    if unbatched:
        x = x[None]
    if data_format == "channels_last":
        x = x.permute(0, 3, 1, 2)
    x = F.interpolate(x, size, mode="bilinear", align_corners=False, antialias=antialias)
    if data_format == "channels_last":
        x = x.permute(0, 2, 3, 1)
    return x[0] if unbatched else x


def _fit_aspect_ratio(images, size, data_format, crop, fill_value):
    """Center-crop (or pad with `fill_value`) the (height, width) axes to `size`'s ratio."""
    h_axis = images.ndim - 3 if data_format == "channels_last" else images.ndim - 2
    height, width = images.shape[h_axis], images.shape[h_axis + 1]
    if crop:
        top, left, new_h, new_w = shapes.aspect_ratio_window(height, width, size, True)
        return images.narrow(h_axis, top, new_h).narrow(h_axis + 1, left, new_w)
    top, left = shapes.aspect_ratio_window(height, width, size, False)
    if top == left == 0:
        return images
    # `F.pad` lists (before, after) pairs from the last axis backwards.
    widths = [left, left, top, top]
    if data_format == "channels_last":
        widths = [0, 0, *widths]
    value = float(fill_value) if images.is_floating_point() else int(fill_value)
    return F.pad(images, widths, value=value)


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
    images = convert_to_tensor(images)
    transform = convert_to_tensor(transform, "float32")
    if images.ndim not in (3, 4):
        raise ValueError(
            "affine_transform: expected a single image (rank 3) or a batch (rank 4); "
            f"received shape {tuple(images.shape)}."
        )
    unbatched = images.ndim == 3
    if unbatched:
        images = images[None]
    if transform.ndim == 1:
        transform = transform.expand(images.shape[0], 8)
    if tuple(transform.shape) != (images.shape[0], 8):
        raise ValueError(
            "affine_transform: expected one transform of 8 numbers per image, shape "
            f"({images.shape[0]}, 8); received shape {tuple(transform.shape)}."
        )
    if data_format == "channels_first":
        images = images.movedim(1, -1)
    out = _resample(images, transform, float(fill_value), interpolation, fill_mode)
    if data_format == "channels_first":
        out = out.movedim(-1, 1)
    return out[0] if unbatched else out


def _mirror(index, size):
    if size == 1:
        return torch.zeros_like(index)
    s = size - 1  # half-wavelength of the triangular wave
    return torch.abs(torch.remainder(index + s, 2 * s) - s)


def _reflect(index, size):
    return torch.div(_mirror(2 * index + 1, 2 * size + 1) - 1, 2, rounding_mode="floor")


_INDEX_FIXERS = {
    "constant": lambda index, size: index.clamp(0, size - 1),  # masked after the gather
    "nearest": lambda index, size: index.clamp(0, size - 1),
    "wrap": torch.remainder,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round_half_away_from_zero(x):
    return torch.sign(x) * torch.floor(torch.abs(x) + 0.5)


def _resample(images, transform, fill_value, interpolation, mode):
    """Channels-last batch resampling as `jax.scipy.ndimage.map_coordinates`."""
    dtype = images.dtype
    work = images if images.is_floating_point() and dtype not in _HALF else images.float()
    batch, height, width, channels = work.shape
    device = work.device
    transform = transform.to(device)
    rows = torch.arange(height, dtype=torch.float32, device=device).view(1, height, 1)
    cols = torch.arange(width, dtype=torch.float32, device=device).view(1, 1, width)
    t = transform.view(batch, 8, 1, 1).unbind(1)
    k = t[6] * cols + t[7] * rows + 1.0
    src_x = (t[0] * cols + t[1] * rows + t[2]) / k
    src_y = (t[3] * cols + t[4] * rows + t[5]) / k

    if interpolation == "nearest":
        nodes_y = [(_round_half_away_from_zero(src_y).to(torch.int64), None)]
        nodes_x = [(_round_half_away_from_zero(src_x).to(torch.int64), None)]
    else:
        floor_y, floor_x = torch.floor(src_y), torch.floor(src_x)
        upper_y, upper_x = src_y - floor_y, src_x - floor_x
        y0, x0 = floor_y.to(torch.int64), floor_x.to(torch.int64)
        nodes_y = [(y0, 1.0 - upper_y), (y0 + 1, upper_y)]
        nodes_x = [(x0, 1.0 - upper_x), (x0 + 1, upper_x)]

    fix = _INDEX_FIXERS[mode]
    flat = work.reshape(batch, height * width, channels)
    out = None
    for iy, wy in nodes_y:
        for ix, wx in nodes_x:
            index = fix(iy, height) * width + fix(ix, width)
            index = index.reshape(batch, height * width, 1).expand(-1, -1, channels)
            value = torch.gather(flat, 1, index).reshape(batch, height, width, channels)
            if mode == "constant":
                valid = (iy >= 0) & (iy < height) & (ix >= 0) & (ix < width)
                value = torch.where(valid[..., None], value, fill_value)
            if wy is not None:
                value = value * (wy * wx)[..., None]
            out = value if out is None else out + value
    return out.to(dtype)


def _coordinate_tensor(coordinates):
    """`coordinates` as one stacked tensor (a sequence of per-axis arrays is stacked)."""
    if isinstance(coordinates, (list, tuple)):
        return torch.stack([convert_to_tensor(c) for c in coordinates])
    return convert_to_tensor(coordinates)


def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """Interpolate `inputs` at `coordinates`, as `jax.scipy.ndimage.map_coordinates`.

    `coordinates[i]` holds the positions along axis `i` of `inputs`; the result has the
    shape of `coordinates[0]`. `order` 0 takes the nearest element (halves rounded away
    from zero), 1 interpolates linearly; positions outside are filled by `fill_mode`.
    """
    inputs = convert_to_tensor(inputs)
    coordinates = _coordinate_tensor(coordinates)
    shapes.check_map_coordinates_args(
        tuple(inputs.shape), tuple(coordinates.shape), order, fill_mode
    )
    dtype = inputs.dtype
    # Integers and half precision interpolate in float32 (float64 stays float64).
    work = inputs if inputs.is_floating_point() and dtype not in _HALF else inputs.float()
    coordinates = coordinates.to(work.device)
    if not coordinates.is_floating_point() or coordinates.dtype in _HALF:
        coordinates = coordinates.to(work.dtype)
    fix = _INDEX_FIXERS[fill_mode]
    per_axis = []
    for coordinate, size in zip(coordinates.unbind(0), inputs.shape):
        if order == 0:
            nodes = [(_round_half_away_from_zero(coordinate).to(torch.int64), None)]
        else:
            lower = torch.floor(coordinate)
            upper_weight = coordinate - lower
            index = lower.to(torch.int64)
            nodes = [(index, 1.0 - upper_weight), (index + 1, upper_weight)]
        per_axis.append(
            [(fix(index, size), (index >= 0) & (index < size), weight) for index, weight in nodes]
        )
    # The fill value as the input's dtype holds it (an integer input rounds it first).
    fill = torch.as_tensor(fill_value, dtype=dtype).to(work.dtype)
    flat = work.reshape(-1)
    strides = [math.prod(inputs.shape[i + 1 :]) for i in range(inputs.ndim)]
    out = None
    for combination in itertools.product(*per_axis):
        index = sum(fixed * stride for (fixed, _, _), stride in zip(combination, strides))
        value = torch.take(flat, index)
        if fill_mode == "constant":
            valid = functools.reduce(torch.logical_and, [v for _, v, _ in combination])
            value = torch.where(valid, value, fill)
        weights = [w for _, _, w in combination if w is not None]
        if weights:
            value = functools.reduce(torch.mul, weights).to(value.dtype) * value
        out = value if out is None else out + value
    if not dtype.is_floating_point and dtype != torch.bool:
        out = _round_half_away_from_zero(out)
    return out.to(dtype)


def _scale_translate_weights(in_size, out_size, scale, translation, kernel, antialias):
    """The `(out_size, in_size)` weights `jax.image.scale_and_translate` uses on one axis
    (differentiable in `scale` and `translation`)."""
    dtype = scale.dtype
    inv_scale = 1.0 / scale
    kernel_scale = torch.clamp(inv_scale, min=1.0) if antialias else 1.0
    sample = (
        (torch.arange(out_size, dtype=dtype, device=scale.device) + 0.5) * inv_scale
        - translation * inv_scale
        - 0.5
    )
    return _kernel_matrix(kernel, sample, in_size, kernel_scale)


_SCALE_KERNELS = {
    "linear": _triangle,
    "cubic": _keys_cubic,
    "lanczos3": _lanczos(3),
    "lanczos5": _lanczos(5),
}


def scale_and_translate(
    images, output_shape, scale, translation, spatial_dims, method, antialias=True
):
    """Resample `images` to `output_shape`, as `jax.image.scale_and_translate`.

    Along each axis in `spatial_dims`, input position `x` (half-pixel centres) lands at
    `x * scale + translation` in the output; output samples outside the input are zero.
    `antialias` widens the kernel when downsampling. Each axis is one product with its
    kernel-weight matrix.
    """
    images = convert_to_tensor(images)
    scale, translation = convert_to_tensor(scale), convert_to_tensor(translation)
    output_shape, spatial_dims = shapes.check_scale_and_translate_args(
        tuple(images.shape),
        output_shape,
        spatial_dims,
        scale.numel(),
        translation.numel(),
        method,
    )
    if not images.is_floating_point():
        images = images.float()
    dtype = torch.promote_types(scale.dtype, translation.dtype)
    if not dtype.is_floating_point:
        dtype = torch.float32
    scale = scale.to(images.device, dtype).reshape(-1)
    translation = translation.to(images.device, dtype).reshape(-1)
    kernel = _SCALE_KERNELS[shapes.SCALE_AND_TRANSLATE_METHODS[method]]
    x = images
    for i, axis in enumerate(spatial_dims):
        weights = _scale_translate_weights(
            x.shape[axis], output_shape[axis], scale[i], translation[i], kernel, bool(antialias)
        )
        x = _contract(x, axis, weights.to(x.dtype))
    return x
