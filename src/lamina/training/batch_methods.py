"""`train_on_batch`, `test_on_batch` and `predict_on_batch`: one step on one batch,
outside any loop, and the one-batch `predict` they share with `Model.predict`.

Each runs the same programs as `fit`, `evaluate` and `predict` (`make_*_function`), on
the state read from the variables and written back after the step.
"""

from __future__ import annotations

import numpy as np

from lamina import backend, tree
from lamina.backend.common.global_state import current_distribution
from lamina.common import debugging
from lamina.common.traceback_utils import filter_traceback
from lamina.training import concurrency, data_adapter
from lamina.training import epochs as loops


class BatchMethods:
    """The `*_on_batch` methods of `Model` (a mixin of the trainer)."""

    @filter_traceback
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One training step on one batch; returns the loss and metrics of that batch
        (the metrics restart on each call, as in Keras 3)."""
        self._assert_compiled("train_on_batch")
        xb, yb, swb = data_adapter.unpack_batch((x, y, sample_weight))
        with (
            concurrency.metrics_in_use(self, "train_on_batch"),
            concurrency.state_lock(self).writing(),
        ):
            self._ensure_built(xb, yb)
            self.reset_metrics()
            fns = self.make_train_function()
            data = loops._placed(self._step_data(class_weight)(xb, yb, swb), False)
            state, logs = fns["one"](self._read_state(), data)
            loops._step_done(logs)
            self._write_state(state)
            return self._format_logs(logs, return_dict)

    @filter_traceback
    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """Loss and metrics on one batch (the metrics restart on each call, as in Keras 3)."""
        self._assert_compiled("test_on_batch")
        xb, yb, swb = data_adapter.unpack_batch((x, y, sample_weight))
        with (
            concurrency.metrics_in_use(self, "test_on_batch"),
            concurrency.state_lock(self).reading(),
        ):
            self._ensure_built(xb, yb)
            self.reset_metrics()
            fns = self.make_test_function()
            tv, ntv, mv = self._read_state("test")
            data = loops._placed(self._step_data()(xb, yb, swb), False)
            mv, logs = fns["one"]((tv, ntv), mv, data)
            loops._step_done(logs)
            self._write_state(mv, kind="test")
            return self._format_logs(logs, return_dict)

    @filter_traceback
    def predict_on_batch(self, x):
        """Model outputs on one batch, as NumPy arrays."""
        with self._predict_lock():
            return self._predict_batch(x)

    def _predict_batch(self, x, plain: bool = False):
        """`predict_on_batch` for a caller that holds the predict lock; `plain` says `x`
        is one ready NumPy array (`data_adapter.is_plain_batch`), which needs no
        unpacking: the serving call, where each microsecond shows."""
        if plain:
            data_adapter.check_finite(x, "x")
            xb = x
        else:
            xb = data_adapter.unpack_batch((x,))[0]
        self._ensure_built_for_predict(xb)
        fns = self.predict_function or self.make_predict_function()
        weights = self._read_state("predict")
        data = loops._placed(self._predict_step_data().inputs(xb), False)
        out, non_trainable = fns["one"](weights, data)
        loops._step_done(out)
        if plain and data is xb:
            # The batch went in as it is: later batches of its shape and dtype may take
            # the engine's shorter path (when it has one, from the next call on).
            runner = fns["one"].lone_runner(xb)
            self.__dict__["_lone_predict"] = None if runner is None else self._lone(fns, runner)
        return self._predict_result(out, non_trainable, weights)

    def _lone(self, fns, runner):
        """`serve(x, batch_size)`: `predict(x, batch_size, verbose=0)` for a NumPy batch
        of the shape and dtype `runner` (the engine's `lone_runner`) was made for, as one
        function (`predict` tries it first): a one-sample serving call's time is mostly
        Python calls, each dearer after a large model's weights went through the
        caches. It returns None whenever the ordinary path must run instead: other
        data, a recompiled or stateful model, input checks on, a distribution set, or
        `runner` declining (the engine's own conditions)."""
        lock = concurrency.state_lock(self)
        acquire, release = lock.acquire_read, lock.release_read
        checks_enabled = debugging.is_input_checks_enabled
        own = self.__dict__

        def serve(x, batch_size):
            if (
                type(x) is not np.ndarray
                or own.get("predict_function") is not fns
                or (batch_size is not None and (type(batch_size) is not int or batch_size < len(x)))
                or checks_enabled()
                or current_distribution() is not None
                or getattr(self, "stateful", False)
            ):
                return None
            reader = acquire()
            try:
                weights = self._read_state("predict")
                result = runner(weights, x)
                return None if result is None else self._predict_result(*result, weights)
            finally:
                release(reader)

        return serve

    def _predict_result(self, out, non_trainable, weights=None):
        """A predict step's outputs as NumPy arrays; the non-trainable values it
        returned (an RNN's states, seed states) are kept for the next call."""
        if non_trainable is not None:
            self._carry_non_trainable(weights, non_trainable)
        if backend.is_tensor(out):
            return backend.convert_to_numpy(out)
        return tree.map_structure(backend.convert_to_numpy, out)

    def _predict_step_data(self):
        """The `StepData` that packs predict batches (only its `inputs` is used, which
        depends on the graph alone), kept while the graph stays the same: made anew per
        call it cost a one-sample `predict` ~5 us."""
        function = getattr(self, "_function", None)
        cached = self.__dict__.get("_predict_step_data_cache")
        if cached is None or cached[0] is not function:
            cached = self.__dict__["_predict_step_data_cache"] = (function, self._step_data())
        return cached[1]

    def _format_logs(self, logs, return_dict):
        logs = {k: float(v) for k, v in loops.flat_logs(logs).items()}
        if return_dict:
            return logs
        names = self._flat_metric_names()
        values = [logs[name] for name in names if name in logs]
        values += [logs[k] for k in sorted(logs) if k not in names]
        return values[0] if len(values) == 1 else values
