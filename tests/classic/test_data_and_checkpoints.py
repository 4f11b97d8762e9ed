"""Classic data and checkpoint idioms (issue 32): dicts of inputs carrying extra keys,
as classic generators yield them (item 11), and `ModelCheckpoint` with Keras 2's file
names (`weights.{epoch:02d}.hdf5`, whole models to `.h5`/`.hdf5`).
"""

from __future__ import annotations

import warnings

import h5py
import numpy as np
import pytest

from lamina import ops
from lamina.callbacks import ModelCheckpoint
from lamina.layers import Dense, Input, concatenate
from lamina.models import Model, load_model

RNG = np.random.default_rng(11)


def _two_input_model():
    a, b = Input(shape=(2,), name="a"), Input(shape=(1,), name="b")
    model = Model([a, b], Dense(1)(concatenate([a, b])))
    model.compile(optimizer="sgd", loss="mse")
    return model


def test_extra_input_keys_are_ignored_with_one_warning():
    model = _two_input_model()
    count = 8
    batch = {
        "a": RNG.normal(size=(count, 2)).astype("float32"),
        "b": RNG.normal(size=(count, 1)).astype("float32"),
        "label": RNG.integers(0, 2, size=(count, 1)),
        "id": np.array([f"sample-{i}" for i in range(count)]),  # strings, never fed
    }
    target = np.zeros((count, 1), "float32")

    def generator():
        while True:
            yield batch, target

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(generator(), steps_per_epoch=2, epochs=2, verbose=0)
        model.fit(batch, target, batch_size=4, verbose=0)
        loss = model.evaluate(batch, target, verbose=0)
        predicted = model.predict(batch, verbose=0)
        called = model(batch)
    messages = [str(w.message) for w in caught if "ignores the input keys" in str(w.message)]
    assert len(messages) == 1, messages  # once, naming the keys left out and the inputs
    assert "['id', 'label']" in messages[0] and "['a', 'b']" in messages[0]
    inputs = [batch["a"], batch["b"]]
    np.testing.assert_allclose(predicted, model.predict(inputs, verbose=0), rtol=1e-6)
    np.testing.assert_allclose(ops.convert_to_numpy(called), predicted, rtol=1e-5)
    assert loss == pytest.approx(model.evaluate(inputs, target, verbose=0), rel=1e-6)
    # A missing input is still an error, naming both sides.
    with pytest.raises(ValueError, match=r"unknown: \['label'\], missing: \['b'\]"):
        model.predict({"a": batch["a"], "label": batch["label"]}, verbose=0)


def test_model_checkpoint_with_keras_2_file_names(tmp_path):
    model = _two_input_model()
    x = [RNG.normal(size=(8, 2)).astype("float32"), RNG.normal(size=(8, 1)).astype("float32")]
    y = np.ones((8, 1), "float32")
    weights = str(tmp_path / "weights.{epoch:02d}.hdf5")
    whole_h5 = str(tmp_path / "model.{epoch:02d}.h5")
    whole_hdf5 = str(tmp_path / "best.hdf5")
    callbacks = [
        ModelCheckpoint(weights, save_weights_only=True),
        ModelCheckpoint(whole_h5),
        ModelCheckpoint(whole_hdf5, monitor="loss", save_best_only=True),
    ]
    model.fit(x, y, epochs=2, batch_size=4, verbose=0, callbacks=callbacks)
    # Keras 2's HDF5 weights layout: `layer_names`, one group per layer with `weight_names`.
    with h5py.File(tmp_path / "weights.02.hdf5", "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f.attrs["layer_names"]]
        assert "dense" in names[-1] or any("dense" in n for n in names)
        dense = f[[n for n in names if "dense" in n][0]]
        assert len(dense.attrs["weight_names"]) == 2
    assert (tmp_path / "weights.01.hdf5").exists()
    clone = _two_input_model()
    clone.load_weights(str(tmp_path / "weights.02.hdf5"))
    for path in (tmp_path / "model.02.h5", tmp_path / "best.hdf5"):
        restored = load_model(str(path))
        for a, b in zip(restored.get_weights(), model.get_weights(), strict=True):
            np.testing.assert_array_equal(a, b)
    for a, b in zip(clone.get_weights(), model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
