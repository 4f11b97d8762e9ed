"""The structures `compile` leaves to the first batch: the model's output structure and
names, and from them the compiled loss, the compiled metrics and the per-output loss
trackers; and `model.metrics`, the list of metrics those make (Keras 3's order).

They are built once, from the first batch `fit`, `evaluate` or a step called by hand
sees (`build_structures`), because a subclassed model's outputs are known only then.
`ensure_built` builds, from a batch, everything a step needs (these structures, the
metrics, the optimizer). `metrics`, `metrics_names` and `reset_metrics` are the model's
methods of those names (see `Trainer`).
"""

from __future__ import annotations

import warnings

import numpy as np

from lamina import backend, tree
from lamina import metrics as metrics_module
from lamina.backend.common.variables import structure_version
from lamina.training import targets
from lamina.training.compile_utils import CompileMetrics, flatten_outputs


def output_names_for(model, y_pred) -> list[str]:
    flat = flatten_outputs(y_pred)
    if getattr(model, "_function", None) is not None:
        names = model.output_names
        if len(names) == len(flat):
            return names
    if isinstance(y_pred, dict):
        return sorted(y_pred)
    if len(flat) == 1:
        return ["output"]
    return [f"output_{i + 1}" for i in range(len(flat))]


def has_call(model) -> bool:
    """False for a model whose steps do everything (a GAN without `call`)."""
    return getattr(model, "_function", None) is not None or not getattr(
        type(model).call, "_lamina_default", False
    )


def build_structures(model, x, outputs=None):
    """Build the output structure, compiled loss and metrics from a batch `x` (or,
    when a step already ran the model, from its `outputs`)."""
    if model._structures_built:
        return
    if not has_call(model):
        model._output_names_cache = []
        model._structures_built = True
        return
    functional = getattr(model, "_function", None) is not None
    if outputs is None and (not model.built or not functional):
        # Builds subclassed / deferred models on a real batch; a subclassed model's
        # outputs on it give the output structure, so its `call` never sees a batch
        # size other than the data's (as in Keras, which builds from the first batch).
        outputs = model(x)
        functional = getattr(model, "_function", None) is not None  # a deferred stack
    if functional:
        spec = output_spec_for(model, x)
    else:
        spec = output_spec_for(model, outputs, outputs=True)
    model._output_struct = spec
    names = output_names_for(model, spec)
    shapes = [tuple(s.shape) for s in flatten_outputs(spec)]
    model._output_names_cache = names
    if model._compile_loss is not None:
        model._compile_loss.build(names, shapes)
    model._compile_metrics.build(names, shapes, model._compile_loss)
    # Per-output losses are logged when more than one output has a loss (as in Keras).
    multi = (
        model._compile_loss is not None
        and sum(loss is not None for loss in model._compile_loss.losses) > 1
    )
    model._output_loss_trackers = (
        [
            metrics_module.Mean(name=f"{name}_loss")
            if model._compile_loss.losses[i] is not None
            else None
            for i, name in enumerate(names)
        ]
        if multi
        else []
    )
    model._output_loss_order = loss_tracker_order(model, spec, names)
    model._structures_built = True


def loss_tracker_order(model, spec, names) -> list[int]:
    """The order of the per-output loss trackers in `model.metrics` (so in
    `metrics_names` and `evaluate`'s list), as Keras 3 builds them: a `loss` dict
    for a model with dict outputs is walked in the dict's own order; otherwise the
    outputs' order."""
    order = list(range(len(model._output_loss_trackers)))
    loss = getattr(model, "_compile_args", {}).get("loss")
    if isinstance(loss, dict) and isinstance(spec, dict) and order:
        position = {name: i for i, name in enumerate(names)}
        first = [position[key] for key in loss if key in position]
        order = first + [i for i in order if i not in first]
    return order


def output_spec_for(model, x, outputs=False):
    """The spec of the model's outputs on batches like `x` (any batch size); with
    `outputs`, `x` is what the model returned on a real batch.

    Only a graph's own outputs, or the outputs of a real call, are used: abstract
    evaluation of a subclassed model's `call` would run it with stand-in batch sizes
    (see `lamina.graph.operation.output_spec`), which a `call` built around the data's
    batch size (noise of shape `(self.batch_size, 1)`) cannot take."""
    from lamina.graph.keras_tensor import KerasTensor

    if getattr(model, "_function", None) is not None:
        return model._function._outputs_struct
    if not outputs:
        x = model(x)

    def spec(a):
        shape = tuple(np.shape(a))
        dtype = getattr(a, "dtype", None)
        dtype = backend.standardize_dtype(dtype if dtype is not None else np.asarray(a).dtype)
        return KerasTensor((None,) + shape[1:] if shape else shape, dtype)

    return tree.map_structure(spec, x)


def optimizer_built(model) -> bool:
    return model.optimizer is not None and getattr(model.optimizer, "built", False)


def ensure_built(model, x, y=None):
    """Build, from the batch `(x, y)`, what a train step needs: the output structures,
    the compiled metrics (with `y`) and the optimizer."""
    build_structures(model, x)
    if y is not None and not model._metrics_built and has_call(model):
        y_flat = targets.flatten_targets(model._output_names_cache, y)
        # The batch size from `x`, or from `y` for a model whose tensors feed every
        # input (it gets no `x`).
        leaves = [a for a in tree.flatten(x) + y_flat if a is not None]
        batch = np.shape(leaves[0])[0]
        outputs = flatten_outputs(model._output_struct)
        for i, metric, _ in model._compile_metrics.entries:
            if hasattr(metric, "build") and y_flat[i] is not None:
                metric.build(np.shape(y_flat[i]), (batch,) + tuple(outputs[i].shape[1:]))
        model._metrics_built = True
        # The metrics join `metrics_variables` now, possibly creating no variable (a
        # loaded model's were made at load): a state list cached before (by `predict`)
        # would lack them.
        model._runtime.state_vars = None
    if not optimizer_built(model):
        model.optimizer.build(model.trainable_variables)


def ensure_built_for_predict(model, x):
    functional = getattr(model, "_function", None) is not None
    if not model.built or (not functional and not model.weights):
        model(x)


# `model.metrics` and the methods around it ------------------------------------------------
def metrics(self) -> list:
    """The metrics tracked during training, as in Keras 3: the loss, each output's
    loss (several outputs), `compile_metrics` (holding the compiled metrics), then
    metrics held as attributes of the model (a GAN's loss trackers)."""
    # Kept per structure version (a new metric makes variables): eager engines ask
    # for the list in every step.
    version = structure_version()
    record = self._runtime
    cached = record.metrics
    if cached is not None and cached[0] == version and cached[1] == _metrics_key(self):
        return list(cached[2])
    out = _collect_metrics(self)
    record.metrics = (version, _metrics_key(self), out)
    return list(out)


def _metrics_key(model):
    compiled = model._compile_metrics
    return (
        id(model._loss_tracker),
        id(compiled),
        compiled is not None and compiled.built,
        len(vars(model)),
    )


def _collect_metrics(model) -> list:
    # Keras 3's order. `compile_metrics` is listed from `compile` on whenever `metrics`
    # or `weighted_metrics` was given (even empty, or not yet built), as in Keras; the
    # per-output loss trackers appear once the outputs are known.
    out = []
    if model._loss_tracker is not None:
        out.append(model._loss_tracker)
    compiled = model._compile_metrics
    if compiled is not None and (
        compiled._metrics_spec is not None or compiled._weighted_spec is not None
    ):
        out.append(compiled)
    trackers = model._output_loss_trackers
    order = model._output_loss_order
    if order is None or len(order) != len(trackers):  # recompiled, not yet built
        order = range(len(trackers))
    out.extend(trackers[i] for i in order if trackers[i] is not None)
    seen = {id(m) for m in out}
    for value in vars(model).values():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(item, metrics_module.Metric) and id(item) not in seen:
                if isinstance(item, CompileMetrics):
                    continue
                seen.add(id(item))
                out.append(item)
    return out


def metrics_names(self) -> list[str]:
    return [m.name for m in self.metrics]


def reset_metrics(self) -> None:
    """Reset the state of every metric in `model.metrics`."""
    for m in self.metrics:
        m.reset_state()


def flat_metric_names(model) -> list[str]:
    """The order of `evaluate`'s (and `*_on_batch`'s) list of results, which is
    Keras's: the loss, each output's loss, the compiled metrics, then the rest."""
    names, compiled = [], []
    for m in model.metrics:
        if isinstance(m, CompileMetrics):
            compiled.extend(sub.name for sub in m.metrics)
        else:
            names.append(m.name)
    losses = (model._loss_tracker is not None) + sum(
        t is not None for t in model._output_loss_trackers
    )
    return names[:losses] + compiled + names[losses:]


# `trainable` changed after `compile` ---------------------------------------------------
def remember_trainable(model) -> None:
    """At `compile`: which variables are trainable now (None while unbuilt)."""
    model._runtime.compiled_trainable = (
        frozenset(id(v) for v in model.trainable_variables) if model.built else None
    )
    model._runtime.trainable_checked = structure_version()


def warn_if_trainable_changed(model, method: str) -> None:
    """Warn, once per change, when `trainable` flags changed since `compile`.

    Keras 2 trained the variables that were trainable when `compile` ran; Keras 3,
    and lamina with it, train those trainable at each step. A classic GAN
    (`discriminator.compile(...)`, then `discriminator.trainable = False` before the
    combined model is compiled, then `discriminator.train_on_batch(...)`) relies on
    the Keras 2 rule: here the discriminator would not train, silently. Checked only
    when the structure changed (a flag flip bumps its version), so steps stay cheap.
    """
    record = model._runtime
    version = structure_version()
    if record.trainable_checked is None or record.trainable_checked == version:
        return
    record.trainable_checked = version
    compiled = record.compiled_trainable
    if compiled is None or not model.built:
        return
    now = frozenset(id(v) for v in model.trainable_variables)
    if now == compiled:
        return
    frozen, unfrozen = len(compiled - now), len(now - compiled)
    warnings.warn(
        f"{method}: `trainable` flags of {model.name!r} changed after `compile()` "
        f"({frozen} variable(s) frozen, {unfrozen} unfrozen since). lamina trains the "
        "variables trainable now, as Keras 3 does; Keras 2 kept training those trainable "
        "when `compile()` ran (the classic GAN idiom, `discriminator.compile(...)` then "
        "`discriminator.trainable = False`, relied on that). Call `compile()` again after "
        "changing `trainable` to make the intent explicit; this warning then stops.",
        UserWarning,
        stacklevel=4,  # this, the method, its traceback filter, the caller
    )
