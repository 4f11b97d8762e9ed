"""GroupQueryAttention: numerics against a NumPy formula and against Keras with copied
weights (masks, causal mask, attention scores), config and `.keras` files both ways,
training, and the errors for bad arguments and shapes."""

import inspect
import json
import os
import zipfile

import numpy as np
import pytest

import lamina
from lamina import Input, Model, layers, ops
from lamina.testing import check_layer

os.environ.setdefault("KERAS_BACKEND", "jax")

RNG = np.random.default_rng(0)
# One set of shapes across the tests: eager ops compile once per shape, and that
# compilation is most of these tests' time.
# Zero initial kernels, then random weights set by the tests: a random draw compiles per
# shape, which would dominate these tests' time.
ZEROS = {"kernel_initializer": "zeros"}
GQA = {"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 2, **ZEROS}

# Keras's NumPy-level `__array__` trips NumPy 2's copy-keyword deprecation; not ours.
_KERAS_WARNING = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _keras():
    return pytest.importorskip("keras")


def _randomize(layer):
    layer.set_weights([_rand(*w.shape) * 0.5 for w in layer.weights])


def _np_gqa(layer, q, v, k=None, mask=None, gate=False):
    """Grouped-query attention written out in NumPy; `mask` is (batch, T, S) bool."""
    k = v if k is None else k
    weights = layer.get_weights()
    wq, bq, wk, bk = weights[:4]
    rest = weights[4:]
    if gate:
        wg, bg, *rest = rest
    wv, bv, wo, bo = rest
    repeats = wq.shape[1] // wk.shape[1]
    qp = np.einsum("btm,muh->btuh", q, wq) + bq
    kp = np.repeat(np.einsum("bsm,mvh->bsvh", k, wk) + bk, repeats, axis=2)
    vp = np.repeat(np.einsum("bsm,mvh->bsvh", v, wv) + bv, repeats, axis=2)
    scores = np.einsum("btuh,bsuh->buts", qp / np.sqrt(wq.shape[-1]), kp)
    if mask is not None:
        scores = np.where(mask[:, None], scores, -1e9)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    probs = e / e.sum(-1, keepdims=True)
    ctx = np.einsum("buts,bsuh->btuh", probs, vp)
    if gate:
        ctx = ctx / (1 + np.exp(-(np.einsum("btm,muh->btuh", q, wg) + bg)))
    return np.einsum("btuh,uhm->btm", ctx, wo) + bo, probs


def test_weights_and_numerics_match_numpy_with_masks():
    q, v, k = _rand(2, 4, 5), _rand(2, 6, 5), _rand(2, 6, 3)
    layer = layers.GroupQueryAttention(**GQA)
    out, scores = layer(q, v, k, return_attention_scores=True)
    subs = [layer.query_dense, layer.key_dense, layer.value_dense, layer.output_dense]
    assert [s.name for s in subs] == ["query", "key", "value", "attention_output"]
    assert [w.name for w in layer.weights] == ["kernel", "bias"] * 4
    assert [tuple(w.shape) for w in layer.weights] == [
        (5, 4, 3), (4, 3), (3, 2, 3), (2, 3), (5, 2, 3), (2, 3), (4, 3, 5), (5,),
    ]  # fmt: skip
    assert out.shape == (2, 4, 5) and scores.shape == (2, 4, 4, 6)
    _randomize(layer)
    out, scores = layer(q, v, k, return_attention_scores=True)
    ref, ref_scores = _np_gqa(layer, q, v, k)
    np.testing.assert_allclose(ops.convert_to_numpy(out), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(scores), ref_scores, rtol=1e-5, atol=1e-5)
    # Explicit attention mask, and padding masks of query and value.
    mask = RNG.random((2, 4, 6)) > 0.4
    mask[:, :, 0] = True
    got = layer(q, v, k, attention_mask=mask)
    np.testing.assert_allclose(
        ops.convert_to_numpy(got), _np_gqa(layer, q, v, k, mask)[0], atol=1e-5
    )
    q_mask = np.array([[1, 1, 1, 0], [1, 1, 0, 0]], bool)
    v_mask = np.array([[1, 1, 1, 1, 0, 0], [1, 0, 1, 1, 1, 1]], bool)
    got = layer(q, v, k, query_mask=q_mask, value_mask=v_mask)
    padding = q_mask[:, :, None] & v_mask[:, None, :]
    # A fully masked query row attends evenly (Keras's rule), which the -1e9 fill gives.
    np.testing.assert_allclose(
        ops.convert_to_numpy(got), _np_gqa(layer, q, v, k, padding)[0], atol=1e-5
    )
    got = layer(q, v, k, key_mask=v_mask, attention_mask=mask)
    both = mask & v_mask[:, None, :]
    np.testing.assert_allclose(
        ops.convert_to_numpy(got), _np_gqa(layer, q, v, k, both)[0], atol=1e-5
    )


def test_causal_mask_and_sliding_window_match_numpy():
    x = _rand(2, 4, 5)
    layer = layers.GroupQueryAttention(**GQA)
    layer(x, x)
    _randomize(layer)
    causal = np.tril(np.ones((4, 4), bool))[None].repeat(2, 0)
    out, scores = layer(x, x, use_causal_mask=True, return_attention_scores=True)
    ref, ref_scores = _np_gqa(layer, x, x, mask=causal)
    np.testing.assert_allclose(ops.convert_to_numpy(out), ref, atol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(scores), ref_scores, atol=1e-5)
    assert np.all(ops.convert_to_numpy(scores)[:, :, 0, 1:] == 0)
    window = layers.GroupQueryAttention(**GQA, sliding_window=2, use_gate=True)
    window(x, x)
    _randomize(window)
    band = np.abs(np.arange(4)[:, None] - np.arange(4)[None]) < 2
    got = window(x, x, use_causal_mask=True)
    ref = _np_gqa(window, x, x, mask=causal & band, gate=True)[0]
    np.testing.assert_allclose(ops.convert_to_numpy(got), ref, atol=1e-5)


def test_one_key_value_head_is_multi_query_attention():
    x = _rand(2, 4, 5)
    layer = layers.GroupQueryAttention(
        head_dim=3, num_query_heads=4, num_key_value_heads=1, **ZEROS
    )
    layer(x, x)
    _randomize(layer)
    assert tuple(layer.key_dense.kernel.shape) == (5, 1, 3)
    np.testing.assert_allclose(
        ops.convert_to_numpy(layer(x, x)), _np_gqa(layer, x, x)[0], atol=1e-5
    )


@_KERAS_WARNING
@pytest.mark.parametrize(
    "extra", [{}, {"use_gate": True, "sliding_window": 3}], ids=["plain", "gate-window"]
)
def test_matches_keras_with_copied_weights(extra):
    keras = _keras()
    q, v, k = _rand(2, 4, 5), _rand(2, 6, 5), _rand(2, 6, 3)
    ours = layers.GroupQueryAttention(**GQA, **extra)
    theirs = keras.layers.GroupQueryAttention(**GQA, **extra)
    ours(q, v, k)
    theirs(q, v, k)
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    _randomize(ours)
    theirs.set_weights(ours.get_weights())
    mask = RNG.random((2, 4, 6)) > 0.4
    mask[:, :, 0] = True
    q_mask = np.array([[1, 1, 1, 1], [1, 1, 1, 0]], bool)
    v_mask = np.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]], bool)
    for kwargs in (
        {},
        {"attention_mask": mask},
        {"value_mask": v_mask, "key_mask": v_mask},
        {"query_mask": q_mask, "attention_mask": mask, "use_causal_mask": True},
        {"use_causal_mask": True, "return_attention_scores": True},
    ):
        got, want = ours(q, v, k, **kwargs), theirs(q, v, k, **kwargs)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(
                ops.convert_to_numpy(a), ops.convert_to_numpy(b), rtol=1e-5, atol=1e-5
            )


@_KERAS_WARNING
def test_regularizer_losses_match_keras():
    # As in Keras, the activity regularizer applies to the output and to each projection.
    keras = _keras()
    q = _rand(2, 4, 5)
    kwargs = {**GQA, "activity_regularizer": "l2", "kernel_regularizer": "l1"}
    ours = layers.GroupQueryAttention(**kwargs)
    theirs = keras.layers.GroupQueryAttention(**kwargs)
    ours(q, q)
    theirs(q, q)
    _randomize(ours)
    theirs.set_weights(ours.get_weights())
    ours(q, q)
    theirs(q, q)
    got = sorted(float(ops.convert_to_numpy(loss)) for loss in ours.losses)
    want = sorted(float(ops.convert_to_numpy(loss)) for loss in theirs.losses)
    assert len(got) == 9
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_conformance():
    check_layer(
        layers.GroupQueryAttention,
        GQA,
        input_shape=[(2, 4, 5), (2, 6, 5), (2, 6, 3)],
        expected_output_shape=(2, 4, 5),
        expected_num_trainable_weights=8,
        supports_masking=True,
    )


def test_dropout_only_in_training():
    x = _rand(2, 4, 5)
    layer = layers.GroupQueryAttention(**GQA, dropout=0.5, seed=3)
    layer(x, x)
    _randomize(layer)
    np.testing.assert_allclose(
        ops.convert_to_numpy(layer(x, x)), _np_gqa(layer, x, x)[0], atol=1e-5
    )
    assert not np.allclose(
        ops.convert_to_numpy(layer(x, x, training=True)), ops.convert_to_numpy(layer(x, x))
    )


def test_functional_model_passes_padding_masks():
    tokens = np.array([[1, 2, 3, 0], [4, 5, 0, 0]], "int32")
    x = Input((4,), dtype="int32")
    h = layers.Embedding(8, 5, mask_zero=True)(x)
    gqa = layers.GroupQueryAttention(**GQA)
    y = gqa(h, h)
    model = Model(x, y)
    _randomize(gqa)
    emb = ops.convert_to_numpy(model.layers[1].embeddings)[tokens]
    pad = tokens != 0
    ref = _np_gqa(gqa, emb, emb, mask=pad[:, :, None] & pad[:, None, :])[0]
    np.testing.assert_allclose(ops.convert_to_numpy(model(tokens)), ref, atol=1e-5)
    assert y._keras_mask is not None


def test_symbolic_shapes():
    q, v = Input((4, 5)), Input((6, 3))
    layer = layers.GroupQueryAttention(**GQA)
    out, scores = layer(q, v, return_attention_scores=True)
    assert out.shape == (None, 4, 5) and scores.shape == (None, 4, 4, 6)
    assert layer.compute_output_shape((None, 4, 5), (None, 6, 3)) == (None, 4, 5)


@_KERAS_WARNING
def test_config_keys_match_keras_and_round_trip():
    keras = _keras()
    kwargs = {**GQA, "dropout": 0.1, "use_gate": True, "sliding_window": 4, "seed": 7}
    kwargs.update(kernel_regularizer="l2", activity_regularizer="l1", bias_constraint="non_neg")
    ours = layers.GroupQueryAttention(**kwargs)
    theirs = keras.layers.GroupQueryAttention(**kwargs)
    config = ours.get_config()
    assert set(config) == set(theirs.get_config())
    assert ours.name == "grouped_query_attention" or ours.name.startswith(
        "grouped_query_attention_"
    )
    clone = layers.GroupQueryAttention.from_config(config)
    assert clone.get_config() == config
    from lamina.common import serialization

    written = serialization.serialize_keras_object(ours, "layers")
    assert (written["module"], written["class_name"]) == ("keras.layers", "GroupQueryAttention")
    keras_config = json.loads(json.dumps(keras.saving.serialize_keras_object(theirs)))
    revived = serialization.deserialize_keras_object(keras_config, "layers")
    assert type(revived) is layers.GroupQueryAttention
    assert revived.get_config()["sliding_window"] == 4 and revived.use_gate


def test_keras_signature_covered():
    keras = _keras()
    for ours, theirs in (
        (layers.GroupQueryAttention, keras.layers.GroupQueryAttention),
        (layers.GroupQueryAttention.call, keras.layers.GroupQueryAttention.call),
    ):
        assert list(inspect.signature(theirs).parameters) == list(
            inspect.signature(ours).parameters
        )


def _perturb(model):
    for w in model.weights:
        w.assign(ops.convert_to_numpy(w) + _rand(*w.shape) * 0.3)


# Keras's GroupQueryAttention needs query and value of one feature size (its
# compute_output_shape refuses others), so the files both ways use that.
SEQ, MEMORY = _rand(2, 4, 5), _rand(2, 6, 5)
TOKENS = np.array([[1, 2, 3, 0], [4, 5, 6, 7]], "int32")


def _lamina_models():
    L = lamina.layers
    q, v = Input((4, 5)), Input((6, 5))
    cross = L.GroupQueryAttention(**GQA, use_gate=True)(q, v, key=v)
    x = Input((4,), dtype="int32")
    h = L.Embedding(9, 5, mask_zero=True)(x)
    masked = L.GroupQueryAttention(**GQA, sliding_window=3)(h, h, use_causal_mask=True)
    return [(Model([q, v], cross), [SEQ, MEMORY]), (Model(x, masked), TOKENS)]


def _keras_models(keras):
    L = keras.layers
    q, v = keras.Input((4, 5)), keras.Input((6, 5))
    # dropout > 0 keeps Keras on its explicit path for every input; inference ignores it.
    cross = L.GroupQueryAttention(**GQA, dropout=0.1, use_gate=True)(q, v, key=v)
    x = keras.Input((4,), dtype="int32")
    h = L.Embedding(9, 5, mask_zero=True)(x)
    masked = L.GroupQueryAttention(**GQA, sliding_window=2)(h, h, use_causal_mask=True)
    return [(keras.Model([q, v], cross), [SEQ, MEMORY]), (keras.Model(x, masked), TOKENS)]


# Keras's own GroupQueryAttention warns that its EinsumDense projections drop the mask
# of a masked query (it applies the mask itself); not ours.
_KERAS_MASK_WARNING = pytest.mark.filterwarnings(
    r"ignore:Layer '\w+' \(of type EinsumDense\) was passed an input with a mask:UserWarning"
)


@_KERAS_WARNING
@_KERAS_MASK_WARNING
def test_lamina_file_loads_in_keras(tmp_path):
    keras = _keras()
    for i, (model, data) in enumerate(_lamina_models()):
        _perturb(model)
        path = str(tmp_path / f"from_lamina_{i}.keras")
        model.save(path)
        with zipfile.ZipFile(path) as archive:
            config = json.loads(archive.read("config.json"))
        entry = [c for c in config["config"]["layers"] if "Query" in c["class_name"]][0]
        assert entry["class_name"] == "GroupQueryAttention"
        assert "query_shape" in entry["build_config"]["shapes_dict"]
        loaded = keras.models.load_model(path)
        np.testing.assert_allclose(
            loaded.predict(data, verbose=0), model.predict(data, verbose=0), rtol=1e-5, atol=1e-5
        )


@_KERAS_WARNING
@_KERAS_MASK_WARNING
def test_keras_file_loads_in_lamina(tmp_path):
    keras = _keras()
    for i, (model, data) in enumerate(_keras_models(keras)):
        _perturb(model)
        path = str(tmp_path / f"from_keras_{i}.keras")
        model.save(path)
        loaded = lamina.models.load_model(path)
        gqa = [layer for layer in loaded.layers if "Query" in type(layer).__name__][0]
        assert gqa.query_dense is not None and gqa.output_dense is not None
        np.testing.assert_allclose(
            loaded.predict(data, verbose=0), model.predict(data, verbose=0), rtol=1e-5, atol=1e-5
        )


def test_fit_lowers_the_loss():
    x = _rand(16, 4, 5)
    target = np.cumsum(x, axis=1) * 0.3
    inp = Input((4, 5))
    gqa = layers.GroupQueryAttention(**GQA)
    model = Model(inp, gqa(inp, inp, use_causal_mask=True))
    _randomize(gqa)
    model.compile(optimizer=lamina.optimizers.Adam(0.02), loss="mse")
    losses = model.fit(x, target, epochs=10, batch_size=16, verbose=0).history["loss"]
    assert losses[-1] < 0.7 * losses[0]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"head_dim": 0, "num_query_heads": 4, "num_key_value_heads": 2}, "head_dim=0"),
        ({"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 3}, "multiple of"),
        ({"head_dim": 3, "num_query_heads": 2.0, "num_key_value_heads": 1}, "num_query_heads=2.0"),
        ({**GQA, "dropout": 1.0}, "dropout"),
        ({**GQA, "dropout": 0.1, "flash_attention": True}, "flash_attention=True"),
        ({**GQA, "sliding_window": 0}, "sliding_window=0"),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        layers.GroupQueryAttention(**kwargs)


def test_bad_inputs_raise_clear_errors():
    x = _rand(2, 4, 5)
    with pytest.raises(ValueError, match="needs a `value`"):
        layers.GroupQueryAttention(**GQA)(x)
    with pytest.raises(ValueError, match=r"\(batch, sequence, features\)"):
        layers.GroupQueryAttention(**GQA)(_rand(2, 4), _rand(2, 4))
    with pytest.raises(ValueError, match="same sequence length"):
        layers.GroupQueryAttention(**GQA)(x, _rand(2, 6, 5), _rand(2, 5, 5))
    layer = layers.GroupQueryAttention(**GQA, name="gqa")
    with pytest.raises(ValueError, match=r"'gqa'.*value_mask.*\(2, 4\)"):
        layer(x, x, value_mask=np.ones((2, 3), bool))
    with pytest.raises(ValueError, match=r"attention_mask.*\(2, 4, 4\)"):
        layer(x, x, attention_mask=np.ones((2, 4, 3), bool))
    flash = layers.GroupQueryAttention(**GQA, flash_attention=True)
    with pytest.raises(ValueError, match="return_attention_scores"):
        flash(x, x, return_attention_scores=True)
