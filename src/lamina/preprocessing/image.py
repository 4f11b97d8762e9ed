"""Classic image preprocessing: `ImageDataGenerator`, its iterators, and the transforms.

The Keras 2.x `keras.preprocessing.image` module. `ImageDataGenerator` describes random
augmentation (rotation, shifts, shear, zoom, flips, channel and brightness shifts) and
normalization (rescale, sample-wise and feature-wise centering and scaling, ZCA
whitening); `flow`, `flow_from_directory` and `flow_from_dataframe` return iterators that
are `lamina.utils.PyDataset`s, so `model.fit(generator.flow(x, y))` works directly.

Randomness comes from NumPy's global generator in Keras's order of draws, and the
geometric warp reproduces `scipy.ndimage.affine_transform` in NumPy (orders 0 and 1; see
`lamina.preprocessing._affine`), so a seeded run gives Keras's numbers. Reading image
files and brightness shifts need Pillow; the image file helpers (`load_img`,
`img_to_array`, `array_to_img`, `save_img`, `smart_resize`) are those of
`lamina.utils.image_utils`, re-exported here as Keras 3 does.
"""

from __future__ import annotations

import importlib
import math
import warnings

import numpy as np

from lamina.backend.config import floatx, image_data_format
from lamina.preprocessing._affine import FILL_MODES
from lamina.preprocessing._image_iterators import (
    DataFrameIterator,
    DirectoryIterator,
    Iterator,
    NumpyArrayIterator,
)
from lamina.preprocessing._transforms import (
    apply_affine_transform,
    apply_brightness_shift,
    apply_channel_shift,
    random_brightness,
    random_channel_shift,
    random_rotation,
    random_shear,
    random_shift,
    random_zoom,
)
from lamina.utils.image_utils import (
    array_to_img,
    img_to_array,
    load_img,
    save_img,
    smart_resize,
)

__all__ = [
    "DataFrameIterator",
    "DirectoryIterator",
    "ImageDataGenerator",
    "Iterator",
    "NumpyArrayIterator",
    "apply_affine_transform",
    "apply_brightness_shift",
    "apply_channel_shift",
    "random_brightness",
    "random_channel_shift",
    "random_rotation",
    "random_shear",
    "random_shift",
    "random_zoom",
    # Keras 3's image file helpers, from `lamina.utils.image_utils`.
    "array_to_img",
    "img_to_array",
    "load_img",
    "save_img",
    "smart_resize",
]


# -- the generator -----------------------------------------------------------------------


def _draw_shift(shift_range, size: int):
    """One shift in pixels, drawn as Keras draws it: an int or a list picks a value (and a
    sign), a float draws uniformly; ranges below 1 are fractions of `size`."""
    if isinstance(shift_range, (float, np.floating)):
        shift = np.random.uniform(-shift_range, shift_range)
    else:
        shift = np.random.choice(shift_range)
        shift *= np.random.choice([-1, 1])
    if np.max(shift_range) < 1:
        shift *= size
    return shift


class ImageDataGenerator:
    """Real-time image augmentation and normalization, feeding `fit` batch by batch.

    Args:
        featurewise_center: subtract the dataset mean per channel (needs `fit`).
        samplewise_center: subtract each sample's mean.
        featurewise_std_normalization: divide by the dataset std per channel (needs `fit`).
        samplewise_std_normalization: divide each sample by its std.
        zca_whitening: apply ZCA whitening (needs `fit`).
        zca_epsilon: the epsilon of ZCA whitening.
        rotation_range: degrees of random rotation.
        width_shift_range: a float (fraction of the width if < 1, else pixels), a list
            of values to pick from, or an int (pixels in `(-n, n)`).
        height_shift_range: the same for the height.
        brightness_range: `(low, high)` brightness factors.
        shear_range: shear angle in degrees.
        zoom_range: a float `z` for `[1 - z, 1 + z]`, or `(low, high)`.
        channel_shift_range: range of random channel shifts.
        fill_mode: `"constant"`, `"nearest"`, `"reflect"` or `"wrap"`.
        cval: the fill value for `"constant"`.
        horizontal_flip: flip left-right at random.
        vertical_flip: flip up-down at random.
        rescale: a factor applied first in `standardize` (e.g. `1 / 255`).
        preprocessing_function: a function applied to each image (after augmentation,
            before the other normalization).
        data_format: `"channels_last"` or `"channels_first"` (default: the
            configured image data format).
        validation_split: the fraction held out for `subset="validation"`.
        interpolation_order: spline order of the warp (0 or 1 in NumPy; 2-5 need SciPy).
        dtype: the dtype of generated arrays (default: floatx).

    >>> import numpy as np
    >>> generator = ImageDataGenerator(rescale=1 / 255, horizontal_flip=True)
    >>> x = np.full((4, 8, 8, 3), 255.0)
    >>> batch = generator.flow(x, batch_size=2, shuffle=False)[0]
    >>> batch.shape, float(batch.max())
    ((2, 8, 8, 3), 1.0)
    """

    def __init__(
        self,
        featurewise_center: bool = False,
        samplewise_center: bool = False,
        featurewise_std_normalization: bool = False,
        samplewise_std_normalization: bool = False,
        zca_whitening: bool = False,
        zca_epsilon: float = 1e-6,
        rotation_range: float = 0,
        width_shift_range=0.0,
        height_shift_range=0.0,
        brightness_range=None,
        shear_range: float = 0.0,
        zoom_range=0.0,
        channel_shift_range: float = 0.0,
        fill_mode: str = "nearest",
        cval: float = 0.0,
        horizontal_flip: bool = False,
        vertical_flip: bool = False,
        rescale=None,
        preprocessing_function=None,
        data_format: str | None = None,
        validation_split: float = 0.0,
        interpolation_order: int = 1,
        dtype=None,
    ):
        data_format = image_data_format() if data_format is None else data_format
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(
                "ImageDataGenerator: data_format must be 'channels_last' or "
                f"'channels_first'; received {data_format!r}."
            )
        if fill_mode not in FILL_MODES:
            raise ValueError(
                f"ImageDataGenerator: fill_mode must be one of {FILL_MODES}; received {fill_mode!r}."
            )
        if validation_split and not 0 < validation_split < 1:
            raise ValueError(
                "ImageDataGenerator: validation_split must be strictly between 0 and 1; "
                f"received {validation_split!r}."
            )
        if isinstance(zoom_range, (float, int)):
            zoom = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(v, (float, int)) for v in zoom_range):
            zoom = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError(
                "ImageDataGenerator: zoom_range must be a float or a pair of floats; "
                f"received {zoom_range!r}."
            )
        if brightness_range is not None and (
            not isinstance(brightness_range, (tuple, list)) or len(brightness_range) != 2
        ):
            raise ValueError(
                "ImageDataGenerator: brightness_range must be a tuple or list of two floats; "
                f"received {brightness_range!r}."
            )
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening = zca_whitening
        self.zca_epsilon = zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range = width_shift_range
        self.height_shift_range = height_shift_range
        self.brightness_range = brightness_range
        self.shear_range = shear_range
        self.zoom_range = zoom
        self.channel_shift_range = channel_shift_range
        self.fill_mode = fill_mode
        self.cval = cval
        self.horizontal_flip = horizontal_flip
        self.vertical_flip = vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.data_format = data_format
        self.interpolation_order = interpolation_order
        self.dtype = floatx() if dtype is None else dtype
        self._validation_split = validation_split
        if data_format == "channels_first":
            self.channel_axis, self.row_axis, self.col_axis = 1, 2, 3
        else:
            self.channel_axis, self.row_axis, self.col_axis = 3, 1, 2
        self.mean = None
        self.std = None
        self.zca_whitening_matrix = None
        # Settings that imply others, as in Keras (each says so once).
        if zca_whitening:
            if not featurewise_center:
                self.featurewise_center = True
                warnings.warn(
                    "ImageDataGenerator: zca_whitening turns on featurewise_center.",
                    stacklevel=2,
                )
            if featurewise_std_normalization:
                self.featurewise_std_normalization = False
                warnings.warn(
                    "ImageDataGenerator: zca_whitening turns off featurewise_std_normalization.",
                    stacklevel=2,
                )
        if self.featurewise_std_normalization and not self.featurewise_center:
            self.featurewise_center = True
            warnings.warn(
                "ImageDataGenerator: featurewise_std_normalization turns on featurewise_center.",
                stacklevel=2,
            )
        if samplewise_std_normalization and not samplewise_center:
            self.samplewise_center = True
            warnings.warn(
                "ImageDataGenerator: samplewise_std_normalization turns on samplewise_center.",
                stacklevel=2,
            )

    # -- iterators

    def flow(
        self,
        x,
        y=None,
        batch_size: int = 32,
        shuffle: bool = True,
        sample_weight=None,
        seed: int | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        ignore_class_split: bool = False,
        subset: str | None = None,
    ) -> NumpyArrayIterator:
        """Batches of augmented images from arrays.

        Args:
            x: images, rank 4 (or a tuple `(images, extra_inputs)` whose extra arrays
                pass through unchanged).
            y: labels (optional).
            batch_size: images per batch.
            shuffle: shuffle each epoch.
            sample_weight: per-image weights (optional).
            seed: seeds shuffling and augmentation.
            save_to_dir: also write each augmented image there (for inspection).
            save_prefix: file name prefix for `save_to_dir`.
            save_format: `"png"`, `"jpeg"`, ... for `save_to_dir`.
            ignore_class_split: skip the check that both subsets have every class.
            subset: `"training"` or `"validation"` with `validation_split`.

        Returns:
            A `NumpyArrayIterator` (a `PyDataset`) yielding `x`, `(x, y)` or
            `(x, y, sample_weight)`.
        """
        return NumpyArrayIterator(
            x,
            y,
            self,
            batch_size=batch_size,
            shuffle=shuffle,
            sample_weight=sample_weight,
            seed=seed,
            data_format=self.data_format,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            ignore_class_split=ignore_class_split,
            subset=subset,
            dtype=self.dtype,
        )

    def flow_from_directory(
        self,
        directory: str,
        target_size: tuple[int, int] = (256, 256),
        color_mode: str = "rgb",
        classes=None,
        class_mode: str | None = "categorical",
        batch_size: int = 32,
        shuffle: bool = True,
        seed: int | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        follow_links: bool = False,
        subset: str | None = None,
        interpolation: str = "nearest",
        keep_aspect_ratio: bool = False,
    ) -> DirectoryIterator:
        """Batches of augmented images read from class subfolders of `directory`.

        Args:
            directory: a folder with one subfolder of images per class.
            target_size: `(height, width)` every image is resized to.
            color_mode: `"grayscale"`, `"rgb"` or `"rgba"`.
            classes: class subfolder names, in label order (default: all subfolders,
                sorted).
            class_mode: `"categorical"` (one-hot), `"binary"`, `"sparse"` (int labels),
                `"input"` (the images themselves) or `None` (images only).
            batch_size: images per batch.
            shuffle: shuffle each epoch.
            seed: seeds shuffling and augmentation.
            save_to_dir: also write each augmented image there.
            save_prefix: file name prefix for `save_to_dir`.
            save_format: image format for `save_to_dir`.
            follow_links: follow symbolic links to subfolders.
            subset: `"training"` or `"validation"` with `validation_split`.
            interpolation: resampling for resizing (`"nearest"`, `"bilinear"`,
                `"bicubic"`, ...).
            keep_aspect_ratio: crop to the target aspect ratio before resizing.

        Returns:
            A `DirectoryIterator` (a `PyDataset`); `.class_indices` maps class names to
            labels, `.classes` holds each file's label, `.filenames` its path.
        """
        return DirectoryIterator(
            directory,
            self,
            target_size=target_size,
            color_mode=color_mode,
            keep_aspect_ratio=keep_aspect_ratio,
            classes=classes,
            class_mode=class_mode,
            data_format=self.data_format,
            batch_size=batch_size,
            shuffle=shuffle,
            seed=seed,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            follow_links=follow_links,
            subset=subset,
            interpolation=interpolation,
            dtype=self.dtype,
        )

    def flow_from_dataframe(
        self,
        dataframe,
        directory: str | None = None,
        x_col: str = "filename",
        y_col="class",
        weight_col: str | None = None,
        target_size: tuple[int, int] = (256, 256),
        color_mode: str = "rgb",
        classes=None,
        class_mode: str | None = "categorical",
        batch_size: int = 32,
        shuffle: bool = True,
        seed: int | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        subset: str | None = None,
        interpolation: str = "nearest",
        validate_filenames: bool = True,
        **kwargs,
    ) -> DataFrameIterator:
        """Batches of augmented images listed in a pandas DataFrame (needs pandas).

        Args:
            dataframe: a DataFrame with a column of file paths and (per `class_mode`)
                label columns.
            directory: the folder the paths are relative to (`None`: paths are used as
                given).
            x_col: the column of file paths.
            y_col: the label column (a list of columns for `"multi_output"`).
            weight_col: an optional column of sample weights.
            target_size: `(height, width)` every image is resized to.
            color_mode: `"grayscale"`, `"rgb"` or `"rgba"`.
            classes: class names in label order (default: the sorted labels found).
            class_mode: `"categorical"`, `"binary"`, `"sparse"`, `"input"`,
                `"multi_output"`, `"raw"` or `None`.
            batch_size: images per batch.
            shuffle: shuffle each epoch.
            seed: seeds shuffling and augmentation.
            save_to_dir: also write each augmented image there.
            save_prefix: file name prefix for `save_to_dir`.
            save_format: image format for `save_to_dir`.
            subset: `"training"` or `"validation"` with `validation_split`.
            interpolation: resampling for resizing.
            validate_filenames: drop rows whose file is missing or not an image (with a
                warning).
            **kwargs: Keras 2's deprecated `has_ext`, `sort`, `drop_duplicates` (ignored
                with a warning).

        Returns:
            A `DataFrameIterator` (a `PyDataset`).
        """
        try:
            importlib.import_module("pandas")
        except ImportError as error:
            raise ImportError(
                "ImageDataGenerator.flow_from_dataframe needs pandas: `pip install pandas`. "
                "Without pandas, use flow_from_directory or flow on arrays."
            ) from error
        for name in ("has_ext", "sort", "drop_duplicates"):
            if kwargs.pop(name, None) is not None:
                warnings.warn(
                    f"flow_from_dataframe: `{name}` is deprecated and ignored.",
                    DeprecationWarning,
                    stacklevel=2,
                )
        if kwargs:
            raise TypeError(f"flow_from_dataframe got unexpected arguments {sorted(kwargs)}.")
        if class_mode == "other":
            warnings.warn(
                'flow_from_dataframe: class_mode="other" is deprecated; use "raw".',
                DeprecationWarning,
                stacklevel=2,
            )
            class_mode = "raw"
        return DataFrameIterator(
            dataframe,
            directory,
            self,
            x_col=x_col,
            y_col=y_col,
            weight_col=weight_col,
            target_size=target_size,
            color_mode=color_mode,
            classes=classes,
            class_mode=class_mode,
            data_format=self.data_format,
            batch_size=batch_size,
            shuffle=shuffle,
            seed=seed,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            subset=subset,
            interpolation=interpolation,
            validate_filenames=validate_filenames,
            dtype=self.dtype,
        )

    # -- normalization

    def standardize(self, x: np.ndarray) -> np.ndarray:
        """Apply the normalization settings to an image or batch, in place when `x` is a
        float array (as Keras does; pass a copy to keep the original).

        Order: `preprocessing_function`, `rescale`, sample-wise centering and scaling,
        feature-wise centering and scaling, ZCA whitening.

        Args:
            x: an image or a batch of images.

        Returns:
            The normalized array.
        """
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if not (isinstance(x, np.ndarray) and x.dtype.kind == "f"):
            x = np.array(x, dtype=self.dtype)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        if self.featurewise_center:
            if self.mean is not None:
                x -= self.mean
            else:
                warnings.warn(_NOT_FIT.format("featurewise_center"), stacklevel=2)
        if self.featurewise_std_normalization:
            if self.std is not None:
                x /= self.std + 1e-6
            else:
                warnings.warn(_NOT_FIT.format("featurewise_std_normalization"), stacklevel=2)
        if self.zca_whitening:
            if self.zca_whitening_matrix is not None:
                flat = x.reshape(-1, math.prod(x.shape[-3:]))
                x = np.reshape(flat @ self.zca_whitening_matrix, x.shape)
            else:
                warnings.warn(_NOT_FIT.format("zca_whitening"), stacklevel=2)
        return x

    def fit(self, x, augment: bool = False, rounds: int = 1, seed: int | None = None) -> None:
        """Compute the dataset statistics that feature-wise normalization and ZCA use.

        Args:
            x: sample images, rank 4 (after `rescale`, which is applied here too).
            augment: fit on randomly augmented copies.
            rounds: augmentation passes when `augment`.
            seed: seeds the augmentation.
        """
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(
                f"ImageDataGenerator.fit expects a batch of images (rank 4); received shape "
                f"{x.shape}."
            )
        if x.shape[self.channel_axis] not in (1, 3, 4):
            warnings.warn(
                f"ImageDataGenerator.fit: with data_format={self.data_format!r} the channels "
                f"are on axis {self.channel_axis}, expected to hold 1, 3 or 4; received shape "
                f"{x.shape}.",
                stacklevel=2,
            )
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            augmented = np.zeros((rounds * x.shape[0],) + x.shape[1:], dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    augmented[i + r * x.shape[0]] = self.random_transform(x[i])
            x = augmented
        stats_shape = [1, 1, 1]
        stats_shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        axes = (0, self.row_axis, self.col_axis)
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=axes), stats_shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=axes), stats_shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            n = len(x)
            flat = np.reshape(x, (n, -1))
            u, s, _ = np.linalg.svd(flat.T, full_matrices=False)
            inverse_s = np.sqrt(n) / (s + self.zca_epsilon)
            self.zca_whitening_matrix = (u * inverse_s).dot(u.T)

    # -- augmentation

    def get_random_transform(self, img_shape, seed: int | None = None) -> dict:
        """Draw the parameters of one random transformation (NumPy's global generator,
        in Keras's order of draws).

        Args:
            img_shape: the shape of the image (without the batch axis).
            seed: reseed NumPy's global generator first.

        Returns:
            A dict with `theta`, `tx`, `ty`, `shear`, `zx`, `zy`, `flip_horizontal`,
            `flip_vertical`, `channel_shift_intensity` and `brightness`, as
            `apply_transform` takes it.
        """
        row_axis, col_axis = self.row_axis - 1, self.col_axis - 1
        if seed is not None:
            np.random.seed(seed)
        theta = (
            np.random.uniform(-self.rotation_range, self.rotation_range)
            if self.rotation_range
            else 0
        )
        tx = (
            _draw_shift(self.height_shift_range, img_shape[row_axis])
            if self.height_shift_range
            else 0
        )
        ty = (
            _draw_shift(self.width_shift_range, img_shape[col_axis])
            if self.width_shift_range
            else 0
        )
        shear = np.random.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        # Both flips draw even when disabled, so enabling one does not change the others.
        flip_horizontal = (np.random.random() < 0.5) * self.horizontal_flip
        flip_vertical = (np.random.random() < 0.5) * self.vertical_flip
        channel_shift_intensity = None
        if self.channel_shift_range != 0:
            channel_shift_intensity = np.random.uniform(
                -self.channel_shift_range, self.channel_shift_range
            )
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {
            "theta": theta,
            "tx": tx,
            "ty": ty,
            "shear": shear,
            "zx": zx,
            "zy": zy,
            "flip_horizontal": flip_horizontal,
            "flip_vertical": flip_vertical,
            "channel_shift_intensity": channel_shift_intensity,
            "brightness": brightness,
        }

    def apply_transform(self, x: np.ndarray, transform_parameters: dict) -> np.ndarray:
        """Apply a transformation (as `get_random_transform` describes it) to one image.

        Args:
            x: a 3-D image in this generator's data format.
            transform_parameters: a dict with any of `theta` (degrees), `tx`, `ty`
                (pixels along rows / columns), `shear` (degrees), `zx`, `zy`,
                `flip_horizontal`, `flip_vertical`, `channel_shift_intensity`,
                `brightness`.

        Returns:
            The transformed image (same shape).
        """
        row_axis, col_axis = self.row_axis - 1, self.col_axis - 1
        channel_axis = self.channel_axis - 1
        get = transform_parameters.get
        x = apply_affine_transform(
            x,
            get("theta", 0),
            get("tx", 0),
            get("ty", 0),
            get("shear", 0),
            get("zx", 1),
            get("zy", 1),
            row_axis=row_axis,
            col_axis=col_axis,
            channel_axis=channel_axis,
            fill_mode=self.fill_mode,
            cval=self.cval,
            order=self.interpolation_order,
        )
        if get("channel_shift_intensity") is not None:
            x = apply_channel_shift(
                x, transform_parameters["channel_shift_intensity"], channel_axis
            )
        if get("flip_horizontal", False):
            x = np.flip(x, col_axis)
        if get("flip_vertical", False):
            x = np.flip(x, row_axis)
        if get("brightness") is not None:
            channels_last = np.moveaxis(x, channel_axis, -1)
            shifted = apply_brightness_shift(
                channels_last, transform_parameters["brightness"], False
            )
            x = np.moveaxis(shifted, -1, channel_axis)
        return x

    def random_transform(self, x: np.ndarray, seed: int | None = None) -> np.ndarray:
        """Apply a random transformation to one image.

        Args:
            x: a 3-D image.
            seed: reseed NumPy's global generator first.

        Returns:
            The transformed image.
        """
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))


_NOT_FIT = (
    "This ImageDataGenerator uses `{}` but was not fit on any data, so it is skipped. "
    "Call `.fit(sample_images)` first."
)
