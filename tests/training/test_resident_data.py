"""Training arrays kept on the device for a whole `fit`, and `predict`'s one-batch path.

Small array datasets go to the device once per `fit` (on accelerators; on a CPU they stream
unless `RESIDENT_BYTES` is set) and each compiled step gathers its
rows there; larger ones stream a chunk at a time. Both must train identically.
"""

import numpy as np
import pytest

from lamina import Input, Model, layers, optimizers
from lamina.training import data_adapter
from lamina.training.targets import StepData


def _two_input_model():
    a = Input((3,), name="a")
    b = Input((2,), name="b")
    h = layers.Concatenate()([layers.Dense(4, activation="tanh", name="d1")(a), b])
    out = layers.Dense(3, name="out")(h)
    model = Model({"a": a, "b": b}, out)
    rng = np.random.default_rng(1)
    model.set_weights([rng.standard_normal(w.shape).astype("float32") for w in model.weights])
    return model


def _data(n=23, seed=0):
    rng = np.random.default_rng(seed)
    x = {"a": rng.standard_normal((n, 3)), "b": rng.standard_normal((n, 2)).astype("float32")}
    y = rng.integers(0, 3, n)
    sw = rng.uniform(0.5, 2.0, n)
    return x, y, sw


def _train(monkeypatch, resident: bool, spe: int, shuffle=True, run_eagerly=False, epochs=2):
    monkeypatch.setattr(data_adapter, "RESIDENT_BYTES", 2**30 if resident else 0)
    np.random.seed(7)  # the shuffle order
    model = _two_input_model()
    model.compile(
        optimizer=optimizers.Adam(0.05),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
        steps_per_execution=spe,
        run_eagerly=run_eagerly,
    )
    x, y, sw = _data()
    history = model.fit(
        x,
        y,
        sample_weight=sw,
        class_weight={0: 1.0, 1: 2.0, 2: 0.5},
        batch_size=4,  # 23 samples: five full batches and one of 3
        epochs=epochs,
        shuffle=shuffle,
        verbose=0,
    )
    return model.get_weights(), history.history


@pytest.mark.parametrize(("spe", "shuffle"), [(4, True), (4, False), (1, "batch")])
def test_resident_and_streamed_data_train_identically(monkeypatch, spe, shuffle):
    # Unshuffled batches are sliced from the resident data, shuffled ones gathered.
    w_resident, h_resident = _train(monkeypatch, True, spe, shuffle)
    w_streamed, h_streamed = _train(monkeypatch, False, spe, shuffle)
    for a, b in zip(w_resident, w_streamed, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    for key in h_streamed:
        np.testing.assert_allclose(h_resident[key], h_streamed[key], rtol=1e-6)


@pytest.mark.parametrize("shuffle", [False, True])
def test_resident_data_runs_eagerly_too(monkeypatch, shuffle):
    def train(resident, run_eagerly):
        monkeypatch.setattr(data_adapter, "RESIDENT_BYTES", 2**30 if resident else 0)
        np.random.seed(3)
        inp = Input((3,))
        model = Model(inp, layers.Dense(1, kernel_initializer="ones")(inp))
        model.compile(optimizer="sgd", loss="mse", run_eagerly=run_eagerly)
        x = np.linspace(-1, 1, 30, dtype="float32").reshape(10, 3)
        model.fit(x, x.sum(1), batch_size=4, shuffle=shuffle, verbose=0)
        return model.get_weights()

    for a, b in zip(train(True, True), train(False, False), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _count_prepares(monkeypatch):
    calls = []
    original = StepData.__call__

    def counting(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(StepData, "__call__", counting)
    return calls


def test_small_arrays_are_prepared_once_per_fit_not_once_per_batch(monkeypatch):
    monkeypatch.setattr(data_adapter, "RESIDENT_BYTES", 2**30)
    calls = _count_prepares(monkeypatch)
    model = _two_input_model()
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    x, y, _ = _data()
    model.fit(x, y, batch_size=4, epochs=3, verbose=0)
    assert len(calls) == 1  # 18 batches, one transfer


def test_the_default_limit_keeps_data_resident_on_accelerators_only(monkeypatch):
    from lamina import backend

    on_cpu = str(backend.distribution.list_devices()[0]).startswith("cpu")
    assert data_adapter.resident_bytes() == (0 if on_cpu else 256 * 2**20)
    monkeypatch.setattr(data_adapter, "_on_accelerator", lambda: True)
    assert data_adapter.resident_bytes() == 256 * 2**20
    monkeypatch.setattr(data_adapter, "_on_accelerator", lambda: False)
    assert data_adapter.resident_bytes() == 0
    monkeypatch.setattr(data_adapter, "RESIDENT_BYTES", 123)  # a set limit wins
    assert data_adapter.resident_bytes() == 123


def test_arrays_over_the_limit_stream_a_chunk_at_a_time(monkeypatch):
    monkeypatch.setattr(data_adapter, "RESIDENT_BYTES", 100)
    calls = _count_prepares(monkeypatch)
    model = _two_input_model()
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", steps_per_execution=2)
    x, y, _ = _data()
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    assert len(calls) == 4  # chunks [0,1] [2,3] [4] and the partial batch [5]


def test_resident_training_learns_and_reports_the_numpy_loss():
    # One full-batch SGD step on a linear model, checked against the NumPy formula.
    x = np.arange(12, dtype="float32").reshape(6, 2) / 10
    y = (x @ np.array([[1.0], [-2.0]], "float32")).astype("float32")
    inp = Input((2,))
    model = Model(inp, layers.Dense(1, use_bias=False, kernel_initializer="zeros")(inp))
    model.compile(optimizer=optimizers.SGD(0.1), loss="mse")
    history = model.fit(x, y, batch_size=6, epochs=1, shuffle=False, verbose=0)
    grad = 2 * x.T @ (x @ np.zeros((2, 1)) - y) / 6
    np.testing.assert_allclose(model.get_weights()[0], -0.1 * grad, rtol=1e-5)
    np.testing.assert_allclose(history.history["loss"][0], np.mean(y**2), rtol=1e-5)


# predict's one-batch path ---------------------------------------------------------------


def _mlp():
    inp = Input((4,))
    model = Model(inp, layers.Dense(2, activation="softmax")(layers.Dense(5)(inp)))
    return model


def _numpy_forward(model, x):
    k1, b1, k2, b2 = model.get_weights()
    logits = (x @ k1 + b1) @ k2 + b2
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_predict_one_sample_matches_numpy_for_each_input_dtype(dtype):
    model = _mlp()
    x = np.array([[1, 2, 0, -1]], dtype=dtype)
    out = model.predict(x, verbose=0)
    assert isinstance(out, np.ndarray) and out.shape == (1, 2)
    np.testing.assert_allclose(out, _numpy_forward(model, x.astype("float32")), rtol=1e-5)


def test_predict_one_batch_sees_weights_set_between_calls():
    model = _mlp()
    x = np.ones((3, 4), "float32")
    first = model.predict(x, verbose=0)
    model.set_weights([w * 2 for w in model.get_weights()])
    second = model.predict(x, verbose=0)
    np.testing.assert_allclose(second, _numpy_forward(model, x), rtol=1e-5)
    assert not np.allclose(first, second)


def test_predict_one_batch_still_checks_batch_size_and_shapes():
    model = _mlp()
    x = np.ones((2, 4), "float32")
    for bad in (0, -3, 2.5):
        with pytest.raises(ValueError, match="batch_size must be a positive int"):
            model.predict(x, batch_size=bad, verbose=0)
    with pytest.raises(ValueError, match=r"expected shape \(None, 4\)"):
        model.predict(np.ones((1, 5), "float32"), verbose=0)
    with pytest.raises(TypeError, match="dtype"):
        model.predict(np.array([["a", "b", "c", "d"]]), verbose=0)


def test_predict_more_rows_than_a_batch_concatenates_in_order():
    model = _mlp()
    x = np.random.default_rng(0).standard_normal((70, 4)).astype("float32")
    out = model.predict(x, batch_size=32, verbose=0)
    np.testing.assert_allclose(out, _numpy_forward(model, x), rtol=1e-5, atol=1e-6)
