"""What the `*_dataset_from_*` builders share, and `split_dataset`.

Keras 3 builds these datasets on tf.data (or grain). lamina builds them on `PyDataset`,
which `fit`, `evaluate` and `predict` take directly: a `SampleDataset` holds one NumPy
array per sample field (file paths, labels, window starts, ...) and a function that
turns the fields of a few samples into a batch. Batches are made when asked for, so a
folder of images is read file by file as training goes.

The directory listing (`index_directory`), the validation split arithmetic and the
argument checks follow Keras's: the same directory, seed and split give the same files
in the same order, with the same labels, as Keras gives.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence

import numpy as np

from lamina.common import io_utils
from lamina.common.py_dataset import PyDataset

_SUBSETS = ("training", "validation", "both")
_LABEL_MODES = ("int", "categorical", "binary", None)


class SampleDataset(PyDataset):
    """A `PyDataset` of samples stored as fields, served in batches.

    What `image_dataset_from_directory`, `text_dataset_from_directory`,
    `timeseries_dataset_from_array` and `split_dataset` return. Sample `i` is made of
    `field[i]` for each field; `load(fields)` turns the fields of several samples into a
    batch (an array, or a tuple `(x, y)`). With `batch_size=None` each item is one
    sample, without a batch axis.

    With `shuffle=True` the first epoch reads the samples in their stored order (for the
    directory builders that is the seeded order of `file_paths`) and each later epoch
    (after `on_epoch_end`, which `fit` calls) in a new order drawn from `seed` and the
    epoch number, so a run repeats exactly from the same seed.

    Attributes:
        class_names: The class names, in label order (None when there are no labels).
        file_paths: The files the samples come from, in the stored order (directory
            builders only).

    >>> import numpy as np
    >>> ds = SampleDataset((np.arange(5),), lambda fields: fields[0] * 10, batch_size=2)
    >>> len(ds), [b.tolist() for b in ds]
    (3, [[0, 10], [20, 30], [40]])
    """

    def __init__(
        self,
        fields: Sequence[np.ndarray],
        load: Callable,
        batch_size: int | None = 32,
        shuffle: bool = False,
        seed: int | None = None,
    ):
        super().__init__()
        check_batch_size(batch_size)
        self._fields = tuple(fields)
        self._load = load
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        if self.shuffle and seed is None:
            seed = int(np.random.randint(1e6))
        self.seed = seed
        self._num_samples = len(self._fields[0]) if self._fields else 0
        self._epoch = 0
        self._order = np.arange(self._num_samples)
        self.class_names = None

    @property
    def num_samples(self) -> int:
        """How many samples one epoch reads."""
        return self._num_samples

    def __len__(self) -> int:
        if self.batch_size is None:
            return self._num_samples
        return -(-self._num_samples // self.batch_size)

    def __getitem__(self, index: int):
        index = int(index)
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"Batch index {index} out of range for a dataset of {len(self)}.")
        if self.batch_size is None:
            return _unbatch(self._load(self._select(self._order[index : index + 1])))
        positions = self._order[index * self.batch_size : (index + 1) * self.batch_size]
        return self._load(self._select(positions))

    def __iter__(self):
        # What a user's loop sees (`for x, y in ds.take(1)`): arrays that also answer
        # `.numpy()`, as the tf.data tensors of Keras's datasets do. `fit` reads the
        # batches by index, as plain arrays.
        for index in range(len(self)):
            yield _answering_numpy(self[index])

    def on_epoch_end(self) -> None:
        """Draw the next epoch's sample order (when shuffling)."""
        self._epoch += 1
        if self.shuffle:
            rng = np.random.RandomState((self.seed + self._epoch) % (2**32))
            self._order = rng.permutation(self._num_samples)

    def _select(self, positions: np.ndarray) -> tuple:
        return tuple(field[positions] for field in self._fields)

    def select(self, positions, shuffle: bool = False, seed: int | None = None) -> SampleDataset:
        """A dataset of the samples at `positions` of the current order, same batching."""
        stored = self._order[np.asarray(positions, dtype=np.int64)]
        new = SampleDataset(
            self._select(stored), self._load, self.batch_size, shuffle=shuffle, seed=seed
        )
        new.class_names = self.class_names
        if getattr(self, "file_paths", None) is not None:
            new.file_paths = [self.file_paths[i] for i in stored]
        return new

    def take(self, count: int) -> SampleDataset:
        """The first `count` batches (samples when unbatched), as tf.data's `take`.

        >>> ds = SampleDataset((np.arange(10),), lambda f: f[0], batch_size=4)
        >>> [b.tolist() for b in ds.take(2)]
        [[0, 1, 2, 3], [4, 5, 6, 7]]
        """
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
            raise TypeError(f"`take` expects an integer count; received {count!r}.")
        per_item = 1 if self.batch_size is None else self.batch_size
        count = len(self) if count < 0 else min(int(count), len(self))
        return self.select(np.arange(min(count * per_item, self._num_samples)))

    def map(self, function: Callable, **kwargs) -> SampleDataset:
        """Apply `function` to every batch, as tf.data's `map`: a batch `(x, y)` is
        passed as `function(x, y)`. Keyword arguments such as `num_parallel_calls` are
        accepted and ignored.

        >>> ds = SampleDataset((np.arange(4),), lambda f: f[0], batch_size=2)
        >>> [b.tolist() for b in ds.map(lambda x: x * 10)]
        [[0, 10], [20, 30]]
        """
        load = self._load

        def mapped(fields):
            batch = load(fields)
            return function(*batch) if isinstance(batch, tuple) else function(batch)

        new = SampleDataset(self._fields, mapped, self.batch_size, self.shuffle, self.seed)
        new._order, new._epoch = self._order, self._epoch
        new.class_names = self.class_names
        if getattr(self, "file_paths", None) is not None:
            new.file_paths = self.file_paths
        return new

    def prefetch(self, buffer_size=None) -> SampleDataset:
        """This dataset itself: accepted so tf.data-style pipelines run unchanged
        (`fit` reads batches as it needs them)."""
        return self

    def __repr__(self) -> str:
        return (
            f"<SampleDataset: {self._num_samples} samples, batch_size={self.batch_size}, "
            f"shuffle={self.shuffle}>"
        )


class Batch(np.ndarray):
    """A NumPy array from iterating a dataset, with tf.Tensor's `.numpy()` (the plain
    array), so loops written for Keras's tf.data datasets (`inputs.numpy()`) run
    unchanged. Everything else is NumPy's: arithmetic on it gives Batches too.

    >>> batch = np.arange(3).view(Batch)
    >>> type(batch.numpy()).__name__, (batch * 2).numpy().tolist()
    ('ndarray', [0, 2, 4])
    """

    def numpy(self) -> np.ndarray:
        return self.view(np.ndarray)


def _answering_numpy(batch):
    if type(batch) is np.ndarray:
        return batch.view(Batch)
    if isinstance(batch, tuple):
        return tuple(_answering_numpy(part) for part in batch)
    if isinstance(batch, dict):
        return {key: _answering_numpy(value) for key, value in batch.items()}
    return batch


def _unbatch(batch):
    if isinstance(batch, tuple):
        return tuple(part[0] for part in batch)
    return batch[0]


def check_batch_size(batch_size) -> None:
    """`batch_size` must be None or a positive int."""
    if batch_size is None:
        return
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
        raise TypeError(
            f"`batch_size` must be a positive integer or None; received {batch_size!r}."
        )
    if batch_size <= 0:
        raise ValueError(f"`batch_size` must be a positive integer or None; received {batch_size}.")


def check_labels_args(labels, label_mode, class_names, kind: str) -> None:
    """Validate `labels`, `label_mode` and `class_names` as Keras does."""
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple, np.ndarray)):
            raise ValueError(
                "`labels` argument should be a list/tuple of integer labels, of the same "
                f"size as the number of {kind} files in the target directory. If you wish "
                "to infer the labels from the subdirectory names in the target directory, "
                'pass `labels="inferred"`. If you wish to get a dataset that only contains '
                f"{kind}s (no labels), pass `labels=None`. Received: labels={labels!r}"
            )
        if class_names:
            raise ValueError(
                'You can only pass `class_names` if `labels="inferred"`. '
                f"Received: labels={labels!r}, and class_names={class_names!r}"
            )
    if label_mode not in _LABEL_MODES:
        raise ValueError(
            '`label_mode` argument must be one of "int", "categorical", "binary", '
            f"or None. Received: label_mode={label_mode!r}"
        )


def check_validation_split_arg(validation_split, subset, shuffle, seed) -> None:
    """Validate `validation_split`, `subset`, `shuffle` and `seed` together, as Keras."""
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(
            f"`validation_split` must be between 0 and 1, received: {validation_split}"
        )
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError(
            "If `subset` is set, `validation_split` must be set, and inversely. "
            f"Received: validation_split={validation_split!r}, subset={subset!r}. Pass "
            'both (e.g. validation_split=0.2, subset="training") or neither.'
        )
    if subset not in (*_SUBSETS, None):
        raise ValueError(
            f'`subset` must be either "training", "validation" or "both", received: {subset!r}'
        )
    if validation_split and shuffle and seed is None:
        raise ValueError(
            "If using `validation_split` and shuffling the data, you must provide a `seed` "
            "argument, to make sure that there is no overlap between the training and "
            "validation subset."
        )


def index_directory(
    directory,
    labels,
    formats: tuple[str, ...],
    class_names=None,
    shuffle: bool = True,
    seed: int | None = None,
    follow_links: bool = False,
    verbose: bool = True,
):
    """List the files under `directory` with their labels, as Keras's `index_directory`.

    With `labels="inferred"` each subdirectory (sorted, hidden ones skipped, or in the
    order of `class_names`) is a class and its files, found recursively, get its index
    (a class folder with no matching files is refused, where Keras keeps it silently);
    otherwise every file under `directory` is listed. Files are taken in sorted order
    (directories by path, then names), keeping those whose lower-cased name ends in one
    of `formats`. With `shuffle`, paths and labels are permuted together by
    `np.random.RandomState(seed)`.

    Returns:
        `(file_paths, labels, class_names)`: paths joined onto `directory`, an int32
        array (inferred) or the given labels permuted alike (None without labels), and
        the class names (None without labels).
    """
    if not os.path.isdir(directory):
        raise FileNotFoundError(
            f"The directory {os.fspath(directory)!r} does not exist or is not a directory. "
            "Pass the folder that holds the data files (one subfolder per class when "
            'labels="inferred").'
        )
    if labels == "inferred":
        subdirs = [
            name
            for name in sorted(os.listdir(directory))
            if os.path.isdir(os.path.join(directory, name)) and not name.startswith(".")
        ]
        if class_names is not None:
            if not set(class_names).issubset(set(subdirs)):
                raise ValueError(
                    "The `class_names` passed did not match the names of the subdirectories "
                    f"of the target directory. Expected: {subdirs} (or a subset of it), but "
                    f"received: class_names={list(class_names)}"
                )
            subdirs = list(class_names)
    else:
        subdirs = [""]
        if class_names is not None:
            if labels is None:
                raise ValueError(
                    "When `labels=None` (no labels), argument `class_names` cannot be specified."
                )
            raise ValueError(
                "When argument `labels` is specified, argument `class_names` cannot be "
                "specified (the `class_names` will be the sorted list of labels)."
            )
    formats = tuple(formats)
    file_paths = []
    inferred = []
    empty = []
    for class_index, subdir in enumerate(subdirs):
        top = os.path.join(directory, subdir)
        found = len(file_paths)
        for relative in _walk_files(top, follow_links, formats):
            file_paths.append(os.path.join(directory, subdir, relative))
            inferred.append(class_index)
        if len(file_paths) == found:
            empty.append(subdir)
    if labels == "inferred" and empty and file_paths:
        # Keras silently keeps such a class (a label no sample has); an empty folder is
        # almost always a mistake, so say so. (No files at all: the caller's "No ...
        # found" error.)
        raise ValueError(
            f"Found {len(empty)} class folder(s) with no files of the allowed formats "
            f"({', '.join(formats)}) in directory {os.fspath(directory)!r}: {empty}. "
            'With labels="inferred" each subdirectory is a class and needs at least one '
            "file. Add files to these folders, remove them, or pass `class_names` without "
            "them."
        )

    if labels == "inferred":
        labels = np.asarray(inferred, dtype="int32")
        class_names = list(subdirs)
    elif labels is None:
        class_names = None
    else:
        if len(labels) != len(file_paths):
            raise ValueError(
                "Expected the lengths of `labels` to match the number of files in the "
                f"target directory. len(labels) is {len(labels)} while we found "
                f"{len(file_paths)} files in directory {os.fspath(directory)!r}. Labels go "
                "in the sorted order of the file paths (os.walk order)."
            )
        labels = list(labels)
        class_names = [str(label) for label in sorted(set(labels))]
    if verbose:
        if labels is None:
            io_utils.print_msg(f"Found {len(file_paths)} files.")
        else:
            io_utils.print_msg(
                f"Found {len(file_paths)} files belonging to {len(class_names)} classes."
            )
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(file_paths)
        if labels is not None:
            np.random.RandomState(seed).shuffle(labels)
    return file_paths, labels, class_names


def _walk_files(top, follow_links: bool, formats: tuple[str, ...]):
    """Paths relative to `top` of the matching files below it, in Keras's order."""
    for root, _, files in sorted(os.walk(top, followlinks=follow_links), key=lambda x: x[0]):
        for name in sorted(files):
            if name.lower().endswith(formats):
                yield os.path.relpath(os.path.join(root, name), top)


def make_subsets(make, file_paths, labels, validation_split, subset, shuffle, noun):
    """The dataset(s) a `*_dataset_from_directory` returns for `subset`: `make(paths,
    labels, shuffle, what)` of the training or validation part (or of everything when
    `subset` is None), or a `(training, validation)` pair for `subset="both"`, whose
    validation part is never shuffled. `noun` names the files in messages."""
    if subset == "both":
        train = get_training_or_validation_split(file_paths, labels, validation_split, "training")
        val = get_training_or_validation_split(file_paths, labels, validation_split, "validation")
        return (
            make(*train, shuffle, f"training {noun}"),
            make(*val, False, f"validation {noun}"),
        )
    file_paths, labels = get_training_or_validation_split(
        file_paths, labels, validation_split, subset
    )
    return make(file_paths, labels, shuffle, noun)


def get_training_or_validation_split(samples, labels, validation_split, subset):
    """The training (first part) or validation (last part) of `samples` and `labels`.

    As Keras: the validation part is the last `int(validation_split * len(samples))`
    samples, the training part the others; a message says how many files each uses.
    """
    if not validation_split:
        return samples, labels
    num_val_samples = int(validation_split * len(samples))
    if subset == "training":
        io_utils.print_msg(f"Using {len(samples) - num_val_samples} files for training.")
        # As Keras: `[:-0]` is empty, so a split too small for one validation file
        # leaves no training files (reported by the caller, naming the directory).
        samples = samples[:-num_val_samples]
        if labels is not None:
            labels = labels[:-num_val_samples]
    elif subset == "validation":
        io_utils.print_msg(f"Using {num_val_samples} files for validation.")
        samples = samples[-num_val_samples:] if num_val_samples else samples[:0]
        if labels is not None:
            labels = labels[-num_val_samples:] if num_val_samples else labels[:0]
    else:
        raise ValueError(
            f'`subset` must be either "training" or "validation", received: {subset!r}'
        )
    return samples, labels


def encode_labels(labels, label_mode: str, num_classes: int) -> np.ndarray:
    """Labels as Keras's datasets yield them.

    `"int"`: int32 `(n,)` (float32 for non-integer labels); `"binary"`: float32
    `(n, 1)`; `"categorical"`: float32 one-hot `(n, num_classes)` (a label outside
    `[0, num_classes)` is all zeros, as `tf.one_hot` makes it).
    """
    labels = np.asarray(labels)
    if label_mode == "int":
        if labels.dtype.kind in "iub":
            return labels.astype("int32")
        return labels.astype("float32")
    if label_mode == "binary":
        return labels.astype("float32").reshape(-1, 1)
    one_hot = np.zeros((len(labels), num_classes), dtype="float32")
    inside = (labels >= 0) & (labels < num_classes)
    one_hot[np.nonzero(inside)[0], labels[inside].astype(np.int64)] = 1.0
    return one_hot


# The backend names Keras 3 knows; `split_dataset(preferred_backend=...)` takes any.
KERAS_BACKENDS = ("tensorflow", "jax", "torch", "numpy", "openvino")


def split_dataset(
    dataset,
    left_size=None,
    right_size=None,
    shuffle: bool = False,
    seed=None,
    preferred_backend=None,
):
    """Split a dataset into a left and a right part (e.g. train / test), as Keras does.

    Sizes are counted in samples. A float is a fraction of the samples (rounded), an int
    a count; a missing size is the complement of the other. With `shuffle`, samples are
    permuted first as Keras permutes them (`random.Random(seed).shuffle`); the left part
    is the first `left_size` samples and the right part the last `right_size`.

    Args:
        dataset: A NumPy array, a tuple or list of arrays with the same first
            dimension (fields of one set of samples), or a `PyDataset` (split by
            sample; a general `PyDataset` is read whole into memory first).
        left_size: Float in `(0, 1)` or int in `(0, number of samples)`, or None.
        right_size: Likewise, or None. At least one must be given.
        shuffle: Whether to shuffle the samples before splitting.
        seed: Random seed for the shuffle.
        preferred_backend: Keras's choice of the returned type (`"tensorflow"`:
            `tf.data.Dataset`s, `"torch"`: torch `Dataset`s; None: inferred). Accepted
            for compatibility: one of Keras's backend names or None. lamina's result
            does not depend on it (it is always of the input's kind, which `fit` takes
            on every engine).

    Returns:
        `(left, right)`, of the input's kind: arrays, tuples or lists of arrays, or
        `PyDataset`s with the input's batch size (which `fit` takes directly).

    >>> import numpy as np
    >>> left, right = split_dataset(np.arange(10), left_size=0.8)
    >>> left.tolist(), right.tolist()
    ([0, 1, 2, 3, 4, 5, 6, 7], [8, 9])
    """
    if preferred_backend is not None and preferred_backend not in KERAS_BACKENDS:
        raise ValueError(
            f"`preferred_backend` must be None or one of {list(KERAS_BACKENDS)}. Received: "
            f"preferred_backend={preferred_backend!r}. lamina returns splits of the "
            "input's kind whatever it is; leave it None."
        )
    if left_size is None and right_size is None:
        raise ValueError(
            "At least one of the `left_size` or `right_size` must be specified. "
            "Received: left_size=None and right_size=None"
        )
    if isinstance(dataset, SampleDataset):
        total = dataset.num_samples
    elif isinstance(dataset, PyDataset):
        dataset = _materialize(dataset)
        total = dataset.num_samples
    elif isinstance(dataset, np.ndarray):
        total = len(dataset)
    elif isinstance(dataset, (list, tuple)):
        total = _fields_length(dataset)
    else:
        raise TypeError(
            "The `dataset` argument must be a NumPy array, a list/tuple of NumPy arrays of "
            f"the same length, or a PyDataset. Received: dataset of type {type(dataset)}"
        )
    if total == 0:
        raise ValueError("Received an empty dataset: there is nothing to split.")
    left_size, right_size = _split_sizes(left_size, right_size, total)
    order = list(range(total))
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(1e6))
        random.Random(seed).shuffle(order)
    left_positions = np.asarray(order[:left_size], dtype=np.int64)
    right_positions = np.asarray(order[total - right_size :], dtype=np.int64)
    if isinstance(dataset, SampleDataset):
        return dataset.select(left_positions), dataset.select(right_positions)
    if isinstance(dataset, np.ndarray):
        return dataset[left_positions], dataset[right_positions]
    kind = type(dataset)
    return (
        kind(field[left_positions] for field in dataset),
        kind(field[right_positions] for field in dataset),
    )


def _fields_length(fields) -> int:
    if len(fields) == 0:
        raise ValueError("Received an empty list/tuple dataset: pass a non-empty list of arrays.")
    length = None
    for i, field in enumerate(fields):
        if not isinstance(field, np.ndarray):
            raise ValueError(
                "Expected a list/tuple of `numpy.ndarray` objects; received "
                f"{type(field).__name__} at index {i}."
            )
        if length is None:
            length = len(field)
        elif len(field) != length:
            raise ValueError(
                "Received a list/tuple of NumPy arrays with different lengths: index 0 has "
                f"{length} samples, index {i} has {len(field)}. Pass arrays of the same length."
            )
    return length


def _split_sizes(left_size, right_size, total: int) -> tuple[int, int]:
    """Sizes in samples from fractions or counts, checked as Keras checks them."""
    for name, size in (("left_size", left_size), ("right_size", right_size)):
        if size is not None and (isinstance(size, bool) or type(size) not in (int, float)):
            raise TypeError(
                f"Invalid `{name}` type. Expected: int or float or None, "
                f"Received: type({name})={type(size)}."
            )
    if left_size == 0 and right_size == 0:
        raise ValueError(
            "Both `left_size` and `right_size` are zero. At least one of the split sizes "
            "must be non-zero."
        )
    for name, size in (("left_size", left_size), ("right_size", right_size)):
        if (type(size) is int and not 0 < size < total) or (
            type(size) is float and not 0 < size < 1
        ):
            raise ValueError(
                f"`{name}` should be either a positive integer smaller than {total}, or a "
                f"float within the range `[0, 1]`. Received: {name}={size}"
            )
    if type(left_size) is float and type(right_size) is float and left_size + right_size > 1:
        raise ValueError(
            "The sum of `left_size` and `right_size` is greater than 1. It must be less "
            "than or equal to 1."
        )
    left = round(left_size * total) if type(left_size) is float else left_size
    right = round(right_size * total) if type(right_size) is float else right_size
    if left is None:
        left = total - right
    elif right is None:
        right = total - left
    if left + right > total:
        raise ValueError(
            f"The sum of `left_size` ({left}) and `right_size` ({right}) is greater than the "
            f"total number of samples ({total})."
        )
    if left == 0:
        raise ValueError(
            f"With left_size={left_size!r} and {total} samples the left split is empty. "
            "Use a larger `left_size` (or a smaller `right_size`)."
        )
    if right == 0:
        raise ValueError(
            f"With right_size={right_size!r} and {total} samples the right split is empty. "
            "Use a larger `right_size` (or a smaller `left_size`)."
        )
    return int(left), int(right)


def _materialize(dataset: PyDataset) -> SampleDataset:
    """Read a general PyDataset whole into arrays (one per leaf of a batch)."""
    batches = [dataset[i] for i in range(len(dataset))]
    if not batches:
        raise ValueError("Received an empty PyDataset: there is nothing to split.")
    first = batches[0]
    structure = type(first) if isinstance(first, (tuple, list)) else None
    parts = list(first) if structure else [first]
    leaves = [[] for _ in parts]
    for batch in batches:
        items = list(batch) if structure else [batch]
        if len(items) != len(parts):
            raise ValueError(
                f"The PyDataset's batches differ in structure: batch 0 has {len(parts)} "
                f"parts, another has {len(items)}."
            )
        for store, item in zip(leaves, items):
            store.append(np.asarray(item))
    fields = [np.concatenate(store, axis=0) for store in leaves]
    batch_size = len(parts[0]) if hasattr(parts[0], "__len__") else 32

    def load(selected):
        return tuple(selected) if structure else selected[0]

    return SampleDataset(fields, load, batch_size=batch_size)
