"""The compiled programs of `fit`, `evaluate` and `predict`, made from the model's steps.

`fit` runs `model.train_step(state, data)`, `evaluate` `model.test_step` and `predict`
`model.predict_step`, looked up on the model when the program is traced, so a subclass's
override is what runs. Each becomes the engine's `Program`s (`backend.execution`): one
step per call, or `steps_per_execution` steps as one `ops.scan` over a chunk of batches
stacked on a new axis 0. For training sets resident on the device, the train step also
comes in forms that receive where their batches sit rather than the batches: start
offsets (`*_from`, contiguous batches sliced in the program) or row indices (`*_at`,
one gather per chunk).
"""

from __future__ import annotations

import numpy as np

from lamina import backend, ops, tree
from lamina.training import loop_utils


def _last(logs):
    return tree.map_structure(lambda v: v[-1], logs)


def _changed(new, old):
    """`new` unless the step passed every value through untouched (known while
    tracing): then None, and nothing needs writing back after the call."""
    new = list(new)
    if len(new) == len(old) and all(a is b for a, b in zip(new, old)):
        return None
    return new


def _program(model, fn, what, **kwargs):
    compiled = not model.run_eagerly
    if backend.execution.STATEFUL and getattr(model, "jit_compile", None) is True:
        # `compile(jit_compile=True)` on an eager engine: the model's call inside the
        # step runs compiled (`torch.compile`); the step's own machinery stays eager.
        kwargs["jit"] = model
    return backend.execution.program(
        fn, f"{what} of model {model.name!r}", compiled=compiled, **kwargs
    )


def _tensors(data):
    if type(data) is np.ndarray or backend.is_tensor(data):
        return backend.convert_to_tensor(data)  # a predict batch of one array: no tree walk
    if type(data) is tuple and all(type(a) is np.ndarray or a is None for a in data):
        # A train step's `(x, y[, sample_weight])` of arrays: no tree walk either.
        return tuple(None if a is None else backend.convert_to_tensor(a) for a in data)
    return tree.map_structure(lambda a: None if a is None else backend.convert_to_tensor(a), data)


def _row(chunk, i):
    return tree.map_structure(lambda a: None if a is None else a[i], chunk)


def _live_program(model, fn, what, **kwargs):
    """A stateful step's program: it reads and updates the live variables by design,
    so the strict check of pure steps does not apply."""
    return _program(model, fn, what, live=True, **kwargs)


def _replay_variables(model):
    """For the one-batch predict step of an eager engine: the function that says which
    variables the step reads, when the step may be captured once per input signature
    and replayed (`backend.execution.Program`'s `replay`), or None when it must run
    eagerly every time: an overridden `predict_step`, or a layer whose `call` is not
    lamina's own (a user's layer or model subclass, a `Lambda`) and may do more than
    compute tensors."""
    from lamina.training.stateful_steps import StatefulStepAPI

    def variables():
        if type(model).predict_step is not StatefulStepAPI.predict_step:
            return None
        if not all(type(layer)._call_is_pure() for layer in model._flatten_layers()):
            return None
        return list({id(v): v for v in model.variables}.values())

    return variables


def _lamina_own(obj) -> bool:
    """Whether `obj`'s class, and the function it wraps if any, are lamina's own."""
    if obj is None:
        return True
    fn = getattr(obj, "fn", None)
    return type(obj).__module__.startswith("lamina.") and (
        fn is None or getattr(fn, "__module__", "").startswith("lamina.")
    )


def _capture_variables(model):
    """For the stateful train step's forward pass and loss (`Model._forward_and_loss`):
    the function that says which variables they read, when they may be captured once
    per input signature and replayed (`backend.execution.captured`), or None when they
    must run eagerly: an overridden `compute_loss` or `_forward_and_loss`, a layer whose
    `call` is not lamina's own, or a loss or weight regularizer written elsewhere (any
    of which may do more than compute tensors: read a Python value a callback changes,
    count calls)."""
    from lamina.training.stateful_steps import StatefulStepAPI
    from lamina.training.steps import StepAPI

    def variables():
        cls = type(model)
        if (
            cls.compute_loss is not StepAPI.compute_loss
            or cls._forward_and_loss is not StatefulStepAPI._forward_and_loss
            or {"compute_loss", "_forward_and_loss"} & model.__dict__.keys()
        ):
            return None
        layers = model._flatten_layers()
        if not all(type(layer)._call_is_pure() for layer in layers):
            return None
        compiled = model._compile_loss
        if compiled is None or not all(_lamina_own(loss) for loss in compiled.losses):
            return None
        if not all(_lamina_own(getattr(v, "regularizer", None)) for v in model.trainable_weights):
            return None
        return list({id(v): v for v in model.variables}.values())

    return variables


def _stateful_train_programs(model) -> dict:
    """On a stateful engine: the same forms, running `model.train_step(data)` on the
    live variables (the state argument is passed through untouched, as None)."""
    if not model.run_eagerly and getattr(model, "jit_compile", None) is not True:
        # The default step's forward pass and loss, captured per input signature.
        model.__dict__["_train_capture"] = backend.execution.captured(
            model._forward_and_loss,
            f"forward pass and loss of model {model.name!r}",
            _capture_variables(model),
        )
    else:
        model.__dict__.pop("_train_capture", None)

    def one(state, data):
        return state, model.train_step(_tensors(data))

    def many(state, chunk):
        chunk = _tensors(chunk)
        logs = None
        for i in range(len(tree.flatten(chunk)[0])):
            logs = model.train_step(_row(chunk, i))
        return state, logs

    def one_from(state, data, start, size):
        start = int(start)
        return state, model.train_step(_row(data, slice(start, start + size)))

    def many_from(state, data, starts, size):
        logs = None
        for start in starts.tolist():
            logs = model.train_step(_row(data, slice(start, start + size)))
        return state, logs

    def one_at(state, data, rows):
        return state, model.train_step(loop_utils.take_rows(data, rows))

    def many_at(state, data, rows):
        logs = None
        for batch_rows in rows:
            logs = model.train_step(loop_utils.take_rows(data, batch_rows))
        return state, logs

    forms = {
        "one": one,
        "many": many,
        "one_from": one_from,
        "many_from": many_from,
        "one_at": one_at,
        "many_at": many_at,
    }
    return {
        name: _live_program(model, fn, f"train step ({name})", gradients=True)
        for name, fn in forms.items()
    }


def train_programs(model) -> dict:
    """The train step in each form `fit` uses; the state (argument 0) is donated."""
    if backend.execution.STATEFUL:
        return _stateful_train_programs(model)

    def one(state, data):
        logs, state = model.train_step(state, data)
        return state, logs

    def many(state, chunk):
        state, logs = ops.scan(one, state, chunk)
        return state, _last(logs)

    def one_from(state, data, start, size):
        return one(state, loop_utils.slice_rows(data, start, size))

    def many_from(state, data, starts, size):
        def body(carry, start):
            return one(carry, loop_utils.slice_rows(data, start, size))

        state, logs = ops.scan(body, state, starts)
        return state, _last(logs)

    def one_at(state, data, rows):
        return one(state, loop_utils.take_rows(data, rows))

    def many_at(state, data, rows):
        n = rows.shape[0]
        return many(state, loop_utils.take_rows(data, ops.reshape(rows, (-1,)), n))

    forms = {
        "one": one,
        "many": many,
        "one_from": one_from,
        "many_from": many_from,
        "one_at": one_at,
        "many_at": many_at,
    }
    return {
        name: _program(
            model,
            fn,
            f"train step ({name})",
            donate_argnums=(0,),
            static_argnums=(3,) if name.endswith("_from") else (),
            gradients=True,
        )
        for name, fn in forms.items()
    }


def test_programs(model) -> dict:
    """The test step, one batch or a chunk; only the metric state (argument 1) is
    donated: the weights stay in the variables."""
    if backend.execution.STATEFUL:

        def test_one(weights, metrics_values, data):
            return metrics_values, model.test_step(_tensors(data))

        def test_many(weights, metrics_values, chunk):
            chunk, logs = _tensors(chunk), None
            for i in range(len(tree.flatten(chunk)[0])):
                logs = model.test_step(_row(chunk, i))
            return metrics_values, logs

        forms = (("one", test_one), ("many", test_many))
        return {name: _live_program(model, fn, f"test step ({name})") for name, fn in forms}

    def one(weights, metrics_values, data):
        trainable, non_trainable = weights
        logs, state = model.test_step((trainable, non_trainable, metrics_values), data)
        return state[2], logs

    def many(weights, metrics_values, chunk):
        metrics_values, logs = ops.scan(lambda mv, d: one(weights, mv, d), metrics_values, chunk)
        return metrics_values, _last(logs)

    return {
        name: _program(model, fn, f"test step ({name})", donate_argnums=(1,))
        for name, fn in (("one", one), ("many", many))
    }


def predict_programs(model) -> dict:
    """The predict step, one batch or a chunk (outputs stacked on a new axis 0); the
    non-trainable values it returns (an RNN's states, seed states) are written back."""
    if backend.execution.STATEFUL:

        def predict_one(weights, data):
            return model.predict_step(_tensors(data)), None

        def predict_many(weights, chunk):
            chunk = _tensors(chunk)
            outs = [model.predict_step(_row(chunk, i)) for i in range(len(tree.flatten(chunk)[0]))]
            return tree.map_structure(lambda *v: ops.stack(v), *outs), None

        return {
            "one": _live_program(
                model, predict_one, "predict step (one)", replay=_replay_variables(model)
            ),
            "many": _live_program(model, predict_many, "predict step (many)"),
        }

    def one(weights, data):
        outputs, non_trainable = model.predict_step(weights, data)
        return outputs, _changed(non_trainable, weights[1])

    def many(weights, chunk):
        changed = []

        def body(non_trainable, data):
            outputs, new = model.predict_step((weights[0], non_trainable), data)
            changed.append(_changed(new, non_trainable) is not None)
            return list(new), outputs

        non_trainable, outputs = ops.scan(body, list(weights[1]), chunk)
        return outputs, non_trainable if any(changed) else None

    return {
        name: _program(model, fn, f"predict step ({name})")
        for name, fn in (("one", one), ("many", many))
    }
