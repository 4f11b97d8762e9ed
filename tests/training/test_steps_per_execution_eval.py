"""`steps_per_execution` applies to evaluate and predict too, as in Keras: with array data
one compiled call runs up to k batches, and the results are those of one batch at a time.
"""

import numpy as np
import pytest

from lamina import Input, Model, callbacks, layers


def _model(spe):
    inp = Input((3,), name="x")
    h = layers.Dense(4, activation="tanh", name="h")(inp)
    model = Model(inp, {"p": layers.Dense(1, activation="sigmoid", name="p")(h)})
    rng = np.random.default_rng(0)
    model.set_weights([rng.standard_normal(w.shape).astype("float32") for w in model.weights])
    model.compile(
        optimizer="sgd",
        loss={"p": "binary_crossentropy"},
        metrics={"p": ["accuracy"]},
        steps_per_execution=spe,
    )
    return model


def _data(n=11):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, 3)).astype("float32")
    y = (rng.uniform(size=(n, 1)) > 0.5).astype("float32")
    return x, y


def _numpy_forward(model, x):
    k1, b1, k2, b2 = model.get_weights()
    return 1 / (1 + np.exp(-(np.tanh(x @ k1 + b1) @ k2 + b2)))


def test_evaluate_runs_chunks_of_k_batches_with_the_same_results():
    x, y = _data()
    ends = []
    hook = callbacks.LambdaCallback(on_test_batch_end=lambda batch, logs: ends.append(batch))
    chunked = _model(3).evaluate(x, y, batch_size=2, verbose=0, return_dict=True, callbacks=[hook])
    # 11 samples in batches of 2: [0,1,2], the two full ones left, then the partial one.
    assert ends == [2, 4, 5]
    single = _model(1).evaluate(x, y, batch_size=2, verbose=0, return_dict=True)
    assert chunked.keys() == single.keys()
    for key in single:
        np.testing.assert_allclose(chunked[key], single[key], rtol=1e-5)
    p = np.clip(_numpy_forward(_model(1), x), 1e-7, 1 - 1e-7)
    bce = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(chunked["loss"], bce, rtol=1e-4)
    np.testing.assert_allclose(chunked["accuracy"], np.mean((p > 0.5) == y), rtol=1e-6)


@pytest.mark.parametrize("n", [11, 12])
def test_predict_runs_chunks_of_k_batches_in_order(n):
    x, _ = _data(n)
    ends = []
    hook = callbacks.LambdaCallback(on_predict_batch_end=lambda batch, logs: ends.append(batch))
    model = _model(4)
    out = model.predict(x, batch_size=2, verbose=0, callbacks=[hook])
    assert isinstance(out, dict) and out["p"].shape == (n, 1)
    np.testing.assert_allclose(out["p"], _numpy_forward(model, x), rtol=1e-5, atol=1e-6)
    assert ends == ([3, 4, 5] if n == 11 else [3, 5])
    np.testing.assert_allclose(_model(1).predict(x, batch_size=2, verbose=0)["p"], out["p"])


def test_validation_inside_fit_uses_the_same_chunks():
    x, y = _data(12)
    history = _model(3).fit(
        x, y, batch_size=2, epochs=1, verbose=0, shuffle=False, validation_data=(x, y)
    )
    reference = _model(1).fit(
        x, y, batch_size=2, epochs=1, verbose=0, shuffle=False, validation_data=(x, y)
    )
    for key in reference.history:
        np.testing.assert_allclose(history.history[key], reference.history[key], rtol=1e-5)


@pytest.mark.parametrize("n", [11, 12, 21])
def test_predict_without_callbacks_joins_chunks_as_one_batch_at_a_time_would(n):
    # No callback: the host joins each call's stacked outputs. 21 samples in batches of
    # 2 with k=4: two full calls, a partial group of two batches, then the partial batch.
    x, _ = _data(n)
    model = _model(4)
    out = model.predict(x, batch_size=2, verbose=0)
    assert out["p"].shape == (n, 1) and out["p"].flags.writeable
    np.testing.assert_array_equal(out["p"], _model(1).predict(x, batch_size=2, verbose=0)["p"])
    np.testing.assert_allclose(out["p"], _numpy_forward(model, x), rtol=1e-5, atol=1e-6)


def test_evaluate_with_a_partial_group_and_batch_matches_one_batch_at_a_time():
    x, y = _data(21)
    chunked = _model(4).evaluate(x, y, batch_size=2, verbose=0, return_dict=True)
    single = _model(1).evaluate(x, y, batch_size=2, verbose=0, return_dict=True)
    assert chunked.keys() == single.keys()
    for key in single:
        np.testing.assert_allclose(chunked[key], single[key], rtol=1e-6)
