"""Engine-neutral argument checks and shape arithmetic shared by every engine's `nn` and
`image` modules (plain Python on ints and strings; no tensors)."""

from __future__ import annotations

# Boundary modes of `affine_transform` (Keras's names are `map_coordinates`'s) and the
# spline order of each interpolation.
FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
AFFINE_ORDERS = {"nearest": 0, "bilinear": 1}


def conv_transpose_output_length(
    length, kernel_size, stride, padding="valid", output_padding=None, dilation=1
):
    """The Keras (TF) output length of a transposed convolution along one axis."""
    if length is None:
        return None
    k = (kernel_size - 1) * dilation + 1
    padding = str(padding).lower()
    if output_padding is None:
        if padding == "valid":
            return length * stride + max(k - stride, 0)
        return length * stride
    pad = k // 2 if padding == "same" else 0
    return (length - 1) * stride + k - 2 * pad + output_padding


def check_resize_args(interpolation, methods, crop, pad, fill_mode, ndim, size) -> tuple:
    """Validate `resize`'s arguments; returns `size` as a tuple of ints."""
    if interpolation not in methods:
        raise ValueError(
            f"resize: unknown interpolation {interpolation!r}; expected one of {list(methods)}."
        )
    if crop and pad:
        raise ValueError(
            "resize: pass only one of crop_to_aspect_ratio=True and pad_to_aspect_ratio=True."
        )
    if fill_mode != "constant":
        raise ValueError(f"resize: fill_mode must be 'constant'; received {fill_mode!r}.")
    size = tuple(int(s) for s in size)
    if ndim < len(size) + 1:
        raise ValueError(
            f"resize: images of rank {ndim} cannot be resized to {len(size)} spatial "
            "dimensions (need at least a channel axis as well)."
        )
    if (crop or pad) and len(size) != 2:
        raise ValueError(
            "resize: crop_to_aspect_ratio and pad_to_aspect_ratio need a 2-D `size` "
            f"(height, width); received {size}."
        )
    return size


def aspect_ratio_window(height, width, size, crop) -> tuple:
    """Where `resize` crops or pads (height, width) to `size`'s aspect ratio.

    With `crop`: `(top, left, new_height, new_width)`, the largest centred crop. Else
    `(top, left)`, the padding on each side: as Keras's op does, the same on both sides,
    half the shortfall rounded down (an odd shortfall leaves the ratio one pixel short).
    """
    # The height that `width` needs at the target ratio, and the width `height` needs.
    want_h = int(width * size[0] / size[1])
    want_w = int(height * size[1] / size[0])
    if crop:
        new_h, new_w = max(min(height, want_h), 1), max(min(width, want_w), 1)
        return (height - new_h) // 2, (width - new_w) // 2, new_h, new_w
    return (max(height, want_h) - height) // 2, (max(width, want_w) - width) // 2


def check_affine_args(interpolation, fill_mode) -> None:
    """Validate `affine_transform`'s interpolation and fill mode."""
    if interpolation not in AFFINE_ORDERS:
        raise ValueError(
            f"affine_transform: unknown interpolation {interpolation!r}; expected one of "
            f"{list(AFFINE_ORDERS)}."
        )
    if fill_mode not in FILL_MODES:
        raise ValueError(
            f"affine_transform: unknown fill_mode {fill_mode!r}; expected one of "
            f"{list(FILL_MODES)}."
        )


def check_map_coordinates_args(input_shape, coordinates_shape, order, fill_mode) -> None:
    """Validate `map_coordinates`'s arguments (shapes as tuples of ints)."""
    if len(coordinates_shape) < 2:
        raise ValueError(
            "map_coordinates: `coordinates` must have rank 2 or more (one array of "
            f"positions per input axis, stacked first); received shape {coordinates_shape}."
        )
    if coordinates_shape[0] != len(input_shape):
        raise ValueError(
            "map_coordinates: the first axis of `coordinates` must have one entry per axis "
            f"of `inputs` ({len(input_shape)} for inputs of shape {input_shape}); received "
            f"coordinates of shape {coordinates_shape}."
        )
    if isinstance(order, bool) or order not in (0, 1):
        raise ValueError(
            f"map_coordinates: order must be 0 (nearest) or 1 (linear); received {order!r}."
        )
    if fill_mode not in FILL_MODES:
        raise ValueError(
            f"map_coordinates: unknown fill_mode {fill_mode!r}; expected one of {list(FILL_MODES)}."
        )


# `scale_and_translate`'s methods (Keras's names) -> the kernel's family.
SCALE_AND_TRANSLATE_METHODS = {
    "linear": "linear",
    "bilinear": "linear",
    "trilinear": "linear",
    "triangle": "linear",
    "cubic": "cubic",
    "bicubic": "cubic",
    "tricubic": "cubic",
    "lanczos3": "lanczos3",
    "lanczos5": "lanczos5",
}


def check_scale_and_translate_args(
    input_shape, output_shape, spatial_dims, n_scale, n_translation, method
) -> tuple:
    """Validate `scale_and_translate`'s arguments; returns `(output_shape, spatial_dims)`
    as tuples of ints, the dims made non-negative."""
    if method not in SCALE_AND_TRANSLATE_METHODS:
        raise ValueError(
            f"scale_and_translate: unknown method {method!r}; expected one of "
            f"{list(SCALE_AND_TRANSLATE_METHODS)} (nearest-neighbour is not supported)."
        )
    ndim = len(input_shape)
    output_shape = tuple(output_shape)
    if len(output_shape) != ndim:
        raise ValueError(
            "scale_and_translate: output_shape needs one size per axis of `images` "
            f"(shape {input_shape}); received {output_shape}."
        )
    dims = []
    for d in spatial_dims:
        d = int(d)
        if not -ndim <= d < ndim:
            raise ValueError(
                f"scale_and_translate: spatial dim {d} is out of range for images of rank {ndim}."
            )
        dims.append(d % ndim)
    if len(set(dims)) != len(dims):
        raise ValueError(
            f"scale_and_translate: spatial_dims repeats an axis: {tuple(spatial_dims)}."
        )
    if n_scale != len(dims) or n_translation != len(dims):
        raise ValueError(
            "scale_and_translate: scale and translation need one number per spatial dim "
            f"({len(dims)}); received {n_scale} and {n_translation}."
        )
    # `None` (a symbolic batch axis, say) keeps an axis outside `spatial_dims` as it is.
    output_shape = tuple(
        int(input_shape[axis]) if size is None and axis not in dims else size
        for axis, size in enumerate(output_shape)
    )
    if any(size is None for size in output_shape):
        raise ValueError(
            "scale_and_translate: output_shape needs a size for each axis in spatial_dims "
            f"{tuple(dims)}; received {output_shape}."
        )
    output_shape = tuple(int(size) for size in output_shape)
    for axis in range(ndim):
        if axis not in dims and output_shape[axis] != input_shape[axis]:
            raise ValueError(
                f"scale_and_translate: axis {axis} is not in spatial_dims {tuple(dims)}, so "
                f"its output size must stay {input_shape[axis]}; received output_shape "
                f"{output_shape}."
            )
    return output_shape, tuple(dims)
