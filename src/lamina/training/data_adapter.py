"""Turning what users pass to `fit` into batches: arrays, generators, PyDataset.

Arrays (and lists/dicts of arrays) are checked on the host before anything runs: equal
sample counts, numeric dtypes. Batches come out as `(x, y, sample_weight)` with the
structure the user gave.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator

import numpy as np

from lamina import tree
from lamina.utils.py_dataset import PyDataset  # noqa: F401 - re-exported for the loop


def _is_array_like(x) -> bool:
    return isinstance(x, np.ndarray) or (hasattr(x, "shape") and hasattr(x, "dtype"))


def _to_numpy(x, role: str):
    if x is None:
        return None
    arr = np.asarray(x)
    if role.startswith("x") and is_text(arr):
        return arr  # for a model whose host layers (e.g. TextVectorization) take text
    if arr.dtype == object or arr.dtype.kind in ("U", "S", "O"):
        raise TypeError(
            f"{role} has dtype {arr.dtype}, which cannot be fed to a model. Convert it to a "
            "numeric array first (e.g. with a lookup or `astype('float32')`)."
        )
    if arr.dtype == np.float64:
        arr = arr.astype("float32")
    elif arr.dtype == np.int64:
        arr = arr.astype("int32")
    return arr


def is_text(arr) -> bool:
    """True for a NumPy array of strings (or an object array holding only strings)."""
    return isinstance(arr, np.ndarray) and (
        arr.dtype.kind in "US"
        or (
            arr.dtype == object
            and arr.size > 0
            and all(isinstance(v, (str, bytes)) for v in arr.flat)
        )
    )


def refuse_text(x) -> None:
    """Refuse text inputs for a model without layers that take strings."""
    leaves = [x] if type(x) is np.ndarray else tree.flatten(x)
    for leaf in leaves:
        if isinstance(leaf, np.ndarray) and leaf.dtype.kind in "USO" and is_text(leaf):
            raise TypeError(
                f"x has dtype {leaf.dtype}: this model takes no strings. Start it with "
                "Input(shape=(1,), dtype='string') and a layer that takes text "
                "(TextVectorization, StringLookup, Hashing), or convert the data to numbers "
                "first."
            )


def _standardize(struct, role: str):
    if struct is None:
        return None
    if isinstance(struct, dict):
        return {k: _to_numpy(v, f"{role}[{k!r}]") for k, v in struct.items()}
    if isinstance(struct, (list, tuple)) and struct and all(_is_array_like(v) for v in struct):
        return [_to_numpy(v, f"{role}[{i}]") for i, v in enumerate(struct)]
    return _to_numpy(struct, role)


def is_plain_batch(x, batch_size) -> bool:
    """True for one NumPy array of at most `batch_size` (default 32) rows that needs no
    conversion (False for a `batch_size` that `make_batches` would refuse)."""
    if batch_size is None:
        batch_size = 32
    elif type(batch_size) is not int:
        return False
    return (
        type(x) is np.ndarray
        and x.dtype.kind in "fiub"
        and x.dtype not in (np.float64, np.int64)
        and x.ndim > 0
        and 0 < len(x) <= batch_size
    )


def num_samples(struct) -> int:
    return len(tree.flatten(struct)[0])


def check_sample_counts(x, y, sample_weight) -> int:
    counts = []
    for role, struct in (("x", x), ("y", y), ("sample_weight", sample_weight)):
        if struct is None:
            continue
        if isinstance(struct, dict):
            items = [(f"{role}[{k!r}]", v) for k, v in struct.items()]
        elif isinstance(struct, list):
            items = [(f"{role}[{i}]", v) for i, v in enumerate(struct)]
        else:
            items = [(role, struct)]
        for name, arr in items:
            if arr.ndim == 0:
                raise ValueError(f"{name} is a scalar; expected an array with one row per sample.")
            counts.append((name, arr.shape[0]))
    sizes = {n for _, n in counts}
    if len(sizes) > 1:
        detail = ", ".join(f"{name} has {n}" for name, n in counts)
        raise ValueError(
            f"All inputs and targets must have the same number of samples; {detail}. "
            "Make sure every array has one row per sample."
        )
    return counts[0][1] if counts else 0


# Training arrays up to this many bytes go to the device once per `fit`, and each compiled
# call slices (or, shuffled, gathers) its batches there, as a hand-written JAX loop over
# device-resident data does; larger data is copied to the device a chunk at a time.
RESIDENT_BYTES = 256 * 2**20


def take(struct, idx):
    return tree.map_structure(lambda a: a[idx], struct) if struct is not None else None


class ArrayBatches:
    """Batches of in-memory arrays, shuffled per pass with NumPy's global generator.

    With `steps` (`steps_per_epoch`) an epoch takes the next `steps` batches and the
    following epoch continues from there, as Keras does; a new pass (and a new
    shuffle) starts once the data is used up.
    """

    def __init__(self, x, y=None, sample_weight=None, batch_size=32, shuffle=False, steps=None):
        self.x, self.y, self.sample_weight = x, y, sample_weight
        self.size = check_sample_counts(x, y, sample_weight)
        self.batch_size = batch_size
        self.shuffle = shuffle
        self._steps = steps
        self._cursor = 0  # the next batch of the current pass
        self._order = None  # the current pass's sample order

    @property
    def arrays(self) -> tuple:
        return self.x, self.y, self.sample_weight

    @property
    def nbytes(self) -> int:
        leaves = tree.flatten([self.x, self.y, self.sample_weight])
        return sum(a.nbytes for a in leaves if a is not None)

    @property
    def _full(self) -> int:
        return math.ceil(self.size / self.batch_size) if self.size else 0

    @property
    def steps(self) -> int:
        full = self._full
        return min(full, self._steps) if self._steps is not None else full

    def epoch_order(self, rng: np.random.RandomState | None = None):
        """Sample order for the epoch, drawn now (so a run can record and replay it);
        an epoch that continues a pass keeps that pass's order."""
        if self._steps is not None and self._cursor > 0:
            return self._order
        rng = rng or np.random
        order = None
        if self.shuffle is True:
            order = rng.permutation(self.size)
        elif self.shuffle == "batch":
            # Keras's batch-sized chunks: whole batches in a random order, the partial
            # last batch kept last so every batch stays one contiguous chunk.
            full = self.size // self.batch_size
            chunks = rng.permutation(full)
            order = np.concatenate(
                [
                    (chunks[:, None] * self.batch_size + np.arange(self.batch_size)).ravel(),
                    np.arange(full * self.batch_size, self.size),
                ]
            ).astype(int)
        self._order = order
        return order

    def batches(self, order=None, start: int = 0) -> Iterator:
        """`(x, y, sample_weight)` for each batch of the epoch, from batch `start` on."""
        for x, y, sample_weight, _ in self.chunks(order, start=start, k=1):
            yield x, y, sample_weight

    def chunks(self, order=None, start: int = 0, k: int = 1) -> Iterator:
        """Like `batches`, but up to `k` consecutive batches at a time as one block.

        Yields `(x, y, sample_weight, n)`: the rows of `n` batches taken at once (one
        gather instead of `n` slices and a stack). A block holds full batches only; the
        partial last batch comes alone, as `batches` would group it.
        """
        for idx, n in self.row_chunks(order, start=start, k=k):
            yield take(self.x, idx), take(self.y, idx), take(self.sample_weight, idx), n

    def row_chunks(self, order=None, start: int = 0, k: int = 1) -> Iterator:
        """The rows `chunks` would take, as `(rows, n)`: a slice, or indices when shuffled."""
        first = self._cursor if self._steps is not None else 0
        stop_step = min(first + self.steps, self._full)
        step = first + start
        while step < stop_step:
            n = min(k, stop_step - step)
            begin = step * self.batch_size
            if n > 1 and begin + n * self.batch_size > self.size:
                n -= 1  # the partial last batch has another shape: it comes next, alone
            stop = min(begin + n * self.batch_size, self.size)
            if self._steps is not None:
                self._cursor = (step + n) % self._full
            yield (slice(begin, stop) if order is None else order[begin:stop]), n
            step += n

    def on_epoch_end(self):
        pass


class IterableBatches:
    """Batches from a generator, iterable or PyDataset."""

    def __init__(self, source, steps=None):
        self.source = source
        self._steps = steps
        self._iterator = None
        self._peeked = _END  # an item taken by `peek`, yielded first by the next epoch
        self._is_pydataset = hasattr(source, "__getitem__") and hasattr(source, "__len__")

    @property
    def steps(self):
        if self._steps is not None:
            return self._steps
        try:
            return len(self.source)
        except TypeError:
            return None

    def epoch_order(self, rng=None):
        return None

    def peek(self):
        """The first batch `(x, y, sample_weight)` without losing it (None if empty)."""
        if self._is_pydataset:
            return unpack_batch(self.source[0]) if len(self.source) else None
        if self._peeked is _END:
            iterator = self._epoch_iterator()
            if self._steps is None and iterator is not self.source:
                # Iterated afresh each epoch: this look costs nothing later.
                item = next(iterator, _END)
                return None if item is _END else unpack_batch(item)
            self._peeked = next(iterator, _END)
            if self._peeked is _END:
                return None
        return unpack_batch(self._peeked)

    def _epoch_iterator(self):
        """What an epoch reads from: with steps_per_epoch one iterator kept across epochs
        (each epoch continues the stream), else a fresh one."""
        if self._steps is None:
            return iter(self.source)
        if self._iterator is None:
            self._iterator = iter(self.source)
        return self._iterator

    def _items(self, start: int):
        if self._is_pydataset:
            stop = len(self.source)
            if self._steps is not None:
                stop = min(stop, self._steps)
            for i in range(start, stop):
                yield self.source[i]
            return
        # (no `yield from` below: closing this generator must not close the user's)
        iterator = self._epoch_iterator()
        if self._peeked is not _END:
            iterator = itertools.chain([self._peeked], iterator)
            self._peeked = _END
        for _ in range(start):  # resuming: these batches were trained before
            if next(iterator, _END) is _END:
                return
        while True:
            item = next(iterator, _END)
            if item is _END:
                return
            yield item

    def batches(self, order=None, start: int = 0):
        count = start
        items = self._items(start)
        # Count before pulling: a batch taken from a generator is never dropped.
        while self._steps is None or count < self._steps:
            item = next(items, _END)
            if item is _END:
                return
            count += 1
            yield unpack_batch(item)

    def on_epoch_end(self):
        if hasattr(self.source, "on_epoch_end"):
            self.source.on_epoch_end()


_END = object()


def unpack_batch(item):
    if isinstance(item, list) and 1 <= len(item) <= 3:
        # As Keras 3 reads a batch: a list (what a torch DataLoader yields) is a tuple.
        item = tuple(item)
    if isinstance(item, tuple):
        if len(item) == 1:
            x, y, sw = item[0], None, None
        elif len(item) == 2:
            (x, y), sw = item, None
        elif len(item) == 3:
            x, y, sw = item
        else:
            raise ValueError(
                f"A data generator yielded a tuple of {len(item)} elements; expected "
                "(x,), (x, y) or (x, y, sample_weight)."
            )
    else:
        x, y, sw = item, None, None
    x = _standardize(x, "x")
    y = _standardize(y, "y")
    sw = _standardize(sw, "sample_weight")
    check_sample_counts(x, y, sw)
    return x, y, sw


def is_iterable_source(x) -> bool:
    if isinstance(x, (np.ndarray, list, tuple, dict)) or _is_array_like(x):
        return False
    return (
        isinstance(x, (Iterable, Iterator)) or hasattr(x, "__getitem__") and hasattr(x, "__len__")
    )


def make_batches(x, y=None, sample_weight=None, batch_size=32, shuffle=False, steps=None, role="x"):
    if is_iterable_source(x):
        if y is not None:
            raise ValueError(
                "When x is a generator, iterable or PyDataset, pass targets inside it "
                "(yield (x, y)), not as the `y` argument."
            )
        return IterableBatches(x, steps=steps)
    if batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
        raise ValueError(f"batch_size must be a positive int; received {batch_size!r}.")
    x = _standardize(x, role)
    y = _standardize(y, "y")
    sample_weight = _standardize(sample_weight, "sample_weight")
    return ArrayBatches(
        x, y, sample_weight, batch_size=batch_size or 32, shuffle=shuffle, steps=steps
    )


def split_for_validation(x, y, sample_weight, validation_split: float):
    """Split off the last `validation_split` fraction of the samples (before shuffling)."""
    if not 0 <= validation_split < 1:
        raise ValueError(f"validation_split must be in [0, 1); received {validation_split!r}.")
    if is_iterable_source(x):
        raise ValueError(
            "validation_split works only with array inputs; for generators and datasets "
            "pass validation_data instead."
        )
    x = _standardize(x, "x")
    y = _standardize(y, "y")
    sample_weight = _standardize(sample_weight, "sample_weight")
    n = check_sample_counts(x, y, sample_weight)
    split = int(n * (1.0 - validation_split))
    if split == 0 or split == n:
        raise ValueError(
            f"validation_split={validation_split} leaves no samples on one side of the split "
            f"of {n} samples; use more data or another fraction."
        )
    first, last = slice(0, split), slice(split, n)
    return (
        (take(x, first), take(y, first), take(sample_weight, first)),
        (take(x, last), take(y, last), take(sample_weight, last)),
    )


def unpack_validation_data(validation_data):
    if isinstance(validation_data, list):
        validation_data = tuple(validation_data)  # Keras takes [x, y] like (x, y)
    if isinstance(validation_data, tuple):
        if len(validation_data) == 2:
            return validation_data[0], validation_data[1], None
        if len(validation_data) == 3:
            return validation_data
        raise ValueError(
            f"validation_data must be (x, y) or (x, y, sample_weight); received a tuple or list of "
            f"{len(validation_data)} elements."
        )
    return validation_data, None, None
