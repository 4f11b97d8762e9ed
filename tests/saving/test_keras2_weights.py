"""HDF5 weights under any name (issue 32, item 10): `save_weights("w.h5")`, `"x.hdf5"`,
`"weights00.h5"` write Keras 2's HDF5 weights layout (`layer_names` / `weight_names`), and
`load_weights` reads it back by position, by name (`by_name=True`) and skipping
mismatches; `.weights.h5` keeps Keras 3's layout.

Keras 3's legacy loader (a port of Keras 2's `load_weights_from_hdf5_group` and
`..._by_name`) stands in for a Keras 2 installation where Keras is installed.
"""

from __future__ import annotations

import os

import h5py
import numpy as np
import pytest

import lamina
from lamina import Input, Model, layers, ops

RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 6)).astype("float32")


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


def _model(head_units=3, names=("hidden", "norm", "head")):
    inputs = Input((6,), name="x")
    h = layers.Dense(5, activation="relu", name=names[0])(inputs)
    h = layers.BatchNormalization(name=names[1])(h)
    return Model(inputs, layers.Dense(head_units, name=names[2])(h))


def _trained(model):
    # Move every weight (the batch-norm statistics included) away from its initial value.
    for variable in model.weights:
        variable.assign(RNG.normal(size=tuple(variable.shape)).astype("float32") * 0.3 + 0.5)
    return model


def _names(attr) -> list[str]:
    return [v.decode("utf8") if isinstance(v, bytes) else str(v) for v in np.asarray(attr)]


@pytest.mark.parametrize("filename", ["w.h5", "x.hdf5", "weights00.h5", "no_suffix"])
def test_any_name_but_weights_h5_writes_keras_2s_layout(tmp_path, filename):
    source = _trained(_model())
    path = str(tmp_path / filename)
    source.save_weights(path)
    with h5py.File(path, "r") as f:
        assert _names(f.attrs["layer_names"]) == [layer.name for layer in source.layers]
        assert "backend" in f.attrs and "keras_version" in f.attrs
        for layer in source.layers:
            weight_names = _names(f[layer.name].attrs["weight_names"])
            expected = list(layer.trainable_weights) + list(layer.non_trainable_weights)
            assert len(weight_names) == len(expected)
            # Keras 2's reading: the datasets in `weight_names` order, trainable first.
            for name, variable in zip(weight_names, expected):
                np.testing.assert_array_equal(f[layer.name][name][()], _np(variable.value))
    target = _model()
    target.load_weights(path)
    np.testing.assert_allclose(_np(target(X)), _np(source(X)), rtol=1e-6)


def test_weights_h5_keeps_keras_3s_layout(tmp_path):
    path = str(tmp_path / "m.weights.h5")
    _model().save_weights(path)
    with h5py.File(path, "r") as f:
        assert "layer_names" not in f.attrs and "layers" in f
    with pytest.raises(ValueError, match="whole-model file"):
        _model().save_weights(str(tmp_path / "m.keras"))


def test_by_name_matches_layers_by_name_and_ignores_the_rest(tmp_path):
    source = _trained(_model())
    path = str(tmp_path / "w.h5")
    source.save_weights(path)
    # Another architecture sharing two layer names: only those are loaded.
    inputs = Input((6,), name="x")
    h = layers.Dense(5, activation="relu", name="hidden")(inputs)
    h = layers.Dense(7, name="extra")(h)
    other = Model(inputs, layers.Dense(2, name="other_head")(layers.Dense(3, name="head")(h)))
    extra_before = [w.copy() for w in other.get_layer("extra").get_weights()]
    with pytest.raises(ValueError, match="head"):
        # head's kernel is (7, 3) here, (5, 3) in the file.
        other.load_weights(path, by_name=True)
    with pytest.warns(UserWarning, match=r"Skipping weight .*'head'.*skip_mismatch"):
        other.load_weights(path, by_name=True, skip_mismatch=True)
    for got, want in zip(
        other.get_layer("hidden").get_weights(), source.get_layer("hidden").get_weights()
    ):
        np.testing.assert_array_equal(got, want)
    # Keras 2 skipped the mismatched weight only: head's bias (3,) loads.
    np.testing.assert_array_equal(
        other.get_layer("head").get_weights()[1], source.get_layer("head").get_weights()[1]
    )
    for got, want in zip(other.get_layer("extra").get_weights(), extra_before):
        np.testing.assert_array_equal(got, want)


def test_by_name_count_mismatch_and_whole_model_files(tmp_path):
    source = _trained(_model())
    path = str(tmp_path / "w.h5")
    source.save_weights(path)
    inputs = Input((6,), name="x")
    no_bias = Model(inputs, layers.Dense(5, use_bias=False, name="hidden")(inputs))
    with pytest.raises(ValueError, match="holds 2 weight.*'hidden'.*has 1"):
        no_bias.load_weights(path, by_name=True)
    with pytest.warns(UserWarning, match="Skipping the weights of layer 'hidden'"):
        no_bias.load_weights(path, by_name=True, skip_mismatch=True)
    # A whole-model `.h5` (model.save) loads by name from its `model_weights` group.
    whole = str(tmp_path / "whole.h5")
    source.save(whole)
    renamed = _model(names=("hidden", "norm", "renamed_head"))
    renamed.load_weights(whole, by_name=True)
    np.testing.assert_array_equal(
        renamed.get_layer("hidden").get_weights()[0], source.get_layer("hidden").get_weights()[0]
    )
    with pytest.raises(ValueError, match="by_name"):
        path3 = str(tmp_path / "w.weights.h5")
        source.save_weights(path3)
        renamed.load_weights(path3, by_name=True)


def test_sequential_classic_round_trip_and_nested_model(tmp_path):
    inner = lamina.Sequential([Input((4,)), layers.Dense(3, name="inner_dense")], name="inner")
    outer = lamina.Sequential([Input((6,)), layers.Dense(4, name="first"), inner])
    _trained(outer)
    path = str(tmp_path / "weights.hdf5")
    outer.save_weights(path)
    with h5py.File(path, "r") as f:
        assert _names(f.attrs["layer_names"]) == ["first", "inner"]
        assert len(_names(f["inner"].attrs["weight_names"])) == 2
    again = lamina.Sequential(
        [Input((6,)), layers.Dense(4, name="first"),
         lamina.Sequential([Input((4,)), layers.Dense(3, name="inner_dense")], name="inner")]
    )  # fmt: skip
    again.load_weights(path)
    np.testing.assert_allclose(_np(again(X)), _np(outer(X)), rtol=1e-6)


def test_keras_reads_the_file_as_keras_2_did(tmp_path):
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    source = _trained(_model())
    path = str(tmp_path / "w.h5")
    source.save_weights(path)
    inputs = keras.Input((6,))
    h = keras.layers.Dense(5, activation="relu", name="hidden")(inputs)
    h = keras.layers.BatchNormalization(name="norm")(h)
    reference = keras.Model(inputs, keras.layers.Dense(3, name="head")(h))
    reference.load_weights(path)
    np.testing.assert_allclose(np.asarray(reference(X)), _np(source(X)), rtol=1e-5, atol=1e-6)
    by_name = keras.Model(inputs, keras.layers.Dense(5, activation="relu", name="hidden")(inputs))
    by_name.load_weights(path, by_name=True)
    np.testing.assert_array_equal(
        np.asarray(by_name.get_layer("hidden").kernel), source.get_layer("hidden").get_weights()[0]
    )
