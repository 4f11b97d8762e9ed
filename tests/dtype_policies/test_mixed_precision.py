"""Mixed precision: dtype policies, autocast inside layer calls, training and saving.

References: Keras 3 itself (policy names and configs, a Dense's output under the same
policy and weights, files Keras writes) and a float32 run of the same model.
"""

from __future__ import annotations

import json
import os
import sys
import warnings

import numpy as np
import pytest

import lamina
from lamina import dtype_policies, layers, mixed_precision, ops

# The global policy as set (None: unset, following `floatx()`), restored after each test
# so that later tests still see layers follow `set_floatx`.
_GLOBAL = sys.modules["lamina.dtype_policies.dtype_policy"]._global_policy

NAMES = ["float32", "mixed_float16", "mixed_bfloat16", "bfloat16", "float16"]


@pytest.fixture
def keras():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    return pytest.importorskip("keras")


@pytest.fixture(autouse=True)
def _restore_global_policy():
    saved = _GLOBAL[0]
    yield
    _GLOBAL[0] = saved


def _np(x):
    return np.asarray(ops.convert_to_numpy(ops.cast(x, "float32")))


def test_policies_match_keras(keras):
    for name in NAMES:
        ours, theirs = dtype_policies.get(name), keras.dtype_policies.get(name)
        assert (ours.name, ours.compute_dtype, ours.variable_dtype) == (
            theirs.name,
            theirs.compute_dtype,
            theirs.variable_dtype,
        )
        assert repr(ours) == repr(theirs)
        assert dtype_policies.serialize(ours) == keras.dtype_policies.serialize(theirs)
        assert dtype_policies.deserialize(keras.dtype_policies.serialize(theirs)) == ours
    assert repr(dtype_policies.FloatDTypePolicy("float32")) == '<DTypePolicy "float32">'
    assert dtype_policies.FloatDTypePolicy("float16") == dtype_policies.DTypePolicy("float16")
    assert mixed_precision.Policy is dtype_policies.DTypePolicy
    assert mixed_precision.LossScaleOptimizer is lamina.optimizers.LossScaleOptimizer


def test_bad_policies_are_refused_clearly():
    with pytest.raises(ValueError, match="mixed_bfloat16"):
        dtype_policies.get("mixed_float64")
    with pytest.raises(ValueError, match="policy name"):
        lamina.config.set_dtype_policy(3)
    with pytest.raises(ValueError, match="Invalid quantization mode.*'int9'"):
        dtype_policies.deserialize(
            {"class_name": "QuantizedDTypePolicy", "config": {"mode": "int9"}}
        )
    with pytest.raises(ValueError, match="'NoPolicy'.*DTypePolicyMap"):
        dtype_policies.deserialize({"class_name": "NoPolicy", "config": {}})
    with pytest.raises(ValueError, match="mixed_float64"):
        layers.Dense(2, dtype="mixed_float64")


def test_global_policy_is_what_new_layers_get():
    assert lamina.config.dtype_policy() == dtype_policies.DTypePolicy("float32")
    mixed_precision.set_global_policy("mixed_bfloat16")
    assert mixed_precision.global_policy().name == "mixed_bfloat16"
    dense, head = layers.Dense(2), layers.Dense(2, dtype="float32")
    assert dense.dtype_policy.name == "mixed_bfloat16"
    assert (dense.dtype, dense.compute_dtype, dense.variable_dtype) == (
        "float32",
        "bfloat16",
        "float32",
    )
    assert head.compute_dtype == "float32"
    lamina.config.set_dtype_policy(dtype_policies.DTypePolicy("float32"))
    assert layers.Dense(2).dtype_policy.name == "float32"


def test_dense_under_mixed_bfloat16_matches_keras(keras):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 6)).astype("float32")
    reference = keras.layers.Dense(4, activation="relu", dtype="mixed_bfloat16")
    expected = np.asarray(reference(x), dtype="float32")
    dense = layers.Dense(4, activation="relu", dtype=dtype_policies.DTypePolicy("mixed_bfloat16"))
    dense.build((None, 6))
    dense.set_weights([keras.ops.convert_to_numpy(w.value) for w in reference.weights])
    y = dense(x)
    assert dense.kernel.dtype == "float32" and dense.bias.dtype == "float32"
    assert lamina.backend.standardize_dtype(y.dtype) == "bfloat16"
    assert dense.get_weights()[0].dtype == np.float32  # read outside a call: stored dtype
    np.testing.assert_allclose(_np(y), expected, rtol=2e-2, atol=2e-2)
    # Symbolic calls give the compute dtype too.
    out = dense(lamina.Input((6,)))
    assert out.dtype == "bfloat16"


def test_autocast_rules():
    mixed = layers.Dense(3, dtype="mixed_bfloat16")
    assert lamina.backend.standardize_dtype(mixed(np.ones((2, 3), "float32")).dtype) == "bfloat16"
    # Integer inputs are not cast; float32 layers inside a mixed model read float32.
    ints = layers.Identity(dtype="mixed_bfloat16")(np.ones((2,), "int32"))
    assert lamina.backend.standardize_dtype(ints.dtype) == "int32"
    inputs = lamina.Input((3,))
    hidden = layers.Dense(4, dtype="mixed_bfloat16")(inputs)
    head = layers.Dense(2, dtype="float32")(hidden)
    probs = layers.Activation("softmax", dtype="float32")(head)
    model = lamina.Model(inputs, [hidden, probs])
    h, p = model(np.ones((2, 3), "float32"))
    assert lamina.backend.standardize_dtype(h.dtype) == "bfloat16"
    assert lamina.backend.standardize_dtype(p.dtype) == "float32"
    # autocast=False: inputs keep their dtype.
    raw = layers.Identity(dtype="mixed_bfloat16", autocast=False)(np.ones((2,), "float32"))
    assert lamina.backend.standardize_dtype(raw.dtype) == "float32"


def _digits():
    (x_train, y_train), (x_test, y_test) = lamina.datasets.digits.load_data()
    x_train = x_train.reshape(-1, 64).astype("float32") / 16.0
    x_test = x_test.reshape(-1, 64).astype("float32") / 16.0
    return (x_train[:600], y_train[:600].astype("int32")), (x_test, y_test.astype("int32"))


def _mlp(policy):
    lamina.utils.set_random_seed(1)
    saved = _GLOBAL[0]
    lamina.config.set_dtype_policy(policy)
    model = lamina.Sequential(
        [
            lamina.Input((64,)),
            layers.Dense(64, activation="relu"),
            layers.Dense(10),
            layers.Activation("softmax", dtype="float32"),
        ]
    )
    _GLOBAL[0] = saved
    model.compile(
        optimizer=lamina.optimizers.Adam(0.01),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    return model


def test_mixed_bfloat16_mlp_trains_like_float32():
    (x, y), (x_test, y_test) = _digits()
    accuracies = {}
    for policy in ("float32", "mixed_bfloat16"):
        model = _mlp(policy)
        history = model.fit(x, y, epochs=3, batch_size=100, verbose=0)
        assert np.isfinite(history.history["loss"]).all()
        assert model.layers[0].kernel.dtype == "float32"
        accuracies[policy] = model.evaluate(x_test, y_test, verbose=0)[1]
    assert accuracies["float32"] > 0.85
    assert abs(accuracies["mixed_bfloat16"] - accuracies["float32"]) < 0.04, accuracies


def test_keras_file_round_trip_keeps_policies(tmp_path):
    model = _mlp("mixed_bfloat16")
    x = np.random.default_rng(1).random((4, 64)).astype("float32")
    before = _np(model(x))
    model.save(tmp_path / "m.keras")
    config = model.layers[0].get_config()
    assert config["dtype"] == {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": {"name": "mixed_bfloat16"},
        "registered_name": None,
    }
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    assert [layer.dtype_policy.name for layer in loaded.layers] == [
        "mixed_bfloat16",
        "mixed_bfloat16",
        "float32",
    ]
    assert loaded.layers[0].kernel.dtype == "float32"
    np.testing.assert_allclose(_np(loaded(x)), before, rtol=1e-6, atol=1e-6)


def test_keras_written_file_with_policies_loads(keras, tmp_path):
    keras.utils.set_random_seed(2)
    reference = keras.Sequential(
        [
            keras.Input((5,)),
            keras.layers.Dense(8, activation="tanh", dtype="mixed_bfloat16"),
            keras.layers.Dense(3, dtype="mixed_float16"),
            keras.layers.Activation("softmax", dtype="float32"),
        ]
    )
    x = np.random.default_rng(3).random((4, 5)).astype("float32")
    expected = np.asarray(reference(x), dtype="float32")
    with warnings.catch_warnings():
        # Keras 3.15's own bfloat16 weights -> NumPy path warns under NumPy 2.
        warnings.simplefilter("ignore", DeprecationWarning)
        reference.save(tmp_path / "k.keras")
    layer_config = json.loads(reference.to_json())["config"]["layers"][1]["config"]
    assert layer_config["dtype"]["class_name"] == "DTypePolicy"
    loaded = lamina.saving.load_model(tmp_path / "k.keras")
    assert [layer.dtype_policy.name for layer in loaded.layers] == [
        "mixed_bfloat16",
        "mixed_float16",
        "float32",
    ]
    np.testing.assert_allclose(_np(loaded(x)), expected, rtol=2e-2, atol=2e-2)


class _Scale(layers.Layer):
    """Records the dtypes its weight and input have inside `call`."""

    seen: list = []

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")
        self.counts = self.add_weight(shape=(), initializer="zeros", autocast=False)

    def call(self, x):
        _Scale.seen.append(
            tuple(lamina.backend.standardize_dtype(t.dtype) for t in (self.w.value, x))
            + (lamina.backend.standardize_dtype(self.counts.value.dtype),)
        )
        return x * self.w


def test_weights_read_in_compute_dtype_inside_calls_only():
    inputs = lamina.Input((3,))
    hidden = layers.Dense(3, dtype="mixed_bfloat16")(inputs)
    outputs = layers.Dense(2, dtype="float32")(_Scale(dtype="mixed_bfloat16")(hidden))
    model = lamina.Model(inputs, outputs)
    expected = ("bfloat16", "bfloat16", "float32")  # autocast=False weights stay float32
    _Scale.seen.clear()
    model(np.ones((2, 3), "float32"))
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((4, 3), "float32"), np.ones((4, 2), "float32"), epochs=1, verbose=0)
    assert _Scale.seen and set(_Scale.seen) == {expected}
    assert {w.dtype for w in model.weights} == {"float32"}
    # A layer built as float32 and switched to a mixed policy casts its weights too.
    dense = layers.Dense(2)
    dense(np.ones((1, 3), "float32"))
    dense.dtype_policy = "mixed_bfloat16"
    assert lamina.backend.standardize_dtype(dense(np.ones((1, 3), "float32")).dtype) == "bfloat16"
    assert dense.kernel.dtype == "float32"


def test_mixed_model_passes_unrounded_inputs_to_its_float32_layers():
    # As Keras 3's Functional: the model does not round its inputs to bfloat16; each of
    # its layers casts its own, so a float32 layer sees the data as given.
    mixed_precision.set_global_policy("mixed_bfloat16")
    inputs = lamina.Input((3,))
    exact = layers.Dense(1, dtype="float32", kernel_initializer="ones", use_bias=False)
    rounded = layers.Dense(1, kernel_initializer="ones", use_bias=False)
    model = lamina.Model(inputs, [exact(inputs), rounded(inputs)])
    assert model.dtype_policy.name == "mixed_bfloat16"
    x = np.array([[1.001, 1.002, 1.003]], "float32")
    a, b = (_np(t) for t in model(x))
    np.testing.assert_allclose(a, x.sum(keepdims=True), rtol=1e-6)
    assert b[0, 0] == 3.0  # each 1.00x rounds to 1.0 in bfloat16


def test_unset_global_policy_follows_floatx():
    _GLOBAL[0] = None
    lamina.config.set_floatx("float64")
    try:
        assert lamina.config.dtype_policy().name == "float64"
        assert layers.Dense(2).dtype_policy.compute_dtype == "float64"
    finally:
        lamina.config.set_floatx("float32")
