"""ReversibleEmbedding: forward lookups and reverse logits against NumPy formulas and
Keras 3 (weights copied across), tied and untied weights, the soft cap, reverse_dtype,
masks, configs, `.keras` files both ways, and the errors."""

import json
import os

import numpy as np
import pytest

import lamina
from lamina import Input, Model, layers, ops
from lamina.testing import check_layer

os.environ.setdefault("KERAS_BACKEND", "jax")

# Keras's NumPy-level `__array__` trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

RNG = np.random.default_rng(11)
VOCAB, DIM = 7, 4


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _keras():
    return pytest.importorskip("keras")


def _np(x):
    return ops.convert_to_numpy(x)


def test_matches_numpy():
    for tie_weights, soft_cap in [(True, None), (False, 0.5)]:
        layer = layers.ReversibleEmbedding(
            VOCAB, DIM, tie_weights=tie_weights, logit_soft_cap=soft_cap
        )
        ids = np.array([[0, 3, 6], [2, 2, 1]])
        layer(ids)
        table = _rand(VOCAB, DIM)
        weights = [table] if tie_weights else [table, _rand(DIM, VOCAB)]
        layer.set_weights(weights)
        np.testing.assert_allclose(_np(layer(ids)), table[ids], rtol=1e-6)
        hidden = _rand(2, 3, DIM)
        logits = hidden @ (table.T if tie_weights else weights[1])
        if soft_cap is not None:
            logits = np.tanh(logits / soft_cap) * soft_cap
        got = layer(hidden, reverse=True)
        np.testing.assert_allclose(
            _np(got), logits, rtol=1e-5, atol=1e-6, err_msg=f"tie_weights={tie_weights}"
        )
        assert layer.compute_output_shape((2, 3, DIM), reverse=True) == (2, 3, VOCAB)
        assert layer.compute_output_shape((2, 3)) == (2, 3, DIM)
    # reverse_dtype: the projection runs (and its logits come out) in that dtype.
    layer = layers.ReversibleEmbedding(VOCAB, DIM, reverse_dtype="float16")
    hidden = layer(np.array([[1, 2]]))
    logits = layer(hidden, reverse=True)
    assert _np(logits).dtype == np.float16
    expected = _np(hidden).astype("float16") @ _np(layer.embeddings).astype("float16").T
    np.testing.assert_allclose(_np(logits).astype("float32"), expected, rtol=1e-2, atol=1e-3)
    symbolic = layer(Input((2, DIM)), reverse=True)
    assert symbolic.shape == (None, 2, VOCAB) and symbolic.dtype == "float16"


def test_weights_and_errors():
    tied = layers.ReversibleEmbedding(VOCAB, DIM)
    tied.build()
    untied = layers.ReversibleEmbedding(VOCAB, DIM, tie_weights=False)
    untied.build()
    assert [w.name for w in tied.weights] == ["embeddings"]
    assert [w.name for w in untied.weights] == ["embeddings", "reverse_embeddings"]
    assert [tuple(w.shape) for w in untied.trainable_weights] == [(VOCAB, DIM), (DIM, VOCAB)]
    assert isinstance(tied, layers.Embedding)
    with pytest.raises(ValueError, match="logit_soft_cap"):
        layers.ReversibleEmbedding(VOCAB, DIM, logit_soft_cap=0)
    with pytest.raises(ValueError, match=r"output_dim=4.*received shape \(1, 3\)"):
        tied(np.array([[1, 2, 3]]), reverse=True)


def test_matches_keras_with_copied_weights():
    # Tied weights here; untied ones through the Keras-written file below.
    keras = _keras()
    kwargs = {"tie_weights": True, "logit_soft_cap": 2.0}
    ours = layers.ReversibleEmbedding(VOCAB, DIM, **kwargs)
    theirs = keras.layers.ReversibleEmbedding(VOCAB, DIM, **kwargs)
    ids = np.array([[1, 5, 0]])
    ours(ids)
    theirs(ids)
    for w in ours.weights:
        w.assign(_rand(*w.shape) * 3)
    theirs.set_weights(ours.get_weights())
    np.testing.assert_allclose(_np(ours(ids)), np.asarray(theirs(ids)), rtol=1e-6)
    hidden = _rand(1, 3, DIM)
    np.testing.assert_allclose(
        _np(ours(hidden, reverse=True)),
        np.asarray(theirs(hidden, reverse=True)),
        rtol=1e-5,
        atol=1e-6,
    )


def test_masks_forward_only():
    layer = layers.ReversibleEmbedding(VOCAB, DIM, mask_zero=True)
    ids = Input((3,), dtype="int32")
    hidden = layer(ids)
    logits = layer(hidden, reverse=True)
    assert hidden._keras_mask is not None
    assert getattr(logits, "_keras_mask", None) is None
    data = np.array([[2, 0, 4]])
    np.testing.assert_array_equal(_np(layer.compute_mask(data)), [[True, False, True]])
    model = Model(ids, logits)
    expected = _np(layer(data)) @ _np(layer.embeddings).T
    np.testing.assert_allclose(_np(model(data)), expected, rtol=1e-5, atol=1e-6)


def test_conformance():
    check_layer(
        layers.ReversibleEmbedding,
        {"input_dim": VOCAB, "output_dim": DIM, "tie_weights": False},
        input_shape=(2, 3),
        input_dtype="int32",
        expected_output_shape=(2, 3, DIM),
        expected_num_trainable_weights=2,
        check_gradient=False,
    )


def test_config_matches_keras_and_round_trips():
    keras = _keras()
    kwargs = {"tie_weights": False, "reverse_dtype": "float32", "logit_soft_cap": 3.0}
    theirs = keras.layers.ReversibleEmbedding(VOCAB, DIM, mask_zero=True, name="emb", **kwargs)
    ours = layers.ReversibleEmbedding(VOCAB, DIM, mask_zero=True, name="emb", **kwargs)
    keras_config = json.loads(json.dumps(keras.layers.serialize(theirs)))
    revived = lamina.layers.deserialize(keras_config)
    assert type(revived) is layers.ReversibleEmbedding
    assert revived.get_config() == ours.get_config()
    ours_keys = set(ours.get_config())
    # Keras's extra keys: its quantization settings, which lamina does not have, and
    # `activity_regularizer`, which lamina's base layer writes only when one is set.
    assert ours_keys <= set(keras_config["config"])
    extra = set(keras_config["config"]) - ours_keys
    assert extra <= {"quantization_config", "lora_rank", "activity_regularizer"}
    again = layers.ReversibleEmbedding.from_config(ours.get_config())
    assert (again.tie_weights, again.reverse_dtype, again.logit_soft_cap) == (False, "float32", 3.0)


def test_keras_file_loads_and_round_trips(tmp_path):
    keras = _keras()
    k_ids = keras.Input((3,), dtype="int32")
    k_emb = keras.layers.ReversibleEmbedding(VOCAB, DIM, tie_weights=False, logit_soft_cap=4.0)
    k_hidden = keras.layers.Dense(DIM, activation="tanh")(k_emb(k_ids))
    keras_model = keras.Model(k_ids, k_emb(k_hidden, reverse=True))
    for w in keras_model.weights:
        w.assign(_rand(*w.shape))
    path = str(tmp_path / "keras.keras")
    keras_model.save(path)
    ids = np.array([[1, 2, 3], [6, 0, 5]], dtype="int32")
    loaded = lamina.models.load_model(path)
    expected = np.asarray(keras_model(ids))
    np.testing.assert_allclose(_np(loaded(ids)), expected, rtol=1e-5, atol=1e-5)
    again_path = str(tmp_path / "lamina.keras")
    loaded.save(again_path)
    again = lamina.models.load_model(again_path)
    np.testing.assert_allclose(_np(again(ids)), expected, rtol=1e-5, atol=1e-5)
