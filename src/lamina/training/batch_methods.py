"""`train_on_batch`, `test_on_batch` and `predict_on_batch`: one step on one batch,
outside any loop, and the one-batch `predict` they share with `Model.predict`.

Each runs the same programs as `fit`, `evaluate` and `predict` (`make_*_function`), on
the state read from the variables and written back after the step. The functions
taking `self` are the model's methods of the same name (see `Trainer`).
"""

from __future__ import annotations

import numpy as np

from lamina import backend, tree
from lamina.backend.common.global_state import current_distribution
from lamina.common import debugging
from lamina.common.traceback_utils import filter_traceback
from lamina.training import concurrency, data_adapter, runtime, structures, targets
from lamina.training import epochs as loops


@filter_traceback
def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
    """One training step on one batch; returns the loss and metrics of that batch
    (the metrics restart on each call, as in Keras 3)."""
    assert_compiled(self, "train_on_batch")
    structures.warn_if_trainable_changed(self, "train_on_batch")
    xb, yb, swb = data_adapter.unpack_batch((x, y, sample_weight))
    with (
        concurrency.metrics_in_use(self, "train_on_batch"),
        concurrency.state_lock(self).writing(),
    ):
        structures.ensure_built(self, xb, yb)
        self.reset_metrics()
        fns = self.make_train_function()
        data = loops._placed(targets.StepData(self, class_weight)(xb, yb, swb), False)
        state, logs = fns["one"](runtime.read_state(self, fns["one"]), data)
        loops._step_done(logs)
        runtime.write_state(self, state)
        return format_logs(self, logs, return_dict)


@filter_traceback
def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
    """Loss and metrics on one batch (the metrics restart on each call, as in Keras 3)."""
    assert_compiled(self, "test_on_batch")
    xb, yb, swb = data_adapter.unpack_batch((x, y, sample_weight))
    with (
        concurrency.metrics_in_use(self, "test_on_batch"),
        concurrency.state_lock(self).reading(),
    ):
        structures.ensure_built(self, xb, yb)
        self.reset_metrics()
        fns = self.make_test_function()
        tv, ntv, mv = runtime.read_state(self, fns["one"], "test")
        data = loops._placed(targets.StepData(self)(xb, yb, swb), False)
        mv, logs = fns["one"]((tv, ntv), mv, data)
        loops._step_done(logs)
        runtime.write_state(self, mv, kind="test")
        return format_logs(self, logs, return_dict)


@filter_traceback
def predict_on_batch(self, x):
    """Model outputs on one batch, as NumPy arrays."""
    with predict_lock(self):
        return predict_batch(self, x)


def assert_compiled(model, what: str):
    if not model.compiled:
        raise RuntimeError(f"You must call `compile(optimizer, loss, ...)` before `{what}`.")


def predict_lock(model):
    """Predicts read the weights side by side; a stateful model's each carry its
    states on from the last, so they run one at a time (as serial calls would)."""
    lock = concurrency.state_lock(model)
    return lock.writing() if getattr(model, "stateful", False) else lock.reading()


def predict_batch(model, x, plain: bool = False):
    """`predict_on_batch` for a caller that holds the predict lock; `plain` says `x`
    is one ready NumPy array (`data_adapter.is_plain_batch`), which needs no
    unpacking: the serving call, where each microsecond shows."""
    if plain:
        data_adapter.check_finite(x, "x")
        xb = x
    else:
        xb = data_adapter.unpack_batch((x,))[0]
    structures.ensure_built_for_predict(model, xb)
    fns = model.predict_function or model.make_predict_function()
    weights = runtime.read_state(model, fns["one"], "predict")
    data = loops._placed(predict_step_data(model).inputs(xb), False)
    out, non_trainable = fns["one"](weights, data)
    loops._step_done(out)
    if plain and data is xb:
        # The batch went in as it is: later batches of its shape and dtype may take
        # the engine's shorter path (when it has one, from the next call on).
        runner = fns["one"].lone_runner(xb)
        model._runtime.lone_predict = None if runner is None else lone(model, fns, runner)
    return predict_result(model, out, non_trainable, weights)


def lone(model, fns, runner):
    """`serve(x, batch_size)`: `predict(x, batch_size, verbose=0)` for a NumPy batch
    of the shape and dtype `runner` (the engine's `lone_runner`) was made for, as one
    function (`predict` tries it first): a one-sample serving call's time is mostly
    Python calls, each dearer after a large model's weights went through the caches.
    It returns None whenever the ordinary path must run instead: other data, a
    recompiled or stateful model, input checks on, a distribution set, or `runner`
    declining (the engine's own conditions)."""
    lock = concurrency.state_lock(model)
    acquire, release = lock.acquire_read, lock.release_read
    checks_enabled = debugging.is_input_checks_enabled
    own = vars(model)
    program = fns["one"]

    def serve(x, batch_size):
        if (
            type(x) is not np.ndarray
            or own.get("predict_function") is not fns
            or (batch_size is not None and (type(batch_size) is not int or batch_size < len(x)))
            or checks_enabled()
            or current_distribution() is not None
            or getattr(model, "stateful", False)
        ):
            return None
        reader = acquire()
        try:
            weights = runtime.read_state(model, program, "predict")
            result = runner(weights, x)
            return None if result is None else predict_result(model, *result, weights)
        finally:
            release(reader)

    return serve


def predict_result(model, out, non_trainable, weights=None):
    """A predict step's outputs as NumPy arrays; the non-trainable values it
    returned (an RNN's states, seed states) are kept for the next call."""
    if non_trainable is not None:
        runtime.carry_non_trainable(model, weights, non_trainable)
    if backend.is_tensor(out):
        return backend.convert_to_numpy(out)
    return tree.map_structure(backend.convert_to_numpy, out)


def predict_step_data(model):
    """The `StepData` that packs predict batches (only its `inputs` is used, which
    depends on the graph alone), kept while the graph stays the same: made anew per
    call it cost a one-sample `predict` ~5 us."""
    function = getattr(model, "_function", None)
    record = model._runtime
    cached = record.predict_step_data
    if cached is None or cached[0] is not function:
        cached = record.predict_step_data = (function, targets.StepData(model))
    return cached[1]


def format_logs(model, logs, return_dict):
    """Logs as floats (arrays for metrics with several values): a dict, or Keras's list in `metrics_names` order (a scalar
    when there is one value)."""
    logs = loops.python_logs(logs)
    if return_dict:
        return logs
    names = structures.flat_metric_names(model)
    values = [logs[name] for name in names if name in logs]
    values += [logs[k] for k in sorted(logs) if k not in names]
    return values[0] if len(values) == 1 else values
