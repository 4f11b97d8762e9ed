"""`TimeDistributed` is a `Wrapper` and `Bidirectional` is not, as in Keras 3; the base
class changes neither's config nor the layout of its saved weights (Keras is the
reference for both)."""

from __future__ import annotations

import os

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)


def _datasets(path):
    names = []
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: names.append(name) if isinstance(obj, h5py.Dataset) else 0)
    return sorted(names)


def test_wrapper_subclasses_match_keras():
    for name, make in [
        ("TimeDistributed", lambda L: L.TimeDistributed(L.Dense(2))),
        ("Bidirectional", lambda L: L.Bidirectional(L.LSTM(2))),
    ]:
        ours, theirs = make(layers), make(keras.layers)
        assert isinstance(ours, layers.Wrapper) == isinstance(theirs, keras.layers.Wrapper), name
    assert isinstance(layers.TimeDistributed(layers.Dense(2)), layers.Wrapper)


def test_time_distributed_config_and_weights_file_match_keras(tmp_path):
    def build(lib):
        return lib.Sequential(
            [lib.Input((3, 4)), lib.layers.TimeDistributed(lib.layers.Dense(2), name="td")]
        )

    ours, theirs = build(lamina), build(keras)
    ours_config, theirs_config = ours.layers[0].get_config(), theirs.layers[0].get_config()
    assert sorted(ours_config) == sorted(theirs_config)
    assert ours_config["layer"]["config"]["units"] == 2
    theirs.save_weights(tmp_path / "k.weights.h5")
    ours.save_weights(tmp_path / "l.weights.h5")
    assert _datasets(tmp_path / "l.weights.h5") == _datasets(tmp_path / "k.weights.h5")
    ours.load_weights(tmp_path / "k.weights.h5")
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype("float32")
    np.testing.assert_allclose(
        lamina.ops.convert_to_numpy(ours(x)), np.asarray(theirs(x)), rtol=1e-5, atol=1e-6
    )
    clone = layers.TimeDistributed.from_config(ours_config)
    assert isinstance(clone, layers.Wrapper) and clone.get_config() == ours_config
