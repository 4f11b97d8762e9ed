"""`image_dataset_from_directory`: a folder of images (one subfolder per class) as a
dataset `fit` takes directly.

Keras's arguments, defaults, file order, split and outputs, on Pillow and NumPy instead
of tf.data: float32 images in `[0, 255]` resized to `image_size`, with int32, float32
binary or float32 one-hot labels. Images are decoded when their batch is asked for.
"""

from __future__ import annotations

import os

import numpy as np

from lamina.backend.common import shapes
from lamina.backend.config import standardize_data_format
from lamina.utils import dataset_utils
from lamina.utils.dataset_utils import SampleDataset
from lamina.utils.image_utils import open_image

ALLOWLIST_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")

_CHANNELS = {"grayscale": 1, "rgb": 3, "rgba": 4}
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5")
# In Keras's list too, but TensorFlow's own resize kernels.
_TF_ONLY_INTERPOLATIONS = ("gaussian", "mitchellcubic")


def image_dataset_from_directory(
    directory,
    labels="inferred",
    label_mode="int",
    class_names=None,
    color_mode: str = "rgb",
    batch_size: int | None = 32,
    image_size=(256, 256),
    shuffle: bool = True,
    seed: int | None = None,
    validation_split: float | None = None,
    subset: str | None = None,
    interpolation: str = "bilinear",
    follow_links: bool = False,
    crop_to_aspect_ratio: bool = False,
    pad_to_aspect_ratio: bool = False,
    data_format: str | None = None,
    format: str = "tf",
    verbose: bool = True,
):
    """Make a dataset of images (and labels) from the image files in a directory.

    With `labels="inferred"` the directory holds one subdirectory per class
    (`main/class_a/img1.jpg`, `main/class_b/img2.png`, ...), searched recursively;
    classes are numbered in alphanumeric order of their folder names (or the order of
    `class_names`). Supported files: `.bmp`, `.gif` (first frame), `.jpeg`, `.jpg`,
    `.png`. The result is a `PyDataset` that `fit`, `evaluate` and `predict` take
    directly, with `.class_names` and `.file_paths`.

    Args:
        directory: The data folder.
        labels: `"inferred"` (from the subdirectory names), `None` (images only), or a
            list/tuple of integer labels, one per image file in the sorted order of the
            file paths (`os.walk` order).
        label_mode: `"int"` (int32, shape `(batch,)`), `"categorical"` (float32 one-hot,
            `(batch, num_classes)`), `"binary"` (float32 0/1, `(batch, 1)`, exactly two
            classes) or `None` (no labels).
        class_names: With `labels="inferred"`, the subdirectories to use, in label order.
        color_mode: `"grayscale"`, `"rgb"` (default) or `"rgba"`: 1, 3 or 4 channels.
        batch_size: Images per batch (default 32); `None` yields single images.
        image_size: `(height, width)` every image is resized to (an int for a square).
        shuffle: Whether to shuffle (default True); False keeps alphanumeric order.
        seed: Seed for the shuffle (needed with `validation_split` and `shuffle`).
        validation_split: Fraction in `(0, 1)` of the files kept for validation.
        subset: `"training"`, `"validation"` or `"both"` (returns the pair
            `(training, validation)`); only with `validation_split`.
        interpolation: `"bilinear"` (default), `"nearest"`, `"bicubic"`, `"area"`,
            `"lanczos3"` or `"lanczos5"` (as `ops.image.resize` without antialiasing).
        follow_links: Whether to descend into symlinked subdirectories.
        crop_to_aspect_ratio: Resize without distortion, cropping the largest centred
            window with the target aspect ratio.
        pad_to_aspect_ratio: Resize without distortion, padding with zeros to the target
            aspect ratio instead.
        data_format: `"channels_last"` or `"channels_first"`; None uses the global
            setting.
        format: Accepted for Keras compatibility (`"tf"` or `"grain"`); either gives
            the same `PyDataset`, as lamina does not use tf.data or grain.
        verbose: Whether to print how many files and classes were found.

    Returns:
        A `PyDataset` yielding `images` (label_mode None) or `(images, labels)`, with
        float32 images of shape `(batch, height, width, channels)` (channels last); or
        a `(training, validation)` pair with `subset="both"`.

    >>> import os, tempfile
    >>> import numpy as np
    >>> from lamina import utils
    >>> tmp = tempfile.TemporaryDirectory()
    >>> for name in ("cats/a.png", "cats/b.png", "dogs/c.png"):
    ...     os.makedirs(os.path.dirname(os.path.join(tmp.name, name)), exist_ok=True)
    ...     utils.save_img(os.path.join(tmp.name, name), np.full((6, 6, 3), 100.0))
    >>> options = dict(image_size=(4, 4), batch_size=2, shuffle=False)
    >>> ds = utils.image_dataset_from_directory(tmp.name, **options)
    Found 3 files belonging to 2 classes.
    >>> ds.class_names
    ['cats', 'dogs']
    >>> [(x.shape, y.tolist()) for x, y in ds]
    [((2, 4, 4, 3), [0, 0]), ((1, 4, 4, 3), [1])]
    >>> tmp.cleanup()
    """
    dataset_utils.check_labels_args(labels, label_mode, class_names, "image")
    inferred = isinstance(labels, str) and label_mode is not None
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    if color_mode not in _CHANNELS:
        raise ValueError(
            '`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
            f"Received: color_mode={color_mode!r}"
        )
    num_channels = _CHANNELS[color_mode]
    image_size = _check_image_size(image_size)
    interpolation = _check_interpolation(interpolation)
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError(
            "Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be set to `True`."
        )
    if format not in ("tf", "grain"):
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format!r}')
    dataset_utils.check_batch_size(batch_size)
    dataset_utils.check_validation_split_arg(validation_split, subset, shuffle, seed)
    data_format = standardize_data_format(data_format)

    if seed is None:
        seed = int(np.random.randint(1e6))
    file_paths, labels, class_names = dataset_utils.index_directory(
        directory,
        labels,
        formats=ALLOWLIST_FORMATS,
        class_names=class_names,
        shuffle=shuffle,
        seed=seed,
        follow_links=follow_links,
        verbose=verbose,
    )
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(
            'When passing `label_mode="binary"`, there must be exactly 2 class_names. '
            f"Received: class_names={class_names}"
        )

    def make(paths, subset_labels, subset_shuffle, what):
        if not paths:
            raise ValueError(_no_files_message(what, directory, inferred, validation_split))
        loader = _ImageLoader(
            image_size,
            num_channels,
            interpolation,
            data_format,
            crop_to_aspect_ratio,
            pad_to_aspect_ratio,
            label_mode,
            len(class_names) if class_names else 0,
        )
        fields = [np.asarray(paths, dtype=object)]
        if label_mode is not None:
            fields.append(
                dataset_utils.encode_labels(subset_labels, label_mode, loader.num_classes)
            )
        dataset = SampleDataset(fields, loader, batch_size, shuffle=subset_shuffle, seed=seed)
        dataset.class_names = class_names
        dataset.file_paths = list(paths)
        return dataset

    return dataset_utils.make_subsets(
        make, file_paths, labels, validation_split, subset, shuffle, "images"
    )


def _check_image_size(image_size) -> tuple[int, int]:
    if isinstance(image_size, (int, np.integer)) and not isinstance(image_size, bool):
        image_size = (image_size, image_size)
    if (
        not isinstance(image_size, (list, tuple))
        or len(image_size) != 2
        or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s > 0
            for s in image_size
        )
    ):
        raise ValueError(
            "Invalid `image_size` value. Expected a tuple of 2 positive integers "
            f"(height, width). Received: image_size={image_size!r}"
        )
    return int(image_size[0]), int(image_size[1])


def _check_interpolation(interpolation) -> str:
    value = str(interpolation).lower()
    if value in _TF_ONLY_INTERPOLATIONS:
        raise ValueError(
            f"interpolation={interpolation!r} is TensorFlow's own resize method and is not "
            f"available in lamina. Use one of {_INTERPOLATIONS}."
        )
    if value not in _INTERPOLATIONS:
        raise ValueError(
            f"Argument `interpolation` should be one of {_INTERPOLATIONS}. "
            f"Received: interpolation={interpolation!r}"
        )
    return value


def _no_files_message(what, directory, inferred, validation_split) -> str:
    message = (
        f"No {what} found in directory {os.fspath(directory)!r}. "
        f"Allowed formats: {ALLOWLIST_FORMATS}"
    )
    if inferred and not validation_split:
        message += (
            '. With labels="inferred" the images must sit in one subdirectory per class '
            "(directory/class_name/image.jpg); pass labels=None for a flat folder of images"
        )
    if validation_split:
        message += (
            f". validation_split={validation_split} may leave no files on one side: the "
            "validation part is int(validation_split * number_of_files) files"
        )
    return message + "."


class _ImageLoader:
    """Decode, convert and resize the images of one batch (a picklable callable)."""

    def __init__(
        self,
        image_size,
        num_channels,
        interpolation,
        data_format,
        crop_to_aspect_ratio,
        pad_to_aspect_ratio,
        label_mode,
        num_classes,
    ):
        self.image_size = image_size
        self.num_channels = num_channels
        self.interpolation = interpolation
        self.data_format = data_format
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.label_mode = label_mode
        self.num_classes = num_classes

    def __call__(self, fields):
        images = np.stack([self.load(path) for path in fields[0]])
        if self.label_mode is None:
            return images
        return images, fields[1]

    def load(self, path) -> np.ndarray:
        """One image file as a float32 array of `image_size`, in `[0, 255]`."""
        img = open_image(path, "image_dataset_from_directory")
        try:
            img.load()
        except OSError as error:
            raise OSError(
                f"Cannot decode the image file {os.fspath(path)!r} ({error}). It is corrupt "
                "or truncated: remove or replace it."
            ) from error
        if self.num_channels == 1:
            if img.mode not in ("L", "I;16", "I"):
                img = img.convert("L")
        elif self.num_channels == 4:
            if img.mode != "RGBA":
                img = img.convert("RGBA")
        elif img.mode != "RGB":
            img = img.convert("RGB")
        x = np.asarray(img, dtype="float32")
        if x.ndim == 2:
            x = x[:, :, None]
        x = resize_image(
            x,
            self.image_size,
            self.interpolation,
            self.crop_to_aspect_ratio,
            self.pad_to_aspect_ratio,
        )
        if self.data_format == "channels_first":
            x = x.transpose(2, 0, 1)
        return x


def resize_image(image, size, interpolation="bilinear", crop=False, pad=False) -> np.ndarray:
    """Resize one `(height, width, channels)` image in NumPy as `ops.image.resize` does.

    Half-pixel centres and the same kernels, normalisation and crop/pad windows as the
    engines' resize (JAX's `jax.image.resize` without antialiasing, which Keras's
    `ops.image.resize` uses), so a batch is the same on every engine. It runs on the
    host, with no per-shape compilation, which matters for folders of images of many
    sizes.
    """
    height, width = image.shape[:2]
    if crop:
        top, left, new_h, new_w = shapes.aspect_ratio_window(height, width, size, True)
        image = image[top : top + new_h, left : left + new_w]
    elif pad:
        top, left = shapes.aspect_ratio_window(height, width, size, False)
        image = np.pad(image, ((top, top), (left, left), (0, 0)))
    image = np.asarray(image, dtype="float32")
    if interpolation == "nearest":
        for axis, n in enumerate(size):
            m = image.shape[axis]
            if m != n:
                # float32 arithmetic in JAX's order, so ties round as they do there.
                index = (np.arange(n, dtype=np.float32) + 0.5) * np.float32(m) / np.float32(n)
                index = np.floor(index)
                image = np.take(image, index.astype(np.int64), axis=axis)
        return image
    rows = _resize_weights(image.shape[0], size[0], interpolation)
    cols = _resize_weights(image.shape[1], size[1], interpolation)
    out = np.einsum("hwc,hH,wW->HWc", image.astype(np.float64), rows, cols, optimize=True)
    return out.astype("float32")


def _resize_weights(m: int, n: int, interpolation: str) -> np.ndarray:
    """The `(m, n)` matrix mapping `m` input samples to `n` output samples on one axis."""
    if m == n:
        return np.eye(m)
    inv_scale = m / n
    sample = (np.arange(n) + 0.5) * inv_scale - 0.5
    if interpolation == "area":
        lo = np.arange(n) * inv_scale
        hi = lo + inv_scale
        start = np.arange(m)
        weights = np.maximum(
            0.0,
            np.minimum(hi[None, :], start[:, None] + 1.0) - np.maximum(lo[None, :], start[:, None]),
        )
    else:
        weights = _KERNELS[interpolation](np.abs(sample[None, :] - np.arange(m)[:, None]))
    total = weights.sum(axis=0, keepdims=True)
    weights = np.where(
        np.abs(total) > 1000 * np.finfo(np.float32).eps,
        weights / np.where(total != 0, total, 1),
        0.0,
    )
    inside = (sample >= -0.5) & (sample <= m - 0.5)
    return np.where(inside[None, :], weights, 0.0)


def _lanczos(radius: float):
    def kernel(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            y = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius) / (np.pi**2 * x**2)
        return np.where(x > radius, 0.0, np.where(x > 1e-3, y, 1.0))

    return kernel


def _keys_cubic(x):
    # Keys' cubic convolution kernel with a = -0.5.
    near = ((1.5 * x - 2.5) * x) * x + 1.0
    far = ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return np.where(x >= 2.0, 0.0, np.where(x >= 1.0, far, near))


_KERNELS = {
    "bilinear": lambda x: np.maximum(0.0, 1.0 - x),
    "bicubic": _keys_cubic,
    "lanczos3": _lanczos(3.0),
    "lanczos5": _lanczos(5.0),
}
