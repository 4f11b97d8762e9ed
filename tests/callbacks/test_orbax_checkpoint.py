"""`OrbaxCheckpoint` writes the folders Keras 3's writes: Keras 3 loads lamina's, lamina
loads Keras 3's. Orbax is an optional extra: without `orbax-checkpoint` installed these
tests are skipped, except the one that checks the error naming it."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")

import lamina  # noqa: E402
from lamina import callbacks, layers  # noqa: E402

_X = np.random.default_rng(0).normal(size=(8, 3)).astype("float32")
_Y = np.random.default_rng(1).normal(size=(8, 2)).astype("float32")

pytestmark = [
    pytest.mark.filterwarnings(
        "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
    ),
    # Keras 3 restoring without a target sharding (lamina's loader expects it quietly).
    pytest.mark.filterwarnings("ignore:Sharding info not provided:UserWarning"),
]


def _model():
    inputs = lamina.Input((3,), name="x")
    hidden = layers.Dense(4, name="hidden")(inputs)  # state trees match by path
    model = lamina.Model(inputs, layers.Dense(2, name="out")(hidden))
    model.compile(optimizer="adam", loss="mse")
    return model


def _steps(directory):
    return sorted(int(item) for item in os.listdir(directory) if item.isdigit())


def _out(model):
    return np.asarray(lamina.ops.convert_to_numpy(model(_X)))


def test_without_orbax_the_error_names_the_package(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "orbax", None)
    monkeypatch.setitem(sys.modules, "orbax.checkpoint", None)
    with pytest.raises(ImportError, match="pip install orbax-checkpoint"):
        callbacks.OrbaxCheckpoint(str(tmp_path / "ck"))


@pytest.fixture
def orbax():
    return pytest.importorskip("orbax.checkpoint")


def test_keras_loads_what_lamina_saves(orbax, tmp_path):
    keras = pytest.importorskip("keras")
    directory = str(tmp_path / "ck")
    model = _model()
    model.fit(
        _X,
        _Y,
        epochs=3,
        batch_size=4,
        verbose=0,
        callbacks=[callbacks.OrbaxCheckpoint(directory, max_to_keep=2)],
    )
    assert _steps(directory) == [1, 2]
    theirs = keras.saving.load_model(directory)
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(theirs(_X)), _out(model), rtol=1e-5, atol=1e-6
    )
    ours = lamina.saving.load_model(directory)
    np.testing.assert_allclose(_out(ours), _out(model), rtol=1e-6)
    assert int(ours.optimizer.iterations.numpy()) == int(model.optimizer.iterations.numpy())


def test_lamina_loads_what_keras_saves(orbax, tmp_path):
    keras = pytest.importorskip("keras")
    directory = str(tmp_path / "ck")
    inputs = keras.Input((3,), name="x")
    hidden = keras.layers.Dense(4, name="hidden")(inputs)
    theirs = keras.Model(inputs, keras.layers.Dense(2, name="out")(hidden))
    theirs.compile(optimizer="adam", loss="mse")
    theirs.fit(
        _X,
        _Y,
        epochs=2,
        batch_size=4,
        verbose=0,
        callbacks=[keras.callbacks.OrbaxCheckpoint(directory)],
    )
    ours = lamina.saving.load_model(directory)
    expected = keras.ops.convert_to_numpy(theirs(_X))  # (JAX; lamina may run on torch)
    np.testing.assert_allclose(_out(ours), expected, rtol=1e-5, atol=1e-6)
    fresh = _model()
    fresh.load_weights(directory)
    np.testing.assert_allclose(_out(fresh), _out(ours), rtol=1e-6)


def test_batch_frequency_best_only_and_weights_only(orbax, tmp_path):
    model = _model()
    by_batch = str(tmp_path / "by_batch")
    model.fit(
        _X,
        _Y,
        epochs=2,
        batch_size=2,
        verbose=0,
        callbacks=[
            callbacks.OrbaxCheckpoint(
                by_batch, save_freq=3, max_to_keep=None, save_on_background=False
            )
        ],
    )
    assert _steps(by_batch) == [3, 6]  # steps count the batches seen (4 per epoch)

    best = str(tmp_path / "best")
    checkpoint = callbacks.OrbaxCheckpoint(
        best, monitor="loss", save_best_only=True, max_to_keep=None, initial_value_threshold=-1.0
    )
    model.fit(_X, _Y, epochs=2, verbose=0, callbacks=[checkpoint])
    assert not os.path.exists(best) or _steps(best) == []  # nothing beat the threshold

    weights = str(tmp_path / "weights")
    model.fit(
        _X,
        _Y,
        epochs=1,
        verbose=0,
        callbacks=[callbacks.OrbaxCheckpoint(weights, save_weights_only=True)],
    )
    fresh = _model()
    fresh.load_weights(weights)
    np.testing.assert_allclose(_out(fresh), _out(model), rtol=1e-6)
    with pytest.raises(ValueError, match="save_weights_only"):
        lamina.saving.load_model(weights)


def test_bad_save_freq_is_refused(orbax, tmp_path):
    with pytest.raises(ValueError, match="save_freq"):
        callbacks.OrbaxCheckpoint(str(tmp_path / "ck"), save_freq="batch")
