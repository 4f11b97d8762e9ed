"""`compile(jit_compile=True)` on the torch engine: the model's call runs `torch.compile`d.

Checked against the same model run eagerly (`jit_compile="auto"`, torch's default) from
the same weights: fit's history and weights, evaluate and predict agree within float32
rounding (rtol 1e-5; the compiled graph runs the same aten ops, fused differently). The
graph is captured once per input signature, not per step, and a call that cannot be
captured or compiled runs eagerly after one warning that says why.

`torch.compile`'s default backend (inductor) generates C++ and costs ~10 s per graph on
a small CPU, so these tests pick a cheap backend with `LAMINA_TORCH_COMPILE_BACKEND`:
`aot_eager` (AOTAutograd, which builds the compiled backward, without code generation)
for the comparison and `eager` elsewhere.
"""

import numpy as np
import pytest

from lamina import (
    Input,
    Model,
    Sequential,
    backend,
    layers,
    losses,
    mixed_precision,
    ops,
    optimizers,
)

pytestmark = pytest.mark.skipif(
    not backend.execution.STATEFUL,
    reason="torch.compile is the stateful (torch) engine's; JAX compiles every step with XLA",
)

RNG = np.random.default_rng(0)
X = RNG.standard_normal((48, 6)).astype("float32")
Y = RNG.integers(0, 3, (48,))


def _model(*extra):
    return Sequential(
        [
            Input((6,)),
            layers.Dense(8, activation="relu"),
            layers.BatchNormalization(),  # assigns its moving statistics in the call
            layers.ActivityRegularization(l2=0.01),  # adds a loss in the call
            *extra,
            layers.Dense(3),
        ]
    )


def _compiled(model, jit_compile, steps_per_execution=1):
    model.compile(
        optimizer=optimizers.Adam(0.01),
        loss=losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
        jit_compile=jit_compile,
        steps_per_execution=steps_per_execution,
    )
    return model


def _compiled_call(model):
    return backend.execution._compiled_call_for(model)


def _numpy(values):
    return [ops.convert_to_numpy(v) for v in values]


def test_fit_evaluate_predict_match_eager(monkeypatch):
    monkeypatch.setenv("LAMINA_TORCH_COMPILE_BACKEND", "eager")
    eager = _compiled(_model(), "auto")
    jitted = _compiled(_model(), True, steps_per_execution=2)  # 2 steps per program call
    jitted.set_weights(eager.get_weights())
    results = []
    for model in (eager, jitted):
        history = model.fit(X, Y, batch_size=16, epochs=2, shuffle=False, verbose=0)
        logs = model.evaluate(X, Y, batch_size=16, verbose=0, return_dict=True)
        results.append((history.history, logs, model.predict(X, batch_size=16, verbose=0)))
        results[-1] += (model.get_weights(),)
    (h0, e0, p0, w0), (h1, e1, p1, w1) = results
    for key in h0:
        np.testing.assert_allclose(h1[key], h0[key], rtol=1e-5)
    for key in e0:
        np.testing.assert_allclose(e1[key], e0[key], rtol=1e-5)
    np.testing.assert_allclose(p1, p0, rtol=1e-5, atol=1e-6)
    for a, b in zip(w1, w0, strict=True):  # kernels, biases and moving statistics
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    compiled = _compiled_call(jitted)
    assert compiled.failed is None
    assert compiled.capture_count == 2  # training=True for fit, False for evaluate/predict


def test_dict_inputs_two_outputs_under_mixed_precision_match_eager(monkeypatch):
    monkeypatch.setenv("LAMINA_TORCH_COMPILE_BACKEND", "eager")
    xs = {"a": X[:, :4], "b": X[:, 4:]}
    ys = [X[:, :2], X[:, 5:]]

    def model():
        a, b = Input((4,), name="a"), Input((2,), name="b")
        h = layers.Dense(5, activation="tanh")(layers.Concatenate()([a, b]))
        return Model({"a": a, "b": b}, [layers.Dense(2)(h), layers.Dense(1, dtype="float32")(h)])

    mixed_precision.set_global_policy("mixed_bfloat16")  # weights float32, math bfloat16
    try:
        runs = []
        for jit_compile in ("auto", True):
            m = model()
            if runs:
                m.set_weights(runs[0][0])
            runs.append([m.get_weights()])
            m.compile(optimizer="sgd", loss=["mse", "mse"], jit_compile=jit_compile)
            history = m.fit(xs, ys, batch_size=16, epochs=2, shuffle=False, verbose=0)
            predicted = m.predict(xs, batch_size=16, verbose=0)
            runs[-1] += [history.history["loss"], *predicted, *m.get_weights()]
        assert _compiled_call(m).failed is None and _compiled_call(m).capture_count == 2
    finally:
        mixed_precision.set_global_policy("float32")
    for a, b in zip(runs[1][1:], runs[0][1:], strict=True):
        np.testing.assert_allclose(ops.convert_to_numpy(a).astype("float32"), b, rtol=1e-5)


def test_one_capture_and_one_dynamo_graph_per_signature(monkeypatch):
    import torch._dynamo.utils

    monkeypatch.setenv("LAMINA_TORCH_COMPILE_BACKEND", "eager")
    model = _compiled(_model(), True)
    graphs = torch._dynamo.utils.counters["stats"]
    model.fit(X, Y, batch_size=16, epochs=1, verbose=0)  # 3 steps
    first = graphs["unique_graphs"]
    model.fit(X, Y, batch_size=16, epochs=3, verbose=0)  # 9 more steps, same shapes
    assert graphs["unique_graphs"] == first  # no recompile on the step count
    assert _compiled_call(model).capture_count == 1
    model.fit(X[:40], Y[:40], batch_size=16, epochs=1, verbose=0)  # a last batch of 8
    assert _compiled_call(model).capture_count == 2
    assert "call" not in model.__dict__  # installed only while a step runs


class _ReadsItsInput(layers.Layer):
    """Scales by a number read in Python: fine eagerly, impossible to capture."""

    def call(self, x):
        return x * float(ops.mean(ops.stop_gradient(x)))


def test_a_call_that_cannot_be_captured_warns_once_and_runs_eagerly(monkeypatch):
    monkeypatch.setenv("LAMINA_TORCH_COMPILE_BACKEND", "eager")
    eager = _compiled(_model(_ReadsItsInput()), "auto")
    jitted = _compiled(_model(_ReadsItsInput()), True)
    jitted.set_weights(eager.get_weights())
    eager.fit(X, Y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    with pytest.warns(UserWarning, match="cannot be compiled with torch.compile") as record:
        jitted.fit(X, Y, batch_size=16, epochs=2, shuffle=False, verbose=0)
        jitted.predict(X, verbose=0)
    assert len(record) == 1
    assert "reads a tensor's value in Python" in str(record[0].message)
    for a, b in zip(jitted.get_weights(), eager.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_a_compiler_failure_warns_once_and_runs_eagerly(monkeypatch):
    import torch._dynamo

    def failing_backend(graph, example_inputs):
        raise RuntimeError("no compiler here")

    if "lamina_test_failing" not in torch._dynamo.list_backends(exclude_tags=()):
        torch._dynamo.register_backend(failing_backend, name="lamina_test_failing")
    monkeypatch.setenv("LAMINA_TORCH_COMPILE_BACKEND", "lamina_test_failing")
    eager = _compiled(_model(), "auto")
    jitted = _compiled(_model(), True)
    jitted.set_weights(eager.get_weights())
    eager.fit(X, Y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    with pytest.warns(UserWarning, match=r"torch.compile failed .*no compiler here") as record:
        jitted.fit(X, Y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    assert len(record) == 1
    for a, b in zip(jitted.get_weights(), eager.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


class _Broken(layers.Layer):
    """Fails on data (the symbolic build runs on meta tensors and passes)."""

    def call(self, x):
        if not x.is_meta:
            raise ValueError("broken layer")
        return x


def test_an_error_in_the_model_surfaces_as_it_is(monkeypatch):
    monkeypatch.setenv("LAMINA_TORCH_COMPILE_BACKEND", "eager")
    model = Sequential([Input((6,)), layers.Dense(3), _Broken()])
    model.compile(optimizer="sgd", loss="mse", jit_compile=True)
    with pytest.raises(ValueError, match="broken layer"):  # no warning about compiling
        model.fit(X, np.zeros((48, 3), "float32"), verbose=0)
