"""int8 quantization of Dense, EinsumDense and Embedding (Keras 3's `quantize`).

Numerics against NumPy formulas (abs-max kernels per output channel, inputs quantized
per row, integer products divided by both scales), training (frozen int8 kernel,
gradients through the dequantized kernel), configs and files in lamina, files both ways
with Keras, and the errors."""

import json
import os
import warnings
import zipfile

import numpy as np
import pytest

import lamina
from lamina import backend, layers, ops, quantizers

os.environ.setdefault("KERAS_BACKEND", "jax")

# Keras's NumPy-level `__array__` trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

RNG = np.random.default_rng(11)
EPS = 1e-7


def _np(x):
    return ops.convert_to_numpy(x)


def _call(layer, x):
    """`layer(x)` as one compiled program (on JAX one compilation, not one per op)."""
    return _np(backend.jit(lambda v: layer(v))(ops.convert_to_tensor(x)))


def _abs_max(x, axis):
    scale = 127.0 / (np.max(np.abs(x), axis=axis, keepdims=True) + EPS)
    return np.clip(np.round(x * scale), -127, 127), scale


def _model():
    inputs = lamina.Input((3,), name="x")
    hidden = layers.Dense(6, activation="relu", name="dense")(inputs)
    outputs = layers.EinsumDense("ab,bc->ac", 4, bias_axes="c", name="einsum")(hidden)
    model = lamina.Model(inputs, outputs, name="mlp")
    for w in model.weights:
        w.assign(RNG.normal(size=w.shape).astype("float32"))
    return model


def test_dense_int8_matches_the_formula_and_stays_close():
    layer = layers.Dense(5, name="d")
    layer.build((None, 4))
    kernel, bias = RNG.normal(size=(4, 5)), RNG.normal(size=5)
    layer.set_weights([kernel.astype("float32"), bias.astype("float32")])
    x = RNG.normal(size=(3, 4)).astype("float32")
    before = x @ kernel + bias
    layer.quantize("int8")
    assert layer.quantization_mode == "int8"
    assert layer.dtype_policy.name == "int8_from_float32"
    q_kernel, kernel_scale = _abs_max(kernel.astype("float32"), 0)
    np.testing.assert_array_equal(_np(layer.kernel), q_kernel)
    np.testing.assert_allclose(_np(layer.kernel_scale), kernel_scale[0], rtol=1e-6)
    assert [(w.name, w.dtype, w.trainable) for w in layer.weights] == [
        ("bias", "float32", True),
        ("kernel", "int8", False),
        ("kernel_scale", "float32", False),
    ]
    q_x, x_scale = _abs_max(x, -1)
    expected = (q_x @ q_kernel) / (x_scale * kernel_scale) + bias
    out = _call(layer, x)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out, before, atol=0.05 * np.abs(before).max())


def test_embedding_int8_scales_each_row():
    layer = layers.Embedding(6, 3)
    layer.build()
    table = RNG.normal(size=(6, 3)).astype("float32")
    layer.set_weights([table])
    layer.quantize("int8")
    q_table, scale = _abs_max(table, -1)
    assert [(w.name, w.dtype) for w in layer.weights] == [
        ("embeddings", "int8"),
        ("embeddings_scale", "float32"),
    ]
    np.testing.assert_array_equal(_np(layer.embeddings), q_table)
    ids = np.array([[0, 5], [2, 2]])
    np.testing.assert_allclose(_call(layer, ids), (q_table / scale)[ids], rtol=1e-6)


@pytest.mark.parametrize(
    "equation, output_shape, bias_axes, input_shape, kernel_axis, scale_shape",
    [
        ("abc,cde->abde", (3, 2, 5), "de", (2, 3, 4), 0, (1, 1, 2, 5)),
        ("...b,cb->...c", 5, None, (2, 3, 4), 1, (1, 1, 5)),
    ],
)
def test_einsum_dense_int8_matches_the_formula(
    equation, output_shape, bias_axes, input_shape, kernel_axis, scale_shape
):
    layer = layers.EinsumDense(equation, output_shape, bias_axes=bias_axes)
    layer.build(input_shape)
    for w in layer.weights:
        w.assign(RNG.normal(size=w.shape).astype("float32"))
    kernel = _np(layer.kernel)
    bias = _np(layer.bias) if layer.bias is not None else 0.0
    layer.quantize("int8")
    # Keras's layout: the scale divides the output (1 on axes the kernel lacks).
    assert tuple(layer.kernel_scale.shape) == scale_shape
    x = RNG.normal(size=input_shape).astype("float32")
    q_kernel, kernel_scale = _abs_max(kernel, kernel_axis)
    q_x, x_scale = _abs_max(x, -1)
    np.testing.assert_array_equal(_np(layer.kernel), q_kernel)
    # Each scale is constant along the summed axis, so it comes out of the sum.
    expected = np.einsum(equation, q_x / x_scale, q_kernel / kernel_scale) + bias
    np.testing.assert_allclose(_call(layer, x), expected, rtol=1e-4, atol=1e-4)


def test_setting_a_quantized_policy_on_a_built_layer_quantizes_it():
    layer = layers.Embedding(4, 2)
    layer.build()
    layer.dtype_policy = "int8_from_float32"
    assert layer.dtype_policy.name == "int8_from_float32"
    assert layer.embeddings.dtype == "int8"


def test_weight_only_config_keeps_inputs_float():
    layer = layers.Dense(3)
    layer.build((None, 4))
    kernel = _np(layer.kernel)
    layer.quantize(config=quantizers.Int8QuantizationConfig(activation_quantizer=None))
    assert layer.inputs_quantizer is None
    x = RNG.normal(size=(2, 4)).astype("float32")
    q_kernel, scale = _abs_max(kernel, 0)
    np.testing.assert_allclose(_call(layer, x), x @ (q_kernel / scale), rtol=1e-5, atol=1e-6)
    config = layer.get_config()
    assert config["quantization_config"]["class_name"] == "Int8QuantizationConfig"
    again = layers.Dense.from_config(config)
    again.build((None, 4))
    assert again.quantization_mode == "int8" and again.inputs_quantizer is None


def test_model_quantize_predicts_close_and_trains_the_rest():
    model = _model()
    x = RNG.normal(size=(8, 3)).astype("float32")
    before = _np(model(x))  # compiles the float model's call: quantize must drop it
    bias = _np(model.get_layer("dense").bias.value)
    model.quantize("int8")
    assert [layer.dtype_policy.name for layer in model.layers[1:]] == ["int8_from_float32"] * 2
    assert [w.path for w in model.weights] == [
        "dense/bias",
        "dense/kernel",
        "dense/kernel_scale",
        "einsum/bias",
        "einsum/kernel",
        "einsum/kernel_scale",
    ]
    after = model.predict(x, verbose=0)
    np.testing.assert_allclose(after, before, atol=0.05 * np.abs(before).max())
    assert not np.allclose(after, before, rtol=0, atol=1e-6)
    np.testing.assert_allclose(_np(model(x)), after, rtol=1e-6)
    frozen = {w.path: _np(w.value) for w in model.non_trainable_weights}
    model.compile("sgd", "mse")
    model.fit(x, np.zeros((8, 4), "float32"), epochs=1, batch_size=4, verbose=0)
    for w in model.non_trainable_weights:
        np.testing.assert_array_equal(_np(w.value), frozen[w.path])
    # The gradient reaches the first layer through the second's dequantized kernel.
    assert not np.allclose(_np(model.get_layer("dense").bias.value), bias)


def test_gradient_reaches_the_inputs_through_the_dequantized_kernel():
    layer = layers.Dense(3)
    layer.build((None, 4))
    layer.quantize("int8")
    kernel = _np(layer.kernel) / _np(layer.kernel_scale)
    x = RNG.normal(size=(2, 4)).astype("float32")
    readout = RNG.normal(size=(2, 3)).astype("float32")

    def loss(inputs):
        return ops.sum(ops.multiply(layer(inputs[0]), readout))

    _, grads = backend.jit(backend.value_and_grad(loss))([ops.convert_to_tensor(x)])
    np.testing.assert_allclose(_np(grads[0]), readout @ kernel.T, rtol=1e-5, atol=1e-6)


def test_quantized_files_round_trip(tmp_path):
    model = _model()
    model.quantize("int8")
    saved = {w.path: (w.dtype, _np(w.value)) for w in model.weights}

    def check(other):
        assert {w.path: w.dtype for w in other.weights} == {k: v[0] for k, v in saved.items()}
        for w in other.weights:
            np.testing.assert_array_equal(_np(w.value), saved[w.path][1])

    model.save(tmp_path / "q.keras")
    config = json.loads(zipfile.ZipFile(tmp_path / "q.keras").read("config.json"))
    dense_dtype = config["config"]["layers"][1]["config"]["dtype"]
    assert dense_dtype["class_name"] == "QuantizedDTypePolicy"
    assert dense_dtype["config"] == {"mode": "int8", "source_name": "float32"}
    loaded = lamina.saving.load_model(tmp_path / "q.keras")
    assert loaded.get_layer("einsum").quantization_mode == "int8"
    check(loaded)
    model.save_weights(tmp_path / "q.weights.h5")
    fresh = _model()
    fresh.quantize("int8")
    fresh.load_weights(tmp_path / "q.weights.h5")
    check(fresh)
    with pytest.raises(ValueError, match="has 2 weight.*holds 3"):
        _model().load_weights(tmp_path / "q.weights.h5")


def _two_input_model(lib, **zeros):
    """The same graph in Keras or lamina: Dense -> EinsumDense, and an Embedding."""
    inputs = lib.Input((3,))
    hidden = lib.layers.Dense(6, activation="relu", name="dense", **zeros)(inputs)
    hidden = lib.layers.EinsumDense("ab,bc->ac", 4, bias_axes="c", name="einsum", **zeros)(hidden)
    ids = lib.Input((2,), dtype="int32")
    init = {"embeddings_initializer": "zeros"} if zeros else {}
    table = lib.layers.Flatten()(lib.layers.Embedding(5, 2, name="emb", **init)(ids))
    return lib.Model([inputs, ids], lib.layers.Concatenate()([hidden, table]))


@pytest.mark.engine("jax")  # Keras runs on JAX here; one engine suffices for the layout
def test_files_move_both_ways_with_keras(tmp_path):
    keras = pytest.importorskip("keras")
    # Zero initializers and no calls keep it cheap: Keras's quantized weights (read
    # through lamina's loader) must equal lamina's quantization of the same float
    # weights, whose outputs the other tests pin.
    theirs = _two_input_model(keras, kernel_initializer="zeros")
    ours = _two_input_model(lamina)
    weights = [RNG.normal(size=w.shape).astype("float32") for w in ours.weights]
    theirs.set_weights(weights)
    ours.set_weights(weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras warns for each layer it cannot quantize
        theirs.quantize("int8")
    ours.quantize("int8")
    theirs.save(tmp_path / "k.keras")
    loaded = lamina.saving.load_model(tmp_path / "k.keras")
    assert loaded.get_layer("emb").quantization_mode == "int8"
    for mine, read in zip(ours.weights, loaded.weights, strict=True):
        assert (mine.path, mine.dtype) == (read.path, read.dtype)
        np.testing.assert_allclose(_np(read.value), _np(mine.value), rtol=1e-6)
    theirs.save_weights(tmp_path / "k.weights.h5")
    fresh = _two_input_model(lamina)
    fresh.quantize("int8")
    fresh.load_weights(tmp_path / "k.weights.h5")
    for mine, read in zip(ours.weights, fresh.weights, strict=True):
        np.testing.assert_allclose(_np(read.value), _np(mine.value), rtol=1e-6)
    ours.save(tmp_path / "l.keras")
    back = keras.saving.load_model(tmp_path / "l.keras")
    assert back.get_layer("einsum").quantization_mode == "int8"
    read = {w.path: np.asarray(w) for w in back.weights}
    assert sorted(read) == sorted(w.path for w in ours.weights)
    for mine in ours.weights:
        np.testing.assert_allclose(read[mine.path], _np(mine.value), rtol=1e-6)


def test_errors_say_what_to_do():
    unbuilt = lamina.Sequential([layers.Dense(2)])
    with pytest.raises(ValueError, match="not built"):
        unbuilt.quantize("int8")
    with pytest.raises(ValueError, match="isn't yet built"):
        layers.Dense(2).quantize("int8")
    model = _model()
    with pytest.raises(ValueError, match="Invalid quantization mode.*'int9'"):
        model.quantize("int9")
    with pytest.raises(ValueError, match="GPTQConfig"):
        model.quantize("gptq")
    with pytest.raises(ValueError, match="Unrecognized keyword"):
        model.quantize("int8", bad=1)
    model.quantize("int8", filters="einsum")
    assert model.get_layer("dense").quantization_mode is None
    with pytest.raises(ValueError, match="'einsum' is already quantized"):
        model.get_layer("einsum").quantize("int8")
    assert model.get_quantization_layer_structure("int8") is None
    half = layers.Dense(2, dtype="float16")
    half.build((None, 2))
    with pytest.raises(ValueError, match="float16"):
        half.quantize("int8")
    with pytest.raises(NotImplementedError, match="Conv2D"):
        layers.Conv2D(2, 2).quantize("int8")

    class MyDense(layers.Dense):
        pass

    sub = lamina.Sequential([lamina.Input((2,)), MyDense(2)])
    with pytest.warns(UserWarning, match="MyDense"):
        sub.quantize("int8")
    sub.quantize("int8", type_check=False)
    assert sub.layers[0].quantization_mode == "int8"
