"""pandas DataFrames and Series as `fit` / `evaluate` / `predict` data, as Keras 3 takes them.

Keras 3 reads a DataFrame as `df.to_numpy()` and a Series as a column, `(n, 1)`
(`keras.src.trainers.data_adapters.array_slicing`), floats cast to floatx. The reference
is Keras 3 itself (JAX backend), run on the same DataFrames with the same weights.
"""

import os

import numpy as np
import pytest

import lamina

pd = pytest.importorskip("pandas")
os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

RNG = np.random.default_rng(7)
N = 40
FRAME = pd.DataFrame(
    {
        "age": RNG.integers(20, 70, N),  # int64 beside float64 columns: to_numpy gives float64
        "income": RNG.standard_normal(N) * 3.0,
        "score": RNG.random(N),
    }
)
LABELS = pd.Series(RNG.integers(0, 2, N), name="label")
WEIGHTS = pd.Series(RNG.random(N) + 0.5)


def _model(K):
    model = K.Sequential(
        [
            K.Input((3,)),
            K.layers.Dense(4, activation="tanh"),
            K.layers.Dense(1, activation="sigmoid"),
        ]
    )
    model.compile(optimizer=K.optimizers.SGD(0.05), loss="binary_crossentropy", metrics=["mae"])
    return model


def _pair():
    reference = _model(keras)
    ours = _model(lamina)
    ours.set_weights(reference.get_weights())
    return reference, ours


def test_fit_evaluate_predict_on_a_data_frame_match_keras():
    reference, ours = _pair()
    kw = dict(batch_size=8, epochs=2, shuffle=False, verbose=0)
    expected = reference.fit(FRAME, LABELS, sample_weight=WEIGHTS, **kw).history
    got = ours.fit(FRAME, LABELS, sample_weight=WEIGHTS, **kw).history
    for key in ("loss", "mae"):
        np.testing.assert_allclose(got[key], expected[key], rtol=1e-5, atol=1e-6)
    for a, b in zip(ours.get_weights(), reference.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        ours.evaluate(FRAME, LABELS, verbose=0),
        reference.evaluate(FRAME, LABELS, verbose=0),
        rtol=1e-5,
    )
    out = ours.predict(FRAME, batch_size=16, verbose=0)
    assert out.shape == (N, 1) and out.dtype == np.float32
    np.testing.assert_allclose(out, reference.predict(FRAME, verbose=0), rtol=1e-5, atol=1e-6)


def test_a_data_frame_reads_as_its_numpy_values():
    """The same numbers as `df.to_numpy()` (float64 -> float32), row for row."""
    model = _model(lamina)
    expected = model.predict(FRAME.to_numpy().astype("float32"), verbose=0)
    np.testing.assert_array_equal(model.predict(FRAME, verbose=0), expected)
    np.testing.assert_array_equal(model.predict_on_batch(FRAME), expected)
    # A frame of int columns only feeds a float model as the ints' values.
    ints = FRAME[["age", "age", "age"]]
    np.testing.assert_allclose(
        model.predict(ints, verbose=0),
        model.predict(ints.to_numpy().astype("float32"), verbose=0),
        rtol=1e-6,
    )


def test_validation_split_and_validation_data_take_frames():
    reference, ours = _pair()
    kw = dict(batch_size=8, epochs=1, shuffle=False, verbose=0)
    expected = reference.fit(FRAME, LABELS, validation_split=0.25, **kw).history
    got = ours.fit(FRAME, LABELS, validation_split=0.25, **kw).history
    np.testing.assert_allclose(got["val_loss"], expected["val_loss"], rtol=1e-5)
    np.testing.assert_allclose(got["loss"], expected["loss"], rtol=1e-5)
    history = ours.fit(FRAME, LABELS, validation_data=(FRAME, LABELS), **kw).history
    assert sorted(history) == ["loss", "mae", "val_loss", "val_mae"]


def test_a_series_is_one_column():
    """Keras 3: a Series is `(n, 1)`, as x, as y and as a model's only feature."""
    for K in (keras, lamina):
        model = K.Sequential([K.Input((1,)), K.layers.Dense(2)])
        model.compile(optimizer="sgd", loss="mse")
        assert model.predict(FRAME["score"], verbose=0).shape == (N, 2), K
    ours = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(1)])
    ours.compile(optimizer="sgd", loss="mse")
    # y as a Series and as a one-column frame train alike.
    kw = dict(batch_size=N, epochs=1, shuffle=False, verbose=0)
    weights = ours.get_weights()
    as_series = ours.fit(FRAME, FRAME["score"], **kw).history["loss"]
    ours.set_weights(weights)
    as_frame = ours.fit(FRAME, FRAME[["score"]], **kw).history["loss"]
    np.testing.assert_allclose(as_series, as_frame, rtol=1e-6)


def test_inputs_by_name_from_frame_columns():
    """A dict of Series (one per named input), and a multi-input model fed a list of frames."""
    a = lamina.Input((1,), name="income")
    b = lamina.Input((2,), name="rest")
    out = lamina.layers.Dense(1)(lamina.layers.Concatenate()([a, b]))
    model = lamina.Model({"income": a, "rest": b}, out)
    model.compile(optimizer="sgd", loss="mse")
    data = {"income": FRAME["income"], "rest": FRAME[["age", "score"]]}
    model.fit(data, LABELS, batch_size=8, epochs=1, verbose=0)
    arrays = {
        "income": FRAME[["income"]].to_numpy("float32"),
        "rest": FRAME[["age", "score"]].to_numpy("float32"),
    }
    np.testing.assert_array_equal(model.predict(data, verbose=0), model.predict(arrays, verbose=0))


def test_a_generator_of_frames():
    """Batches a generator yields as `(DataFrame, Series)` read as the arrays would."""
    model = _model(lamina)
    model.fit(FRAME, LABELS, epochs=1, verbose=0)  # built, optimizer made
    weights = model.get_weights()

    def batches():
        for start in range(0, N, 10):
            yield FRAME.iloc[start : start + 10], LABELS.iloc[start : start + 10]

    expected = model.evaluate(FRAME, LABELS, batch_size=10, verbose=0)
    np.testing.assert_allclose(model.evaluate(batches(), verbose=0), expected, rtol=1e-6)
    model.set_weights(weights)
    assert len(model.fit(batches(), epochs=1, verbose=0).history["loss"]) == 1


def test_frames_that_cannot_be_fed_are_refused_by_column():
    model = _model(lamina)
    missing = FRAME.astype({"age": "Int64"})
    missing.loc[3, "age"] = pd.NA
    with pytest.raises(TypeError, match=r"'age'.*Int64"):
        model.fit(missing, LABELS, epochs=1, verbose=0)
    dates = FRAME.assign(score=pd.date_range("2026-01-01", periods=N))
    with pytest.raises(TypeError, match=r"'score'.*datetime64"):
        model.predict(dates, verbose=0)
