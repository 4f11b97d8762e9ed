"""Keras 3's public step API: the pieces steps are built from, and the pure step form.

What a step *is* belongs to the model. In the pure form (the engine runs steps as pure
functions of the state, compiled whole: JAX) `train_step(state, data) -> (logs, state)`
with `state = (trainable_variables, non_trainable_variables, optimizer_variables,
metrics_variables)`, `test_step(state, data)` with `state = (trainable_variables,
non_trainable_variables, metrics_variables)` and `predict_step(state, data) -> (outputs,
non_trainable_variables)`: pure functions of arrays, built from `stateless_call`,
`compute_loss` and `compute_metrics`. The stateful form (`stateful_steps.py`) shares
everything else here. The engine's seam says which form a model has
(`backend.execution.step_form`); `fit`, `evaluate` and `predict` always call the steps
through the model, so a subclass's override is what runs.

The functions taking `self` are the model's methods of the same name (see `Trainer`);
the others are the machinery behind them.

`optimizer_variables` holds the variables of `model.optimizer` followed by those of any
other optimizer the model holds as an attribute (a GAN's `d_optimizer` and
`g_optimizer`), each in its `variables` order, so a step that trains with several
optimizers has all their state.
"""

from __future__ import annotations

import inspect
from contextlib import nullcontext

from lamina import backend, ops, tree
from lamina.backend.common.global_state import current_distribution, learning_phase_or
from lamina.common.data_utils import unpack_x_y_sample_weight
from lamina.graph.masks import get_mask, masks_of
from lamina.training import structures, targets
from lamina.training.compile_utils import PerOutput, flatten_outputs

_NO_LOSS = (
    "No loss to compute. Provide a `loss` argument in `compile()`: the model was "
    "compiled without one (or the data has no targets `y`) and adds no losses of its "
    "own (`model.losses` is empty), so a training step has nothing to differentiate. "
    "Pass e.g. `compile(loss='mse')` with targets, or override `compute_loss`."
)


def batch_size(x):
    leaves = tree.flatten(x)
    if not leaves:
        # A model whose every input a tensor feeds takes no `x`: each step counts
        # once, as Keras 2 averaged the steps of such a model.
        return 1
    return leaves[0].shape[0]


# Losses ------------------------------------------------------------------------------------
def compute_loss_has_training_arg(model) -> bool:
    cls = type(model)
    cached = cls.__dict__.get("_lamina_compute_loss_training")
    if cached is None:
        cached = "training" in inspect.signature(model.compute_loss).parameters
        cls._lamina_compute_loss_training = cached
    return cached


def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
    """The total loss of one batch: the compiled loss plus `model.losses`.

    Override it to train on another loss (knowledge distillation, penalty terms);
    the default `train_step` and `test_step` call it.

    Args:
        x: the inputs. y: the targets. y_pred: the model's outputs on `x`.
        sample_weight: sample weights (an array, or one per output).
        training: whether the loss is computed for a training step.
    """
    total = None
    per_output = []
    if self._compile_loss is not None and y is not None:
        if not self._structures_built:
            # A step called by hand before `fit` or `evaluate` (as in Keras's torch
            # guide): build the compiled loss and metrics from this batch.
            structures.build_structures(self, x, outputs=y_pred)
        names = self._output_names_cache
        y_flat = targets.flatten_targets(names, y)
        sw_flat = targets.sample_weights(names, y_flat, sample_weight, None)
        y_pred_flat = flatten_outputs(y_pred)
        masks = masks_for(self, y_pred, len(y_pred_flat))
        total, per_output = self._compile_loss(y_flat, y_pred_flat, sw_flat, masks)
    # Kept for the default step, which logs each output's loss (trace-time only).
    self._runtime.per_output_losses = (y_pred, per_output)
    extras = self.losses
    for extra in extras:
        extra = ops.cast(extra, "float32")
        total = extra if total is None else total + extra
    if training and (total is None or not per_output):
        # Nothing reaches the weights: training would leave them where they are, as a
        # zero loss (JAX) or an autograd error (torch) that would not say why.
        if total is None:
            raise ValueError(_NO_LOSS)
        check = getattr(self, "_check_losses_reach_weights", None)
        if check is not None:
            check(len(extras))
    if total is None:
        return ops.convert_to_tensor(0.0, "float32")
    if backend.is_tensor(total) and ops.dtype(total) == "float32":
        return total
    return ops.cast(total, "float32")


def call_compute_loss(model, x, y, y_pred, sample_weight, training):
    kwargs = dict(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
    if compute_loss_has_training_arg(model):
        kwargs["training"] = training
    return model.compute_loss(**kwargs)


def take_per_output_losses(model, y_pred) -> list:
    """Each output's loss, when the default `compute_loss` computed them for `y_pred`."""
    record = model._runtime
    last, record.per_output_losses = record.per_output_losses, None
    return last[1] if last is not None and last[0] is y_pred else []


def masks_for(model, y_pred, count: int) -> list:
    """The output masks of the call that returned `y_pred`: those the step's forward
    pass recorded (a compiled step's outputs leave its gradient trace without them),
    else those `y_pred` carries (a custom step calling `self(x)`), as in Keras."""
    last = model._runtime.step_output_masks
    if last is not None and last[0] is y_pred and last[1] is not None:
        return flatten_outputs(last[1])
    flat = flatten_outputs(y_pred)
    if len(flat) == count:
        return [get_mask(p) for p in flat]
    return [None] * count


def own_output_masks(model, y_pred):
    """The masks the model's call left on its outputs `y_pred` (None if none)."""
    return masks_of(y_pred)


def stateless_compute_loss(
    self,
    trainable_variables,
    non_trainable_variables,
    metrics_variables,
    x=None,
    y=None,
    y_pred=None,
    sample_weight=None,
    training=True,
):
    """`compute_loss` as a pure function of the given variable values; returns
    `(loss, (trainable_variables, non_trainable_variables, metrics_variables))`."""
    variables = (
        list(self.trainable_variables),
        list(self.non_trainable_variables),
        list(self.metrics_variables),
    )
    values = (trainable_variables, non_trainable_variables, metrics_variables)
    mapping = [pair for vs, vals in zip(variables, values) for pair in zip(vs, vals, strict=True)]
    with backend.StatelessScope(mapping) as scope:
        loss = call_compute_loss(self, x, y, y_pred, sample_weight, training)
        new = tuple([scope.get_current_value(v) for v in vs] for vs in variables)
    return loss, new


# Metrics ---------------------------------------------------------------------------------
def compute_metrics(self, x, y, y_pred, sample_weight=None) -> dict:
    """Update the compiled metrics with one batch; returns `get_metrics_result()`."""
    update_compiled_metrics(self, x, y, y_pred, sample_weight)
    return self.get_metrics_result()


def update_compiled_metrics(model, x, y, y_pred, sample_weight=None) -> None:
    compiled = model._compile_metrics
    if compiled is not None and not compiled.built and y is not None:
        structures.build_structures(model, x, outputs=y_pred)  # a step called before `fit`
    if compiled is not None and compiled.built and y is not None:
        names = model._output_names_cache
        y_flat = targets.flatten_targets(names, y)
        sw_flat = targets.sample_weights(names, y_flat, sample_weight, None)
        y_pred_flat = flatten_outputs(y_pred)
        compiled.update_state(
            PerOutput(y_flat),
            y_pred_flat,
            PerOutput(sw_flat),
            masks_for(model, y_pred, len(y_pred_flat)),
        )


def get_metrics_result(self) -> dict:
    """The current result of every metric in `model.metrics`, as one flat dict (under a
    data-parallel distribution, of the whole job's totals)."""
    logs = {}
    metrics = self.metrics
    distribution = current_distribution()
    with distribution._job_metrics(metrics) if distribution is not None else nullcontext():
        for metric in metrics:
            result = metric.result()
            # A `result()` that returns a state Variable itself (Keras's guide does) gives
            # its value: a compiled step returns arrays.
            if isinstance(result, dict):
                logs.update({key: _value_of(value) for key, value in result.items()})
            else:
                logs[metric.name] = _value_of(result)
    return logs


def _value_of(x):
    return x.value if isinstance(x, backend.Variable) else x


def update_loss_trackers(model, loss, per_output, size) -> None:
    tracked = {id(m) for m in model.metrics}
    if model._loss_tracker is not None and id(model._loss_tracker) in tracked:
        model._loss_tracker.update_state(loss, sample_weight=size)
    for tracker, value in zip(model._output_loss_trackers, per_output, strict=False):
        if tracker is not None and value is not None and id(tracker) in tracked:
            tracker.update_state(value, sample_weight=size)


def metrics_scope(model, metrics_variables):
    return backend.StatelessScope(
        list(zip(model.metrics_variables, metrics_variables, strict=True))
    )


# The forward pass --------------------------------------------------------------------------
def forward(model, trainable, non_trainable, x, training):
    # The classic `K.set_learning_phase`, when fixed, is the phase every step runs in.
    training = learning_phase_or(training)
    kwargs = {"training": training} if model._call_has_training_arg else {}
    y_pred, non_trainable, losses = model.stateless_call(
        trainable, non_trainable, x, return_losses=True, **kwargs
    )
    model._runtime.step_output_masks = (y_pred, own_output_masks(model, y_pred))
    return y_pred, non_trainable, losses


def loss_and_updates(model, trainable, non_trainable, metrics_values, x, y, sw, training):
    record = model._runtime
    y_pred, non_trainable, losses = forward(model, trainable, non_trainable, x, training)
    record.losses_override = losses
    try:
        loss, (_, non_trainable, metrics_values) = model.stateless_compute_loss(
            trainable, non_trainable, metrics_values, x, y, y_pred, sw, training
        )
    finally:
        record.losses_override = None
    # Each output's loss, logged when the default `compute_loss` computed them.
    per_output = take_per_output_losses(model, y_pred)
    masks, record.step_output_masks = record.step_output_masks, None
    masks = masks[1] if masks is not None else None
    return loss, (y_pred, non_trainable, metrics_values, (per_output, masks))


def compute_loss_and_updates(
    self,
    trainable_variables,
    non_trainable_variables,
    metrics_variables,
    x,
    y,
    sample_weight,
    training=False,
    optimizer_variables=None,
):
    """The forward pass and loss as a pure function of the given values (Keras's JAX
    trainer's, for `backend.value_and_grad(..., has_aux=True)`). Returns `(loss,
    (unscaled_loss, y_pred, non_trainable_variables, metrics_variables))`; with
    `training`, `loss` is scaled by the optimizer (`loss_scale_factor`, a
    LossScaleOptimizer's scale) read from `optimizer_variables` (default: its current
    values)."""
    loss, (y_pred, non_trainable, metrics_values, _) = loss_and_updates(
        self,
        trainable_variables,
        non_trainable_variables,
        metrics_variables,
        x,
        y,
        sample_weight,
        training,
    )
    unscaled = loss
    optimizer = getattr(self, "optimizer", None)
    if training and optimizer is not None:
        own = list(optimizer.variables)
        values = (
            [v.value for v in own] if optimizer_variables is None else list(optimizer_variables)
        )
        with backend.StatelessScope(list(zip(own, values, strict=False))):
            loss = optimizer.scale_loss(loss)
    return loss, (unscaled, y_pred, non_trainable, metrics_values)


def jax_state_sync(self) -> None:
    """Copy the state a running `fit` holds outside the variables (the last complete
    step's) into them, as Keras's JAX trainer does; nothing to do otherwise."""
    self._sync_state_for_callbacks()


# State trees -------------------------------------------------------------------------------
def get_state_tree(self, value_format: str = "backend_tensor") -> dict:
    """The model's state as nested dicts keyed by the pieces of each variable's path:
    `{"trainable_variables": {"sequential": {"dense": {"kernel": ...}}},
    "non_trainable_variables": ..., "optimizer_variables": ...,
    "metrics_variables": ...}`, as Keras 3 returns it.

    Args:
        value_format: `"backend_tensor"` (engine arrays) or `"numpy_array"`.
    """
    if value_format not in ("backend_tensor", "numpy_array"):
        raise ValueError(
            f"get_state_tree: value_format must be 'backend_tensor' or 'numpy_array'; "
            f"received {value_format!r}."
        )
    self.jax_state_sync()
    optimizer = getattr(self, "optimizer", None)
    groups = {
        "trainable_variables": self.trainable_variables,
        "non_trainable_variables": self.non_trainable_variables,
        "optimizer_variables": optimizer.variables if optimizer is not None else [],
        "metrics_variables": self.metrics_variables,
    }
    return {key: _nested(variables, value_format) for key, variables in groups.items()}


def set_state_tree(self, state_tree: dict) -> None:
    """Assign the values of a tree shaped as `get_state_tree` returns it (any subset
    of its groups and paths); paths the model does not have are ignored, as in
    Keras."""
    optimizer = getattr(self, "optimizer", None)
    groups = {
        "trainable_variables": lambda: self.trainable_variables,
        "non_trainable_variables": lambda: self.non_trainable_variables,
        "optimizer_variables": lambda: optimizer.variables if optimizer is not None else [],
        "metrics_variables": lambda: self.metrics_variables,
    }
    for key, subtree in state_tree.items():
        if key not in groups:
            raise ValueError(
                f"set_state_tree: unknown group {key!r}; expected some of "
                f"{sorted(groups)} (the keys of `get_state_tree()`)."
            )
        by_path = {v.path: v for v in groups[key]()}
        for path, value in _flat_paths(subtree):
            variable = by_path.get(path)
            if variable is None:
                continue
            if tuple(getattr(value, "shape", ())) != tuple(variable.shape):
                raise ValueError(
                    f"set_state_tree: variable {path!r} has shape {tuple(variable.shape)}, "
                    f"the tree holds shape {tuple(getattr(value, 'shape', ()))} for it."
                )
            variable.assign(value)


def _nested(variables, value_format) -> dict:
    out: dict = {}
    seen = set()
    for v in variables:
        if v.path in seen:
            raise ValueError(
                f"get_state_tree: the variable path {v.path!r} appears twice in the model; "
                "the tree needs unique paths. Give the layers (or objects) unique names."
            )
        seen.add(v.path)
        *parents, leaf = v.path.split("/")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = v.value if value_format == "backend_tensor" else v.numpy()
    return out


def _flat_paths(tree_, prefix=""):
    for key, value in tree_.items():
        if isinstance(value, dict):
            yield from _flat_paths(value, f"{prefix}{key}/")
        else:
            yield f"{prefix}{key}", value


# The pure step form ------------------------------------------------------------------------
def prepare_train_programs(model) -> None:
    """Nothing to prepare: the pure step is traced and compiled whole."""


def prepare_test_programs(model) -> None:
    """Nothing to prepare: the pure step is traced and compiled whole."""


def train_step(self, state, data):
    """One training step as a pure function: returns `(logs, new_state)`.

    `state` is `(trainable_variables, non_trainable_variables, optimizer_variables,
    metrics_variables)`; `data` is `(x, y)` or `(x, y, sample_weight)`.
    """
    trainable, non_trainable, optimizer_values, metrics_values = state
    x, y, sample_weight = unpack_x_y_sample_weight(data)
    optimizer = self.optimizer
    own = list(optimizer.variables)
    own_values = list(optimizer_values)[: len(own)]

    def loss_fn(trainable):
        loss, aux = loss_and_updates(
            self, trainable, non_trainable, metrics_values, x, y, sample_weight, True
        )
        # Differentiated scaled (`loss_scale_factor`, or a LossScaleOptimizer's dynamic
        # scale, one of its variables); `apply` unscales. Logged as is.
        with backend.StatelessScope(list(zip(own, own_values))):
            scaled = optimizer.scale_loss(loss)
        return scaled, (loss, aux)

    (_, (loss, aux)), grads = backend.value_and_grad(loss_fn, has_aux=True)(list(trainable))
    y_pred, non_trainable, metrics_values, (per_output, masks) = aux
    record = self._runtime
    # The masks of this step's outputs, for `compute_metrics` (outside the gradient).
    record.step_output_masks = (y_pred, masks)
    trainable, own_values = optimizer.stateless_apply(own_values, grads, trainable)
    optimizer_values = list(own_values) + list(optimizer_values)[len(own) :]
    with metrics_scope(self, metrics_values) as scope:
        update_loss_trackers(self, loss, per_output, batch_size(x))
        logs = self.compute_metrics(x, y, y_pred, sample_weight)
        metrics_values = [scope.get_current_value(v) for v in self.metrics_variables]
    record.step_output_masks = None
    return logs, (list(trainable), list(non_trainable), optimizer_values, metrics_values)


def test_step(self, state, data):
    """One evaluation step as a pure function: returns `(logs, new_state)`, with
    `state = (trainable_variables, non_trainable_variables, metrics_variables)`."""
    trainable, non_trainable, metrics_values = state
    x, y, sample_weight = unpack_x_y_sample_weight(data)
    loss, (y_pred, non_trainable, metrics_values, (per_output, masks)) = loss_and_updates(
        self, trainable, non_trainable, metrics_values, x, y, sample_weight, False
    )
    record = self._runtime
    record.step_output_masks = (y_pred, masks)
    with metrics_scope(self, metrics_values) as scope:
        update_loss_trackers(self, loss, per_output, batch_size(x))
        logs = self.compute_metrics(x, y, y_pred, sample_weight)
        metrics_values = [scope.get_current_value(v) for v in self.metrics_variables]
    record.step_output_masks = None
    return logs, (trainable, non_trainable, metrics_values)


def predict_step(self, state, data):
    """One prediction step as a pure function: returns `(outputs,
    non_trainable_variables)`, with `state = (trainable_variables,
    non_trainable_variables)`."""
    trainable, non_trainable = state
    x, _, _ = unpack_x_y_sample_weight(data)
    kwargs = {"training": learning_phase_or(False)} if self._call_has_training_arg else {}
    outputs, non_trainable = self.stateless_call(trainable, non_trainable, x, **kwargs)
    return outputs, non_trainable
