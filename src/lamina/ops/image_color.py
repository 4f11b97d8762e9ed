"""Color spaces: `rgb_to_grayscale`, `rgb_to_hsv`, `hsv_to_rgb`.

>>> import numpy as np
>>> from lamina.ops import image
>>> image.rgb_to_grayscale(np.ones((2, 2, 3))).shape
(2, 2, 1)
"""

from __future__ import annotations

import numpy as np

from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, convert_to_tensor, shape
from lamina.ops.image_layout import _channels_last, _float

_GRAY = (0.2989, 0.5870, 0.1140)


@composite
def rgb_to_grayscale(images, data_format=None):
    """Luma `0.2989 R + 0.587 G + 0.114 B`, one channel kept, in the input dtype.

    Args:
        images: RGB images, rank 3 `(H, W, 3)` or rank 4 `(N, H, W, 3)` (channels first
            with `data_format="channels_first"`); any dtype (integers are weighted as
            floats and cast back).
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The grayscale images, with a channel axis of length 1, in the dtype of
        `images`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> gray = ops.image.rgb_to_grayscale(np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]))
    >>> np.round(ops.convert_to_numpy(gray).astype(float), 4).tolist()
    [[[0.2989], [0.587]]]
    """
    images = convert_to_tensor(images)
    if len(shape(images)) not in (3, 4):
        raise ValueError(
            f"rgb_to_grayscale: expected rank 3 or 4 images, received shape {shape(images)}."
        )
    axis = -1 if _channels_last(data_format) else -3
    x = _float(images)
    weights = [1] * len(shape(x))
    weights[axis] = 3
    gray = lnp.sum(
        x * lnp.reshape(cast(np.array(_GRAY), dtype(x)), weights), axis=axis, keepdims=True
    )
    return cast(gray, dtype(images))


def _split_rgb(images, data_format, op):
    images = convert_to_tensor(images)
    if len(shape(images)) not in (3, 4):
        raise ValueError(f"{op}: expected rank 3 or 4 images, received shape {shape(images)}.")
    if "float" not in dtype(images):
        raise TypeError(
            f"{op}: expected float images with values in [0, 1], received dtype {dtype(images)}; "
            "cast them (and divide by 255) first."
        )
    axis = -1 if _channels_last(data_format) else -3
    return _unstack(images, axis), axis


def _unstack(x, axis):
    return [lnp.take(x, i, axis=axis) for i in range(3)]


@composite
def rgb_to_hsv(images, data_format=None):
    """RGB to HSV, each channel in `[0, 1]` (hue as a fraction of the circle).

    Hue 0 is red, `1/3` green, `2/3` blue; a gray pixel gets hue 0 and saturation 0.

    Args:
        images: Float RGB images with values in `[0, 1]`, rank 3 or 4 (channels last,
            or first with `data_format="channels_first"`). Integer images are refused:
            cast them and divide by 255 first.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The HSV images (hue, saturation, value on the channel axis), of the shape and
        dtype of `images`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> hsv = ops.image.rgb_to_hsv(np.array([[[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]]]))
    >>> np.round(ops.convert_to_numpy(hsv).astype(float), 4).tolist()
    [[[0.0, 1.0, 1.0], [0.5, 1.0, 0.5]]]
    """
    (r, g, b), axis = _split_rgb(images, data_format, "rgb_to_hsv")
    value = lnp.maximum(lnp.maximum(r, g), b)
    minimum = lnp.minimum(lnp.minimum(r, g), b)
    spread = value - minimum
    safe_value = lnp.where(lnp.greater(value, 0), value, 1.0)
    saturation = lnp.where(lnp.greater(value, 0), spread / safe_value, 0.0)
    safe = lnp.where(lnp.greater(spread, 0), spread, 1.0)
    hue = lnp.where(
        lnp.equal(value, r),
        (g - b) / safe,
        lnp.where(lnp.equal(value, g), 2.0 + (b - r) / safe, 4.0 + (r - g) / safe),
    )
    hue = lnp.where(lnp.greater(spread, 0), hue / 6.0, 0.0)
    hue = hue - lnp.floor(hue)
    return lnp.stack([hue, saturation, value], axis=axis)


@composite
def hsv_to_rgb(images, data_format=None):
    """HSV (each channel in `[0, 1]`) to RGB.

    The inverse of `rgb_to_hsv`: hue is a fraction of the color circle (0 red, `1/3`
    green, `2/3` blue).

    Args:
        images: Float HSV images with values in `[0, 1]`, rank 3 or 4 (channels last,
            or first with `data_format="channels_first"`). Integer images are refused.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The RGB images, values in `[0, 1]`, of the shape and dtype of `images`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> rgb = ops.image.hsv_to_rgb(np.array([[[0.5, 1.0, 1.0], [0.0, 0.0, 0.5]]]))
    >>> np.round(ops.convert_to_numpy(rgb).astype(float), 4).tolist()
    [[[0.0, 1.0, 1.0], [0.5, 0.5, 0.5]]]
    """
    (h, s, v), axis = _split_rgb(images, data_format, "hsv_to_rgb")

    def channel(n):
        k = lnp.mod(n + h * 6.0, 6.0)
        return v - v * s * lnp.clip(lnp.minimum(k, 4.0 - k), 0.0, 1.0)

    return lnp.stack([channel(5.0), channel(3.0), channel(1.0)], axis=axis)


__all__ = [
    "hsv_to_rgb",
    "rgb_to_grayscale",
    "rgb_to_hsv",
]
