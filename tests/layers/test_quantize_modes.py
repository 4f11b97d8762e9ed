"""int4 and float8 quantization and `DTypePolicyMap`, against Keras 3 itself.

The same float weights go into a Keras model and a lamina one; both are quantized; the
quantized weights must be equal and the outputs equal to float32 rounding. `.keras`
files move both ways (Keras saves, lamina loads and gives the same outputs, and back).
float8 training: a few SGD steps in both must leave the same kernels, scales and
abs-max histories (the delayed-scaling updates). Keras runs in this process on JAX,
whichever engine lamina runs on."""

import os
import warnings

import numpy as np
import pytest

import lamina
from lamina import dtype_policies, layers, ops, quantizers

os.environ.setdefault("KERAS_BACKEND", "jax")

pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

keras = pytest.importorskip("keras")
RNG = np.random.default_rng(5)


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


def _int4_model(lib):
    """Dense (5 inputs: an odd count pads the last block), an Embedding, and an
    EinsumDense whose summed kernel axis comes last (Keras reads such a kernel as a
    matrix by a plain reshape: lamina must do the same)."""
    x = lib.Input((5,), name="x")
    ids = lib.Input((2,), dtype="int32", name="ids")
    dense = lib.layers.Dense(3, name="dense")(x)
    einsum = lib.layers.EinsumDense("ab,cb->ac", 3, name="einsum")(x)
    table = lib.layers.Flatten()(lib.layers.Embedding(4, 5, name="emb")(ids))
    return lib.Model([x, ids], lib.layers.Concatenate()([dense, einsum, table]))


def _float8_model(lib):
    x = lib.Input((3,), name="x")
    hidden = lib.layers.Dense(4, activation="relu", name="dense")(x)
    out = lib.layers.EinsumDense("ab,bc->ac", 2, bias_axes="c", name="einsum")(hidden)
    return lib.Model(x, out)


def _pair(build):
    theirs, ours = build(keras), build(lamina)
    weights = [RNG.normal(size=w.shape).astype("float32") for w in ours.weights]
    theirs.set_weights(weights)
    ours.set_weights(weights)
    return theirs, ours


def _keras_quantize(model, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras warns for each layer it cannot quantize
        model.quantize(*args, **kwargs)


def _same_weights(theirs, ours, rtol=1e-6):
    read = {w.path: np.asarray(w) for w in theirs.weights}
    assert sorted(read) == sorted(w.path for w in ours.weights)
    for w in ours.weights:
        assert str(read[w.path].dtype) == w.dtype, w.path
        np.testing.assert_allclose(_np(w.value), read[w.path], rtol=rtol, atol=1e-7, err_msg=w.path)


INT4_INPUTS = [
    RNG.normal(size=(3, 5)).astype("float32"),
    np.array([[0, 3], [2, 1], [3, 3]], "int32"),
]


@pytest.mark.parametrize("block_size", [-1, 2])
def test_int4_matches_keras_and_files_move_both_ways(tmp_path, block_size):
    theirs, ours = _pair(_int4_model)
    config = {"block_size": block_size}
    _keras_quantize(theirs, config=keras.quantizers.Int4QuantizationConfig(**config))
    ours.quantize(config=quantizers.Int4QuantizationConfig(**config))
    policy = ours.get_layer("dense").dtype_policy
    assert policy == dtype_policies.Int4DTypePolicy(f"int4/{block_size}", "float32")
    assert policy.name == theirs.get_layer("dense").dtype_policy.name
    _same_weights(theirs, ours)
    expected = np.asarray(theirs.predict(INT4_INPUTS, verbose=0))
    # The per-channel kernel meets the inputs dequantized in lamina, as integers in
    # Keras: the same numbers up to float32 rounding.
    np.testing.assert_allclose(ours.predict(INT4_INPUTS, verbose=0), expected, rtol=1e-5, atol=1e-5)

    theirs.save(tmp_path / "k.keras")
    loaded = lamina.saving.load_model(tmp_path / "k.keras")
    assert loaded.get_layer("emb").quantization_mode == "int4"
    np.testing.assert_allclose(
        loaded.predict(INT4_INPUTS, verbose=0), expected, rtol=1e-5, atol=1e-5
    )
    ours.save(tmp_path / "l.keras")
    back = keras.saving.load_model(tmp_path / "l.keras")
    _same_weights(back, ours)
    np.testing.assert_allclose(
        np.asarray(back.predict(INT4_INPUTS, verbose=0)), expected, rtol=1e-6
    )


def test_int4_default_is_blocks_of_128_and_a_policy_name_quantizes():
    layer = layers.Dense(2)
    layer.build((None, 3))
    layer.quantize("int4")
    assert layer.dtype_policy.name == "int4/128_from_float32"
    assert tuple(layer.kernel_scale.shape) == (1, 2)
    table = layers.Embedding(3, 4)
    table.build()
    table.dtype_policy = "int4_from_float32"  # Keras's legacy name: the default config
    assert table.dtype_policy.name == "int4/128_from_float32"
    assert tuple(table.embeddings.shape) == (3, 2)


X8 = RNG.normal(size=(8, 3)).astype("float32")
Y8 = RNG.normal(size=(8, 2)).astype("float32")


def test_float8_matches_keras_in_predict_and_training(tmp_path):
    theirs, ours = _pair(_float8_model)
    _keras_quantize(theirs, "float8")
    ours.quantize("float8")
    assert isinstance(
        ours.get_layer("einsum").dtype_policy, dtype_policies.QuantizedFloat8DTypePolicy
    )
    _same_weights(theirs, ours)
    expected = np.asarray(theirs.predict(X8, verbose=0))
    np.testing.assert_allclose(ours.predict(X8, verbose=0), expected, rtol=1e-6, atol=1e-6)
    for model in (theirs, ours):
        model.compile(optimizer="sgd", loss="mse")
        model.fit(X8, Y8, batch_size=4, epochs=1, shuffle=False, verbose=0)
    # The histories and scales now hold what two steps of delayed scaling wrote.
    history = _np(ours.get_layer("dense").inputs_amax_history.value)
    # Each step rolls the history left and writes the newest abs-max first.
    np.testing.assert_allclose(history[[0, -1, 1]], [np.abs(X8[4:]).max(), np.abs(X8[:4]).max(), 0])
    assert _np(ours.get_layer("dense").outputs_grad_scale.value) != 1.0
    _same_weights(theirs, ours, rtol=1e-4)
    expected = np.asarray(theirs.predict(X8, verbose=0))
    np.testing.assert_allclose(ours.predict(X8, verbose=0), expected, rtol=1e-4, atol=1e-5)

    theirs.save(tmp_path / "k.keras")
    loaded = lamina.saving.load_model(tmp_path / "k.keras")
    _same_weights(theirs, loaded)
    ours.save(tmp_path / "l.keras")
    back = keras.saving.load_model(tmp_path / "l.keras")
    _same_weights(back, ours)


def test_float8_rounds_inputs_and_kernel_as_the_formula_says():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    layer = layers.Dense(2, use_bias=False)
    layer.build((None, 3))
    layer.quantize("float8")
    layer.inputs_scale.assign(1 / 64)
    x = np.array([[1.0, -2.0, 8.0]], "float32")
    kernel = _np(layer.kernel.value).astype(ml_dtypes.float8_e4m3fn).astype("float64")
    # 8 * 64 = 512 clips to float8_e4m3fn's largest value, 448 (= 7 * 64).
    expected = np.array([[1.0, -2.0, 7.0]]) @ kernel
    np.testing.assert_allclose(_np(layer(x)), expected, rtol=1e-6)


def test_unsupported_modes_say_so():
    table = layers.Embedding(3, 2)
    table.build()
    with pytest.raises(NotImplementedError, match="Embedding.*\\('int8', 'int4'\\).*float8"):
        table.quantize("float8")
    einsum = layers.EinsumDense("abcd,cdef->abef", (None, 2, 2))
    einsum.build((None, 3, 2, 2))
    with pytest.raises(
        ValueError, match="rank 2 or 3.*received a kernel of shape \\(2, 2, 2, 2\\)"
    ):
        einsum.quantize(config=quantizers.GPTQConfig(None, None))
    with pytest.raises(ValueError, match="Expected one of .*'awq'\\)\\. Received: mode='int2'"):
        layers.EinsumDense("ab,bc->ac", 2).quantize("int2")
    dense = layers.Dense(2)
    dense.build((None, 3))
    with pytest.raises(ValueError, match="AWQConfig"):
        dense.quantize("awq")
    with pytest.raises(ValueError, match="block_size"):
        quantizers.Int4QuantizationConfig(block_size=0)
    with pytest.raises(ValueError, match="value_range=\\(-8, 7\\)"):
        quantizers.Int4QuantizationConfig(
            weight_quantizer=quantizers.AbsMaxQuantizer(axis=0), block_size=-1
        )


# Names and configs --------------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    [
        "int8_from_float32",
        "int4_from_float32",
        "int4/64_from_mixed_bfloat16",
        "float8_from_float32",
        "gptq/4/-1_from_float32",
        "awq/4/128_from_bfloat16",
    ],
)
def test_policies_serialize_as_keras_does(name):
    theirs = keras.dtype_policies.get(name)
    ours = dtype_policies.get(name)
    assert type(ours).__name__ == type(theirs).__name__
    assert (ours.name, ours.quantization_mode) == (theirs.name, theirs.quantization_mode)
    assert dtype_policies.serialize(ours) == keras.dtype_policies.serialize(theirs)
    assert dtype_policies.deserialize(keras.dtype_policies.serialize(theirs)) == ours


def test_quantization_configs_serialize_as_keras_does():
    pairs = [
        (
            quantizers.Int4QuantizationConfig(block_size=8),
            keras.quantizers.Int4QuantizationConfig(block_size=8),
        ),
        (quantizers.Float8QuantizationConfig(), keras.quantizers.Float8QuantizationConfig()),
        (
            quantizers.GPTQConfig(None, None, weight_bits=3, group_size=-1),
            keras.quantizers.GPTQConfig(None, None, weight_bits=3, group_size=-1),
        ),
        (
            quantizers.AWQConfig(None, None, num_grid_points=4),
            keras.quantizers.AWQConfig(None, None, num_grid_points=4),
        ),
    ]
    for ours, theirs in pairs:
        assert quantizers.serialize(ours) == keras.quantizers.serialize(theirs)
        assert ours.mode == theirs.mode
    assert quantizers.serialize(initializer=None) is None
    assert pairs[2][0].dtype_policy_string() == "gptq/3/-1"


def test_grouped_quantize_matches_keras():
    x = RNG.normal(size=(5, 3)).astype("float32")
    x[:2, 0] = 0.5  # a constant group
    for to_numpy in (True, False):
        ours = quantizers.abs_max_quantize_grouped_with_zero_point(x, 2, to_numpy=to_numpy)
        theirs = keras.quantizers.abs_max_quantize_grouped_with_zero_point(x, 2, to_numpy=to_numpy)
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(_np(a), np.asarray(b), rtol=1e-6)
            assert _np(a).dtype == np.asarray(b).dtype


# DTypePolicyMap ----------------------------------------------------------------------
def test_policy_map_looks_up_and_serializes_as_keras_does():
    ours = dtype_policies.DTypePolicyMap(default_policy="bfloat16")
    theirs = keras.dtype_policies.DTypePolicyMap(default_policy="bfloat16")
    for key, policy in [("enc/.*", "float16"), ("dec", "int8_from_float32")]:
        ours[key] = policy
        theirs[key] = policy
    for path in ("enc/dense", "dec", "dec/dense"):
        assert ours[path].name == theirs[path].name
    assert (ours.name, ours.compute_dtype) == (theirs.name, theirs.compute_dtype)
    assert dtype_policies.serialize(ours) == keras.dtype_policies.serialize(theirs)
    again = dtype_policies.deserialize(keras.dtype_policies.serialize(theirs))
    assert again == ours and again["dec"].quantization_mode == "int8"
    ours["enc/attention/.*"] = "float32"
    with pytest.raises(ValueError, match="matches multiple"):
        ours["enc/attention/query"]
    with pytest.raises(ValueError, match="already exist"):
        ours["dec"] = "float32"
    # No default: written without source policies, as Keras writes it.
    bare, keras_bare = dtype_policies.DTypePolicyMap(), keras.dtype_policies.DTypePolicyMap()
    bare["d"] = keras_bare["d"] = "int8_from_float32"
    assert dtype_policies.serialize(bare) == keras.dtype_policies.serialize(keras_bare)
    assert bare["d"].name == "int8_from_float32"  # writing did not change it


class _Block(lamina.Model):
    """A model that hands its policy map to its layers (as KerasHub's models do)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.first = layers.Dense(3, dtype=self.dtype_policy, name="first")
        self.second = layers.Dense(2, dtype=self.dtype_policy, name="second")

    def call(self, x):
        return self.second(self.first(x))


def test_a_model_with_a_policy_map_gives_each_layer_its_policy():
    policy_map = dtype_policies.DTypePolicyMap()
    policy_map["block/first"] = "bfloat16"
    block = _Block(dtype=policy_map, name="block")
    y = block(np.ones((2, 4), "float32"))
    assert block.first.dtype_policy is policy_map
    assert (block.first.compute_dtype, block.second.compute_dtype) == ("bfloat16", "float32")
    assert block.first.kernel.dtype == "bfloat16"
    assert lamina.backend.standardize_dtype(y.dtype) == "float32"
    block.second.quantize("int8")
    assert policy_map["block/second"].name == "int8_from_float32"
    # A layer's config holds the map; from it, the layer finds its own entry.
    config = block.second.get_config()
    assert config["dtype"]["class_name"] == "DTypePolicyMap"
    again = layers.Dense.from_config(config)
    assert isinstance(again.dtype_policy, dtype_policies.DTypePolicyMap)
    with lamina.name_scope("block"):
        again.build((None, 3))
    assert again.quantization_mode == "int8" and again.kernel.dtype == "int8"
    kconfig = {**config, "dtype": keras.dtype_policies.deserialize(config["dtype"])}
    assert keras.layers.Dense.from_config(kconfig).dtype_policy["block/second"].name == (
        "int8_from_float32"
    )
