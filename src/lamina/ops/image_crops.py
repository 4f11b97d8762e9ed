"""Cropping and padding images to a box: `crop_images`, `pad_images`.

>>> import numpy as np
>>> from lamina.ops import image
>>> image.pad_images(np.ones((4, 4, 1)), 1, 1, target_height=6, target_width=6).shape
(6, 6, 1)
"""

from __future__ import annotations

from lamina.ops import numpy as lnp
from lamina.ops.core import composite, shape
from lamina.ops.image_layout import _batched, _channels_last, _unbatch


def _window(images, data_format, op):
    images, single = _batched(images, op)
    last = _channels_last(data_format)
    height, width = shape(images)[1:3] if last else shape(images)[2:4]
    return images, single, last, height, width


def _resolve(before, after, target, size, names, op):
    """The `(before, after)` amounts of a crop or pad from Keras's keyword arguments."""
    given = [v is not None for v in (before, after, target)]
    if sum(given) != 2:
        raise ValueError(
            f"{op}: give exactly two of `{names[0]}`, `{names[1]}` and `{names[2]}`; received "
            f"{names[0]}={before}, {names[1]}={after}, {names[2]}={target}."
        )
    if target is None:
        return int(before), int(after)
    if before is None:
        return abs(size - target) - int(after), int(after)
    return int(before), abs(size - target) - int(before)


@composite
def crop_images(
    images,
    top_cropping=None,
    left_cropping=None,
    bottom_cropping=None,
    right_cropping=None,
    target_height=None,
    target_width=None,
    data_format=None,
):
    """`images` cropped to a rectangle given by its margins or its size.

    Give exactly two of `top_cropping`, `bottom_cropping` and `target_height`, and
    exactly two of `left_cropping`, `right_cropping` and `target_width`; the third of
    each is derived.

    Args:
        images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
            `data_format="channels_first"`).
        top_cropping: Rows removed at the top.
        left_cropping: Columns removed at the left.
        bottom_cropping: Rows removed at the bottom.
        right_cropping: Columns removed at the right.
        target_height: The height of the result.
        target_width: The width of the result.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The cropped images, in the dtype of `images`.

    Raises:
        ValueError: when not exactly two of each triple are given, or the crop does
            not fit the images.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.arange(16).reshape(4, 4, 1)
    >>> y = ops.image.crop_images(x, top_cropping=1, left_cropping=1, target_height=2,
    ...                           target_width=2)
    >>> ops.convert_to_numpy(y)[:, :, 0].tolist()
    [[5, 6], [9, 10]]
    """
    images, single, last, height, width = _window(images, data_format, "crop_images")
    top, bottom = _resolve(
        top_cropping,
        bottom_cropping,
        target_height,
        height,
        ("top_cropping", "bottom_cropping", "target_height"),
        "crop_images",
    )
    left, right = _resolve(
        left_cropping,
        right_cropping,
        target_width,
        width,
        ("left_cropping", "right_cropping", "target_width"),
        "crop_images",
    )
    if (
        top < 0
        or bottom < 0
        or left < 0
        or right < 0
        or top + bottom >= height
        or left + right >= width
    ):
        raise ValueError(
            f"crop_images: cropping top={top}, bottom={bottom}, left={left}, right={right} does "
            f"not fit images of height {height} and width {width}."
        )
    if last:
        out = images[:, top : height - bottom, left : width - right, :]
    else:
        out = images[:, :, top : height - bottom, left : width - right]
    return _unbatch(out, single)


@composite
def pad_images(
    images,
    top_padding=None,
    left_padding=None,
    bottom_padding=None,
    right_padding=None,
    target_height=None,
    target_width=None,
    data_format=None,
):
    """`images` padded with zeros to a size, or by given margins.

    Give exactly two of `top_padding`, `bottom_padding` and `target_height`, and exactly
    two of `left_padding`, `right_padding` and `target_width`; the third of each is
    derived.

    Args:
        images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
            `data_format="channels_first"`).
        top_padding: Rows of zeros added at the top.
        left_padding: Columns of zeros added at the left.
        bottom_padding: Rows of zeros added at the bottom.
        right_padding: Columns of zeros added at the right.
        target_height: The height of the result.
        target_width: The width of the result.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The padded images, in the dtype of `images`.

    Raises:
        ValueError: when not exactly two of each triple are given, or a padding would be
            negative (a target smaller than the images: use `crop_images`).

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.image.pad_images(np.ones((2, 2, 1)), top_padding=1, left_padding=1,
    ...                          target_height=3, target_width=4)
    >>> ops.convert_to_numpy(y)[:, :, 0].tolist()
    [[0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0]]
    """
    images, single, last, height, width = _window(images, data_format, "pad_images")
    top, bottom = _resolve(
        top_padding,
        bottom_padding,
        target_height,
        height,
        ("top_padding", "bottom_padding", "target_height"),
        "pad_images",
    )
    left, right = _resolve(
        left_padding,
        right_padding,
        target_width,
        width,
        ("left_padding", "right_padding", "target_width"),
        "pad_images",
    )
    if min(top, bottom, left, right) < 0:
        raise ValueError(
            f"pad_images: padding top={top}, bottom={bottom}, left={left}, right={right} is "
            "negative; the target is smaller than the images (use crop_images)."
        )
    spatial = [(top, bottom), (left, right)]
    pads = [(0, 0), *spatial, (0, 0)] if last else [(0, 0), (0, 0), *spatial]
    return _unbatch(lnp.pad(images, pads), single)


__all__ = [
    "crop_images",
    "pad_images",
]
