"""The Trainer mixin: compile / fit / evaluate / predict, written once.

`fit` runs `model.train_step(state, data)`, `evaluate` `model.test_step` and `predict`
`model.predict_step` (Keras 3's public step API, in `steps.py`), compiled by the engine's
execution module into programs (`programs.py`) that run one or `steps_per_execution`
batches per call; `epochs.py` holds the loops that feed them. Overriding a step (or
`compute_loss`) changes what `fit` does, exactly as in Keras.

The state a step receives is `(trainable, non_trainable, optimizer, metrics)` values:
the model's variables, those of its optimizers (`model.optimizer` first) and of
`model.metrics`. It lives outside the variables during `fit` and is written back at
epoch ends and whenever a callback touches `callback.model`.

Around it: `compile_utils` (losses and metrics per output, the compile config),
`targets` (targets and sample weights per output), `data_adapter` (batches) and
`loop_utils` (the loop's small helpers).
"""

from __future__ import annotations

import copy
import threading
import warnings

import numpy as np

from lamina import backend, tree
from lamina import metrics as metrics_module
from lamina import optimizers as optimizers_module
from lamina.backend.common.global_state import current_distribution
from lamina.backend.common.variables import structure_version
from lamina.common.traceback_utils import filter_traceback
from lamina.training import (
    compile_utils,
    concurrency,
    data_adapter,
    loop_utils,
    programs,
    targets,
)
from lamina.training import epochs as loops
from lamina.training.batch_methods import BatchMethods
from lamina.training.compile_utils import CompileLoss, CompileMetrics, flatten_outputs
from lamina.training.generator_methods import GeneratorMethods
from lamina.training.stateful_steps import batch_logs_skippable, step_api
from lamina.training.structures import OutputStructures

# Writes of the state a predict step leaves (a stateful RNN's) from concurrent calls.
_CARRY_LOCK = threading.Lock()


class Trainer(step_api(), OutputStructures, BatchMethods, GeneratorMethods):
    """Training methods shared by every model (mixed into `Model`)."""

    def __init__(self):
        self.compiled = False
        self.optimizer = None
        self.loss = None  # what `compile` was given, as Keras keeps it
        self.stop_training = False
        self.history = None
        self._compile_loss = None
        self._compile_metrics = None
        self._loss_tracker = None
        self._output_loss_trackers: list = []
        self._structures_built = False
        self._state_vars_cache = None
        self.run_eagerly = False
        self.steps_per_execution = 1
        self._reset_functions()

    # Made from this model (programs closing over it, caches of its own objects): a copy
    # must make its own, or training the copy would run the original's steps.
    _PER_INSTANCE = frozenset(
        {
            "train_function",
            "test_function",
            "predict_function",
            "_call_entry",
            "_live_state",
            "_state_vars_cache",
            "_metrics_cache",
            "_layers_cache",
            "_trainable_cache",
            "_thread_locks",
            "_fit_thread",
            "_train_capture",
        }
    )

    def __deepcopy__(self, memo):
        cls = type(self)
        new = cls.__new__(cls)
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            new.__dict__[key] = None if key in self._PER_INSTANCE else copy.deepcopy(value, memo)
        return new

    def _reset_functions(self):
        # A step captured for the old compile settings (torch) must not outlive them.
        self.__dict__.pop("_train_capture", None)
        self.train_function = None
        self.test_function = None
        self.predict_function = None

    # compile -------------------------------------------------------------------------
    def compile(
        self,
        optimizer="rmsprop",
        loss=None,
        loss_weights=None,
        metrics=None,
        weighted_metrics=None,
        run_eagerly: bool = False,
        steps_per_execution: int = 1,
        jit_compile="auto",
        auto_scale_loss: bool = True,
    ) -> None:
        """Configure the model for training.

        Args:
            optimizer: an optimizer name (`"adam"`) or object.
            loss: a loss name, function or object; a list or dict (by output name) for
                models with several outputs.
            loss_weights: scalars weighting each output's loss.
            metrics: metric names/objects (`"accuracy"` follows the classic rule), per
                output as a list of lists or a dict.
            weighted_metrics: metrics that take `sample_weight` / `class_weight` into account.
            run_eagerly: run the step uncompiled, for debugging.
            steps_per_execution: number of batches each compiled call processes.
            jit_compile: `"auto"` or True compile the step; False runs it eagerly. On
                the torch engine `"auto"` runs the step eagerly (its fast path) and True
                compiles the model's call inside the step with `torch.compile` (captured
                once per input shape; the loss, metrics and optimizer stay eager). That
                pays a compile per batch shape and, for small dense models on a CPU,
                runs slower than eager; a call it cannot compile runs eagerly after one
                warning saying why. `LAMINA_TORCH_COMPILE_BACKEND` picks the
                `torch.compile` backend (default `"inductor"`).
        """
        if not isinstance(steps_per_execution, int) or steps_per_execution < 1:
            raise ValueError(
                f"steps_per_execution must be a positive int; received {steps_per_execution!r}."
            )
        if run_eagerly and jit_compile is True:
            # As Keras: an eager run is what was asked for; compiling would contradict it.
            warnings.warn(
                "compile(run_eagerly=True, jit_compile=True): a step cannot run eagerly and "
                "compiled at once, so jit_compile is turned off (as Keras does). Drop one "
                "of the two to silence this.",
                UserWarning,
                stacklevel=2,
            )
            jit_compile = False
        if jit_compile == "auto" and not run_eagerly and not self._layers_support_jit():
            # As Keras resolves "auto": a layer that says its call cannot run compiled
            # (`supports_jit = False`) makes the whole step run eagerly.
            jit_compile = False
        self.optimizer = optimizers_module.get(optimizer)
        self._compile_args = dict(
            loss=loss,
            loss_weights=loss_weights,
            metrics=metrics,
            weighted_metrics=weighted_metrics,
            run_eagerly=run_eagerly,
            steps_per_execution=steps_per_execution,
            jit_compile=jit_compile,
        )
        self._compile_loss = CompileLoss(loss, loss_weights) if loss is not None else None
        if loss is not None:
            self.loss = loss
        self._compile_metrics = CompileMetrics(metrics, weighted_metrics)
        self._loss_tracker = metrics_module.Mean(name="loss")
        self._output_loss_trackers = []
        self.run_eagerly = bool(run_eagerly) or jit_compile is False
        self.steps_per_execution = steps_per_execution
        self.jit_compile = jit_compile
        self._reset_functions()
        self._state_vars_cache = None
        self._structures_built = False
        self._metrics_built = False
        self.compiled = True
        self.stop_training = False

    def _compile_config(self) -> dict:
        """What `compile` was given, as JSON (saved in `.keras` files)."""
        return compile_utils.compile_config(self)

    def _compile_from_config(self, config: dict, custom_objects=None) -> None:
        compile_utils.compile_from_config(self, config, custom_objects)

    def get_compile_config(self) -> dict | None:
        """What `compile` was given, as a JSON-able dict (Keras's name); None before
        `compile`. `compile_from_config` takes it back."""
        return self._compile_config() if self.compiled else None

    def compile_from_config(self, config: dict) -> None:
        """Compile with a dict from `get_compile_config` (Keras's name), as loading a
        `.keras` file does."""
        self._compile_from_config(config)

    def _assert_compiled(self, what: str):
        if not self.compiled:
            raise RuntimeError(f"You must call `compile(optimizer, loss, ...)` before `{what}`.")

    def _step_data(self, class_weight=None) -> targets.StepData:
        """What turns this pass's batches into the `data` its steps receive."""
        return targets.StepData(self, class_weight)

    # State ---------------------------------------------------------------------------
    def _optimizers(self) -> list:
        """`self.optimizer` first, then other optimizers held as attributes (a GAN's)."""
        out = [self.optimizer] if self.optimizer is not None else []
        for value in self.__dict__.values():
            if isinstance(value, optimizers_module.Optimizer) and all(value is not o for o in out):
                out.append(value)
        return out

    def _state_variables(self):
        """The variables behind each part of the state, cached until a variable is
        created or a `trainable` flag changes (or the model is recompiled)."""
        version = structure_version()
        cached = self.__dict__.get("_state_vars_cache")
        if cached is not None and cached[0] == version:
            return cached[1]
        optimizer_vars = [v for o in self._optimizers() for v in o.variables]
        result = (
            list(self.trainable_variables),
            list(self.non_trainable_variables),
            optimizer_vars,
            list(self.metrics_variables),
        )
        self._state_vars_cache = (version, result)
        return result

    def _read_state(self, kind="train"):
        if backend.execution.STATEFUL:
            # The variables are the state: steps update them in place.
            if kind == "train":
                return None
            return (None, None, None) if kind == "test" else (None, None)
        trainable, non_trainable, opt_vars, metric_vars = self._state_variables()
        if kind != "predict":
            # Donated buffers must be distinct: two variables holding one array (an EMA
            # started from its weight, a user's shared initial value) get their own copy.
            loop_utils.unshare(
                trainable + non_trainable + (opt_vars if kind == "train" else []) + metric_vars
            )
        if kind == "predict":
            live = self.__dict__.get("_live_state")
            if live is not None and live.values is not None:
                # `fit` holds newer weights (maybe in another thread, whose next step
                # waits for this reader): those of its last complete step.
                return (live.values[0], live.values[1])
        tv = [v.value for v in trainable]
        ntv = [v.value for v in non_trainable]
        if kind == "predict":
            return (tv, ntv)
        mv = [v.value for v in metric_vars]
        if kind == "train":
            return (tv, ntv, [v.value for v in opt_vars], mv)
        return (tv, ntv, mv)

    def _write_state(self, state, kind="train"):
        if state is None:
            return
        trainable, non_trainable, opt_vars, metric_vars = self._state_variables()
        if kind == "train":
            groups = zip((trainable, non_trainable, opt_vars, metric_vars), state, strict=True)
        elif kind == "non_trainable":
            groups = [(non_trainable, state)]
        else:
            groups = [(metric_vars, state)]
        for variables, values in groups:
            for v, value in zip(variables, values, strict=True):
                v._value = value

    def _carry_non_trainable(self, weights, non_trainable):
        """After a predict call: keep what the step left in the non-trainable variables
        (a stateful RNN's states, seed states) for the next call and in the model."""
        if non_trainable is None:
            return weights
        with _CARRY_LOCK:  # concurrent predicts: the state written is one call's
            self._write_state(non_trainable, kind="non_trainable")
        return (weights[0], non_trainable)

    def _sync_state_for_callbacks(self) -> None:
        """Called when a callback reads `callback.model` during `fit`: the variables get
        the current state first (as Keras's JAX trainer syncs on that access)."""
        live = self.__dict__.get("_live_state")
        if live is not None:
            live.sync()

    def _ensure_built(self, x, y=None):
        self._build_structures(x)
        if y is not None and not getattr(self, "_metrics_built", False) and self._has_call():
            y_flat = targets.flatten_targets(self._output_names_cache, y)
            batch = np.shape(tree.flatten(x)[0])[0]
            outputs = flatten_outputs(self._output_struct)
            for i, metric, _ in self._compile_metrics.entries:
                if hasattr(metric, "build") and y_flat[i] is not None:
                    metric.build(np.shape(y_flat[i]), (batch,) + tuple(outputs[i].shape[1:]))
            self._metrics_built = True
            # The metrics join `metrics_variables` now, possibly creating no variable (a
            # loaded model's were made at load): a state list cached before (by
            # `predict`) would lack them.
            self._state_vars_cache = None
        if not self.optimizer_built():
            self.optimizer.build(self.trainable_variables)

    def _ensure_built_for_predict(self, x):
        functional = getattr(self, "_function", None) is not None
        if not self.built or (not functional and not self.weights):
            self(x)

    def optimizer_built(self) -> bool:
        return self.optimizer is not None and getattr(self.optimizer, "built", False)

    # The compiled functions ----------------------------------------------------------
    def make_train_function(self, force: bool = False):
        """The compiled train programs (`self.train_function`), made once per compile."""
        if self.train_function is None or force:
            self.train_function = programs.train_programs(self)
        return self.train_function

    def make_test_function(self, force: bool = False):
        """The compiled test programs (`self.test_function`), made once per compile."""
        if self.test_function is None or force:
            self.test_function = programs.test_programs(self)
        return self.test_function

    def make_predict_function(self, force: bool = False):
        """The compiled predict programs (`self.predict_function`)."""
        if self.predict_function is None or force:
            self.predict_function = programs.predict_programs(self)
        return self.predict_function

    # fit -----------------------------------------------------------------------------
    @filter_traceback
    def fit(
        self,
        x=None,
        y=None,
        batch_size=None,
        epochs: int = 1,
        verbose="auto",
        callbacks=None,
        validation_split: float = 0.0,
        validation_data=None,
        shuffle=True,
        class_weight=None,
        sample_weight=None,
        initial_epoch: int = 0,
        steps_per_epoch=None,
        validation_steps=None,
        validation_batch_size=None,
        validation_freq: int = 1,
    ):
        """Train the model for `epochs` epochs; returns a `History`.

        Args mirror Keras: arrays, lists/dicts of arrays, generators or a `PyDataset` for
        `x`; `validation_split` takes the last fraction of the data before shuffling.
        """
        self._assert_compiled("fit")
        epochs = loop_utils.capped_epochs(epochs)
        from lamina import callbacks as callbacks_module

        if x is None:
            raise ValueError("fit needs training data: pass x (and y).")
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = data_adapter.split_for_validation(
                x, y, sample_weight, validation_split
            )
        elif validation_split:
            # validation_data wins over validation_split (as in Keras); still check it.
            if not 0 <= validation_split < 1:
                raise ValueError(
                    f"validation_split must be in [0, 1); received {validation_split!r}."
                )
        batches = data_adapter.make_batches(
            x, y, sample_weight, batch_size=batch_size, shuffle=shuffle, steps=steps_per_epoch
        )
        verbose = loop_utils.resolve_verbose(verbose)
        callback_list = callbacks_module.CallbackList(
            callbacks,
            add_history=True,
            add_progbar=verbose != 0,
            model=self,
            verbose=verbose,
            epochs=epochs,
            steps=batches.steps,
        )
        with concurrency.metrics_in_use(self, "fit"):
            self.stop_training = False
            self._resume_point = None
            if any(hasattr(cb, "backup_dir") for cb in callback_list.callbacks):
                # Restoring needs the optimizer and metrics built, as after a step.
                loops.build_from_first_batch(self, batches)
            distribution = current_distribution()
            live = self.__dict__["_live_state"] = loops.LiveState(self)
            # With no callback reading a batch's logs, the default stateful step skips them.
            skip = batch_logs_skippable(self, callback_list)
            self.__dict__["_train_batch_logs_unread"] = skip
            try:
                if distribution is not None and self.built:
                    distribution._check_rules_used()
                with loops.steps_finish_on_ctrl_c(live):
                    return loops.fit_epochs(
                        self,
                        batches,
                        callback_list,
                        live,
                        epochs,
                        initial_epoch,
                        class_weight,
                        validation_data,
                        dict(
                            batch_size=validation_batch_size or batch_size,
                            steps=validation_steps,
                            freq=validation_freq,
                        ),
                    )
            finally:
                live.sync()
                self.__dict__.pop("_live_state", None)
                self.__dict__.pop("_train_batch_logs_unread", None)
                if distribution is not None:
                    distribution._check_rules_used()

    # evaluate ------------------------------------------------------------------------
    @filter_traceback
    def evaluate(
        self,
        x=None,
        y=None,
        batch_size=None,
        verbose="auto",
        sample_weight=None,
        steps=None,
        callbacks=None,
        return_dict: bool = False,
        _internal: bool = False,
        **kwargs,
    ):
        """Loss and metric values on the data (a scalar, a list, or a dict)."""
        self._assert_compiled("evaluate")
        from lamina import callbacks as callbacks_module

        batches = data_adapter.make_batches(
            x, y, sample_weight, batch_size=batch_size, shuffle=False, steps=steps
        )
        verbose = 0 if _internal else loop_utils.resolve_verbose(verbose)
        if isinstance(callbacks, callbacks_module.CallbackList):
            # fit's own list (validation): its params and progress bar stay fit's.
            callback_list = callbacks
        else:
            callback_list = self._one_pass_callbacks(callbacks, verbose, batches)
        callback_list.on_test_begin()
        # Concurrent evaluates would mix their counts in the shared metric variables.
        with concurrency.metrics_in_use(self, "evaluate"), concurrency.state_lock(self).reading():
            logs, step = loops.evaluation_pass(self, batches, callback_list)
            if step == 0:
                raise ValueError("evaluate received no data (no batches were produced).")
            logs = self._epoch_logs(logs)
        callback_list.on_test_end(logs)
        return self._format_logs(logs, return_dict)

    def _one_pass_callbacks(self, callbacks, verbose, batches):
        """The callback list (and progress bar) of one evaluate or predict pass."""
        from lamina import callbacks as callbacks_module

        return callbacks_module.CallbackList(
            callbacks,
            add_progbar=verbose != 0,
            model=self,
            verbose=verbose,
            epochs=1,
            steps=batches.steps,
        )

    # predict -------------------------------------------------------------------------
    @filter_traceback
    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """Model outputs on `x`, computed in batches and concatenated as NumPy arrays."""
        # Safe from several threads at once, and beside `fit` in another thread: the
        # weights are those of one complete step, held until the outputs are ready.
        if verbose == 0 and steps is None and not callbacks:
            serve = self.__dict__.get("_lone_predict")
            if serve is not None:
                # The same batch shape as before: the engine's shortest path, if it may.
                out = serve(x, batch_size)
                if out is not None:
                    return out
        if (
            verbose == 0
            and not callbacks
            and steps is None
            and data_adapter.is_plain_batch(x, batch_size)
            and not getattr(self, "stateful", False)
        ):
            # One ready NumPy batch and nobody to tell: the serving call, where each
            # microsecond shows, goes straight to the step (the read side of the lock
            # taken without a context manager's cost).
            lock = concurrency.state_lock(self)
            reader = lock.acquire_read()
            try:
                return self._predict_batch(x, plain=True)
            finally:
                lock.release_read(reader)
        with self._predict_lock():
            return self._predict(x, batch_size, verbose, steps, callbacks)

    def _predict_lock(self):
        """Predicts read the weights side by side; a stateful model's each carry its
        states on from the last, so they run one at a time (as serial calls would)."""
        lock = concurrency.state_lock(self)
        return lock.writing() if getattr(self, "stateful", False) else lock.reading()

    def _predict(self, x, batch_size, verbose, steps, callbacks):
        if (
            verbose == 0
            and not callbacks
            and steps is None
            and data_adapter.is_plain_batch(x, batch_size)
        ):
            # One ready NumPy batch and nobody to tell: the serving call, where each
            # microsecond shows, goes straight to the compiled function.
            return self._predict_batch(x, plain=True)
        batches = data_adapter.make_batches(
            x, None, None, batch_size=batch_size, shuffle=False, steps=steps
        )
        verbose = loop_utils.resolve_verbose(verbose)
        callback_list = None
        if callbacks or verbose != 0:
            # Without callbacks or a bar there is nobody to call: one-sample latency
            # matters here, so the list is not even built.
            callback_list = self._one_pass_callbacks(callbacks, verbose, batches)
            callback_list.on_predict_begin()
        elif loop_utils.is_arrays(batches) and 0 < batches.size <= batches.batch_size:
            return self._predict_batch(batches.x)
        outputs = loops.prediction_pass(self, batches, callback_list)
        if not outputs:
            raise ValueError("predict received no data (no batches were produced).")
        if len(outputs) == 1:
            result = tree.map_structure(backend.convert_to_numpy, outputs[0])
        else:
            flats = [tree.flatten(o) for o in outputs]
            joined = [
                np.concatenate([backend.convert_to_numpy(v) for v in leaves])
                for leaves in zip(*flats, strict=True)
            ]
            result = tree.pack_sequence_as(outputs[0], joined)
        if callback_list is not None:
            callback_list.on_predict_end()
        return result

    def _layers_support_jit(self) -> bool:
        return all(getattr(layer, "supports_jit", True) for layer in self._flatten_layers())

    def _epoch_logs(self, logs) -> dict:
        """The logs of a finished pass, as Python floats. As in Keras, when the step's
        logs name exactly the model's metrics they are read from the metrics (a resumed
        epoch may have run no step); a custom step's own logs are kept as they are."""
        results = self.get_metrics_result()
        if not logs or set(loops.flat_logs(logs)) == set(results):
            logs = results
        return {k: float(v) for k, v in loops.flat_logs(logs).items()}
