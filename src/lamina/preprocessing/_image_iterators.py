"""The iterators behind `ImageDataGenerator.flow`, `flow_from_directory` and
`flow_from_dataframe`: `PyDataset`s of augmented batches. Re-exported by
`lamina.preprocessing.image`."""

from __future__ import annotations

import os
import threading
import warnings
from typing import TYPE_CHECKING

import numpy as np

from lamina.backend.config import floatx, image_data_format
from lamina.utils import PyDataset, image_utils

if TYPE_CHECKING:
    from lamina.preprocessing.image import ImageDataGenerator

IMAGE_EXTENSIONS = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")


class Iterator(PyDataset):
    """Base of the image iterators: batches of sample indices, shuffled per epoch.

    A `PyDataset` (index `i` gives batch `i`; `on_epoch_end` reshuffles) that is also an
    endless Python iterator (`next(iterator)`), as in Keras 2. Subclasses implement
    `_get_batches_of_transformed_samples(index_array)`.

    Args:
        n: the number of samples.
        batch_size: samples per batch.
        shuffle: shuffle the order each epoch.
        seed: seeds the shuffling and augmentation (NumPy's global generator is reseeded
            with `seed + batches seen` before each batch, as Keras does).
        **kwargs: `workers`, `use_multiprocessing`, `max_queue_size` for `PyDataset`.

    >>> import numpy as np
    >>> from lamina.preprocessing import image
    >>> x, y = np.zeros((5, 2, 2, 3)), np.arange(5)
    >>> flow = image.ImageDataGenerator().flow(x, y, batch_size=2, shuffle=False)
    >>> isinstance(flow, image.Iterator), len(flow), flow.n
    (True, 3, 5)
    >>> [y.tolist() for _, y in (flow[0], flow[1], flow[2])]
    [[0, 1], [2, 3], [4]]
    >>> next(flow)[1].tolist()  # also an endless Python iterator
    [0, 1]
    """

    white_list_formats = IMAGE_EXTENSIONS

    def __init__(self, n: int, batch_size: int, shuffle: bool, seed: int | None, **kwargs):
        super().__init__(**kwargs)
        if (
            isinstance(batch_size, bool)
            or not isinstance(batch_size, (int, np.integer))
            or batch_size < 1
        ):
            raise ValueError(f"batch_size must be a positive int; received {batch_size!r}.")
        self.n = n
        self.batch_size = int(batch_size)
        self.seed = seed
        self.shuffle = shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array = None
        self.index_generator = self._flow_index()

    def _set_index_array(self) -> None:
        self.index_array = np.random.permutation(self.n) if self.shuffle else np.arange(self.n)

    def __len__(self) -> int:
        return (self.n + self.batch_size - 1) // self.batch_size

    def __getitem__(self, index: int):
        if not 0 <= index < len(self):
            raise ValueError(
                f"{type(self).__name__}: batch {index} asked for; it has {len(self)} batches."
            )
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        start = self.batch_size * index
        return self._get_batches_of_transformed_samples(
            self.index_array[start : start + self.batch_size]
        )

    def on_epoch_end(self) -> None:
        self._set_index_array()

    def reset(self) -> None:
        """Restart the endless iteration at the first batch."""
        self.batch_index = 0

    def _flow_index(self):
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            current = (self.batch_index * self.batch_size) % self.n if self.n else 0
            if self.n > current + self.batch_size:
                self.batch_index += 1
            else:
                self.batch_index = 0
            self.total_batches_seen += 1
            yield self.index_array[current : current + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def _get_batches_of_transformed_samples(self, index_array):
        raise NotImplementedError(f"{type(self).__name__} must implement this.")


def _save_batch(batch_x, index_array, data_format, directory, prefix, file_format, hash_bound):
    array_to_img = image_utils.array_to_img
    for i, j in enumerate(index_array):
        image = array_to_img(batch_x[i], data_format, scale=True)
        name = f"{prefix}_{j}_{np.random.randint(hash_bound)}.{file_format}"
        image.save(os.path.join(directory, name))


class NumpyArrayIterator(Iterator):
    """Batches of augmented images from NumPy arrays (what `ImageDataGenerator.flow`
    returns). See `ImageDataGenerator.flow` for the arguments.

    >>> import numpy as np
    >>> from lamina.preprocessing import image
    >>> generator = image.ImageDataGenerator(rescale=0.5)
    >>> flow = generator.flow(np.ones((3, 2, 2, 1)), [0, 1, 2], batch_size=2, shuffle=False)
    >>> type(flow).__name__, len(flow)
    ('NumpyArrayIterator', 2)
    >>> x, y = flow[0]
    >>> x.shape, float(x.max()), y.tolist()
    ((2, 2, 2, 1), 0.5, [0, 1])
    """

    def __init__(
        self,
        x,
        y,
        image_data_generator: ImageDataGenerator,
        batch_size: int = 32,
        shuffle: bool = False,
        sample_weight=None,
        seed: int | None = None,
        data_format: str | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        subset: str | None = None,
        ignore_class_split: bool = False,
        dtype=None,
    ):
        data_format = image_data_format() if data_format is None else data_format
        self.dtype = floatx() if dtype is None else dtype
        if isinstance(x, (tuple, list)):
            extras = x[1] if isinstance(x[1], list) else [x[1]]
            extras = [np.asarray(extra) for extra in extras]
            x = x[0]
            for extra in extras:
                if len(extra) != len(x):
                    raise ValueError(
                        f"flow: every array in x must have the same length; the images have "
                        f"{len(x)}, an extra input {len(extra)}."
                    )
        else:
            extras = []
        if y is not None and len(x) != len(y):
            raise ValueError(
                f"flow: x and y must have the same length; x has shape {np.shape(x)}, y "
                f"{np.shape(y)}."
            )
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError(
                f"flow: x and sample_weight must have the same length; x has shape "
                f"{np.shape(x)}, sample_weight {np.shape(sample_weight)}."
            )
        if subset is not None:
            if subset not in ("training", "validation"):
                raise ValueError(
                    f"flow: subset must be 'training' or 'validation'; received {subset!r}."
                )
            split = int(len(x) * image_data_generator._validation_split)
            if (
                y is not None
                and not ignore_class_split
                and not np.array_equal(np.unique(y[:split]), np.unique(y[split:]))
            ):
                raise ValueError(
                    "flow: the training and validation subsets hold different classes after "
                    "the split. If the arrays are sorted by label, shuffle them first (or "
                    "pass ignore_class_split=True)."
                )
            part = slice(None, split) if subset == "validation" else slice(split, None)
            x = x[part]
            extras = [extra[part] for extra in extras]
            if y is not None:
                y = y[part]
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = extras
        if self.x.ndim != 4:
            raise ValueError(
                f"flow expects images as a rank-4 array (batch, rows, cols, channels); "
                f"received shape {self.x.shape}."
            )
        channel_axis = 3 if data_format == "channels_last" else 1
        if self.x.shape[channel_axis] not in (1, 3, 4):
            warnings.warn(
                f"flow: with data_format={data_format!r} the channels are on axis "
                f"{channel_axis}, expected to hold 1, 3 or 4; received shape {self.x.shape}.",
                stacklevel=3,
            )
        self.y = None if y is None else np.asarray(y)
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = image_data_generator
        self.data_format = data_format
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array):
        generator = self.image_data_generator
        batch_x = np.zeros((len(index_array),) + self.x.shape[1:], dtype=self.dtype)
        for i, j in enumerate(index_array):
            image = self.x[j]
            params = generator.get_random_transform(image.shape)
            image = generator.apply_transform(image.astype(self.dtype), params)
            batch_x[i] = generator.standardize(image)
        if self.save_to_dir:
            _save_batch(
                batch_x,
                index_array,
                self.data_format,
                self.save_to_dir,
                self.save_prefix,
                self.save_format,
                10_000,
            )
        inputs = (
            [batch_x] + [extra[index_array] for extra in self.x_misc] if self.x_misc else batch_x
        )
        if self.y is None:
            return inputs
        if self.sample_weight is None:
            return inputs, self.y[index_array]
        return inputs, self.y[index_array], self.sample_weight[index_array]


class _FileBatches(Iterator):
    """Shared by the iterators that read image files: load, augment, label."""

    allowed_class_modes: tuple = ()

    def _set_processing_attrs(
        self,
        image_data_generator,
        target_size,
        color_mode,
        data_format,
        save_to_dir,
        save_prefix,
        save_format,
        subset,
        interpolation,
        keep_aspect_ratio,
    ):
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        self.keep_aspect_ratio = keep_aspect_ratio
        channels = {"rgb": 3, "rgba": 4, "grayscale": 1}.get(color_mode)
        if channels is None:
            raise ValueError(
                f"color_mode must be 'rgb', 'rgba' or 'grayscale'; received {color_mode!r}."
            )
        self.color_mode = color_mode
        self.data_format = data_format
        if data_format == "channels_last":
            self.image_shape = self.target_size + (channels,)
        else:
            self.image_shape = (channels,) + self.target_size
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        self.interpolation = interpolation
        if subset is None:
            self.split = None
        elif subset in ("validation", "training"):
            fraction = image_data_generator._validation_split if image_data_generator else 0.0
            self.split = (0, fraction) if subset == "validation" else (fraction, 1)
        else:
            raise ValueError(f"subset must be 'training' or 'validation'; received {subset!r}.")
        self.subset = subset

    def _check_class_mode(self, class_mode):
        if class_mode not in self.allowed_class_modes:
            raise ValueError(
                f"class_mode must be one of {self.allowed_class_modes}; received {class_mode!r}."
            )

    def _get_batches_of_transformed_samples(self, index_array):
        utils = image_utils
        generator = self.image_data_generator
        batch_x = np.zeros((len(index_array),) + self.image_shape, dtype=self.dtype)
        paths = self.filepaths
        for i, j in enumerate(index_array):
            image = utils.load_img(
                paths[j],
                color_mode=self.color_mode,
                target_size=self.target_size,
                interpolation=self.interpolation,
                keep_aspect_ratio=self.keep_aspect_ratio,
            )
            x = utils.img_to_array(image, data_format=self.data_format)
            if hasattr(image, "close"):
                image.close()
            if generator:
                params = generator.get_random_transform(x.shape)
                x = generator.standardize(generator.apply_transform(x, params))
            batch_x[i] = x
        if self.save_to_dir:
            _save_batch(
                batch_x,
                index_array,
                self.data_format,
                self.save_to_dir,
                self.save_prefix,
                self.save_format,
                10_000_000,
            )
        mode = self.class_mode
        if mode == "input":
            batch_y = batch_x.copy()
        elif mode in ("binary", "sparse"):
            batch_y = np.asarray([self.classes[j] for j in index_array], dtype=self.dtype)
        elif mode == "categorical":
            # A sample labelled with a list of classes gets a multi-hot row.
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            for i, j in enumerate(index_array):
                batch_y[i, self.classes[j]] = 1.0
        elif mode == "multi_output":
            batch_y = [output[index_array] for output in self.labels]
        elif mode == "raw":
            batch_y = self.labels[index_array]
        else:
            return batch_x
        if self.sample_weight is None:
            return batch_x, batch_y
        return batch_x, batch_y, self.sample_weight[index_array]


def _valid_files(directory: str, follow_links: bool):
    """`(root, file name)` of every image file under `directory`, in sorted walk order."""
    walk = sorted(os.walk(directory, followlinks=follow_links), key=lambda entry: entry[0])
    for root, _, files in walk:
        for name in sorted(files):
            if name.lower().endswith(IMAGE_EXTENSIONS):
                yield root, name


class DirectoryIterator(_FileBatches):
    """Batches of augmented images from class subfolders (what
    `ImageDataGenerator.flow_from_directory` returns). See there for the arguments.

    >>> from lamina.preprocessing import image
    >>> import os, tempfile
    >>> import numpy as np
    >>> from lamina import utils
    >>> tmp = tempfile.TemporaryDirectory()
    >>> for name in ("cats/a.png", "cats/b.png", "dogs/c.png"):
    ...     os.makedirs(os.path.dirname(os.path.join(tmp.name, name)), exist_ok=True)
    ...     utils.save_img(os.path.join(tmp.name, name), np.full((6, 6, 3), 100.0))
    >>> options = dict(target_size=(4, 4), batch_size=3, shuffle=False)
    >>> flow = image.ImageDataGenerator().flow_from_directory(tmp.name, **options)
    Found 3 images belonging to 2 classes.
    >>> type(flow).__name__, flow.class_indices
    ('DirectoryIterator', {'cats': 0, 'dogs': 1})
    >>> x, y = flow[0]
    >>> x.shape, y.tolist()
    ((3, 4, 4, 3), [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> tmp.cleanup()
    """

    allowed_class_modes = ("categorical", "binary", "sparse", "input", None)

    def __init__(
        self,
        directory: str,
        image_data_generator: ImageDataGenerator | None,
        target_size=(256, 256),
        color_mode: str = "rgb",
        classes=None,
        class_mode: str | None = "categorical",
        batch_size: int = 32,
        shuffle: bool = True,
        seed: int | None = None,
        data_format: str | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        follow_links: bool = False,
        subset: str | None = None,
        interpolation: str = "nearest",
        keep_aspect_ratio: bool = False,
        dtype=None,
    ):
        data_format = image_data_format() if data_format is None else data_format
        self.dtype = floatx() if dtype is None else dtype
        self._set_processing_attrs(
            image_data_generator,
            target_size,
            color_mode,
            data_format,
            save_to_dir,
            save_prefix,
            save_format,
            subset,
            interpolation,
            keep_aspect_ratio,
        )
        self._check_class_mode(class_mode)
        self.class_mode = class_mode
        directory = os.fspath(directory)
        if not os.path.isdir(directory):
            raise FileNotFoundError(
                f"flow_from_directory: {directory!r} is not a directory. Pass a folder with "
                "one subfolder of images per class."
            )
        self.directory = directory
        if not classes:
            classes = [
                name
                for name in sorted(os.listdir(directory))
                if os.path.isdir(os.path.join(directory, name))
            ]
        else:
            missing = [c for c in classes if not os.path.isdir(os.path.join(directory, c))]
            if missing:
                raise ValueError(
                    f"flow_from_directory: classes {missing} have no subfolder in {directory!r}."
                )
        self.num_classes = len(classes)
        self.class_indices = {name: i for i, name in enumerate(classes)}
        self.filenames = []
        labels = []
        for name in classes:
            folder = os.path.join(directory, name)
            files = list(_valid_files(folder, follow_links))
            if not files:
                warnings.warn(
                    f"flow_from_directory: class folder {folder!r} has no image files "
                    f"({', '.join(IMAGE_EXTENSIONS)}).",
                    stacklevel=3,
                )
            if self.split:
                files = files[int(self.split[0] * len(files)) : int(self.split[1] * len(files))]
            for root, file_name in files:
                path = os.path.join(root, file_name)
                self.filenames.append(os.path.join(name, os.path.relpath(path, folder)))
                labels.append(self.class_indices[name])
        self.samples = len(self.filenames)
        self.classes = np.asarray(labels, dtype="int32")
        print(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        if not self.samples:
            warnings.warn(
                f"flow_from_directory: no images in {directory!r}"
                + ("" if classes else " (it has no subfolders)")
                + ". It needs one subfolder per class holding image files "
                f"({', '.join(IMAGE_EXTENSIONS)}); fit on this iterator has nothing to train on.",
                stacklevel=3,
            )
        self._filepaths = [os.path.join(directory, name) for name in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    @property
    def filepaths(self) -> list[str]:
        """Full paths of the image files, in sample order."""
        return self._filepaths

    @property
    def labels(self) -> np.ndarray:
        """The label of every sample."""
        return self.classes

    @property
    def sample_weight(self):
        return None


class DataFrameIterator(_FileBatches):
    """Batches of augmented images listed in a DataFrame (what
    `ImageDataGenerator.flow_from_dataframe` returns; needs pandas). See there for the
    arguments.

    >>> from lamina.preprocessing import image
    >>> import os, tempfile
    >>> import numpy as np
    >>> from lamina import utils
    >>> tmp = tempfile.TemporaryDirectory()
    >>> for name in ("cats/a.png", "cats/b.png", "dogs/c.png"):
    ...     os.makedirs(os.path.dirname(os.path.join(tmp.name, name)), exist_ok=True)
    ...     utils.save_img(os.path.join(tmp.name, name), np.full((6, 6, 3), 100.0))
    >>> class Frame(dict):  # stands in for a pandas DataFrame here
    ...     columns = property(list)
    >>> frame = Frame(filename=np.array(["cats/a.png", "dogs/c.png"]))
    >>> frame["class"] = np.array(["cat", "dog"])
    >>> flow = image.DataFrameIterator(frame, tmp.name, target_size=(4, 4), shuffle=False)
    Found 2 validated image filenames belonging to 2 classes.
    >>> x, y = flow[0]
    >>> x.shape, y.tolist(), flow.class_indices
    ((2, 4, 4, 3), [[1.0, 0.0], [0.0, 1.0]], {'cat': 0, 'dog': 1})
    >>> tmp.cleanup()
    """

    allowed_class_modes = ("binary", "categorical", "input", "multi_output", "raw", "sparse", None)

    def __init__(
        self,
        dataframe,
        directory: str | None = None,
        image_data_generator: ImageDataGenerator | None = None,
        x_col: str = "filename",
        y_col="class",
        weight_col: str | None = None,
        target_size=(256, 256),
        color_mode: str = "rgb",
        classes=None,
        class_mode: str | None = "categorical",
        batch_size: int = 32,
        shuffle: bool = True,
        seed: int | None = None,
        data_format: str = "channels_last",
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        subset: str | None = None,
        interpolation: str = "nearest",
        keep_aspect_ratio: bool = False,
        dtype="float32",
        validate_filenames: bool = True,
    ):
        self._set_processing_attrs(
            image_data_generator,
            target_size,
            color_mode,
            data_format,
            save_to_dir,
            save_prefix,
            save_format,
            subset,
            interpolation,
            keep_aspect_ratio,
        )
        self._check_class_mode(class_mode)
        self.class_mode = class_mode
        self.dtype = dtype
        self.directory = directory or ""
        label_columns = y_col if isinstance(y_col, list) else [y_col]
        needed = [x_col] + ([] if class_mode in ("input", None) else label_columns)
        needed += [weight_col] if weight_col else []
        missing = [c for c in needed if c not in dataframe.columns]
        if missing:
            raise KeyError(
                f"flow_from_dataframe: columns {missing} are not in the dataframe (it has "
                f"{list(dataframe.columns)})."
            )
        # Plain lists from here on: the rest needs nothing from pandas.
        rows = {column: list(dataframe[column].tolist()) for column in needed}
        paths = rows[x_col]
        if not all(isinstance(p, str) for p in paths):
            raise TypeError(
                f"flow_from_dataframe: every value in x_col={x_col!r} must be a string."
            )
        labels = rows.get(y_col) if not isinstance(y_col, list) else None
        self._check_labels(labels, y_col, classes)
        keep = list(range(len(paths)))
        if validate_filenames:
            keep = [
                i
                for i in keep
                if paths[i].lower().endswith(IMAGE_EXTENSIONS)
                and os.path.isfile(os.path.join(self.directory, paths[i]))
            ]
            if len(keep) < len(paths):
                warnings.warn(
                    f"flow_from_dataframe: {len(paths) - len(keep)} invalid image file name(s) "
                    f'in x_col="{x_col}" are ignored.',
                    stacklevel=3,
                )
        if class_mode not in ("input", "multi_output", "raw", None):
            keep, classes = self._filter_classes(labels, keep, classes)
            self.class_indices = {name: i for i, name in enumerate(classes)}
        if self.split:
            keep = keep[int(self.split[0] * len(keep)) : int(self.split[1] * len(keep))]
        if class_mode not in ("input", "multi_output", "raw", None):
            self.classes = [
                [self.class_indices[c] for c in labels[i]]
                if isinstance(labels[i], (list, tuple))
                else self.class_indices[labels[i]]
                for i in keep
            ]
        self.filenames = [paths[i] for i in keep]
        self._sample_weight = (
            np.asarray([rows[weight_col][i] for i in keep]) if weight_col else None
        )
        if class_mode == "multi_output":
            self._targets = [np.array([rows[c][i] for i in keep]) for c in y_col]
        elif class_mode == "raw":
            if isinstance(y_col, list):
                self._targets = np.array([[rows[c][i] for c in y_col] for i in keep])
            else:
                self._targets = np.array([rows[y_col][i] for i in keep])
        self.samples = len(self.filenames)
        checked = "validated" if validate_filenames else "non-validated"
        if class_mode in ("input", "multi_output", "raw", None):
            print(f"Found {self.samples} {checked} image filenames.")
        else:
            print(
                f"Found {self.samples} {checked} image filenames belonging to "
                f"{len(self.class_indices)} classes."
            )
        self._filepaths = [os.path.join(self.directory, name) for name in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    def _check_labels(self, labels, y_col, classes):
        mode = self.class_mode
        if mode == "multi_output" and not isinstance(y_col, list):
            raise TypeError(
                f'flow_from_dataframe: class_mode="multi_output" needs y_col to be a list of '
                f"columns; received {type(y_col).__name__}."
            )
        if mode in ("binary", "sparse") and not all(isinstance(v, str) for v in labels):
            raise TypeError(
                f'flow_from_dataframe: with class_mode="{mode}" the values of y_col="{y_col}" '
                "must be strings."
            )
        if mode == "binary":
            count = len(set(classes)) if classes else len(set(labels))
            if count != 2:
                raise ValueError(
                    f'flow_from_dataframe: class_mode="binary" needs exactly 2 classes; found '
                    f"{count}."
                )
        if mode == "categorical" and not all(isinstance(v, (str, list, tuple)) for v in labels):
            raise TypeError(
                f'flow_from_dataframe: with class_mode="categorical" the values of '
                f'y_col="{y_col}" must be strings, lists or tuples.'
            )
        if classes and mode in ("input", "multi_output", "raw", None):
            warnings.warn(
                f'flow_from_dataframe: `classes` is ignored with class_mode="{mode}".',
                stacklevel=4,
            )

    @staticmethod
    def _filter_classes(labels, keep, classes):
        if classes:
            classes = list(dict.fromkeys(classes))
            wanted = set(classes)
            kept = []
            for i in keep:
                label = labels[i]
                if isinstance(label, (list, tuple)):
                    label = [c for c in label if c in wanted]
                    labels[i] = label
                    if label:
                        kept.append(i)
                elif label in wanted:
                    kept.append(i)
            return kept, classes
        found = set()
        for i in keep:
            label = labels[i]
            found.update(label if isinstance(label, (list, tuple)) else [label])
        return keep, sorted(found)

    @property
    def filepaths(self) -> list[str]:
        """Full paths of the image files, in sample order."""
        return self._filepaths

    @property
    def labels(self):
        """Each sample's label(s), per `class_mode`."""
        if self.class_mode in ("multi_output", "raw"):
            return self._targets
        return self.classes

    @property
    def sample_weight(self):
        return self._sample_weight
