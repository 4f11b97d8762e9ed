"""Small pieces of the training loop: batch plumbing, validation frequency, verbosity."""

from __future__ import annotations

import sys
import warnings

import numpy as np

from lamina import backend, ops, tree
from lamina.common import debugging
from lamina.training import data_adapter


def unshare(variables) -> None:
    seen = set()
    for v in variables:
        value = v.value
        if id(value) in seen:
            value = ops.copy(value)
            v._value = value
        seen.add(id(value))


def is_arrays(batches) -> bool:
    return isinstance(batches, data_adapter.ArrayBatches)


def stack_batches(batches):
    """One batch structure whose leaves stack the leaves of `batches` on a new axis 0."""
    flats = [tree.flatten(b) for b in batches]
    stacked = [
        None if leaves[0] is None else np.stack(leaves) for leaves in zip(*flats, strict=True)
    ]
    return tree.pack_sequence_as(batches[0], stacked)


def split_rows(batch, n):
    """The batch structure with each leaf's rows split into `n` equal batches on axis 0."""
    leaves = [
        None if a is None else np.reshape(a, (n, -1) + tuple(np.shape(a)[1:]))
        for a in tree.flatten(batch)
    ]
    return tree.pack_sequence_as(batch, leaves)


class HostOutputs:
    """A predict pass's outputs, copied to the host one call behind the engine.

    Holding every call's engine arrays until the pass ends kept thousands of
    collector-tracked objects alive per `predict` (an engine array is one): each young
    collection during the pass promoted them, until a full collection (which walks the
    engine's millions of objects: ~100 ms on the CPU) ran every few calls, a latency
    spike. NumPy arrays are not tracked, so each call's outputs become NumPy arrays,
    kept per leaf, once the next call is on its way (waiting for a call's results
    before the next is dispatched would idle the device)."""

    def __init__(self):
        self._skeleton = None  # the first call's outputs: their structure
        self._leaves = None  # per leaf, the NumPy arrays of each call
        self._pending = None  # (outputs, stacked) of the last call, not copied yet

    def add(self, outputs, stacked: bool = False) -> None:
        """One call's outputs; `stacked`: a chunk's, on a new axis 0 before the rows."""
        if self._pending is not None:
            self._copy(*self._pending)
        self._pending = (outputs, stacked)

    def _copy(self, outputs, stacked):
        flat = tree.flatten(outputs)
        if self._leaves is None:
            self._skeleton = outputs
            self._leaves = [[] for _ in flat]
        for leaves, value in zip(self._leaves, flat, strict=True):
            value = backend.convert_to_numpy(value)
            leaves.append(value.reshape((-1,) + value.shape[2:]) if stacked else value)

    def result(self):
        """The outputs joined on axis 0 as NumPy arrays (None when nothing came)."""
        if self._pending is not None:
            self._copy(*self._pending)
            self._pending = None
        if self._leaves is None:
            return None
        joined = [parts[0] if len(parts) == 1 else np.concatenate(parts) for parts in self._leaves]
        return tree.pack_sequence_as(self._skeleton, joined)


def first_rows(struct, n):
    """The first batch of a chunk of `n` batches taken as one block (None stays None)."""
    if struct is None or n == 1:
        return struct
    rows = len(tree.flatten(struct)[0]) // n
    return tree.map_structure(lambda a: a[:rows], struct)


def same_shapes(batches) -> bool:
    first = [np.shape(a) for a in tree.flatten(batches[0]) if a is not None]
    return all(
        [np.shape(a) for a in tree.flatten(b) if a is not None] == first for b in batches[1:]
    )


def should_validate(epoch: int, freq) -> bool:
    if isinstance(freq, int):
        return (epoch + 1) % freq == 0
    return (epoch + 1) in freq


def resolve_verbose(verbose):
    if verbose == "auto":
        return 1 if sys.stdout.isatty() else 2
    if verbose not in (0, 1, 2):
        raise ValueError(f"verbose must be 'auto', 0, 1 or 2; received {verbose!r}.")
    return verbose


def capped_epochs(epochs):
    """`fit`'s `epochs`, capped by `lamina.config.set_max_epochs` (with a warning)."""
    cap = debugging.max_epochs()
    if cap is not None and isinstance(epochs, int) and cap < epochs:
        warnings.warn(
            f"Limiting epochs to {cap} (lamina.config.set_max_epochs); fit asked for {epochs}.",
            UserWarning,
            stacklevel=4,  # the user's `fit` line (under the traceback filter's frame)
        )
        return cap
    return epochs


def check_count(method: str, name: str, value, minimum: int, optional: bool = False) -> None:
    """Refuse a count argument (`epochs`, `steps`, ...) that is not an integer
    `>= minimum` (or None, when `optional`), naming the method and the argument: Keras
    lets some run as a silent no-op (`epochs=-1`) or fail deep in the loop."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        allowed = f"an integer >= {minimum}" + (" or None" if optional else "")
        raise ValueError(f"{method} received {name}={value!r}; {name} must be {allowed}.")


def check_fit_counts(counts: dict, freq) -> None:
    """`fit`'s count arguments, by name (see `check_count`), and `validation_freq`."""
    for name, value in counts.items():
        minimum = 0 if name in ("epochs", "initial_epoch") else 1
        check_count("fit", name, value, minimum, optional=minimum == 1)
    if isinstance(freq, (list, tuple, set, range)):
        for epoch in freq:
            if isinstance(epoch, bool) or not isinstance(epoch, (int, np.integer)) or epoch < 1:
                raise ValueError(
                    f"fit received validation_freq={freq!r}; validation_freq must be an "
                    "integer >= 1 (validate every that many epochs) or a collection of "
                    "epoch numbers >= 1."
                )
    else:
        check_count("fit", "validation_freq", freq, 1)


class TensorFedData:
    """The batches of `fit`/`evaluate`/`predict` given `x=None` on a model whose every
    input is fed by a tensor (`Input(tensor=...)`): its tensors hold the data, so each
    of the `steps` steps of a pass feeds no inputs (and the whole `y` and
    `sample_weight`, if given), as Keras 2 fed such a model."""

    def __init__(self, steps: int, y=None, sample_weight=None):
        self._steps = steps
        self._batch = (None, y, sample_weight)

    def __len__(self) -> int:
        return self._steps

    def __iter__(self):
        return iter([self._batch] * self._steps)


def tensor_fed_data(model, x, y, sample_weight, steps, method: str, steps_name: str):
    """`(x, y, sample_weight)` for `method`: as given, unless `x` is None and the model
    takes no data (every input fed by a tensor); then `steps` batches that feed none."""
    function = getattr(model, "_function", None)
    if x is not None or function is None or function.inputs:
        return x, y, sample_weight
    if steps is None:
        raise ValueError(
            f"{method} received x=None for model {model.name!r}, whose every input is fed "
            f"by a tensor (Input(tensor=...)): pass `{steps_name}=` the number of steps to "
            f"run, e.g. `{method}(None, {steps_name}=1)`, as Keras 2 required."
        )
    return TensorFedData(steps, y, sample_weight), None, None
