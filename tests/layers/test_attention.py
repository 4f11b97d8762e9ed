"""Attention layers: conformance and numerics against NumPy formulas."""

import numpy as np
import pytest

from lamina import Input, Model, layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(0)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _softmax(x, mask=None):
    if mask is not None:
        x = np.where(mask, x, -1e9)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize(
    "cls, kwargs, shapes, out_shape, n_train",
    [
        (layers.MultiHeadAttention,
         {"num_heads": 2, "key_dim": 3, "value_dim": 2, "use_bias": False, "output_shape": 7},
         [(2, 4, 5), (2, 6, 3), (2, 6, 4)], (2, 4, 7), 4),
        (layers.Attention, {}, [(2, 4, 5), (2, 6, 5)], (2, 4, 5), 0),
        (layers.Attention, {"use_scale": True, "score_mode": "concat"},
         [(2, 4, 5), (2, 6, 5), (2, 6, 5)], (2, 4, 5), 2),
        (layers.AdditiveAttention, {}, [(2, 4, 5), (2, 6, 5)], (2, 4, 5), 1),
    ],
)  # fmt: skip
def test_conformance(cls, kwargs, shapes, out_shape, n_train):
    check_layer(
        cls,
        kwargs,
        input_shape=shapes,
        expected_output_shape=out_shape,
        expected_num_trainable_weights=n_train,
        supports_masking=True,
        check_gradient=True,
    )


def _np_mha(layer, q, v, k=None, mask=None):
    k = v if k is None else k
    wq, bq, wk, bk, wv, bv, wo, bo = layer.get_weights()
    qp = np.einsum("btd,dhk->bthk", q, wq) + bq
    kp = np.einsum("bsd,dhk->bshk", k, wk) + bk
    vp = np.einsum("bsd,dhk->bshk", v, wv) + bv
    scores = np.einsum("bthk,bshk->bhts", qp / np.sqrt(wq.shape[-1]), kp)
    m = None if mask is None else mask[:, None]
    probs = _softmax(scores, m)
    ctx = np.einsum("bhts,bshk->bthk", probs, vp)
    return np.einsum("bthk,hko->bto", ctx, wo) + bo, probs


def test_mha_matches_numpy_with_masks():
    q, v, k = _rand(2, 4, 5), _rand(2, 6, 5), _rand(2, 6, 5)
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    out, scores = layer(q, v, k, return_attention_scores=True)
    assert [tuple(w.shape) for w in layer.weights] == [
        (5, 2, 3), (2, 3), (5, 2, 3), (2, 3), (5, 2, 3), (2, 3), (2, 3, 5), (5,),
    ]  # fmt: skip
    ref, ref_scores = _np_mha(layer, q, v, k)
    np.testing.assert_allclose(ops.convert_to_numpy(out), ref, atol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(scores), ref_scores, atol=1e-5)
    mask = RNG.random((2, 4, 6)) > 0.3
    mask[:, :, 0] = True
    out = layer(q, v, k, attention_mask=mask)
    np.testing.assert_allclose(
        ops.convert_to_numpy(out), _np_mha(layer, q, v, k, mask)[0], atol=1e-5
    )
    x = _rand(2, 4, 5)
    causal = np.tril(np.ones((4, 4), bool))[None].repeat(2, 0)
    out = layer(x, x, use_causal_mask=True)
    np.testing.assert_allclose(
        ops.convert_to_numpy(out), _np_mha(layer, x, x, mask=causal)[0], atol=1e-5
    )
    both = mask[:, :, :4] & causal
    out = layer(x, x, attention_mask=mask[:, :, :4], use_causal_mask=True)
    np.testing.assert_allclose(
        ops.convert_to_numpy(out), _np_mha(layer, x, x, mask=both)[0], atol=1e-5
    )
    vm = np.array([[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 0]], bool)
    out = layer(q, v, k, value_mask=vm)
    ref = _np_mha(layer, q, v, k, np.broadcast_to(vm[:, None], (2, 4, 6)))[0]
    np.testing.assert_allclose(ops.convert_to_numpy(out), ref, atol=1e-5)


def test_mha_in_a_model_and_attention_axes():
    inp = Input(shape=(4, 6))
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    out = mha(inp, inp, use_causal_mask=True)
    model = Model(inp, out)
    x = _rand(2, 4, 6)
    np.testing.assert_allclose(
        ops.convert_to_numpy(model(x)),
        ops.convert_to_numpy(mha(x, x, use_causal_mask=True)),
        atol=1e-5,
    )
    img = _rand(2, 3, 4, 5)
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=2, attention_axes=(2,))
    out, scores = layer(img, img, return_attention_scores=True)
    assert tuple(out.shape) == (2, 3, 4, 5)
    assert tuple(scores.shape) == (2, 3, 2, 4, 4)
    with pytest.raises(ValueError, match="value"):
        layer(img)


def test_attention_matches_formula_with_masks():
    q, v, k = _rand(2, 3, 4), _rand(2, 5, 4), _rand(2, 5, 4)
    qm = np.array([[1, 1, 0], [1, 1, 1]], bool)
    vm = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    layer = layers.Attention()
    out, w = layer([q, v, k], mask=[qm, vm], return_attention_scores=True)
    ref_w = _softmax(q @ k.transpose(0, 2, 1), vm[:, None])
    np.testing.assert_allclose(ops.convert_to_numpy(w), ref_w, atol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(out), (ref_w @ v) * qm[..., None], atol=1e-5)
    np.testing.assert_array_equal(ops.convert_to_numpy(layer.compute_mask([q, v], [qm, vm])), qm)
    x = _rand(2, 4, 4)
    out = layer([x, x], use_causal_mask=True)
    causal = np.tril(np.ones((4, 4), bool))[None]
    ref = _softmax(x @ x.transpose(0, 2, 1), causal) @ x
    np.testing.assert_allclose(ops.convert_to_numpy(out), ref, atol=1e-5)
    concat = layers.Attention(score_mode="concat", use_scale=True)
    out = concat([q, v])
    scores = np.tanh(q[:, :, None] + v[:, None]).sum(-1)
    np.testing.assert_allclose(ops.convert_to_numpy(out), _softmax(scores) @ v, atol=1e-5)


def test_additive_attention_matches_formula():
    q, v = _rand(2, 3, 4), _rand(2, 5, 4)
    vm = np.array([[1, 1, 0, 0, 0], [1, 1, 1, 1, 0]], bool)
    layer = layers.AdditiveAttention()
    out = layer([q, v], mask=[None, vm])
    scale = layer.get_weights()[0]
    scores = (scale * np.tanh(q[:, :, None] + v[:, None])).sum(-1)
    ref = _softmax(scores, vm[:, None]) @ v
    np.testing.assert_allclose(ops.convert_to_numpy(out), ref, atol=1e-5)
    assert "score_mode" not in layer.get_config()
    with pytest.raises(ValueError, match="score_mode"):
        layers.Attention(score_mode="dot-product")


def _embedded(tokens, emb):
    return emb.get_weights()[0][tokens]


def test_mha_in_a_model_takes_the_propagated_masks_and_passes_the_query_mask_on():
    # Keras fills `query_mask`/`value_mask`/`key_mask` from the masks of the tensors
    # passed; the output carries the query's mask (a masked mean pooling sees it).
    q_tokens = np.array([[1, 2, 0, 0], [3, 1, 2, 0]], "int32")
    v_tokens = np.array([[4, 5, 6, 0, 0], [7, 0, 0, 0, 0]], "int32")
    q_in, v_in = Input((4,), dtype="int32"), Input((5,), dtype="int32")
    q_emb = layers.Embedding(9, 6, mask_zero=True)
    v_emb = layers.Embedding(9, 6, mask_zero=True)
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    attended = mha(q_emb(q_in), v_emb(v_in))
    model = Model([q_in, v_in], [attended, layers.GlobalAveragePooling1D()(attended)])
    out, pooled = model([q_tokens, v_tokens])
    qm, vm = q_tokens != 0, v_tokens != 0
    q, v = _embedded(q_tokens, q_emb), _embedded(v_tokens, v_emb)
    ref = _np_mha(mha, q, v, mask=qm[:, :, None] & vm[:, None, :])[0]
    np.testing.assert_allclose(ops.convert_to_numpy(out), ref, atol=1e-5)
    masked_mean = (ref * qm[..., None]).sum(1) / qm.sum(1, keepdims=True)
    np.testing.assert_allclose(ops.convert_to_numpy(pooled), masked_mean, atol=1e-5)
    # Only the value is masked: the query rows all see the unmasked value positions.
    f_in = Input((4, 6))
    cross = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    cross_model = Model([f_in, v_in], cross(f_in, v_emb(v_in)))
    f = _rand(2, 4, 6)
    ref = _np_mha(cross, f, v, mask=np.broadcast_to(vm[:, None, :], (2, 4, 5)))[0]
    np.testing.assert_allclose(ops.convert_to_numpy(cross_model([f, v_tokens])), ref, atol=1e-5)


def _keras():
    import os

    os.environ.setdefault("KERAS_BACKEND", "jax")
    return pytest.importorskip("keras")


@pytest.mark.filterwarnings("ignore:__array__ implementation doesn't accept a copy keyword")
@pytest.mark.parametrize("cls", ["MultiHeadAttention", "GroupQueryAttention"])
@pytest.mark.parametrize("dropout", [0.0, 0.5])
@pytest.mark.parametrize("scores", [False, True])
def test_attention_with_a_fully_masked_query_row_gives_what_keras_gives(cls, dropout, scores):
    # Keras 3 spreads a fully masked row evenly on its `dot_product_attention` path (no
    # dropout, no scores returned) and gives it zeros through its `Softmax` layer
    # otherwise: the row's output is then the output projection's bias alone.
    keras = _keras()
    q, v = _rand(2, 3, 4), _rand(2, 5, 4)
    mask = np.ones((2, 3, 5), bool)
    mask[0, 1] = False  # query 1 of sample 0 sees nothing
    mask[1, 2, :3] = False
    kwargs = (
        {"num_heads": 2, "key_dim": 3}
        if cls == "MultiHeadAttention"
        else {"head_dim": 3, "num_query_heads": 2, "num_key_value_heads": 1}
    )
    theirs = getattr(keras.layers, cls)(dropout=dropout, **kwargs)
    ours = getattr(layers, cls)(dropout=dropout, **kwargs)
    expected = theirs(q, v, attention_mask=mask, return_attention_scores=scores)
    ours(q, v, attention_mask=mask)  # builds
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    got = ours(q, v, attention_mask=mask, return_attention_scores=scores)
    if not scores:
        expected, got = (expected,), (got,)
    for want, have in zip(expected, got, strict=True):
        np.testing.assert_allclose(ops.convert_to_numpy(have), np.asarray(want), atol=1e-5)


def test_a_fully_masked_row_gives_the_same_in_a_functional_model_predict_and_fit():
    # The eager call's rows (zeros through the dropout path: the output is the bias), in
    # `predict`'s compiled or replayed step and in `fit`'s, which must stay finite.
    q = _rand(4, 3, 4)
    mask = np.ones((4, 3, 3), bool)
    mask[:, 1] = False
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3, dropout=0.2)
    x_in, m_in = Input((3, 4)), Input((3, 3), dtype="bool")
    model = Model([x_in, m_in], layer(x_in, x_in, attention_mask=m_in))
    eager = ops.convert_to_numpy(layer(q, q, attention_mask=mask))
    bias = ops.convert_to_numpy(layer.output_dense.bias)
    np.testing.assert_allclose(eager[:, 1], np.broadcast_to(bias, (4, 4)), atol=1e-6)
    for _ in range(2):  # (torch replays from the second call)
        np.testing.assert_allclose(model.predict([q, mask], verbose=0), eager, atol=1e-5)
    model.compile("sgd", "mse")
    history = model.fit([q, mask], np.zeros((4, 3, 4)), epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()


@pytest.mark.filterwarnings("ignore:__array__ implementation doesn't accept a copy keyword")
@pytest.mark.parametrize("axis", [-1, (-1,), (1, 2)])
def test_softmax_layer_with_a_mask_gives_what_keras_gives(axis):
    # Masked positions 0, a fully masked row all zeros, a float mask read as > 0.5.
    keras = _keras()
    x = _rand(2, 3, 4)
    mask = np.ones((2, 3, 4), bool)
    mask[0, 1] = False
    mask[1, :, 2] = False
    float_mask = np.where(mask, 0.75, 0.25).astype("float32")
    for m in (mask, float_mask, mask[:, :1, :]):
        want = np.asarray(keras.layers.Softmax(axis=axis)(x, mask=m))
        have = ops.convert_to_numpy(layers.Softmax(axis=axis)(x, mask=m))
        np.testing.assert_allclose(have, want, atol=1e-6)
    listed = layers.Softmax()(x[0, :1], mask=[[True, False, True, True]])
    np.testing.assert_allclose(
        ops.convert_to_numpy(listed)[0, 1], 0.0, atol=0
    )  # a mask given as a list, as the old code took it
    with pytest.raises(ValueError, match=r"broadcastable.*\(2, 3, 5\).*\(2, 3, 4\)"):
        layers.Softmax()(x, mask=np.ones((2, 3, 5), bool))


def test_mha_refuses_masks_of_the_wrong_shape():
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    q, v = _rand(2, 4, 5), _rand(2, 6, 5)
    with pytest.raises(ValueError, match=r"value_mask.*\(2, 6\).*\(2, 4\)"):
        layer(q, v, value_mask=np.ones((2, 4), bool))
    with pytest.raises(ValueError, match=r"attention_mask.*\(2, 4, 6\).*\(2, 6, 4\)"):
        layer(q, v, attention_mask=np.ones((2, 6, 4), bool))


def test_attention_layers_in_a_model_take_both_masks_and_pass_the_query_mask_on():
    q_tokens = np.array([[1, 2, 0], [3, 0, 0]], "int32")
    v_tokens = np.array([[4, 5, 6, 0], [7, 8, 0, 0]], "int32")
    qm, vm = q_tokens != 0, v_tokens != 0
    for cls in (layers.Attention, layers.AdditiveAttention):
        q_in, v_in = Input((3,), dtype="int32"), Input((4,), dtype="int32")
        q_emb = layers.Embedding(9, 4, mask_zero=True)
        v_emb = layers.Embedding(9, 4, mask_zero=True)
        attention = cls()
        out = attention([q_emb(q_in), v_emb(v_in)])
        model = Model([q_in, v_in], [out, layers.GlobalAveragePooling1D()(out)])
        got, pooled = model([q_tokens, v_tokens])
        q, v = _embedded(q_tokens, q_emb), _embedded(v_tokens, v_emb)
        if cls is layers.Attention:
            scores = q @ v.transpose(0, 2, 1)
        else:
            scores = (attention.get_weights()[0] * np.tanh(q[:, :, None] + v[:, None])).sum(-1)
        ref = (_softmax(scores, vm[:, None]) @ v) * qm[..., None]
        np.testing.assert_allclose(ops.convert_to_numpy(got), ref, atol=1e-5)
        masked_mean = ref.sum(1) / qm.sum(1, keepdims=True)
        np.testing.assert_allclose(ops.convert_to_numpy(pooled), masked_mean, atol=1e-5)


def test_attention_refuses_masks_of_the_wrong_shape():
    q, v = _rand(2, 3, 4), _rand(2, 5, 4)
    with pytest.raises(ValueError, match=r"value mask must have shape \(2, 5\).*\(2, 4\)"):
        layers.Attention()([q, v], mask=[None, np.ones((2, 4), bool)])
    with pytest.raises(ValueError, match=r"query mask must have shape \(2, 3\)"):
        layers.AdditiveAttention()([q, v], mask=[np.ones((2, 5), bool), None])
