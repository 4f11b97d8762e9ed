"""Image files and arrays: `load_img`, `img_to_array`, `array_to_img`, `save_img`.

The same functions, with the same arguments and results, as `keras.utils.*`. Images are
Pillow (`PIL.Image`) objects; Pillow is the optional extra `lamina[image]` and is
imported only when one of these functions runs, so `import lamina` never needs it.

>>> import numpy as np
>>> img = array_to_img(np.zeros((2, 3, 3)), scale=False)
>>> img.size  # Pillow sizes are (width, height)
(3, 2)
>>> img_to_array(img).shape
(2, 3, 3)
"""

from __future__ import annotations

import io
import os
import pathlib
import warnings

import numpy as np

from lamina.backend.config import floatx, standardize_data_format

# Pillow's resampling filters by Keras's names (attribute names on `PIL.Image.Resampling`).
_PIL_INTERPOLATIONS = {
    "nearest": "NEAREST",
    "bilinear": "BILINEAR",
    "bicubic": "BICUBIC",
    "hamming": "HAMMING",
    "box": "BOX",
    "lanczos": "LANCZOS",
}

_COLOR_MODES = ("grayscale", "rgb", "rgba")


def _pil_image(caller: str):
    """`PIL.Image`, or an ImportError that says how to install it."""
    try:
        from PIL import Image
    except ImportError as error:
        raise ImportError(
            f"`{caller}` needs Pillow to read and write images, and it is not installed. "
            "Install it with `pip install lamina[image]` (or `pip install pillow`)."
        ) from error
    return Image


def _resampling(pil_image, interpolation: str):
    if interpolation not in _PIL_INTERPOLATIONS:
        raise ValueError(
            f"Invalid interpolation method {interpolation!r}. Supported methods are "
            f"{', '.join(_PIL_INTERPOLATIONS)}."
        )
    return getattr(pil_image.Resampling, _PIL_INTERPOLATIONS[interpolation])


def open_image(path, caller: str = "load_img"):
    """Open an image file (path, `pathlib.Path`, bytes path or `io.BytesIO`) with Pillow.

    The file is read whole into memory, so no file handle stays open. A file Pillow
    cannot read raises `PIL.UnidentifiedImageError` naming the file.
    """
    pil_image = _pil_image(caller)
    if isinstance(path, io.BytesIO):
        source, name = path, "<BytesIO>"
    elif isinstance(path, (pathlib.Path, bytes, str)):
        if isinstance(path, pathlib.Path):
            path = str(path.resolve())
        name = os.fsdecode(path)
        with open(path, "rb") as f:
            source = io.BytesIO(f.read())
    else:
        raise TypeError(
            f"`{caller}` expected a path (str, bytes or pathlib.Path) or an io.BytesIO; "
            f"received {type(path).__name__}: {path!r}."
        )
    try:
        return pil_image.open(source)
    except pil_image.UnidentifiedImageError as error:
        raise pil_image.UnidentifiedImageError(
            f"Cannot read the image file {name!r}: it is not an image format Pillow "
            "recognises, or it is corrupt or truncated. Remove or replace the file."
        ) from error


def load_img(
    path,
    color_mode: str = "rgb",
    target_size: tuple[int, int] | None = None,
    interpolation: str = "nearest",
    keep_aspect_ratio: bool = False,
):
    """Load an image file as a Pillow image, as `keras.utils.load_img` does.

    Args:
        path: Path to the image file (str, bytes or `pathlib.Path`) or an `io.BytesIO`.
        color_mode: `"grayscale"`, `"rgb"` (default) or `"rgba"`. Grayscale keeps 8-,
            16- and 32-bit grayscale images as they are and converts others to 8-bit.
        target_size: `None` (keep the file's size) or `(height, width)`.
        interpolation: Resampling used when resizing: `"nearest"` (default),
            `"bilinear"`, `"bicubic"`, `"hamming"`, `"box"` or `"lanczos"`.
        keep_aspect_ratio: If True, resize the largest centred crop that has the
            target's aspect ratio, so the image is not distorted.

    Returns:
        A `PIL.Image.Image`.

    >>> import os, tempfile
    >>> import numpy as np
    >>> from lamina import utils
    >>> tmp = tempfile.TemporaryDirectory()
    >>> utils.save_img(os.path.join(tmp.name, "red.png"), np.full((4, 6, 3), [255.0, 0.0, 0.0]))
    >>> img = utils.load_img(os.path.join(tmp.name, "red.png"), target_size=(2, 3))
    >>> img.size, img.mode  # a Pillow image: (width, height)
    ((3, 2), 'RGB')
    >>> utils.img_to_array(img)[0, 0].tolist()
    [255.0, 0.0, 0.0]
    >>> tmp.cleanup()
    """
    pil_image = _pil_image("load_img")
    img = open_image(path, "load_img")
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode == "rgba":
        if img.mode != "RGBA":
            img = img.convert("RGBA")
    elif color_mode == "rgb":
        if img.mode != "RGB":
            img = img.convert("RGB")
    else:
        raise ValueError(
            f'color_mode must be "grayscale", "rgb", or "rgba"; received {color_mode!r}.'
        )
    if target_size is None:
        return img
    width_height = (int(target_size[1]), int(target_size[0]))
    if img.size == width_height:
        return img
    resample = _resampling(pil_image, interpolation)
    if not keep_aspect_ratio:
        return img.resize(width_height, resample)
    width, height = img.size
    target_width, target_height = width_height
    # The largest window with the target's aspect ratio, centred (integer arithmetic).
    crop_height = min(height, (width * target_height) // target_width)
    crop_width = min(width, (height * target_width) // target_height)
    top = (height - crop_height) // 2
    left = (width - crop_width) // 2
    box = (left, top, left + crop_width, top + crop_height)
    return img.resize(width_height, resample, box=box)


def img_to_array(img, data_format: str | None = None, dtype: str | None = None) -> np.ndarray:
    """A Pillow image as a 3D NumPy array, as `keras.utils.img_to_array` does.

    Args:
        img: A `PIL.Image.Image` (or anything `np.asarray` reads as a 2D/3D image).
        data_format: `"channels_last"` (height, width, channels) or `"channels_first"`;
            `None` uses `lamina.config.image_data_format()`.
        dtype: Output dtype; `None` uses `floatx()` (`"float32"` by default).

    Returns:
        A 3D array; a one-channel image gets a channel axis of size 1.

    >>> import numpy as np
    >>> from lamina import utils
    >>> img = utils.array_to_img(np.zeros((2, 3, 3)))
    >>> x = utils.img_to_array(img)
    >>> x.shape, x.dtype
    ((2, 3, 3), dtype('float32'))
    """
    data_format = standardize_data_format(data_format)
    if dtype is None:
        dtype = floatx()
    x = np.asarray(img, dtype=dtype)
    if x.ndim == 3:
        if data_format == "channels_first":
            x = x.transpose(2, 0, 1)
    elif x.ndim == 2:
        if data_format == "channels_first":
            x = x.reshape((1, x.shape[0], x.shape[1]))
        else:
            x = x.reshape((x.shape[0], x.shape[1], 1))
    else:
        raise ValueError(
            f"Unsupported image shape: {x.shape}. Expected a 2D (grayscale) or 3D image."
        )
    return x


def array_to_img(x, data_format: str | None = None, scale: bool = True, dtype: str | None = None):
    """A 3D array as a Pillow image, as `keras.utils.array_to_img` does.

    Args:
        x: Array-like of rank 3 with 1 (grayscale), 3 (RGB) or 4 (RGBA) channels.
        data_format: `"channels_last"` or `"channels_first"`; `None` uses the global
            image data format.
        scale: If True (default), shift and scale the values so the minimum is 0 and
            the maximum 255. If False, values are cast to uint8 as they are.
        dtype: Dtype the array is read as first; `None` uses `floatx()`.

    Returns:
        A `PIL.Image.Image` (mode `"L"`, `"I"`, `"RGB"` or `"RGBA"`).

    >>> import numpy as np
    >>> from lamina import utils
    >>> img = utils.array_to_img(np.array([[[0.0], [0.5]], [[1.0], [0.25]]]))  # scaled to 0-255
    >>> img.size, img.mode, np.asarray(img).tolist()
    ((2, 2), 'L', [[0, 127], [255, 63]])
    """
    data_format = standardize_data_format(data_format)
    if dtype is None:
        dtype = floatx()
    pil_image = _pil_image("array_to_img")
    x = np.asarray(x, dtype=dtype)
    if x.ndim != 3:
        raise ValueError(
            f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}"
        )
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    channels = x.shape[2]
    if channels == 4:
        return pil_image.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return pil_image.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:
            # Values past 8 bits: a 32-bit integer grayscale image (Pillow mode "I").
            return pil_image.fromarray(x[:, :, 0].astype("int32"), "I")
        return pil_image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(
        f"Unsupported channel number: {channels}. Expected 1 (grayscale), 3 (RGB) or "
        "4 (RGBA) channels."
    )


def save_img(
    path,
    x,
    data_format: str | None = None,
    file_format: str | None = None,
    scale: bool = True,
    **kwargs,
) -> None:
    """Save an image array to a file, as `keras.utils.save_img` does.

    Args:
        path: Path or writable file object.
        x: 3D image array (see `array_to_img`).
        data_format: `"channels_last"` or `"channels_first"`.
        file_format: Format such as `"png"` or `"jpeg"`; `None` takes it from the
            file name's extension (give it when `path` is a file object).
        scale: Whether to rescale values to `[0, 255]` (see `array_to_img`).
        **kwargs: Passed to `PIL.Image.Image.save` (e.g. `quality=95`).

    >>> import os, tempfile
    >>> import numpy as np
    >>> from lamina import utils
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "gray.png")
    >>> utils.save_img(path, np.full((4, 4, 1), 0.5), scale=False)
    >>> utils.img_to_array(utils.load_img(path, color_mode="grayscale")).shape
    (4, 4, 1)
    >>> tmp.cleanup()
    """
    data_format = standardize_data_format(data_format)
    if file_format is None and isinstance(path, (str, pathlib.Path)):
        file_format = pathlib.Path(path).suffix[1:].lower()
    if file_format and file_format.lower() == "jpg":
        file_format = "jpeg"
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format == "jpeg":
        warnings.warn(
            "The JPEG format does not support RGBA images, converting to RGB.", stacklevel=2
        )
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


def smart_resize(
    x, size, interpolation: str = "bilinear", data_format: str = "channels_last", **kwargs
):
    """Resize image(s) to `size` without distortion: centre-crop to the aspect ratio first.

    As `keras.preprocessing.image.smart_resize`: takes the largest centred window of
    `x` with the aspect ratio of `size`, then resizes it to `size`.

    Args:
        x: An image `(height, width, channels)` or a batch of them (rank 4); channels
            first with `data_format="channels_first"`.
        size: `(height, width)` to resize to.
        interpolation: `"bilinear"` (default), `"nearest"`, `"bicubic"`, `"lanczos3"`,
            `"lanczos5"` or `"area"`.
        data_format: `"channels_last"` (default) or `"channels_first"`.
        **kwargs: Keras's `backend_module`, the set of functions to compute with (its
            preprocessing layers pass TensorFlow's inside `tf.data`). lamina has one set,
            its ops, so it is accepted and ignored.

    Returns:
        The resized image(s): a NumPy array when `x` is one, else an engine tensor.

    >>> import numpy as np
    >>> from lamina.preprocessing import image
    >>> x = np.arange(24.0).reshape(4, 6, 1)  # 4 x 6: the centred 4 x 4 window is kept
    >>> image.smart_resize(x, (2, 2), interpolation="nearest")[..., 0].tolist()
    [[8.0, 10.0], [20.0, 22.0]]
    """
    from lamina import ops

    kwargs.pop("backend_module", None)
    if kwargs:
        raise TypeError(
            f"smart_resize got unexpected keyword argument(s) {sorted(kwargs)}; it takes "
            "`interpolation`, `data_format` and Keras's `backend_module`."
        )

    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    ndim = len(np.shape(x))
    if ndim not in (3, 4):
        raise ValueError(
            "Expected an image array with shape `(height, width, channels)`, or "
            "`(batch_size, height, width, channels)`, but got input with incorrect rank, "
            f"of shape {np.shape(x)}."
        )
    out = ops.image.resize(
        x,
        tuple(int(s) for s in size),
        interpolation=interpolation,
        crop_to_aspect_ratio=True,
        data_format=data_format,
    )
    if isinstance(x, np.ndarray):
        return np.asarray(ops.convert_to_numpy(out))
    return out
