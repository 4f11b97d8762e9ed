"""The Trainer mixin: compile / fit / evaluate / predict, written once.

The step is a pure function of the training state,

    (trainable, non_trainable, optimizer, metrics), batch -> new state, logs

made by running the model, loss, optimizer and metrics (all written in stateful style)
inside stateless scopes. The backend compiles it (`jit`, with the state donated) and
takes its gradient (`value_and_grad`); with `steps_per_execution=k` k steps run as one
compiled `scan` over a stacked chunk of k batches. Training arrays that fit
`data_adapter.RESIDENT_BYTES` go to the device once per `fit`, and each compiled call
then receives only where its batches sit (slices, or row indices when shuffled), as a
hand-written JAX loop over device-resident data would. The state lives outside the variables
during `fit` and is written back before anything reads them (callbacks that look at
batches, epoch ends, the end of training).

Around it: `compile_utils` (losses and metrics per output, the compile config),
`targets` (targets and sample weights per output), `data_adapter` (batches) and
`loop_utils` (the loop's small helpers).
"""

from __future__ import annotations

import numpy as np

from lamina import backend, ops
from lamina import metrics as metrics_module
from lamina import optimizers as optimizers_module
from lamina.backend.common.variables import StatelessScope
from lamina.graph import tree
from lamina.training import compile_utils, data_adapter, loop_utils, targets
from lamina.training.compile_utils import CompileLoss, CompileMetrics, flatten_outputs


def _scope(variables, values, collect_losses=False):
    return StatelessScope(list(zip(variables, values, strict=True)), collect_losses=collect_losses)


def _updated(scope, variables, values):
    out = []
    for v, old in zip(variables, values, strict=True):
        new = scope.get_update(v)
        out.append(old if new is None else new)
    return out


class Trainer:
    """Training methods shared by every model (mixed into `Model`)."""

    def __init__(self):
        self.compiled = False
        self.optimizer = None
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
        self._step_cache: dict = {}

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
            jit_compile: `"auto"` or True compile the step; False runs it eagerly.
        """
        if not isinstance(steps_per_execution, int) or steps_per_execution < 1:
            raise ValueError(
                f"steps_per_execution must be a positive int; received {steps_per_execution!r}."
            )
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
        self._compile_metrics = CompileMetrics(metrics, weighted_metrics)
        self._loss_tracker = metrics_module.Mean(name="loss")
        self._output_loss_trackers = []
        self.run_eagerly = bool(run_eagerly) or jit_compile is False
        self.steps_per_execution = steps_per_execution
        self.jit_compile = jit_compile
        self._step_cache = {}
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

    def _assert_compiled(self, what: str):
        if not self.compiled:
            raise RuntimeError(f"You must call `compile(optimizer, loss, ...)` before `{what}`.")

    # Structures ----------------------------------------------------------------------
    def _output_names_for(self, y_pred) -> list[str]:
        flat = flatten_outputs(y_pred)
        if getattr(self, "_function", None) is not None:
            names = self.output_names
            if len(names) == len(flat):
                return names
        if isinstance(y_pred, dict):
            return sorted(y_pred)
        if len(flat) == 1:
            return ["output"]
        return [f"output_{i + 1}" for i in range(len(flat))]

    def _build_structures(self, x):
        if self._structures_built:
            return
        if not self.built or getattr(self, "_function", None) is None:
            self(x)  # builds subclassed / deferred models on a real batch
        spec = self._output_spec_for(x)
        self._output_struct = spec
        names = self._output_names_for(spec)
        shapes = [tuple(s.shape) for s in flatten_outputs(spec)]
        self._output_names_cache = names
        if self._compile_loss is not None:
            self._compile_loss.build(names, shapes)
        self._compile_metrics.build(names, shapes, self._compile_loss)
        # Per-output losses are logged when more than one output has a loss (as in Keras).
        multi = (
            self._compile_loss is not None
            and sum(loss is not None for loss in self._compile_loss.losses) > 1
        )
        self._output_loss_trackers = (
            [
                metrics_module.Mean(name=f"{name}_loss")
                if self._compile_loss.losses[i] is not None
                else None
                for i, name in enumerate(names)
            ]
            if multi
            else []
        )
        self._structures_built = True

    def _output_spec_for(self, x):
        from lamina.graph.keras_tensor import KerasTensor

        if getattr(self, "_function", None) is not None:
            return self._function._outputs_struct
        sample = tree.map_structure(
            lambda a: KerasTensor((None,) + tuple(np.shape(a)[1:]), str(a.dtype)), x
        )
        from lamina.graph.operation import output_spec

        return output_spec(lambda v: self.call(v), (sample,), {})

    @property
    def metrics(self) -> list:
        """The metric objects tracked during training: the loss first, then compiled ones."""
        out = []
        if self._loss_tracker is not None:
            out.append(self._loss_tracker)
        out.extend(t for t in self._output_loss_trackers if t is not None)
        if self._compile_metrics is not None and self._compile_metrics.built:
            out.extend(self._compile_metrics.metrics)
        return out

    @property
    def metrics_names(self) -> list[str]:
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        for m in self.metrics:
            m.reset_state()

    def _metric_variables(self) -> list:
        return [v for m in self.metrics for v in m.variables]

    # Targets -------------------------------------------------------------------------
    def _flatten_targets(self, y, what="y") -> list:
        return targets.flatten_targets(self._output_names_cache, y, what)

    def _check_targets_given(self, y_flat, y):
        losses = self._compile_loss.losses if self._compile_loss is not None else None
        targets.check_targets_given(self._output_names_cache, losses, y_flat, y)

    def _check_targets(self, y_flat):
        if self._compile_loss is None:
            return
        spec = flatten_outputs(self._output_struct)
        for loss, yt, yp in zip(self._compile_loss.losses, y_flat, spec, strict=True):
            if loss is not None and yt is not None and hasattr(yt, "shape"):
                from lamina import losses as losses_module

                losses_module.check_targets(loss, np.asarray(yt), yp)

    def _check_all_targets(self, batches):
        """Check every target array once, before the first step (labels out of range...)."""
        if loop_utils.is_arrays(batches) and batches.y is not None:
            self._check_targets(self._flatten_targets(batches.y))

    def _sample_weights(self, y_flat, sample_weight, class_weight) -> list:
        return targets.sample_weights(self._output_names_cache, y_flat, sample_weight, class_weight)

    # The pure steps ------------------------------------------------------------------
    def _state_variables(self):
        cached = self.__dict__.get("_state_vars_cache")
        if cached is not None and (cached[2] or not self.optimizer_built()):
            return cached
        trainable = self.trainable_variables
        ids = {id(v) for v in trainable}
        non_trainable = [v for v in self.variables if id(v) not in ids]
        optimizer_vars = list(self.optimizer.variables) if self.optimizer_built() else []
        result = (trainable, non_trainable, optimizer_vars, self._metric_variables())
        if self._structures_built or not self.compiled:
            # The step functions close over these lists: reuse them until recompiled.
            self._state_vars_cache = result
        return result

    def _forward_and_loss(self, trainable, non_trainable, tv, ntv, x, y, sw, training):
        with _scope(trainable + non_trainable, list(tv) + list(ntv), collect_losses=True) as scope:
            y_pred = self(x, training=training)
            y_pred_flat = flatten_outputs(y_pred)
            masks = [None] * len(y_pred_flat)
            if getattr(self, "_function", None) is not None and any(
                t._keras_mask is not None for t in self._function.outputs
            ):
                masks = flatten_outputs(self.compute_mask(x, None))
            y_flat = list(y)
            if self._compile_loss is not None:
                loss, per_output = self._compile_loss(y_flat, y_pred_flat, list(sw), masks)
            else:
                loss, per_output = 0.0, [None] * len(y_pred_flat)
            extra = list(scope.losses) + self._regularization_losses()
            for value in extra:
                loss = loss + ops.cast(value, "float32")
            new_ntv = _updated(scope, non_trainable, ntv)
        return ops.cast(loss, "float32"), (y_pred, y_pred_flat, masks, per_output, new_ntv)

    def _update_metrics(
        self, metric_vars, mv, loss, per_output, y, y_pred_flat, sw, masks, batch_size
    ):
        with _scope(metric_vars, mv) as scope:
            self._loss_tracker.update_state(loss, sample_weight=batch_size)
            for tracker, value in zip(self._output_loss_trackers, per_output, strict=False):
                if tracker is not None and value is not None:
                    tracker.update_state(value, sample_weight=batch_size)
            self._compile_metrics.update_state(
                list(y), y_pred_flat, list(sw), masks, self._output_names_cache
            )
            logs = {m.name: m.result() for m in self.metrics}
            new_mv = _updated(scope, metric_vars, mv)
        return new_mv, logs

    def _make_train_step(self):
        trainable, non_trainable, opt_vars, metric_vars = self._state_variables()
        optimizer = self.optimizer

        def train_step(state, batch):
            tv, ntv, ov, mv = state
            x, y, sw = batch
            batch_size = tree.flatten(x)[0].shape[0]

            def loss_fn(tv_):
                loss, aux = self._forward_and_loss(
                    trainable, non_trainable, tv_, ntv, x, y, sw, True
                )
                # Differentiated scaled (`loss_scale_factor`; `apply` unscales the
                # gradients), reported unscaled.
                return optimizer.scale_loss(loss), (loss, aux)

            (_, (loss, aux)), grads = backend.value_and_grad(loss_fn, has_aux=True)(list(tv))
            _, y_pred_flat, masks, per_output, new_ntv = aux
            with _scope(trainable + opt_vars, list(tv) + list(ov)) as scope:
                optimizer.apply(grads, trainable)
                for v in trainable:
                    if getattr(v, "constraint", None) is not None:
                        v.assign(v.constraint(v.value))
                new_tv = _updated(scope, trainable, tv)
                new_ov = _updated(scope, opt_vars, ov)
            new_mv, logs = self._update_metrics(
                metric_vars, mv, loss, per_output, y, y_pred_flat, sw, masks, batch_size
            )
            return (new_tv, new_ntv, new_ov, new_mv), logs

        return train_step

    def _make_test_step(self):
        trainable, non_trainable, _, metric_vars = self._state_variables()

        def test_step(params, mv, batch):
            tv, ntv = params
            x, y, sw = batch
            batch_size = tree.flatten(x)[0].shape[0]
            loss, aux = self._forward_and_loss(trainable, non_trainable, tv, ntv, x, y, sw, False)
            _, y_pred_flat, masks, per_output, _ = aux
            new_mv, logs = self._update_metrics(
                metric_vars, mv, loss, per_output, y, y_pred_flat, sw, masks, batch_size
            )
            return new_mv, logs

        return test_step

    def _make_predict_step(self):
        trainable, non_trainable, _, _ = self._state_variables()

        def predict_step(state, x):
            tv, ntv = state
            with _scope(trainable + non_trainable, list(tv) + list(ntv)):
                return self(x, training=False)

        return predict_step

    def _compiled(self, kind: str):
        key = (
            kind,
            self.run_eagerly if self.compiled else False,
            getattr(self, "steps_per_execution", 1),
        )
        fn = self._step_cache.get(key)
        if fn is not None:
            return fn
        if kind == "train":
            step = self._make_train_step()

            def multi(state, batches):
                def body(carry, batch):
                    new_state, logs = step(carry, batch)
                    return new_state, logs

                state, logs = ops.scan(body, state, batches)
                return state, tree.map_structure(lambda v: v[-1], logs)

            # The training set resident on the device: only where each batch sits travels.
            # Unshuffled batches are slices at `starts` (`size` rows each, a static
            # argument); shuffled ones are gathered by row index, a whole chunk at once
            # (on CPU one gather per step made small-model steps ~20% slower).
            def one_from(state, data, start, size):
                return step(state, loop_utils.slice_rows(data, start, size))

            def many_from(state, data, starts, size):
                def body(carry, start):
                    return step(carry, loop_utils.slice_rows(data, start, size))

                state, logs = ops.scan(body, state, starts)
                return state, tree.map_structure(lambda v: v[-1], logs)

            def one_at(state, data, rows):
                return step(state, loop_utils.take_rows(data, rows))

            def many_at(state, data, rows):
                n = rows.shape[0]
                return multi(state, loop_utils.take_rows(data, ops.reshape(rows, (-1,)), n))

            fns = {
                "one": step,
                "many": multi,
                "one_from": one_from,
                "many_from": many_from,
                "one_at": one_at,
                "many_at": many_at,
            }
            if not self.run_eagerly:
                fns = {
                    name: backend.jit(
                        f, donate_argnums=(0,), static_argnums=(3,) if "from" in name else ()
                    )
                    for name, f in fns.items()
                }
            fn = fns
        elif kind in ("test", "test_many"):
            step = self._make_test_step()
            if kind == "test_many":
                one = step

                def step(params, mv, batches):  # k test steps over a stacked chunk
                    mv, logs = ops.scan(lambda carry, b: one(params, carry, b), mv, batches)
                    return mv, tree.map_structure(lambda v: v[-1], logs)

            # Only the metric state is donated: the weights stay in the variables.
            fn = step if self.run_eagerly else backend.jit(step, donate_argnums=(1,))
        else:
            step = self._make_predict_step()
            if kind == "predict_many":
                one = step

                def step(state, xs):  # k predict steps; outputs stacked on a new axis 0
                    return ops.scan(lambda carry, x: (carry, one(state, x)), 0, xs)[1]

            run_eagerly = getattr(self, "run_eagerly", False) if self.compiled else False
            fn = step if run_eagerly else backend.jit(step)
        self._step_cache[key] = fn
        return fn

    # State movement ------------------------------------------------------------------
    def _read_state(self, kind="train"):
        trainable, non_trainable, opt_vars, metric_vars = self._state_variables()
        if kind != "predict":
            # Donated buffers must be distinct: two variables holding one array (an EMA
            # started from its weight, a user's shared initial value) get their own copy.
            loop_utils.unshare(
                trainable + non_trainable + (opt_vars if kind == "train" else []) + metric_vars
            )
        tv = [v.value for v in trainable]
        ntv = [v.value for v in non_trainable]
        if kind == "predict":
            return (tv, ntv)
        mv = [v.value for v in metric_vars]
        if kind == "train":
            return (tv, ntv, [v.value for v in opt_vars], mv)
        return (tv, ntv), mv

    def _write_state(self, state, kind="train"):
        trainable, non_trainable, opt_vars, metric_vars = self._state_variables()
        if kind == "train":
            groups = zip((trainable, non_trainable, opt_vars, metric_vars), state, strict=True)
        else:
            groups = [(metric_vars, state)]
        for variables, values in groups:
            for v, value in zip(variables, values, strict=True):
                v._value = value

    # Preparing batches ---------------------------------------------------------------
    def _prepare_batch(self, x, y, sw, class_weight=None, check=True):
        y_flat = self._flatten_targets(y)
        self._check_targets_given(y_flat, y)
        sw_flat = self._sample_weights(y_flat, sw, class_weight)
        if check:
            self._check_targets(y_flat)
        if getattr(self, "_function", None) is not None:
            x = self._standardize_inputs(x)
        return x, y_flat, sw_flat

    def _ensure_built(self, x, y=None):
        self._build_structures(x)
        if y is not None and not getattr(self, "_metrics_built", False):
            y_flat = self._flatten_targets(y)
            batch = np.shape(tree.flatten(x)[0])[0]
            outputs = flatten_outputs(self._output_struct)
            for i, metric, _ in self._compile_metrics.entries:
                if hasattr(metric, "build") and y_flat[i] is not None:
                    metric.build(np.shape(y_flat[i]), (batch,) + tuple(outputs[i].shape[1:]))
            self._metrics_built = True
        if not self.optimizer_built():
            self.optimizer.build(self.trainable_variables)

    def optimizer_built(self) -> bool:
        return self.optimizer is not None and getattr(self.optimizer, "built", False)

    # fit -----------------------------------------------------------------------------
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
        wants_batches = loop_utils.wants_batch_hooks(callback_list)
        self.stop_training = False
        self._resume_point = None
        if any(hasattr(cb, "backup_dir") for cb in callback_list.callbacks):
            # Restoring needs the optimizer and metrics built, as they are after a step.
            self._ensure_built_for(batches)
        callback_list.on_train_begin()
        resume, self._resume_point = self._resume_point, None
        if resume is not None:
            initial_epoch = resume["epoch"]
        logs = {}
        epoch_logs = {}
        state = None
        for epoch in range(initial_epoch, epochs):
            skip = 0
            if resume is not None and epoch == resume["epoch"]:
                skip = resume["step"]
            if skip == 0:
                # Mid-epoch, the restored metrics carry on; at an epoch's start (a backup
                # from the previous epoch's end holds its totals) they start afresh.
                self.reset_metrics()
            callback_list.on_epoch_begin(epoch)
            if resume is not None and epoch == resume["epoch"]:
                np.random.set_state(resume["rng_state"])
            # The data order is drawn from this state; a backup records it to redraw it.
            self._epoch_rng_state = np.random.get_state()
            order = batches.epoch_order()
            state, logs, seen = self._run_epoch(
                batches, order, class_weight, callback_list, wants_batches, state, skip
            )
            if seen == 0:
                raise ValueError(
                    "The training data produced no batches this epoch; check the data or "
                    "steps_per_epoch."
                )
            self._write_state(state)
            state = None
            epoch_logs = {k: float(v) for k, v in logs.items()}
            if validation_data is not None and loop_utils.should_validate(epoch, validation_freq):
                vx, vy, vsw = data_adapter.unpack_validation_data(validation_data)
                val_logs = self.evaluate(
                    vx,
                    vy,
                    sample_weight=vsw,
                    batch_size=validation_batch_size or batch_size,
                    steps=validation_steps,
                    verbose=0,
                    callbacks=callback_list,  # validation fires the test hooks, as in Keras
                    return_dict=True,
                    _internal=True,
                )
                epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
            batches.on_epoch_end()
            callback_list.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        if hasattr(self.optimizer, "finalize_variable_values"):
            self.optimizer.finalize_variable_values(self.trainable_variables)
        callback_list.on_train_end(epoch_logs)
        return self.history

    def _ensure_built_for(self, batches):
        """Build everything a step builds (structures, metrics, optimizer) from one batch.

        A generator's first batch is peeked and handed back to the epoch, not lost.
        """
        first = (
            next(iter(batches.batches()), None) if loop_utils.is_arrays(batches) else batches.peek()
        )
        if first is not None:
            self._ensure_built(first[0], first[1])

    def _run_epoch(self, batches, order, class_weight, callback_list, wants_batches, state, skip=0):
        if loop_utils.is_arrays(batches):
            return self._run_array_epoch(
                batches, order, class_weight, callback_list, wants_batches, state, skip
            )
        k = self.steps_per_execution
        fns = None
        step = skip
        logs = {}
        pending = []  # batches of one shape waiting to fill a chunk of k

        def flush(state, step):
            chunk = (
                pending[0]
                if len(pending) == 1
                else loop_utils.stack_batches([loop_utils.as_tuple(b) for b in pending])
            )
            return self._run_chunk(
                fns, state, chunk, len(pending), step, callback_list, wants_batches
            )

        for x, y, sw in batches.batches(order, start=skip):
            if fns is None:
                self._ensure_built(x, y)
                fns = self._compiled("train")
            batch = self._prepare_batch(x, y, sw, class_weight)
            if pending and not loop_utils.same_shapes([pending[0], batch]):
                # A batch of another shape (the last, partial one) ends the group.
                state, logs, step = flush(state, step)
                pending = []
                if self.stop_training:
                    break
            pending.append(batch)
            if len(pending) == k:
                state, logs, step = flush(state, step)
                pending = []
                if self.stop_training:
                    break
        if pending and not self.stop_training:
            # The remainder of fewer than k same-shaped batches runs as one shorter scan.
            state, logs, step = flush(state, step)
        return self._end_epoch(state, logs, step)

    def _run_array_epoch(
        self, batches, order, class_weight, callback_list, wants_batches, state, skip
    ):
        """Arrays: each chunk of k batches is gathered at once and reshaped, not stacked."""
        fns = None
        step = skip
        logs = {}
        size = batches.batch_size
        for rows, n in batches.row_chunks(order, start=skip, k=self.steps_per_execution):
            if fns is None:
                first = (
                    slice(rows.start, rows.start + size) if isinstance(rows, slice) else rows[:size]
                )
                self._ensure_built(
                    data_adapter.take(batches.x, first), data_adapter.take(batches.y, first)
                )
                fns = self._compiled("train")
                self._check_all_targets(batches)
                resident = self._resident_data(batches, class_weight)
            if resident is not None:
                if isinstance(rows, slice):  # unshuffled: where each batch starts
                    starts = rows.start + size * np.arange(n, dtype="int32")
                    batch = ("from", starts if n > 1 else starts[0], rows.stop - rows.start)
                else:
                    batch = ("at", rows.astype("int32").reshape((n, -1) if n > 1 else (-1,)))
            else:
                x, y, sw = (data_adapter.take(s, rows) for s in batches.arrays)
                batch = self._prepare_batch(x, y, sw, class_weight, check=False)
                if n > 1:
                    batch = loop_utils.split_rows(loop_utils.as_tuple(batch), n)
            state, logs, step = self._run_chunk(
                fns, state, batch, n, step, callback_list, wants_batches, resident
            )
            if self.stop_training:
                break
        return self._end_epoch(state, logs, step)

    def _resident_data(self, batches, class_weight):
        """The whole prepared training set on the device, once per `fit` (None if too big)."""
        if batches.nbytes > data_adapter.RESIDENT_BYTES:
            return None
        if getattr(batches, "resident", None) is None:
            batch = self._prepare_batch(*batches.arrays, class_weight, check=False)
            batches.resident = tree.map_structure(
                lambda a: None if a is None else ops.convert_to_tensor(a),
                loop_utils.as_tuple(batch),
            )
        return batches.resident

    def _end_epoch(self, state, logs, step):
        if state is None:
            state = self._read_state()
        if not logs and step > 0:
            logs = {m.name: m.result() for m in self.metrics}  # resumed at the epoch's end
        return state, logs, step

    def _run_chunk(self, fns, state, batch, n, step, callback_list, wants_batches, data=None):
        """Run `n` batches (stacked on a new axis 0 when n > 1) as one compiled call.

        With `data` (the training set resident on the device), `batch` says where the
        batches sit in it instead: `("from", starts, rows)` for contiguous batches
        starting at `starts`, or `("at", indices)` with indices of shape `(rows,)` for one
        step and `(n, rows)` for `n`.

        With callbacks that look at batches, the state goes back into the variables
        after the call and is read again before the next, so what a callback writes
        (weights, the learning rate) is what the next step uses.
        """
        callback_list.on_train_batch_begin(step)
        if state is None:
            state = self._read_state()
        if data is None:
            state, logs = fns["one" if n == 1 else "many"](state, batch)
        elif batch[0] == "from":
            _, starts, rows = batch
            fn = fns["one_from" if n == 1 else "many_from"]
            state, logs = fn(state, data, starts, rows // n)
        else:
            state, logs = fns["one_at" if n == 1 else "many_at"](state, data, batch[1])
        step += n
        if wants_batches:
            self._write_state(state)
            state = None
        callback_list.on_train_batch_end(step - 1, logs)
        return state, logs, step

    # evaluate ------------------------------------------------------------------------
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
        metrics_vars = None
        state = mv = None
        logs = {}
        step = 0
        fn = None
        for xb, yb, swb, n in self._eval_chunks(batches):
            if fn is None:
                self._ensure_built(*(loop_utils.first_rows(s, n) for s in (xb, yb)))
                fn = self._compiled("test")
                for m in self.metrics:
                    m.reset_state()
                state, mv = self._read_state("test")
                metrics_vars = True
                self._check_all_targets(batches)
            batch = self._prepare_batch(xb, yb, swb, check=not loop_utils.is_arrays(batches))
            callback_list.on_test_batch_begin(step)
            if n == 1:
                mv, logs = fn(state, mv, batch)
            else:
                batch = loop_utils.split_rows(loop_utils.as_tuple(batch), n)
                mv, logs = self._compiled("test_many")(state, mv, batch)
            step += n
            callback_list.on_test_batch_end(step - 1, logs)
        if metrics_vars:
            self._write_state(mv, kind="test")
        if step == 0:
            raise ValueError("evaluate received no data (no batches were produced).")
        logs = {k: float(v) for k, v in logs.items()}
        callback_list.on_test_end(logs)
        if return_dict:
            return logs
        values = [logs[name] for name in self.metrics_names if name in logs]
        return values[0] if len(values) == 1 else values

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

    def _eval_chunks(self, batches):
        """`(x, y, sample_weight, n)` for evaluate and predict: with arrays and
        `steps_per_execution=k`, up to k batches at a time (one compiled call runs them),
        else one batch at a time."""
        k = self.steps_per_execution if self.compiled else 1
        if loop_utils.is_arrays(batches):
            yield from batches.chunks(None, k=k)
        else:
            for xb, yb, swb in batches.batches():
                yield xb, yb, swb, 1

    # predict -------------------------------------------------------------------------
    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """Model outputs on `x`, computed in batches and concatenated as NumPy arrays."""
        functional = getattr(self, "_function", None) is not None
        if (
            verbose == 0
            and not callbacks
            and steps is None
            and data_adapter.is_plain_batch(x, batch_size)
        ):
            # One ready NumPy batch and nobody to tell: the serving call, where each
            # microsecond shows, goes straight to the compiled function.
            return self._predict_one_batch(x, functional)

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
        outputs = []
        fn = state = None
        if callback_list is None and loop_utils.is_arrays(batches):
            if 0 < batches.size <= batches.batch_size:
                return self._predict_one_batch(batches.x, functional)
        step = 0
        for xb, _, _, n in self._eval_chunks(batches):
            if fn is None:
                if not self.built or (not functional and not self.weights):
                    self(loop_utils.first_rows(xb, n))
                    functional = getattr(self, "_function", None) is not None
                fn = self._compiled("predict")
                state = self._read_state("predict")
            if functional:
                xb = self._standardize_inputs(xb)
            if callback_list is not None:
                callback_list.on_predict_batch_begin(step)
            if n == 1:
                out = fn(state, xb)
            else:
                stacked = self._compiled("predict_many")(state, loop_utils.split_rows(xb, n))
                out = tree.map_structure(lambda v: v.reshape((-1,) + v.shape[2:]), stacked)
            outputs.append(out)
            step += n
            if callback_list is not None:
                callback_list.on_predict_batch_end(step - 1, {"outputs": out})
        if not outputs:
            raise ValueError("predict received no data (no batches were produced).")
        if len(outputs) == 1:
            result = tree.map_structure(np.asarray, outputs[0])
        else:
            flats = [tree.flatten(o) for o in outputs]
            joined = [
                np.concatenate([np.asarray(v) for v in leaves])
                for leaves in zip(*flats, strict=True)
            ]
            result = tree.pack_sequence_as(outputs[0], joined)
        if callback_list is not None:
            callback_list.on_predict_end()
        return result

    def _predict_one_batch(self, xb, functional):
        if not self.built or (not functional and not self.weights):
            self(xb)
            functional = getattr(self, "_function", None) is not None
        fn = self._compiled("predict")
        if functional:
            xb = self._standardize_inputs(xb)
        return tree.map_structure(np.asarray, fn(self._read_state("predict"), xb))

    # *_on_batch ------------------------------------------------------------------------
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One training step on one batch; returns the loss and metrics of that batch
        (the metrics restart on each call, as in Keras 3)."""
        self._assert_compiled("train_on_batch")
        xb, yb, swb = data_adapter.unpack_batch((x, y, sample_weight))
        self._ensure_built(xb, yb)
        self.reset_metrics()
        fns = self._compiled("train")
        state = self._read_state()
        state, logs = fns["one"](state, self._prepare_batch(xb, yb, swb, class_weight))
        self._write_state(state)
        return self._format_logs(logs, return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """Loss and metrics on one batch (the metrics restart on each call, as in Keras 3)."""
        self._assert_compiled("test_on_batch")
        xb, yb, swb = data_adapter.unpack_batch((x, y, sample_weight))
        self._ensure_built(xb, yb)
        self.reset_metrics()
        fn = self._compiled("test")
        (tv, ntv), mv = self._read_state("test")
        mv, logs = fn((tv, ntv), mv, self._prepare_batch(xb, yb, swb))
        self._write_state(mv, kind="test")
        return self._format_logs(logs, return_dict)

    def predict_on_batch(self, x):
        """Model outputs on one batch, as NumPy arrays."""
        xb = data_adapter.unpack_batch((x,))[0]
        if not self.built or (getattr(self, "_function", None) is None and not self.weights):
            self(xb)
        fn = self._compiled("predict")
        if getattr(self, "_function", None) is not None:
            xb = self._standardize_inputs(xb)
        return tree.map_structure(np.asarray, fn(self._read_state("predict"), xb))

    def _format_logs(self, logs, return_dict):
        logs = {k: float(v) for k, v in logs.items()}
        if return_dict:
            return logs
        values = [logs[name] for name in self.metrics_names if name in logs]
        return values[0] if len(values) == 1 else values
