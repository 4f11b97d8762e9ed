"""ReversibleEmbedding quantized in int8 and int4 (tied and untied), against Keras 3.

The same float weights go into a Keras model and a lamina one (ids -> table -> the
reverse projection back to logits); both are quantized; the quantized weights must be
equal and the logits equal to float32 rounding; `.keras` files move both ways. Keras
runs in this process on JAX, whichever engine lamina runs on."""

import os
import warnings

import numpy as np
import pytest

import lamina
from lamina import ops, quantizers

os.environ.setdefault("KERAS_BACKEND", "jax")

pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

keras = pytest.importorskip("keras")
RNG = np.random.default_rng(9)
IDS = np.array([[1, 4, 0], [3, 3, 2]], "int32")


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


def _model(lib, tie_weights):
    ids = lib.Input((3,), dtype="int32", name="ids")
    # An odd output_dim: int4 packs two rows per byte and pads the last.
    table = lib.layers.ReversibleEmbedding(6, 5, tie_weights=tie_weights, name="emb")
    hidden = lib.layers.Dense(5, name="mix")(table(ids))
    return lib.Model(ids, table(hidden, reverse=True))


@pytest.mark.parametrize("mode, block_size", [("int8", None), ("int4", -1), ("int4", 2)], ids=str)
@pytest.mark.parametrize("tie_weights", [True, False], ids=["tied", "untied"])
def test_quantized_reversible_embedding_matches_keras(tmp_path, tie_weights, mode, block_size):
    theirs, ours = _model(keras, tie_weights), _model(lamina, tie_weights)
    weights = [RNG.normal(size=w.shape).astype("float32") for w in ours.weights]
    theirs.set_weights(weights)
    ours.set_weights(weights)
    config = {"config": quantizers.Int4QuantizationConfig(block_size=block_size)}
    keras_config = {"config": keras.quantizers.Int4QuantizationConfig(block_size=block_size)}
    if mode == "int8":
        config = keras_config = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras warns for layers it leaves alone
        theirs.get_layer("emb").quantize(mode, **keras_config)
    ours.get_layer("emb").quantize(mode, **config)
    layer = ours.get_layer("emb")
    assert layer.dtype_policy.name == theirs.get_layer("emb").dtype_policy.name
    read = {w.path: np.asarray(w) for w in theirs.weights}
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]
    for w in ours.weights:
        assert str(read[w.path].dtype) == w.dtype, w.path
        np.testing.assert_allclose(_np(w.value), read[w.path], rtol=1e-6, atol=1e-7, err_msg=w.path)
    expected = np.asarray(theirs.predict(IDS, verbose=0))
    np.testing.assert_allclose(ours.predict(IDS, verbose=0), expected, rtol=1e-5, atol=1e-5)
    eager = _np(layer(_np(ours.get_layer("mix")(layer(IDS))), reverse=True))
    np.testing.assert_allclose(eager, expected, rtol=1e-5, atol=1e-5)

    theirs.save(tmp_path / "k.keras")
    loaded = lamina.saving.load_model(tmp_path / "k.keras")
    assert loaded.get_layer("emb").quantization_mode == mode
    np.testing.assert_allclose(loaded.predict(IDS, verbose=0), expected, rtol=1e-5, atol=1e-5)
    ours.save(tmp_path / "l.keras")
    back = keras.saving.load_model(tmp_path / "l.keras")
    np.testing.assert_allclose(np.asarray(back.predict(IDS, verbose=0)), expected, rtol=1e-6)


def test_a_subclass_is_refused_unless_type_check_is_off():
    class Mine(lamina.layers.ReversibleEmbedding):
        pass

    layer = Mine(4, 3)
    layer.build()
    with pytest.raises(NotImplementedError, match="quantize"):
        layer.quantize("int8")
    layer.quantize("int8", type_check=False)
    assert layer.quantization_mode == "int8"
    with pytest.raises(NotImplementedError, match="ReversibleEmbedding.*\\('int8', 'int4'\\)"):
        lamina.layers.ReversibleEmbedding(4, 3, tie_weights=False, name="e").quantize("float8")
