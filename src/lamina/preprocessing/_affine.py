"""Affine resampling of a 2-D image on NumPy, as `scipy.ndimage.affine_transform` does it.

Keras 2's `ImageDataGenerator` warps each channel with `scipy.ndimage.affine_transform`
(spline order 1 by default). SciPy is not a lamina dependency, so orders 0 (nearest) and
1 (bilinear) are done here in NumPy, reproducing SciPy's rules step by step: the same
boundary modes (including its `"wrap"`, whose period is `n - 1`, and `"constant"`, which
gives `cval` to any sample outside `[0, n - 1]` without blending), the same weights and
summation order, and the same rounding into integer outputs. On float32 and integer
images the result is bit-identical to SciPy's. Higher orders need spline prefiltering
and are handed to SciPy (imported only then).
"""

from __future__ import annotations

import numpy as np

FILL_MODES = ("constant", "nearest", "reflect", "wrap")


def _map_coordinates(coords: np.ndarray, size: int, mode: str) -> np.ndarray:
    """Bring sample positions outside `[0, size - 1]` back inside per `mode`; under
    `"constant"` they become -1, meaning "use cval"."""
    coords = coords.copy()
    low = coords < 0
    high = coords > size - 1
    if mode == "constant":
        coords[low | high] = -1.0
        return coords
    if size <= 1:
        coords[low | high] = 0.0
        return coords
    if mode == "nearest":
        coords[low] = 0.0
        coords[high] = size - 1
    elif mode == "reflect":  # half-sample symmetric: d c b a | a b c d | d c b a
        period = 2 * size
        below = coords[low]
        below = np.where(below < -period, period * np.trunc(-below / period) + below, below)
        coords[low] = np.where(below < -size, below + period, -below - 1)
        above = coords[high]
        above = above - period * np.trunc(above / period)
        coords[high] = np.where(above >= size, period - above - 1, above)
    else:  # "wrap", SciPy's: the first and last samples coincide (period size - 1)
        period = size - 1
        below = coords[low]
        coords[low] = below + period * (np.trunc(-below / period) + 1)
        above = coords[high]
        coords[high] = above - period * np.trunc(above / period)
    return coords


def _tap_indices(index: np.ndarray, size: int, mode: str) -> np.ndarray:
    """Integer neighbour indices past the border, mapped back into the image."""
    if size <= 1:
        return np.zeros_like(index)
    if mode == "reflect":
        period = 2 * size
        index = np.mod(index, period)
        return np.where(index >= size, period - 1 - index, index)
    # SciPy maps the other modes' neighbours by whole-sample mirroring; they carry zero
    # weight except at positions the modes already mapped inside.
    period = 2 * size - 2
    index = np.where(index < 0, np.mod(index, period), index)
    index = np.where(index >= size, np.mod(index, period), index)
    return np.where(index >= size, period - index, index)


def _cast(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Float64 results into `dtype`, rounding and saturating integers as SciPy does."""
    if dtype.kind == "u":
        values = np.minimum(np.where(values > 0, values + 0.5, 0.0), np.iinfo(dtype).max)
    elif dtype.kind == "i":
        info = np.iinfo(dtype)
        values = np.clip(np.where(values > 0, values + 0.5, values - 0.5), info.min, info.max)
    return values.astype(dtype)


def affine_warp(
    image: np.ndarray,
    matrix: np.ndarray,
    offset: np.ndarray,
    order: int = 1,
    mode: str = "constant",
    cval: float = 0.0,
) -> np.ndarray:
    """Resample a 2-D `image`: output pixel `o` takes the input at `matrix @ o + offset`.

    Args:
        image: a 2-D array.
        matrix: the `(2, 2)` output-to-input matrix.
        offset: the `(2,)` output-to-input offset.
        order: spline order; 0 and 1 run here, 2 to 5 in SciPy.
        mode: `"constant"`, `"nearest"`, `"reflect"` or `"wrap"` (SciPy's meanings).
        cval: the value outside the image under `"constant"`.

    Returns:
        An array of `image`'s shape and dtype.
    """
    if mode not in FILL_MODES:
        raise ValueError(f"fill_mode must be one of {FILL_MODES}; received {mode!r}.")
    if order not in (0, 1):
        try:
            from scipy import ndimage
        except ImportError as error:
            raise ImportError(
                f"Interpolation order {order} needs SciPy (`pip install scipy`); orders 0 "
                "(nearest) and 1 (bilinear, the default) work without it."
            ) from error
        return ndimage.affine_transform(image, matrix, offset, order=order, mode=mode, cval=cval)
    height, width = image.shape
    rows, cols = np.meshgrid(
        np.arange(height, dtype=np.float64), np.arange(width, dtype=np.float64), indexing="ij"
    )
    # Same operation order as SciPy's loop, so the positions agree to the last bit.
    row_in = rows * matrix[0, 0] + cols * matrix[0, 1] + offset[0]
    col_in = rows * matrix[1, 0] + cols * matrix[1, 1] + offset[1]
    row_in = _map_coordinates(row_in, height, mode)
    col_in = _map_coordinates(col_in, width, mode)
    outside = (row_in <= -1.0) | (col_in <= -1.0)
    source = image.astype(np.float64)
    if order == 0:
        row_index = _tap_indices(np.floor(row_in + 0.5).astype(np.int64), height, mode)
        col_index = _tap_indices(np.floor(col_in + 0.5).astype(np.int64), width, mode)
        values = source[row_index, col_index]
    else:
        row_floor, col_floor = np.floor(row_in), np.floor(col_in)
        row_w0 = 1.0 - (row_in - row_floor)
        row_w1 = 1.0 - row_w0
        col_w0 = 1.0 - (col_in - col_floor)
        col_w1 = 1.0 - col_w0
        row_floor, col_floor = row_floor.astype(np.int64), col_floor.astype(np.int64)
        r0, r1 = _tap_indices(row_floor, height, mode), _tap_indices(row_floor + 1, height, mode)
        c0, c1 = _tap_indices(col_floor, width, mode), _tap_indices(col_floor + 1, width, mode)
        values = source[r0, c0] * row_w0 * col_w0
        values = values + source[r0, c1] * row_w0 * col_w1
        values = values + source[r1, c0] * row_w1 * col_w0
        values = values + source[r1, c1] * row_w1 * col_w1
    values = np.where(outside, cval, values)
    return _cast(values, np.dtype(image.dtype))
