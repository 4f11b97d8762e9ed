"""A repeat call of a layer on the input signature it last passed (`Layer._repeat_call`,
used by the graph runner and by a graph model's `__call__` on a stateful engine) skips
the checks it passed, and gives what the whole `__call__` gives on every other input."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import backend, layers, ops
from lamina.layers import eager_calls
from lamina.layers import input_spec as input_spec_module
from lamina.layers import layer as layer_module


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


class _TrainingProbe(layers.Layer):
    """Returns x + 1 in training, x otherwise; records what `call` received."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = []

    def call(self, x, training=None):
        self.seen.append(training)
        return x + 1.0 if training else x


class _Inner(layers.Layer):
    """Calls a sublayer inside its own `call`: the sublayer reads the call context."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.probe = _TrainingProbe()

    def call(self, x):
        return self.probe(x)


class _AddsLoss(layers.Layer):
    def call(self, x):
        self.add_loss(ops.sum(x))
        return x


class _Outer(layers.Layer):
    """Calls a model inside its own `call`: the model and its layers run eagerly on
    every engine (a nested call is never compiled on its own)."""

    def __init__(self, model, **kwargs):
        super().__init__(**kwargs)
        self.model = model

    def call(self, x, training=None):
        return self.model(x, training=training)


@pytest.fixture(params=["model", "nested"])
def call(request):
    """How a test calls its model: `call(model, x)` directly (eager only on a stateful engine;
    JAX compiles it, which `test_model_call_program.py` covers) or inside a layer."""
    if request.param == "model":
        if not backend.execution.STATEFUL:
            pytest.skip("call(model, x) runs a compiled program on this engine")
        return lambda model, x, **kw: model(x, **kw)
    outers: dict = {}

    def nested(model, x, **kw):
        outer = outers.setdefault(id(model), _Outer(model))
        out = outer(x, **kw)
        model.__dict__["_outer_losses"] = outer.losses
        return out

    return nested


def _losses(model):
    return model.__dict__.get("_outer_losses", model.losses)


def _mlp():
    inputs = lamina.Input((4,))
    h = layers.Dense(3, kernel_initializer="ones", name="d1")(inputs)
    probe = _TrainingProbe(name="probe")
    out = layers.Dense(2, kernel_initializer="ones", name="d2")(probe(h))
    return lamina.Model(inputs, out), probe


def _x(rows=2, cols=4):
    return backend.convert_to_tensor(np.arange(rows * cols, dtype="float32").reshape(rows, cols))


def test_repeat_calls_skip_the_input_checks_they_passed(monkeypatch, call):
    model, _ = _mlp()
    x = _x()
    first = _np(call(model, x))
    calls = []
    real = input_spec_module.check_input_compatibility

    def counting(spec, inputs, layer):
        calls.append(layer.name)
        return real(spec, inputs, layer)

    for module in (layer_module, eager_calls):
        monkeypatch.setattr(module, "check_input_compatibility", counting)
    again = _np(call(model, x))
    np.testing.assert_array_equal(again, first)
    assert calls == [], f"the repeat call checked the inputs of {calls} again"
    # A new shape is a new signature: the whole call runs, checks included.
    call(model, _x(rows=3))
    assert "d1" in calls


class _FourWide(layers.Layer):
    """Takes only inputs whose last dimension is 4 (its input spec, set when built)."""

    def build(self, input_shape):
        self.input_spec = lamina.layers.InputSpec(axes={-1: 4})

    def call(self, x):
        return x * 2.0


def test_a_new_shape_that_breaks_the_input_spec_still_raises(call):
    inputs = lamina.Input((None,))
    model = lamina.Model(inputs, _FourWide()(layers.Identity()(inputs)))
    call(model, _x(cols=4))
    np.testing.assert_allclose(_np(call(model, _x(cols=4))), 2.0 * _np(_x(cols=4)))  # repeat path
    with pytest.raises(ValueError, match="last dimension 4"):
        call(model, _x(cols=5))


def test_training_is_resolved_as_the_whole_call_resolves_it(call):
    model, probe = _mlp()
    x = _x()
    for _ in range(2):  # the second round runs on the repeat path
        probe.seen.clear()
        out_train = _np(call(model, x, training=True))
        out_infer = _np(call(model, x, training=False))
        out_none = _np(call(model, x))
        assert probe.seen == [True, False, None]
        # d2 sums three units of (h [+1]): training adds 3 to every output.
        np.testing.assert_allclose(out_train - out_infer, 3.0)
        np.testing.assert_allclose(out_none, out_infer)


def test_a_sublayer_reads_the_training_flag_from_the_call_context(call):
    inputs = lamina.Input((4,))
    inner = _Inner()
    model = lamina.Model(inputs, inner(inputs))
    x = _x()
    for _ in range(2):
        inner.probe.seen.clear()
        np.testing.assert_allclose(_np(call(model, x, training=True)) - _np(x), 1.0)
        np.testing.assert_allclose(_np(call(model, x, training=False)), _np(x))
        assert inner.probe.seen == [True, False]


def test_losses_added_in_call_are_those_of_the_last_call_only(call):
    inputs = lamina.Input((4,))
    model = lamina.Model(inputs, _AddsLoss()(layers.Dense(4, kernel_initializer="ones")(inputs)))
    x = _x()
    for _ in range(3):
        call(model, x)
        assert len(_losses(model)) == 1
    np.testing.assert_allclose(_np(_losses(model)[0]), 4.0 * (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7))


def test_an_activity_regularizer_set_after_a_pass_is_applied(call):
    model, _ = _mlp()
    x = _x()
    call(model, x)
    call(model, x)
    assert _losses(model) == []
    model.get_layer("d1").activity_regularizer = lamina.regularizers.L1(0.5)
    out_h = _np(x) @ np.ones((4, 3), "float32")
    call(model, x)
    assert len(_losses(model)) == 1
    np.testing.assert_allclose(_np(_losses(model)[0]), 0.5 * np.abs(out_h).sum() / 2, rtol=1e-6)


class _DtypeProbe(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = []

    def call(self, x):
        self.seen.append(backend.standardize_dtype(x.dtype))
        return x


def test_inputs_are_cast_on_every_call_that_needs_it(call):
    inputs = lamina.Input((4,))
    probe = _DtypeProbe()
    model = lamina.Model(inputs, probe(layers.Identity()(inputs)))
    probe.seen.clear()  # the symbolic call's
    x = _x()
    call(model, x)
    call(model, x)
    assert probe.seen == ["float32", "float32"]
    probe.dtype_policy = "float16"  # a new policy: the inputs are cast from now on
    call(model, x)
    call(model, x)
    assert probe.seen[2:] == ["float16", "float16"]
    half = _DtypeProbe(dtype="float16")
    model = lamina.Model(inputs, half(layers.Identity()(inputs)))
    half.seen.clear()
    for _ in range(3):
        call(model, x)
    assert half.seen == ["float16"] * 3


def test_a_layer_with_its_own_call_method_keeps_it(call):
    seen = []

    class Custom(layers.Layer):
        def __call__(self, *args, **kwargs):
            seen.append("custom __call__")
            return super().__call__(*args, **kwargs)

        def call(self, x):
            return x * 2.0

    inputs = lamina.Input((4,))
    model = lamina.Model(inputs, Custom()(inputs))
    seen.clear()
    x = _x()
    for _ in range(3):
        np.testing.assert_allclose(_np(call(model, x)), 2.0 * _np(x))
    assert seen == ["custom __call__"] * 3
