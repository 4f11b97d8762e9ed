"""What `compile` was given, resolved per model output: losses, weights and metrics.

Resolution waits until the output shapes are known (the first batch). `"accuracy"` /
`"acc"` (and lamina's `"crossentropy"` / `"ce"` metric) follow Keras 3's rule, which
reads the shapes of the targets and predictions: binary when the output's last
dimension is 1, sparse categorical when the targets have lower rank than the output
(or a last dimension of 1), categorical otherwise. Where the output or the loss
settles it (a last dimension of 1, a sparse or categorical cross-entropy loss, whose
targets are checked on the host) the concrete metric is built at once; otherwise the
metric picks its function from the shapes it is traced with. `loss="crossentropy"`
resolves by the same rule, as in Keras 3.

Metric names follow Keras 3: the name given (or the metric's own), prefixed with the
output name for models with several outputs; a repeated name gets `_1`, `_2`...; a
weighted metric whose name is already taken becomes `weighted_<name>`.
"""

from __future__ import annotations

import functools
import inspect
import numbers

import numpy as np

from lamina import backend, ops, tree
from lamina import losses as losses_module
from lamina import metrics as metrics_module
from lamina.losses import probabilistic as probabilistic_losses
from lamina.training import targets

_ACCURACY_NAMES = ("accuracy", "acc")
_CROSSENTROPY_NAMES = ("crossentropy", "ce")


def target_kind(true_shape, pred_shape) -> str:
    """Keras's rule: `"binary"`, `"sparse"` or `"categorical"` targets, from the shapes.

    >>> target_kind((8,), (8, 3)), target_kind((8, 1), (8, 3)), target_kind((8, 3), (8, 3))
    ('sparse', 'sparse', 'categorical')
    >>> target_kind((8, 3), (8, 1))
    'binary'
    """
    true_shape, pred_shape = tuple(true_shape), tuple(pred_shape)
    if pred_shape[-1:] == (1,):
        return "binary"
    if len(true_shape) < len(pred_shape) or (true_shape[-1:] == (1,) and pred_shape[-1:] != (1,)):
        return "sparse"
    return "categorical"


_ACCURACY = {
    "binary": (metrics_module.BinaryAccuracy, metrics_module.binary_accuracy),
    "sparse": (
        metrics_module.SparseCategoricalAccuracy,
        metrics_module.sparse_categorical_accuracy,
    ),
    "categorical": (metrics_module.CategoricalAccuracy, metrics_module.categorical_accuracy),
}
_CROSSENTROPY = {
    "binary": (metrics_module.BinaryCrossentropy, probabilistic_losses.binary_crossentropy),
    "sparse": (
        metrics_module.SparseCategoricalCrossentropy,
        probabilistic_losses.sparse_categorical_crossentropy,
    ),
    "categorical": (
        metrics_module.CategoricalCrossentropy,
        probabilistic_losses.categorical_crossentropy,
    ),
}


class AccuracyByTargetShape(metrics_module.MeanMetricWrapper):
    """`"accuracy"` whose kind the targets decide: each traced batch's shapes pick the
    binary, sparse categorical or categorical accuracy function (Keras 3's rule).

    `kind` says which one the last batch used (`None` before the first).
    """

    _KINDS = _ACCURACY

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(self._by_shape, name=name, dtype=dtype)
        self.kind = None

    def _by_shape(self, y_true, y_pred):
        self.kind = target_kind(ops.shape(y_true), ops.shape(y_pred))
        return self._KINDS[self.kind][1](y_true, y_pred)

    def build(self, y_true_shape, y_pred_shape) -> None:
        self.kind = target_kind(y_true_shape, y_pred_shape)
        self.built = True


class CrossentropyByTargetShape(AccuracyByTargetShape):
    """`"crossentropy"` whose kind the targets decide, as `AccuracyByTargetShape`."""

    _KINDS = _CROSSENTROPY

    def __init__(self, name="crossentropy", dtype=None):
        super().__init__(name=name, dtype=dtype)


def _loss_kind(loss):
    """The kind a cross-entropy loss fixes (the classic rule the training issue asks for:
    a binary cross-entropy means binary accuracy, even on a multi-label output where
    Keras 3 would pick categorical by shape), else None."""
    fn = getattr(loss, "fn", None)
    if fn in (
        probabilistic_losses.binary_crossentropy,
        probabilistic_losses.binary_focal_crossentropy,
    ):
        return "binary"
    if fn is probabilistic_losses.sparse_categorical_crossentropy:
        return "sparse"
    if fn in (
        probabilistic_losses.categorical_crossentropy,
        probabilistic_losses.categorical_focal_crossentropy,
    ):
        return "categorical"
    return None


def _resolve_metric(spec, loss, output_shape):
    if isinstance(spec, str) and spec in _ACCURACY_NAMES + _CROSSENTROPY_NAMES:
        accuracy = spec in _ACCURACY_NAMES
        kind = "binary" if tuple(output_shape or ())[-1:] == (1,) else _loss_kind(loss)
        if kind is not None:
            return (_ACCURACY if accuracy else _CROSSENTROPY)[kind][0](name=spec)
        by_shape = AccuracyByTargetShape if accuracy else CrossentropyByTargetShape
        return by_shape(name=spec)
    metric = metrics_module.get(spec)
    if isinstance(metric, metrics_module.Metric):
        if isinstance(spec, str):
            metric.name = spec  # Keras logs a metric under the name it was given
        return metric
    if isinstance(metric, type):
        return metric()
    name = spec if isinstance(spec, str) else getattr(metric, "__name__", "metric")
    return metrics_module.MeanMetricWrapper(metric, name=name)


def _per_output(spec, output_names, what):
    """Spread a compile argument over the outputs: one for all, a list, or a dict."""
    n = len(output_names)
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - set(output_names))
        if unknown:
            raise ValueError(
                f"compile(...{what}=...) has keys {unknown} that match no output. The model's "
                f"outputs are {output_names}."
            )
        return [spec.get(name) for name in output_names]
    if isinstance(spec, (list, tuple)) and what == "loss":
        if len(spec) != n:
            raise ValueError(
                f"compile received {len(spec)} losses for a model with {n} output(s) "
                f"{output_names}; pass one loss per output (or a dict keyed by output name)."
            )
        return list(spec)
    return [spec] * n


class CompileLoss:
    """The compiled loss: one Loss per output, weighted and summed."""

    def __init__(self, loss, loss_weights=None):
        self._spec = loss
        self._weights_spec = loss_weights
        self.built = False
        self.output_names: list[str] = []
        self.losses: list = []
        self.weights: list[float] = []

    def build(self, output_names, output_shapes):
        self.output_names = list(output_names)
        specs = _per_output(self._spec, self.output_names, "loss")
        self.losses = [_as_loss(s) if s is not None else None for s in specs]
        if all(loss is None for loss in self.losses):
            raise ValueError(
                "compile(loss=...) is required to train: no output has a loss. Pass e.g. "
                "loss='mse' or loss='sparse_categorical_crossentropy'."
            )
        weights = self._weights_spec
        if isinstance(weights, numbers.Real) and not isinstance(weights, bool):
            if len(self.losses) != 1:
                raise ValueError(
                    f"loss_weights={weights!r} is one number, but the model has "
                    f"{len(self.losses)} outputs {self.output_names}; pass one weight per "
                    "output as a list, or a dict keyed by output name."
                )
            weights = [weights]
        if weights is None:
            self.weights = [1.0] * len(self.losses)
        elif isinstance(weights, dict):
            self.weights = _per_output(weights, self.output_names, "loss_weights")
            self.weights = [1.0 if w is None else float(w) for w in self.weights]
        else:
            if not isinstance(weights, (list, tuple)):
                raise TypeError(
                    "loss_weights must be a number (one output), a list with one number per "
                    f"output, or a dict keyed by output name; received {weights!r}."
                )
            weights = list(weights)
            if len(weights) != len(self.losses):
                raise ValueError(
                    f"loss_weights has {len(weights)} entries for {len(self.losses)} outputs "
                    f"{self.output_names}."
                )
            self.weights = [float(w) for w in weights]
        self.built = True

    def __call__(self, y_true: list, y_pred: list, sample_weight: list, masks: list):
        """Total loss and per-output losses (a list, None for outputs without loss)."""
        total = None
        per_output = []
        for name, loss, weight, yt, yp, sw, mask in zip(
            self.output_names,
            self.losses,
            self.weights,
            y_true,
            y_pred,
            sample_weight,
            masks,
            strict=True,
        ):
            if loss is None or yt is None:
                per_output.append(None)
                continue
            try:
                value = _call_loss(loss, yt, yp, sw, mask)
            except (TypeError, ValueError, RuntimeError) as error:  # torch: RuntimeError
                _raise_if_shapes_mismatch(error, "loss", _name_of(loss), name, yt, yp)
                raise
            per_output.append(value)
            # No `0.0 + 1.0 * value` for the common single unweighted loss: on an eager
            # engine each is an op and a node the backward pass walks.
            term = value if weight == 1.0 else weight * value
            total = term if total is None else total + term
        return (0.0 if total is None else total), per_output


def crossentropy(y_true, y_pred):
    """Keras 3's `loss="crossentropy"`: binary, sparse or categorical cross-entropy,
    chosen from the shapes of the targets and predictions (see `target_kind`)."""
    kind = target_kind(ops.shape(y_true), ops.shape(y_pred))
    return _CROSSENTROPY[kind][1](y_true, y_pred)


def _as_loss(spec):
    if isinstance(spec, str) and spec in _CROSSENTROPY_NAMES:
        return losses_module.LossFunctionWrapper(crossentropy, name=spec)
    loss = losses_module.get(spec)
    if isinstance(loss, losses_module.Loss):
        return loss
    if isinstance(loss, type):
        return loss()
    name = spec if isinstance(spec, str) else getattr(loss, "__name__", "loss")
    return losses_module.LossFunctionWrapper(loss, name=name)


def _call_loss(loss, y_true, y_pred, sample_weight, mask):
    # Keras 3 calls `loss(y_true, y_pred, sample_weight)` and a Loss reads the mask off
    # `y_pred`, so a Loss subclass may override `__call__(labels, preds,
    # sample_weight=None)` (keras-io's supervised contrastive loss does): such a loss
    # gets no mask, as in Keras.
    if mask is None or not _takes_mask(type(loss)):
        return loss(y_true, y_pred, sample_weight)
    return loss(y_true, y_pred, sample_weight, mask=mask)


@functools.cache
def _takes_mask(loss_type) -> bool:
    try:
        params = inspect.signature(loss_type.__call__).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "mask" or p.kind is p.VAR_KEYWORD for p in params)


def _name_of(obj) -> str:
    return getattr(obj, "name", None) or getattr(obj, "__name__", None) or type(obj).__name__


def _broadcastable(true_shape: tuple, pred_shape: tuple) -> bool:
    """Whether targets meet predictions under the losses' rank rule, then broadcasting."""
    t, p = list(true_shape), list(pred_shape)
    # The rule of `squeeze_or_expand_to_same_rank`: a trailing unit axis may differ.
    if len(t) == len(p) + 1 and t[-1] == 1:
        t, p = (t, p + [1]) if len(p) == 1 else (t[:-1], p)
    elif len(p) == len(t) + 1 and p[-1] == 1:
        t, p = (t + [1], p) if len(t) == 1 else (t, p[:-1])
    try:
        np.broadcast_shapes(
            tuple(1 if d is None else d for d in t), tuple(1 if d is None else d for d in p)
        )
    except ValueError:
        return False
    return True


def _raise_if_shapes_mismatch(error, kind, what, output, y_true, y_pred) -> None:
    """Turn a shape error from deep inside a loss or metric into one that names the parts.

    Raises a ValueError naming the output, the loss (or metric) and both shapes when
    the target's shape cannot meet the prediction's; otherwise returns, and the caller
    re-raises the original error (it has another cause).
    """
    true_shape = tuple(getattr(y_true, "shape", ()))
    pred_shape = tuple(getattr(y_pred, "shape", ()))
    if kind == "loss" and "sparse" in what.lower():
        return  # sparse labels have their own shape rule, checked on the host
    if _broadcastable(true_shape, pred_shape):
        return
    raise ValueError(
        f"The {kind} {what!r} of output {output!r} received targets of shape {true_shape} "
        f"for predictions of shape {pred_shape}; these shapes cannot be compared. Pass "
        f"targets shaped like the output, {pred_shape}, for {output!r} (a trailing axis of "
        "size 1 may be left out), or change the output layer or the loss so they agree."
    ) from error


def _name_as_keras(entries, output_names) -> None:
    """Give each compiled metric the name Keras 3 logs it under (see the module doc)."""
    counts: dict[str, int] = {}
    for i, metric, weighted in entries:
        prefix = f"{output_names[i]}_" if output_names else ""
        name = prefix + metric.name
        if name in counts and weighted:
            name = f"{prefix}weighted_{metric.name}"
        if name in counts:
            counts[name] += 1
            name = f"{name}_{counts[name] - 1}"
        else:
            counts[name] = 1
        metric.name = name


class CompileMetrics(metrics_module.Metric):
    """The compiled metrics: per output, unweighted and weighted.

    As in Keras 3 it is itself one metric, `compile_metrics`, in `model.metrics`: its
    `variables` are those of every metric it holds and its `result()` is a dict of their
    results, so a custom `train_step` that loops over `model.metrics` with
    `stateless_update_state(vars, y, y_pred)` updates all of them.
    """

    def __init__(self, metrics=None, weighted_metrics=None):
        super().__init__(name="compile_metrics")
        self._metrics_spec = metrics
        self._weighted_spec = weighted_metrics
        self.built = False
        self.entries: list = []  # (output index, metric, weighted)
        self.output_names: list[str] = []

    @property
    def variables(self) -> list:
        return [v for m in self.metrics for v in m.variables]

    def reset_state(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    def stateless_reset_state(self) -> list:
        return [v for m in self.metrics for v in m.stateless_reset_state()]

    def result(self) -> dict:
        return {m.name: m.result() for m in self.metrics}

    def build(self, output_names, output_shapes, compile_loss):
        self.output_names = list(output_names)
        multi = len(output_names) > 1
        self.entries = []
        for spec, weighted in ((self._metrics_spec, False), (self._weighted_spec, True)):
            if spec is None:
                continue
            if isinstance(spec, dict):
                per_output = _per_output(spec, output_names, "metrics")
            elif (
                isinstance(spec, (list, tuple))
                and multi
                and spec
                and all(isinstance(s, (list, tuple)) or s is None for s in spec)
            ):
                if len(spec) != len(output_names):
                    raise ValueError(
                        f"compile received metrics for {len(spec)} outputs; the model has "
                        f"{len(output_names)} outputs {output_names}."
                    )
                per_output = list(spec)
            else:
                per_output = [spec] * len(output_names)
            for i, specs in enumerate(per_output):
                if specs is None:
                    continue
                specs = specs if isinstance(specs, (list, tuple)) else [specs]
                for s in specs:
                    loss = compile_loss.losses[i] if compile_loss is not None else None
                    metric = _resolve_metric(s, loss, output_shapes[i])
                    self.entries.append((i, metric, weighted))
        _name_as_keras(self.entries, output_names if multi else None)
        self.built = True

    @property
    def metrics(self) -> list:
        return [m for _, m, _ in self.entries]

    def update_state(self, y_true, y_pred, sample_weight=None, masks=None, output_names=None):
        """Update every metric. `y_true`, `y_pred` and `sample_weight` are flat lists
        (one entry per output) or, as a user's `train_step` passes them, the model's own
        structures (an array, a list or a dict by output name)."""
        names = self.output_names
        if not _is_flat_per_output(y_true, names):
            y_true = targets.flatten_targets(names, y_true)
        y_pred = flatten_outputs(y_pred)
        if not _is_flat_per_output(sample_weight, names):
            sample_weight = targets.sample_weights(names, y_true, sample_weight, None)
        masks = [None] * len(names) if masks is None else masks
        output_names = output_names or names
        for i, metric, weighted in self.entries:
            if y_true[i] is None:
                continue
            sw = sample_weight[i] if weighted else None
            mask = masks[i]
            if mask is not None:
                m = ops.cast(mask, "float32")
                if sw is not None:
                    sw = ops.cast(sw, "float32")
                    while len(sw.shape) < len(m.shape):
                        sw = ops.expand_dims(sw, -1)
                sw = m if sw is None else sw * m
            try:
                metric.update_state(y_true[i], y_pred[i], sample_weight=sw)
            except (TypeError, ValueError, RuntimeError) as error:  # torch: RuntimeError
                if "sparse" not in type(metric).__name__.lower():
                    output = output_names[i] if output_names else f"output {i}"
                    _raise_if_shapes_mismatch(
                        error, "metric", metric.name, output, y_true[i], y_pred[i]
                    )
                raise


def _is_flat_per_output(values, names) -> bool:
    return isinstance(values, PerOutput)


class PerOutput(list):
    """A list with one entry per output, as the trainer flattened it (never user data)."""

    _per_output = True


def compile_config(model) -> dict:
    """What `compile` was given, as JSON (saved in `.keras` files)."""
    from lamina.common import serialization

    def encode(spec):
        if spec is None or isinstance(spec, (str, int, float, bool)):
            return spec
        if isinstance(spec, (list, tuple)):
            return [encode(s) for s in spec]
        if isinstance(spec, dict):
            return {k: encode(v) for k, v in spec.items()}
        if hasattr(spec, "get_config"):
            kind = "losses" if hasattr(spec, "reduction") else "metrics"
            return serialization.serialize_keras_object(spec, kind)
        return serialization.serialize_keras_object(spec)

    config = {k: encode(v) for k, v in model._compile_args.items()}
    config["optimizer"] = serialization.serialize_keras_object(model.optimizer, "optimizers")
    return config


def compile_from_config(model, config: dict, custom_objects=None) -> None:
    """Compile `model` again from `compile_config`'s output."""
    from lamina import optimizers as optimizers_module
    from lamina.common import serialization

    def decode(spec, category):
        if isinstance(spec, dict) and "class_name" in spec:
            return serialization.deserialize_keras_object(
                spec, category, custom_objects=custom_objects
            )
        if isinstance(spec, list):
            return [decode(s, category) for s in spec]
        if isinstance(spec, dict):
            return {k: decode(v, category) for k, v in spec.items()}
        return spec

    config = dict(config)
    optimizer = optimizers_module.deserialize(
        config.pop("optimizer"), custom_objects=custom_objects
    )
    loss = decode(config.pop("loss", None), "losses")
    if isinstance(loss, type) and issubclass(loss, losses_module.Loss):
        loss = loss()
    if config.get("jit_compile") is True and not backend.execution.JIT_BY_DEFAULT:
        # A file written on a compiling engine (Keras on JAX saves True) is not a request
        # for more than the default here (torch.compile on torch): the engine's own
        # default applies, without a warning.
        config["jit_compile"] = "auto"
    model.compile(
        optimizer=optimizer,
        loss=loss,
        metrics=decode(config.pop("metrics", None), "metrics"),
        weighted_metrics=decode(config.pop("weighted_metrics", None), "metrics"),
        **{
            k: v
            for k, v in config.items()
            if k in ("loss_weights", "run_eagerly", "steps_per_execution", "jit_compile")
        },
    )


def flatten_outputs(y_pred) -> list:
    return tree.flatten(y_pred) if isinstance(y_pred, (list, tuple, dict)) else [y_pred]
