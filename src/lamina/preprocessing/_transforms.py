"""One-image transforms of Keras 2's `keras.preprocessing.image`: the affine warp
(rotation, shift, shear, zoom about the centre), channel and brightness shifts, and their
random versions. Re-exported by `lamina.preprocessing.image`."""

from __future__ import annotations

import numpy as np

from lamina.backend.config import floatx
from lamina.preprocessing._affine import FILL_MODES, affine_warp


def _pil_image_enhance():
    try:
        from PIL import Image, ImageEnhance
    except ImportError as error:
        raise ImportError(
            "Brightness shifts need Pillow: `pip install pillow` (or lamina[image])."
        ) from error
    return Image, ImageEnhance


def _transform_matrix_offset_center(matrix: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Conjugate `matrix` so it acts about the image centre rather than the corner."""
    center_row = float(rows) / 2 - 0.5
    center_col = float(cols) / 2 - 0.5
    to_center = np.array([[1, 0, center_row], [0, 1, center_col], [0, 0, 1]])
    from_center = np.array([[1, 0, -center_row], [0, 1, -center_col], [0, 0, 1]])
    return np.dot(np.dot(to_center, matrix), from_center)


def apply_affine_transform(
    x: np.ndarray,
    theta: float = 0,
    tx: float = 0,
    ty: float = 0,
    shear: float = 0,
    zx: float = 1,
    zy: float = 1,
    row_axis: int = 1,
    col_axis: int = 2,
    channel_axis: int = 0,
    fill_mode: str = "nearest",
    cval: float = 0.0,
    order: int = 1,
) -> np.ndarray:
    """Rotate, shift, shear and zoom one image about its centre.

    The parameters compose as Keras 2 composes them (rotation, then shift, shear, zoom,
    as a map from output to input pixels), and each channel is resampled with spline
    `order` 0 or 1 in NumPy (2-5 through SciPy).

    Args:
        x: a 3-D image.
        theta: rotation angle in degrees.
        tx: shift in pixels of Keras's "x" coordinate, which (as in Keras 2, whose axis
            swap this keeps) moves content along the column axis when
            `col_axis > row_axis`; `ImageDataGenerator` draws it from
            `height_shift_range`, exactly as Keras does.
        ty: shift in pixels of the "y" coordinate (the row axis in that case).
        shear: shear angle in degrees.
        zx: zoom of the "x" coordinate (input pixels per output pixel).
        zy: zoom of the "y" coordinate.
        row_axis: the index of the row axis in `x`.
        col_axis: the index of the column axis.
        channel_axis: the index of the channel axis (0 or 2).
        fill_mode: `"constant"`, `"nearest"`, `"reflect"` or `"wrap"` for points
            outside the image.
        cval: the fill value under `"constant"`.
        order: the interpolation order.

    Returns:
        The transformed image (same shape and dtype); `x` itself when every parameter is
        the identity.

    >>> import numpy as np
    >>> image = np.arange(9.0).reshape(1, 3, 3)
    >>> apply_affine_transform(image, tx=1, fill_mode="constant")[0].tolist()
    [[1.0, 2.0, 0.0], [4.0, 5.0, 0.0], [7.0, 8.0, 0.0]]
    """
    if sorted((row_axis, col_axis, channel_axis)) != [0, 1, 2]:
        raise ValueError(
            "apply_affine_transform: row_axis, col_axis and channel_axis must be 0, 1 and 2 "
            f"in some order; received {row_axis}, {col_axis}, {channel_axis}."
        )
    if np.ndim(x) != 3:
        raise ValueError(
            "apply_affine_transform expects one image with a channel axis (3-D); received "
            f"shape {np.shape(x)}."
        )
    if channel_axis not in (0, 2):
        raise ValueError(
            f"apply_affine_transform: channel_axis must be 0 or 2; received {channel_axis}."
        )
    if fill_mode not in FILL_MODES:
        raise ValueError(f"fill_mode must be one of {FILL_MODES}; received {fill_mode!r}.")
    matrix = None

    def compose(step):
        return step if matrix is None else np.dot(matrix, step)

    if theta != 0:
        angle = np.deg2rad(theta)
        cos, sin = np.cos(angle), np.sin(angle)
        matrix = compose(np.array([[cos, -sin, 0], [sin, cos, 0], [0, 0, 1]]))
    if tx != 0 or ty != 0:
        matrix = compose(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        angle = np.deg2rad(shear)
        matrix = compose(np.array([[1, -np.sin(angle), 0], [0, np.cos(angle), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        matrix = compose(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if matrix is None:
        return x
    matrix = _transform_matrix_offset_center(matrix, x.shape[row_axis], x.shape[col_axis])
    if col_axis > row_axis:
        # The matrix is written for (row, col) = (x, y) of the channel image; NumPy
        # indexes (row, col), so swap both coordinates when the axes are in that order.
        matrix[:, [0, 1]] = matrix[:, [1, 0]]
        matrix[[0, 1]] = matrix[[1, 0]]
    channels = np.moveaxis(x, channel_axis, 0)
    warped = [
        affine_warp(channel, matrix[:2, :2], matrix[:2, 2], order, fill_mode, cval)
        for channel in channels
    ]
    return np.moveaxis(np.stack(warped, axis=0), 0, channel_axis)


def apply_channel_shift(x: np.ndarray, intensity: float, channel_axis: int = 0) -> np.ndarray:
    """Add `intensity` to every channel, clipped to the image's original value range.

    Args:
        x: a 3-D image.
        intensity: the value added.
        channel_axis: the index of the channel axis.

    Returns:
        The shifted image.

    >>> import numpy as np
    >>> from lamina.preprocessing import image
    >>> x = np.array([[[0.0, 50.0], [90.0, 100.0]]])  # (channels, rows, cols)
    >>> image.apply_channel_shift(x, 20.0).tolist()  # clipped to the original range [0, 100]
    [[[20.0, 70.0], [100.0, 100.0]]]
    """
    low, high = np.min(x), np.max(x)
    channels = [
        np.clip(channel + intensity, low, high) for channel in np.moveaxis(x, channel_axis, 0)
    ]
    return np.moveaxis(np.stack(channels, axis=0), 0, channel_axis)


def _to_uint8_image(x: np.ndarray, scale: bool):
    """A channels-last image as a Pillow image, as Keras's `array_to_img` makes it."""
    Image, _ = _pil_image_enhance()
    x = np.asarray(x, dtype=floatx())
    if scale:
        x = x - np.min(x)
        peak = np.max(x)
        if peak != 0:
            x /= peak
        x *= 255
    channels = x.shape[-1]
    if channels == 4:
        return Image.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return Image.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        return Image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(
        f"Brightness shifts need 1, 3 or 4 channels; received an image of shape {x.shape}."
    )


def apply_brightness_shift(x: np.ndarray, brightness: float, scale: bool = True) -> np.ndarray:
    """Scale brightness by `brightness` through Pillow's `ImageEnhance.Brightness`.

    The image goes through 8-bit (as in Keras): values outside `[0, 255]` are mapped
    into it and back.

    Args:
        x: a channels-last 3-D image.
        brightness: the brightness factor (1: unchanged).
        scale: stretch the result to `[0, 255]`; if False, keep the input's range.

    Returns:
        A float image.

    >>> import numpy as np
    >>> from lamina.preprocessing import image
    >>> x = np.array([0.0, 100.0, 200.0, 250.0]).reshape(2, 2, 1)  # (rows, cols, channels)
    >>> image.apply_brightness_shift(x, 0.5, scale=False).ravel().tolist()
    [0.0, 50.0, 100.0, 125.0]
    """
    _, ImageEnhance = _pil_image_enhance()
    low, high = np.min(x), np.max(x)
    out_of_range = (low < 0) or (high > 255)
    image = ImageEnhance.Brightness(_to_uint8_image(x, out_of_range or scale)).enhance(brightness)
    result = np.asarray(image, dtype=floatx())
    if result.ndim == 2:
        result = result[:, :, None]
    if not scale and out_of_range:
        result = result / 255 * (high - low) + low
    return result


def random_rotation(
    x,
    rg,
    row_axis=1,
    col_axis=2,
    channel_axis=0,
    fill_mode="nearest",
    cval=0.0,
    interpolation_order=1,
):
    """Rotate by an angle drawn uniformly from `[-rg, rg]` degrees (see
    `apply_affine_transform` for the other arguments).

    >>> import numpy as np
    >>> from lamina.preprocessing import image
    >>> x = np.arange(16.0).reshape(1, 4, 4)
    >>> out = image.random_rotation(x, 30)
    >>> out.shape, bool(out.min() >= 0.0 and out.max() <= 15.0)
    ((1, 4, 4), True)
    """
    theta = np.random.uniform(-rg, rg)
    return apply_affine_transform(
        x,
        theta=theta,
        row_axis=row_axis,
        col_axis=col_axis,
        channel_axis=channel_axis,
        fill_mode=fill_mode,
        cval=cval,
        order=interpolation_order,
    )


def random_shift(
    x,
    wrg,
    hrg,
    row_axis=1,
    col_axis=2,
    channel_axis=0,
    fill_mode="nearest",
    cval=0.0,
    interpolation_order=1,
):
    """Shift by fractions drawn from `[-hrg, hrg]` of the height and `[-wrg, wrg]` of the
    width (see `apply_affine_transform` for the other arguments).

    >>> import numpy as np
    >>> from lamina.preprocessing import image
    >>> x = np.arange(16.0).reshape(1, 4, 4)
    >>> image.random_shift(x, 0.25, 0.25, fill_mode="constant").shape
    (1, 4, 4)
    """
    tx = np.random.uniform(-hrg, hrg) * x.shape[row_axis]
    ty = np.random.uniform(-wrg, wrg) * x.shape[col_axis]
    return apply_affine_transform(
        x,
        tx=tx,
        ty=ty,
        row_axis=row_axis,
        col_axis=col_axis,
        channel_axis=channel_axis,
        fill_mode=fill_mode,
        cval=cval,
        order=interpolation_order,
    )


def random_shear(
    x,
    intensity,
    row_axis=1,
    col_axis=2,
    channel_axis=0,
    fill_mode="nearest",
    cval=0.0,
    interpolation_order=1,
):
    """Shear by an angle drawn from `[-intensity, intensity]` degrees (see
    `apply_affine_transform` for the other arguments).

    >>> import numpy as np
    >>> from lamina.preprocessing import image
    >>> x = np.ones((1, 4, 4))
    >>> image.random_shear(x, 20).tolist() == x.tolist()  # a constant image, "nearest" fill
    True
    """
    shear = np.random.uniform(-intensity, intensity)
    return apply_affine_transform(
        x,
        shear=shear,
        row_axis=row_axis,
        col_axis=col_axis,
        channel_axis=channel_axis,
        fill_mode=fill_mode,
        cval=cval,
        order=interpolation_order,
    )


def random_zoom(
    x,
    zoom_range,
    row_axis=1,
    col_axis=2,
    channel_axis=0,
    fill_mode="nearest",
    cval=0.0,
    interpolation_order=1,
):
    """Zoom by factors drawn from `zoom_range = (low, high)` per axis (see
    `apply_affine_transform` for the other arguments).

    >>> import numpy as np
    >>> from lamina.preprocessing import image
    >>> x = np.arange(16.0).reshape(1, 4, 4)
    >>> image.random_zoom(x, (0.5, 0.5))[0].tolist()  # a factor below 1 zooms in
    [[3.75, 4.25, 4.75, 5.25], [5.75, 6.25, 6.75, 7.25], [7.75, 8.25, 8.75, 9.25], [9.75, 10.25, 10.75, 11.25]]
    """
    if len(zoom_range) != 2:
        raise ValueError(f"random_zoom: zoom_range must be two floats; received {zoom_range!r}.")
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1, 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return apply_affine_transform(
        x,
        zx=zx,
        zy=zy,
        row_axis=row_axis,
        col_axis=col_axis,
        channel_axis=channel_axis,
        fill_mode=fill_mode,
        cval=cval,
        order=interpolation_order,
    )


def random_channel_shift(x, intensity_range, channel_axis=0):
    """`apply_channel_shift` by an intensity drawn from `[-intensity_range, intensity_range]`.

    >>> import numpy as np
    >>> from lamina.preprocessing import image
    >>> x = np.array([[[0.0, 50.0], [90.0, 100.0]]])
    >>> out = image.random_channel_shift(x, 10.0)
    >>> out.shape, bool(out.min() >= 0.0 and out.max() <= 100.0)
    ((1, 2, 2), True)
    """
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


def random_brightness(x, brightness_range, scale=True):
    """`apply_brightness_shift` by a factor drawn from `brightness_range = (low, high)`.

    >>> import numpy as np
    >>> from lamina.preprocessing import image
    >>> x = np.array([0.0, 100.0, 200.0, 250.0]).reshape(2, 2, 1)
    >>> image.random_brightness(x, (0.5, 0.5), scale=False).ravel().tolist()
    [0.0, 50.0, 100.0, 125.0]
    """
    if len(brightness_range) != 2:
        raise ValueError(
            f"random_brightness: brightness_range must be two floats; received {brightness_range!r}."
        )
    factor = np.random.uniform(brightness_range[0], brightness_range[1])
    return apply_brightness_shift(x, factor, scale)
