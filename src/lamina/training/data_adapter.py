"""Turning what users pass to `fit` into batches: arrays, generators, PyDataset.

Arrays (and lists/dicts of arrays) are checked on the host before anything runs: equal
sample counts, numeric dtypes, and (with `lamina.config.enable_input_checks()`) finite
values. A generator's or PyDataset's batches are checked as they arrive, each against the
structure of the first one. Batches come out as `(x, y, sample_weight)` with the
structure the user gave. `lamina.config.set_max_steps_per_epoch` caps every pass here.

A `torch.utils.data.DataLoader` is an iterable source. When it shuffles with a
`torch.Generator` of its own, the generator's state at each epoch's start is what
`BackupAndRestore` records (and puts back when resuming), so an interrupted `fit`
resumes in the loader's order exactly; the engine is never imported for this (the
generator is used through its `get_state`/`set_state` methods).
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator

import numpy as np

from lamina import backend, tree
from lamina.callbacks import backup as backup_callback
from lamina.common import debugging, py_dataset
from lamina.common.data_utils import pandas_kind
from lamina.common.py_dataset import PyDataset  # noqa: F401 - re-exported for the loop
from lamina.layers.layer import is_text_array as is_text
from lamina.training import host_arrays


def _is_array_like(x) -> bool:
    return (
        isinstance(x, np.ndarray)
        or (hasattr(x, "shape") and hasattr(x, "dtype"))
        or pandas_kind(x) is not None
        or host_arrays.is_scipy_sparse(x)
    )


def _to_numpy(x, role: str, sparse_rows: bool = False):
    if x is None:
        return None
    arr = host_arrays.host_value(x, role, sparse_rows)
    if isinstance(arr, host_arrays.SparseRows):
        return arr  # already float32 / int32 (see there)
    if role.startswith("x") and is_text(arr):
        return arr  # for a model whose host layers (e.g. TextVectorization) take text
    if arr.dtype == object or arr.dtype.kind in ("U", "S", "O"):
        raise TypeError(
            f"{role} has dtype {arr.dtype}, which cannot be fed to a model. Convert it to a "
            "numeric array first (e.g. with a lookup or `astype('float32')`)."
        )
    if arr.dtype == np.float64:
        arr = arr.astype("float32")
    elif arr.dtype == np.int64 and not backend.execution.KEEPS_INT64_DATA:
        arr = arr.astype("int32")  # as the engine holds it (JAX)
    return arr


def refuse_text(x, model=None) -> None:
    """Refuse text inputs for a model without layers that take strings, naming the
    model's layer that would receive them."""
    if type(x) is np.ndarray:
        if x.dtype.kind not in "USO":
            return
        named = [("x", x)]
    else:
        named = named_leaves(x, "x")
    for position, (name, leaf) in enumerate(named):
        if isinstance(leaf, np.ndarray) and leaf.dtype.kind in "USO" and is_text(leaf):
            layer = _receiving_layer(model, x, position)
            where = (
                f"; its layer {layer.name!r} ({type(layer).__name__}), which receives it, "
                "computes on numbers"
                if layer is not None
                else ""
            )
            raise TypeError(
                f"{name} has dtype {leaf.dtype} (text), but this model takes no strings{where}. "
                "Turn the text into numbers inside the model: start it with "
                "Input(shape=(1,), dtype='string') followed by a StringLookup or "
                "TextVectorization layer (or Hashing); or "
                "convert the data to numbers before passing it."
            )


def _receiving_layer(model, x, position: int):
    """The first layer of `model` that takes the input at `position` of `x` (None when
    it cannot be told: a subclassed model's `call` decides)."""
    if model is None:
        return None
    layers = [
        layer for layer in getattr(model, "layers", []) if type(layer).__name__ != "InputLayer"
    ]
    inputs = tree.flatten(getattr(model, "inputs", None) or [])
    if not inputs:
        # A Sequential model feeds its first layer; nothing else can be told.
        sequential = any(c.__name__ == "Sequential" for c in type(model).__mro__)
        return layers[0] if sequential and layers else None
    target = None
    if isinstance(x, dict):
        key = sorted(x)[position] if position < len(x) else None
        target = next((t for t in inputs if _input_name(t) == key), None)
    elif position < len(inputs):
        target = inputs[position]
    for layer in layers:
        for node in getattr(layer, "_inbound_nodes", []):
            if any(t is target for t in tree.flatten(node.input_tensors)):
                return layer
    return None


def _input_name(tensor):
    history = getattr(tensor, "_keras_history", None)
    return history[0].name if history else getattr(tensor, "name", None)


def named_leaves(struct, role: str) -> list:
    """`(name, leaf)` for each leaf of `struct`, named as a user would index it:
    `x`, `x[0]`, `x['image']`, `y[1]['a']`."""
    if isinstance(struct, dict):
        return [
            item for key in sorted(struct) for item in named_leaves(struct[key], f"{role}[{key!r}]")
        ]
    if isinstance(struct, (list, tuple)):
        return [item for i, v in enumerate(struct) for item in named_leaves(v, f"{role}[{i}]")]
    return [(role, struct)]


def check_finite(struct, role: str, where: str = "") -> None:
    """With input checks on (`lamina.config.enable_input_checks()`), refuse NaN and
    infinity in `struct`, naming the array, `where` (a batch) and the first bad value."""
    if struct is None or not debugging.is_input_checks_enabled():
        return
    for name, arr in named_leaves(struct, role):
        if isinstance(arr, host_arrays.SparseRows):
            found = arr.non_finite()
        elif not isinstance(arr, np.ndarray) or arr.dtype.kind not in "fc":
            continue
        else:
            bad = ~np.isfinite(arr)
            first = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.any() else None
            found = None if first is None else (int(bad.sum()), first, arr[first])
        if found is not None:
            count, first, value = found
            raise ValueError(
                f"{name}{where} holds {count} non-finite value(s) (NaN or "
                f"infinity); the first is {value} at index {first}. Input checks are on "
                "(lamina.config.enable_input_checks()). Clean the data before training: "
                "drop those samples, or replace the values (e.g. np.nan_to_num, or an "
                "imputed mean)."
            )


def _standardize(struct, role: str, sparse_rows: bool = False):
    """`struct`'s arrays as NumPy arrays; with `sparse_rows` (a whole data set, batched
    later), SciPy sparse matrices as `host_arrays.SparseRows`."""
    if struct is None:
        return None
    if isinstance(struct, dict):
        return {k: _to_numpy(v, f"{role}[{k!r}]", sparse_rows) for k, v in struct.items()}
    if isinstance(struct, (list, tuple)) and struct and all(_is_array_like(v) for v in struct):
        return [_to_numpy(v, f"{role}[{i}]", sparse_rows) for i, v in enumerate(struct)]
    return _to_numpy(struct, role, sparse_rows)


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


def check_sample_counts(x, y, sample_weight, where: str = "") -> int:
    """The number of samples, the same in every array (`where` names the batch)."""
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
                raise ValueError(
                    f"{name}{where} is a scalar; expected an array with one row per sample."
                )
            counts.append((name, arr.shape[0]))
    sizes = {n for _, n in counts}
    if len(sizes) > 1:
        detail = ", ".join(f"{name} has {n}" for name, n in counts)
        raise ValueError(
            f"All inputs and targets must have the same number of samples{where}; {detail}. "
            "Make sure every array has one row per sample."
        )
    return counts[0][1] if counts else 0


# Training arrays up to this many bytes go to the device once per `fit`, and each compiled
# call slices (or, shuffled, gathers) its batches there, as a hand-written JAX loop over
# device-resident data does; larger data is copied to the device a chunk at a time.
# None (the default): 256 MiB when the default device is an accelerator, 0 on a CPU,
# whose "device" is host memory: there, copying the whole set first and gathering in the
# program made `fit` slower than gathering each chunk on the host (1.1-1.7x on both
# engines; bench/RESULTS.md).
RESIDENT_BYTES: int | None = None
_ACCELERATOR_RESIDENT_BYTES = 256 * 2**20


def resident_bytes() -> int:
    """The size up to which `fit` keeps the training arrays on the device."""
    if RESIDENT_BYTES is not None:
        return RESIDENT_BYTES
    return _ACCELERATOR_RESIDENT_BYTES if _on_accelerator() else 0


@functools.lru_cache(maxsize=1)
def _on_accelerator() -> bool:
    devices = backend.distribution.list_devices()
    return bool(devices) and not str(devices[0]).startswith("cpu")


def take(struct, idx, sparse_rows: bool = False):
    """The rows `idx` of each array of `struct` (`sparse_rows`: SciPy sparse ones kept
    sparse, as `host_arrays.SparseRows`; else dense, as a batch)."""
    if struct is None:
        return None
    if type(struct) is np.ndarray:  # the common batch: no tree to walk
        return struct[idx]
    if sparse_rows:
        return tree.map_structure(
            lambda a: a.take_rows(idx) if isinstance(a, host_arrays.SparseRows) else a[idx],
            struct,
        )
    return tree.map_structure(lambda a: a[idx], struct)


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
        # (A backup redraws this order from NumPy's state; nothing else to record.)
        backup_callback.data_epoch_begins(self)
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
        self._first = None  # (skeleton, description, index) of the first batch seen
        self._is_pydataset = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        # Where the current pass stands (for `order_state`): the source's generator
        # states as its iterator was made, and the batches training took from it since.
        self._pass_states = []
        self._consumed = 0
        self._resume_skip = 0  # batches a resumed pass skips first (`set_order_state`)

    @property
    def steps(self):
        if self._steps is not None:
            return self._steps
        try:
            return len(self.source)
        except TypeError:
            return None

    def epoch_order(self, rng=None):
        """Called by `fit` as each epoch begins, before the epoch's batches are read; the
        order is the source's own (None), but a `BackupAndRestore` records (or, resuming,
        puts back) where the data stands and the state its order is drawn from
        (`order_state`)."""
        if self._steps is not None and self._pass_over():
            self._iterator = None  # a DataLoader read to its end: a new pass begins
        backup_callback.data_epoch_begins(self)
        return None

    def _one_shot(self) -> bool:
        """True for a source read only once (a generator), not re-iterated per pass."""
        return isinstance(self.source, Iterator)

    def _pass_over(self) -> bool:
        """Whether the next batch starts a new pass of the source."""
        if self._iterator is None:
            return True
        try:
            return not self._one_shot() and self._consumed >= len(self.source)
        except TypeError:  # no length: the pass ends when its iterator does
            return False

    def _generator_states(self) -> list:
        # (`numpy()`: a torch tensor's own conversion, of a copy `get_state` made)
        generators = order_generators(self.source)
        return [np.array(g.get_state().numpy(), dtype=np.uint8) for g in generators]

    def order_state(self):
        """Where the data stands as an epoch begins, for `BackupAndRestore`: None when a
        resumed run needs nothing to read the same batches (a PyDataset, read by index;
        a fixed-order source read afresh each epoch), else a list of arrays: the
        batches already read from the current pass (with `steps_per_epoch`, epochs
        continue a pass), then the states, as the pass began, of the generators a
        DataLoader-like source shuffles with."""
        if self._is_pydataset:
            return None
        if self._steps is None or self._pass_over():
            position, states = 0, self._generator_states()
        else:
            position, states = self._consumed, self._pass_states
        if self._steps is None and not states:
            return None
        return [np.array([position], dtype=np.int64), *states]

    def set_order_state(self, states) -> None:
        """Put back what `order_state` returned, so the next epoch reads the batches
        the recorded one read. Raises `ValueError` when it does not fit this source."""
        self._set_generator_states(states[1:])
        if not self._one_shot():
            # Re-read from the restored state (a look at the first batch made an
            # iterator from the state before).
            self._iterator, self._peeked = None, _END
        self._resume_skip = int(states[0][0])

    def _set_generator_states(self, states) -> None:
        generators = order_generators(self.source)
        if len(generators) != len(states):
            raise ValueError(
                f"recorded the state of {len(states)} generator(s) deciding the data "
                f"order, but the data passed now shuffles with {len(generators)}"
            )
        for generator, state in zip(generators, states, strict=True):
            template = generator.get_state()  # a fresh copy, of the engine's own type
            view = template.numpy()  # shares the copy's memory
            if view.shape != state.shape:
                raise ValueError(
                    f"recorded a generator state of {state.size} bytes, but the data "
                    f"passed now has a generator whose state takes {view.size}"
                )
            view[...] = state
            generator.set_state(template)

    def shuffles_unrecorded(self) -> bool:
        """True when the source shuffles from a generator it does not hold (a DataLoader
        with `shuffle=True` and no `generator`: torch's global one), whose state no
        backup can put back."""
        return not self._is_pydataset and shuffles_unrecorded(self.source)

    def peek(self):
        """The first batch `(x, y, sample_weight)` without losing it (None if empty)."""
        if self._is_pydataset:
            return unpack_batch(self.source[0], _FIRST) if len(self.source) else None
        if self._peeked is _END:
            states = self._generator_states() if self._steps is None else None
            iterator = self._epoch_iterator()
            if self._steps is None and iterator is not self.source:
                # Iterated afresh each epoch: this look costs nothing later, and it
                # leaves a seeded loader's generators as they were, so the first epoch
                # draws the order it would draw without the look.
                item = next(iterator, _END)
                if states:
                    self._set_generator_states(states)
                return None if item is _END else unpack_batch(item, _FIRST)
            self._peeked = next(iterator, _END)
            if self._peeked is _END:
                return None
        return unpack_batch(self._peeked, _FIRST)

    def _epoch_iterator(self):
        """What an epoch reads from: with steps_per_epoch one iterator kept across epochs
        (each epoch continues the pass), else a fresh one."""
        if self._steps is None:
            return self._new_pass()
        if self._iterator is None:
            self._iterator = self._new_pass()
        return self._iterator

    def _new_pass(self):
        self._pass_states = self._generator_states()
        self._consumed = 0
        return iter(self.source)

    def _items(self, start: int):
        if self._is_pydataset:
            stop = len(self.source)
            if self._steps is not None:
                stop = min(stop, self._steps)
            # Read ahead on the dataset's workers (if any), in index order; closing this
            # generator stops them.
            yield from py_dataset.read_in_order(self.source, start, stop)
            return
        # (no `yield from` below: closing this generator must not close the user's)
        iterator = self._epoch_iterator()
        if self._peeked is not _END:
            iterator = itertools.chain([self._peeked], iterator)
            self._peeked = _END
        skip, self._resume_skip = start + self._resume_skip, 0
        for _ in range(skip):  # resuming: these batches were trained before
            if next(iterator, _END) is _END:
                return
            self._consumed += 1
        delivered = 0
        while True:
            item = next(iterator, _END)
            if item is _END:
                if self._steps is None or self._one_shot():
                    return
                # The pass is over: the next epoch (or this one, if it has read
                # nothing yet) starts a new one, as with arrays.
                self._iterator = None
                if delivered or skip:
                    return
                iterator = self._epoch_iterator()
                item = next(iterator, _END)
                if item is _END:
                    return
            self._consumed += 1
            delivered += 1
            yield item

    def batches(self, order=None, start: int = 0):
        count = start
        items = self._items(start)
        # Count before pulling: a batch taken from a generator is never dropped.
        while self._steps is None or count < self._steps:
            item = next(items, _END)
            if item is _END:
                return
            batch = unpack_batch(item, where=f" (in batch {count})")
            self._check_structure(batch, count)
            count += 1
            yield batch

    def _check_structure(self, batch, index: int) -> None:
        """Every batch has the structure of the first one."""
        skeleton = _skeleton(batch)
        if self._first is None:
            self._first = (skeleton, describe_batch(batch), index)
        elif skeleton != self._first[0]:
            kind = "PyDataset" if self._is_pydataset else "generator"
            raise ValueError(
                f"The {kind} gave batch {index} as {describe_batch(batch)}, but batch "
                f"{self._first[2]} as {self._first[1]} (batches counted from 0). Every batch "
                "must have the same structure (the same inputs, targets and sample weights, "
                f"nested the same way): fix the {kind} so that all its batches match."
            )

    def on_epoch_end(self):
        if hasattr(self.source, "on_epoch_end"):
            self.source.on_epoch_end()


_END = object()
_FIRST = " (in batch 0)"


# Samplers that shuffle from torch's global generator when given no generator of their own.
_GLOBAL_RANDOM_SAMPLERS = frozenset(
    {"RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler"}
)


def _samplers(source) -> list:
    """A DataLoader-like source's sampler, batch sampler and the batch sampler's sampler."""
    batch_sampler = getattr(source, "batch_sampler", None)
    found = (
        getattr(source, "sampler", None),
        batch_sampler,
        getattr(batch_sampler, "sampler", None),
    )
    return [s for s in found if s is not None]


def order_generators(source) -> list:
    """The `torch.Generator`s a DataLoader-like source draws its order and worker seeds
    from, each once (known by their methods: the engine is not imported here)."""
    generators = []
    for owner in [source, *_samplers(source)]:
        generator = getattr(owner, "generator", None)
        if all(
            callable(getattr(generator, name, None))
            for name in ("get_state", "set_state", "manual_seed", "initial_seed")
        ) and not any(generator is g for g in generators):
            generators.append(generator)
    return generators


def shuffles_unrecorded(source) -> bool:
    """True when a DataLoader-like source has a random sampler without a generator of its
    own (it draws from torch's global generator)."""
    return any(
        getattr(sampler, "generator", False) is None
        and any(c.__name__ in _GLOBAL_RANDOM_SAMPLERS for c in type(sampler).__mro__)
        for sampler in _samplers(source)
    )


def describe(struct) -> str:
    """A short picture of a nested structure of arrays, for error messages."""
    if isinstance(struct, dict):
        return "{" + ", ".join(f"{k!r}: {describe(struct[k])}" for k in sorted(struct)) + "}"
    if isinstance(struct, list):
        return "[" + ", ".join(describe(v) for v in struct) + "]"
    if isinstance(struct, tuple):
        return (
            "(" + ", ".join(describe(v) for v in struct) + ("," if len(struct) == 1 else "") + ")"
        )
    if struct is None:
        return "None"
    if hasattr(struct, "shape") and hasattr(struct, "dtype"):
        return f"array(shape={tuple(struct.shape)}, dtype={struct.dtype})"
    return type(struct).__name__


def describe_batch(batch) -> str:
    """`(x=..., y=..., sample_weight=...)` for an unpacked batch, absent parts left out."""
    parts = [
        f"{role}={describe(part)}"
        for role, part in zip(("x", "y", "sample_weight"), batch, strict=True)
        if part is not None or role == "x"
    ]
    return "(" + ", ".join(parts) + ")"


def _skeleton(batch):
    """What must stay the same from batch to batch: the nesting and which parts exist."""
    return tree.map_structure(lambda leaf: leaf is None, batch)


def unpack_batch(item, where: str = ""):
    """`(x, y, sample_weight)` of one batch as a generator, PyDataset or `*_on_batch`
    call gives it, with arrays standardized and checked (`where` names the batch)."""
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
    check_sample_counts(x, y, sw, where)
    for struct, role in ((x, "x"), (y, "y"), (sw, "sample_weight")):
        check_finite(struct, role, where)
    return x, y, sw


def is_iterable_source(x) -> bool:
    if isinstance(x, (np.ndarray, list, tuple, dict)) or _is_array_like(x):
        return False
    return (
        isinstance(x, (Iterable, Iterator)) or hasattr(x, "__getitem__") and hasattr(x, "__len__")
    )


def make_batches(x, y=None, sample_weight=None, batch_size=32, shuffle=False, steps=None, role="x"):
    """The batches of one call of `fit`, `evaluate` or `predict`, checked up front."""
    if is_iterable_source(x):
        if y is not None:
            raise ValueError(
                "When x is a generator, iterable or PyDataset, pass targets inside it "
                "(yield (x, y)), not as the `y` argument."
            )
        source_steps = None
        if steps is None and hasattr(x, "__len__"):
            try:
                source_steps = len(x)
            except TypeError:
                pass
        return IterableBatches(x, steps=_capped_steps(steps, source_steps))
    if batch_size is not None and (
        isinstance(batch_size, bool)
        or not isinstance(batch_size, (int, np.integer))
        or batch_size <= 0
    ):
        raise ValueError(f"batch_size must be a positive int; received {batch_size!r}.")
    if batch_size is not None:
        batch_size = int(batch_size)  # a NumPy integer, as Keras takes it
    x = _standardize(x, role, sparse_rows=True)
    y = _standardize(y, "y", sparse_rows=True)
    sample_weight = _standardize(sample_weight, "sample_weight")
    for struct, name in ((x, role), (y, "y"), (sample_weight, "sample_weight")):
        check_finite(struct, name)
    batches = ArrayBatches(
        x, y, sample_weight, batch_size=batch_size or 32, shuffle=shuffle, steps=steps
    )
    capped = _capped_steps(steps, batches._full)
    if capped != steps:
        batches._steps = capped
    return batches


def _capped_steps(steps, available):
    """`steps` capped by `lamina.config.set_max_steps_per_epoch`, with Keras's warning
    when the cap shortens the pass (`available`: the batches there are, if known)."""
    cap = debugging.max_steps_per_epoch()
    if cap is None:
        return steps
    wanted = steps if steps is not None else available
    if wanted is not None and wanted <= cap:
        return steps
    warnings.warn(
        f"Limiting steps_per_epoch to {cap} (lamina.config.set_max_steps_per_epoch).",
        UserWarning,
        stacklevel=4,
    )
    return cap


def split_for_validation(x, y, sample_weight, validation_split: float):
    """Split off the last `validation_split` fraction of the samples (before shuffling)."""
    if not 0 <= validation_split < 1:
        raise ValueError(f"validation_split must be in [0, 1); received {validation_split!r}.")
    if is_iterable_source(x):
        raise ValueError(
            "validation_split works only with array inputs; for generators and datasets "
            "pass validation_data instead."
        )
    x = _standardize(x, "x", sparse_rows=True)
    y = _standardize(y, "y", sparse_rows=True)
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
        (take(x, first, True), take(y, first, True), take(sample_weight, first)),
        (take(x, last, True), take(y, last, True), take(sample_weight, last)),
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
