"""The programs of `fit`, `evaluate` and `predict`, asked of the engine's execution seam.

How a step *runs* belongs to the engine: `backend.execution.step_programs(model, kind)`
makes the programs in each form the loops use (one batch, `steps_per_execution`
batches, batches sliced or gathered from a training set resident on the device),
calling the model's public `train_step` / `test_step` / `predict_step`, so a subclass's
override is what runs. What stays here is the model's side of the engine's shortcuts:
whether the default step is lamina's own code that computes tensors and nothing else,
which an eager engine may then capture once per input signature and replay
(`backend.execution.captured` for the stateful train step's forward pass and loss,
`Program`'s `replay` for the predict step; both are the step itself on JAX, where every
step is traced and compiled whole).
"""

from __future__ import annotations

from lamina import backend
from lamina.common.serialization import is_lamina_code
from lamina.training import steps


def _users_layers(model):
    """The layers whose `call` is a user's (a layer or model subclass written outside
    lamina), which a capture watches for Python effects; None when a layer must run
    eagerly: a `Lambda` or a wrapped torch module (their function is arbitrary Python)
    or a layer that opts out (`capturable = False`)."""
    users = []
    for layer in model._flatten_layers():
        cls = type(layer)
        if not cls._pure_call or not layer.capturable:
            return None
        if not cls._call_is_pure():
            users.append(layer)
    return users


def _watching(variables, model):
    # The capture checks the user's layers for Python effects (see `capture_variables`).
    variables.watched = lambda: _users_layers(model) or ()
    return variables


def replay_variables(model):
    """For the one-batch predict step of an eager engine: the function that says which
    variables the step reads, when the step may be captured once per input signature
    and replayed (`backend.execution.Program`'s `replay`), or None when it must run
    eagerly every time: an overridden `predict_step`, a `Lambda`, a wrapped torch module
    or a layer that opts out (see `capture_variables` for a user's layers)."""

    def variables():
        if type(model).predict_step is not model._step_form.predict_step:
            return None
        if _users_layers(model) is None:
            return None
        return list({id(v): v for v in model.variables}.values())

    return _watching(variables, model)


def _lamina_own(obj) -> bool:
    """Whether `obj`'s class, and the function it wraps if any, are lamina's own."""
    if obj is None:
        return True
    fn = getattr(obj, "fn", None)
    return is_lamina_code(type(obj)) and (fn is None or is_lamina_code(fn))


def capture_variables(model):
    """For the stateful train step's forward pass and loss
    (`stateful_steps.forward_and_loss`): the function that says which variables they
    read, when they may be captured once per input signature and replayed
    (`backend.execution.captured`), or None when they must run eagerly: an overridden
    `compute_loss`, a loss or weight regularizer written elsewhere (any of which may do
    more than compute tensors: read a Python value a callback changes, count calls), a
    `Lambda`, a wrapped torch module, or a layer that opts out (`capturable = False`).

    A user's layer (a `call` written outside lamina) is captured when its call is
    observed pure: the capture refuses what its tape sees (a value read in Python, an
    in-place change, random numbers drawn outside `lamina.random`, a tensor from
    elsewhere) and, through `watched()`, any change of the layer's attributes, its
    classes' attributes or its module's globals while it ran (a counter, a cache, a
    flag); the step then runs eagerly."""

    def variables():
        if type(model).compute_loss is not steps.compute_loss or "compute_loss" in vars(model):
            return None
        if _users_layers(model) is None:
            return None
        compiled = model._compile_loss
        if compiled is None or not all(_lamina_own(loss) for loss in compiled.losses):
            return None
        if not all(_lamina_own(getattr(v, "regularizer", None)) for v in model.trainable_weights):
            return None
        return list({id(v): v for v in model.variables}.values())

    return _watching(variables, model)


def train_programs(model) -> dict:
    """The train step in each form `fit` uses; the state (argument 0) is donated."""
    model._step_form.prepare_train_programs(model)
    return backend.execution.step_programs(model, "train")


def evaluation_variables(model):
    """For the stateful test step's forward pass, loss and metric updates
    (`stateful_steps.evaluation`): what `capture_variables` says for the train step's
    forward pass and loss, with the metrics' variables (their totals are assigned: the
    graph carries them), for the default `test_step`, `compute_metrics` and
    `get_metrics_result`. A metric written outside lamina is watched as a user's layer
    is."""
    train_variables = capture_variables(model)
    cls = type(model)

    def variables():
        if (
            cls.test_step is not model._step_form.test_step
            or cls.compute_metrics is not steps.compute_metrics
            or cls.get_metrics_result is not steps.get_metrics_result
            or {"test_step", "compute_metrics", "get_metrics_result"} & vars(model).keys()
        ):
            return None
        found = train_variables()
        if found is None:
            return None
        if any(_wraps_users_function(m) for m in _each_metric(model)):
            return None
        return list({id(v): v for v in [*found, *model.metrics_variables]}.values())

    variables.watched = lambda: [
        *train_variables.watched(),
        *(m for m in _each_metric(model) if not is_lamina_code(type(m))),
    ]
    return variables


def _each_metric(model):
    """`model.metrics`, with the compiled metrics' container opened."""
    for metric in model.metrics:
        inner = getattr(metric, "entries", None)
        yield from [metric] if inner is None else [m for _, m, _ in inner]


def _wraps_users_function(metric) -> bool:
    # A metric made from a user's function (`metrics=[fn]`): the function's Python is
    # not watched (a counter in its closure), so the step runs eagerly, as for a loss.
    fn = getattr(metric, "_fn", None) or getattr(metric, "fn", None)
    return fn is not None and not is_lamina_code(fn)


def test_programs(model) -> dict:
    """The test step, one batch or a chunk; only the metric state is donated: the
    weights stay in the variables."""
    model._step_form.prepare_test_programs(model)
    return backend.execution.step_programs(model, "test")


def predict_programs(model) -> dict:
    """The predict step, one batch or a chunk (outputs stacked on a new axis 0); the
    non-trainable values it returns (an RNN's states, seed states) are written back."""
    return backend.execution.step_programs(model, "predict", replay=replay_variables(model))
