"""`load_weights` reads `.keras` archives, as Keras 3's does (the checkpoint-then-reload
pattern: `ModelCheckpoint("best.keras")`, then `model.load_weights("best.keras")`), and
a path that does not exist is said not to exist (issue 33)."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina import layers  # noqa: E402
from lamina.saving.weights_h5 import MissingFileError  # noqa: E402

# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

X = np.random.default_rng(0).normal(size=(8, 4)).astype("float32")
Y = np.random.default_rng(1).normal(size=(8, 2)).astype("float32")


def _model(L=layers, base=lamina):
    return base.Sequential([base.Input((4,)), L.Dense(3, activation="relu"), L.Dense(2)])


def _differs(a, b):
    return any(not np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_load_weights_of_a_keras_archive_written_by_save(tmp_path):
    path = tmp_path / "model.keras"
    saved = _model()
    saved.save(path)
    fresh = _model()
    assert _differs(fresh.get_weights(), saved.get_weights())
    fresh.load_weights(path)
    for got, expected in zip(fresh.get_weights(), saved.get_weights(), strict=True):
        np.testing.assert_array_equal(got, expected)
    # The `.weights.h5` file, still.
    saved.save_weights(tmp_path / "model.weights.h5")
    other = _model()
    other.load_weights(tmp_path / "model.weights.h5")
    np.testing.assert_array_equal(other.predict(X, verbose=0), saved.predict(X, verbose=0))


def test_model_checkpoint_then_reload_restores_the_best_weights(tmp_path):
    path = str(tmp_path / "best.keras")
    model = _model()
    model.compile("adam", "mse")
    checkpoint = lamina.callbacks.ModelCheckpoint(path, monitor="loss", save_best_only=True)
    model.fit(X, Y, epochs=2, batch_size=4, verbose=0, callbacks=[checkpoint])
    best = [w.copy() for w in model.get_weights()]
    model.fit(X, Y, epochs=1, batch_size=4, verbose=0)  # moves on; the file keeps the best
    model.load_weights(path)
    for got, expected in zip(model.get_weights(), best, strict=True):
        np.testing.assert_allclose(got, expected)


def test_load_weights_of_a_keras_3_archive_gives_keras_predictions(tmp_path):
    path = str(tmp_path / "from_keras.keras")
    theirs = _model(keras.layers, keras)
    theirs.save(path)
    ours = _model()
    ours.load_weights(path)
    expected = theirs.predict(X, verbose=0)
    np.testing.assert_allclose(ours.predict(X, verbose=0), expected, rtol=1e-5, atol=1e-6)
    # and Keras 3 reads lamina's archive the same way.
    mine = str(tmp_path / "from_lamina.keras")
    ours.save(mine)
    again = _model(keras.layers, keras)
    again.load_weights(mine)
    np.testing.assert_allclose(again.predict(X, verbose=0), expected, rtol=1e-5, atol=1e-6)


def test_load_weights_of_an_archive_with_other_layers_says_what_differs(tmp_path):
    path = tmp_path / "model.keras"
    _model().save(path)
    other = lamina.Sequential([lamina.Input((4,)), layers.Dense(5)])
    with pytest.raises(ValueError, match="model.keras"):
        other.load_weights(path)


@pytest.mark.parametrize("name", ["missing.keras", "missing.weights.h5", "missing.h5"])
def test_loading_a_path_that_does_not_exist_says_so(tmp_path, name):
    path = tmp_path / name
    for load in (_model().load_weights, lamina.saving.load_model):
        # Both what Python says of a missing file and what Keras raises (ValueError).
        with pytest.raises(FileNotFoundError, match="no such file") as info:
            load(path)
        assert isinstance(info.value, ValueError)
        assert isinstance(info.value, MissingFileError)
        assert str(path) in str(info.value)
    # Keras's own words, for the record: a ValueError "File not found" for load_model.
    with pytest.raises(ValueError, match="File not found"):
        keras.saving.load_model(tmp_path / "missing.keras")
