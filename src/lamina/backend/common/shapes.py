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
