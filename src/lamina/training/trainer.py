"""The Trainer: compile / fit / evaluate / predict, written once; `Model` is one.

`fit` runs `model.train_step`, `evaluate` `model.test_step` and `predict`
`model.predict_step` (Keras 3's public step API), in the programs the engine's
execution seam makes from them (`programs.py`, `backend.execution.step_programs`),
which run one or `steps_per_execution` batches per call; `epochs.py` holds the loops
that feed them. Overriding a step (or `compute_loss`) changes what `fit` does, exactly
as in Keras.

The trainer's other Keras methods are written in collaborator modules and bound here
under Keras's names: the step API and the pieces of steps (`steps.py`, and the form of
steps the engine runs: pure functions of the state on JAX, stateful steps on torch,
`stateful_steps.py`), the output structures and `metrics` (`structures.py`), the
`*_on_batch` methods (`batch_methods.py`) and Keras 2's generator methods
(`generator_methods.py`). What the machinery keeps on a model between calls (the state
a running `fit` holds, the engine's captured step, locks, caches) is one record,
`model._runtime` (`runtime.py`).

Around them: `compile_utils` (losses and metrics per output, the compile config),
`targets` (targets and sample weights per output), `data_adapter` (batches) and
`loop_utils` (the loop's small helpers).
"""

from __future__ import annotations

import copy
import warnings

from lamina import backend
from lamina import metrics as metrics_module
from lamina import optimizers as optimizers_module
from lamina.backend.common.global_state import current_distribution
from lamina.common.traceback_utils import filter_traceback
from lamina.training import (
    batch_methods,
    compile_utils,
    concurrency,
    data_adapter,
    generator_methods,
    loop_utils,
    programs,
    runtime,
    stateful_steps,
    steps,
    structures,
)
from lamina.training import epochs as loops
from lamina.training.compile_utils import CompileLoss, CompileMetrics

# How a step is written follows how the engine runs it, which the seam says: as a pure
# function of the state, compiled whole (JAX: `train_step(self, state, data)`), or on
# the live variables (torch: `train_step(self, data)`). Each form is a module of the
# three step methods (and what `fit` prepares for them).
_STEP_FORM = backend.execution.step_form(pure=steps, live=stateful_steps)


class Trainer:
    """Training methods shared by every model (`Model` is a `Trainer` and a `Layer`)."""

    # The model's runtime record (see `runtime.py`), made on first access.
    _runtime = runtime.RuntimeSlot()
    _step_form = _STEP_FORM

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
        self._output_loss_order = None
        self._structures_built = False
        self._metrics_built = False
        self.run_eagerly = False
        self.steps_per_execution = 1
        # (This makes the runtime record too, before any thread shares the model.)
        self._reset_functions()

    # Programs made from this model (closing over it): a copy must make its own, or
    # training the copy would run the original's steps. (Its runtime record, likewise,
    # is made anew for the copy.)
    _PER_INSTANCE = frozenset({"train_function", "test_function", "predict_function"})

    def __deepcopy__(self, memo):
        cls = type(self)
        new = cls.__new__(cls)
        memo[id(self)] = new
        for key, value in vars(self).items():
            new.__dict__[key] = None if key in self._PER_INSTANCE else copy.deepcopy(value, memo)
        return new

    def _reset_functions(self, structure: bool = False):
        """Drop the programs made for the old compile settings (and the engine's
        captured step with them); with `structure`, also what was made for the old
        structure of the model (`model(x)`'s program, the state's variable lists)."""
        record = self._runtime
        record.forward_and_loss = None
        record.evaluation = None
        if structure:
            record.call_entry = None
            record.state_vars = None
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

        >>> import lamina
        >>> model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2, activation="softmax")])
        >>> model.compile(
        ...     optimizer=lamina.optimizers.Adam(learning_rate=1e-3),
        ...     loss="sparse_categorical_crossentropy",
        ...     metrics=["accuracy"],
        ... )
        >>> model.compiled
        True
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
        if jit_compile == "auto" and not run_eagerly and not _layers_support_jit(self):
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
        self._runtime.state_vars = None
        self._structures_built = False
        self._metrics_built = False
        self.compiled = True
        self.stop_training = False
        structures.remember_trainable(self)

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

    def _sync_state_for_callbacks(self) -> None:
        """Called when a callback reads `callback.model` during `fit`: the variables get
        the current state first (as Keras's JAX trainer syncs on that access)."""
        live = self._runtime.live
        if live is not None:
            live.sync()

    def optimizer_built(self) -> bool:
        """Whether the optimizer has made its variables (by a first step, or `build`)."""
        return structures.optimizer_built(self)

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

        >>> import numpy as np, lamina
        >>> model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> x, y = np.ones((8, 3), "float32"), np.zeros((8, 1), "float32")
        >>> history = model.fit(x, y, batch_size=4, epochs=2, validation_split=0.25, verbose=0)
        >>> sorted(history.history), len(history.history["loss"])
        (['loss', 'val_loss'], 2)
        """
        batch_methods.assert_compiled(self, "fit")
        structures.warn_if_trainable_changed(self, "fit")
        loop_utils.check_fit_counts(
            dict(
                epochs=epochs,
                initial_epoch=initial_epoch,
                steps_per_epoch=steps_per_epoch,
                validation_batch_size=validation_batch_size,
                validation_steps=validation_steps,
            ),
            validation_freq,
        )
        validation = dict(
            batch_size=validation_batch_size or batch_size,
            steps=validation_steps,
            freq=validation_freq,
        )
        epochs = loop_utils.capped_epochs(epochs)
        from lamina import callbacks as callbacks_module

        x, y, sample_weight = loop_utils.tensor_fed_data(
            self, x, y, sample_weight, steps_per_epoch, "fit", "steps_per_epoch"
        )
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
            record = self._runtime
            live = record.live = runtime.LiveState(self)
            # With no callback reading a batch's logs, the default stateful step skips them.
            record.batch_logs_unread = stateful_steps.batch_logs_skippable(self, callback_list)
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
                        validation,
                    )
            finally:
                live.sync()
                record.live = None
                record.batch_logs_unread = False
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
        """Loss and metric values on the data (a scalar, a list, or a dict).

        >>> import numpy as np, lamina
        >>> model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1, kernel_initializer="ones")])
        >>> model.compile(loss="mse", metrics=["mae"])
        >>> model.evaluate(np.ones((4, 2)), np.full((4, 1), 3.0), verbose=0)
        [1.0, 1.0]
        >>> model.evaluate(np.ones((4, 2)), np.full((4, 1), 3.0), verbose=0, return_dict=True)
        {'loss': 1.0, 'mae': 1.0}
        """
        batch_methods.assert_compiled(self, "evaluate")
        loop_utils.check_count("evaluate", "steps", steps, 1, optional=True)
        from lamina import callbacks as callbacks_module

        x, y, sample_weight = loop_utils.tensor_fed_data(
            self, x, y, sample_weight, steps, "evaluate", "steps"
        )
        batches = data_adapter.make_batches(
            x, y, sample_weight, batch_size=batch_size, shuffle=False, steps=steps
        )
        verbose = 0 if _internal else loop_utils.resolve_verbose(verbose)
        if isinstance(callbacks, callbacks_module.CallbackList):
            # fit's own list (validation): its params and progress bar stay fit's.
            callback_list = callbacks
        else:
            callback_list = _one_pass_callbacks(self, callbacks, verbose, batches)
        callback_list.on_test_begin()
        # Concurrent evaluates would mix their counts in the shared metric variables.
        with concurrency.metrics_in_use(self, "evaluate"), concurrency.state_lock(self).reading():
            record = self._runtime
            # With no callback reading a batch's logs, the default stateful step skips
            # them; `pass_logs` reads the metrics at the end.
            unread_before = record.test_logs_unread
            record.test_logs_unread = stateful_steps.test_logs_skippable(self, callback_list)
            try:
                logs, step = loops.evaluation_pass(self, batches, callback_list)
            finally:
                record.test_logs_unread = unread_before
            if step == 0:
                raise ValueError("evaluate received no data (no batches were produced).")
            logs = loops.pass_logs(self, logs)
        callback_list.on_test_end(logs)
        return batch_methods.format_logs(self, logs, return_dict)

    # predict -------------------------------------------------------------------------
    @filter_traceback
    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """Model outputs on `x`, computed in batches and concatenated as NumPy arrays.

        >>> import numpy as np, lamina
        >>> model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1, kernel_initializer="ones")])
        >>> model.predict(np.ones((5, 2)), batch_size=2, verbose=0).ravel().tolist()
        [2.0, 2.0, 2.0, 2.0, 2.0]
        """
        # Safe from several threads at once, and beside `fit` in another thread: the
        # weights are those of one complete step, held until the outputs are ready.
        x = loop_utils.tensor_fed_data(self, x, None, None, steps, "predict", "steps")[0]
        if verbose == 0 and steps is None and not callbacks:
            serve = self._runtime.lone_predict
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
                return batch_methods.predict_batch(self, x, plain=True)
            finally:
                lock.release_read(reader)
        loop_utils.check_count("predict", "steps", steps, 1, optional=True)
        with batch_methods.predict_lock(self):
            return _predict(self, x, batch_size, verbose, steps, callbacks)

    # Keras's other methods, written in the collaborator modules -------------------------
    train_step = _STEP_FORM.train_step
    test_step = _STEP_FORM.test_step
    predict_step = _STEP_FORM.predict_step
    compute_loss = steps.compute_loss
    stateless_compute_loss = steps.stateless_compute_loss
    compute_loss_and_updates = steps.compute_loss_and_updates
    compute_metrics = steps.compute_metrics
    get_metrics_result = steps.get_metrics_result
    jax_state_sync = steps.jax_state_sync
    get_state_tree = steps.get_state_tree
    set_state_tree = steps.set_state_tree
    metrics = property(structures.metrics)
    metrics_names = property(structures.metrics_names)
    reset_metrics = structures.reset_metrics
    train_on_batch = batch_methods.train_on_batch
    test_on_batch = batch_methods.test_on_batch
    predict_on_batch = batch_methods.predict_on_batch
    fit_generator = generator_methods.fit_generator
    evaluate_generator = generator_methods.evaluate_generator
    predict_generator = generator_methods.predict_generator

    @property
    def losses(self) -> list:
        """Losses added during the last call (`add_loss`, activity regularizers) and the
        weight regularization losses of the current weights; while a pure step computes
        its loss, those of its own forward pass."""
        override = self._runtime.losses_override
        if override is not None:
            return list(override)
        return super().losses


def _one_pass_callbacks(model, callbacks, verbose, batches):
    """The callback list (and progress bar) of one evaluate or predict pass."""
    from lamina import callbacks as callbacks_module

    return callbacks_module.CallbackList(
        callbacks,
        add_progbar=verbose != 0,
        model=model,
        verbose=verbose,
        epochs=1,
        steps=batches.steps,
    )


def _predict(model, x, batch_size, verbose, steps, callbacks):
    if (
        verbose == 0
        and not callbacks
        and steps is None
        and data_adapter.is_plain_batch(x, batch_size)
    ):
        # One ready NumPy batch and nobody to tell: the serving call, where each
        # microsecond shows, goes straight to the compiled function.
        return batch_methods.predict_batch(model, x, plain=True)
    batches = data_adapter.make_batches(
        x, None, None, batch_size=batch_size, shuffle=False, steps=steps
    )
    verbose = loop_utils.resolve_verbose(verbose)
    callback_list = None
    if callbacks or verbose != 0:
        # Without callbacks or a bar there is nobody to call: one-sample latency
        # matters here, so the list is not even built.
        callback_list = _one_pass_callbacks(model, callbacks, verbose, batches)
        callback_list.on_predict_begin()
    elif loop_utils.is_arrays(batches) and 0 < batches.size <= batches.batch_size:
        return batch_methods.predict_batch(model, batches.x)
    result = loops.prediction_pass(model, batches, callback_list)
    if result is None:
        raise ValueError("predict received no data (no batches were produced).")
    if callback_list is not None:
        callback_list.on_predict_end()
    return result


def _layers_support_jit(model) -> bool:
    return all(getattr(layer, "supports_jit", True) for layer in model._flatten_layers())
