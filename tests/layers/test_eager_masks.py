"""Masks in eager calls, against Keras 3 (issue 33): a layer called on arrays, or inside
a subclassed model's `call`, takes the mask its input carries and leaves its own, as in
a functional graph; so a subclassed model averaging an `Embedding(mask_zero=True)`'s
output computes the numbers Keras computes, in `model(x)`, `predict` and `fit`.

Keras is the reference (on JAX whatever lamina's engine)."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina import layers, ops  # noqa: E402
from lamina.graph.masks import get_mask  # noqa: E402

PADDED = np.array([[1, 2, 0, 0], [3, 0, 0, 0]], "int32")
SHORT = np.array([[1, 2]], "int32")


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


def _keras_mask(x):
    from keras.src import backend as keras_backend

    return keras_backend.get_keras_mask(x)


def test_embedding_output_carries_its_mask_as_in_keras():
    expected = _keras_mask(keras.layers.Embedding(5, 3, mask_zero=True)(PADDED))
    out = layers.Embedding(5, 3, mask_zero=True)(PADDED)
    # The attribute Keras's masking guide shows, on both engines' eager tensors.
    np.testing.assert_array_equal(_np(out._keras_mask), np.asarray(expected))
    np.testing.assert_array_equal(_np(get_mask(out)), np.asarray(expected))
    # Without mask_zero there is no mask, as in Keras.
    assert get_mask(layers.Embedding(5, 3)(PADDED)) is None
    assert _keras_mask(keras.layers.Embedding(5, 3)(PADDED)) is None


class _Receives(layers.Layer):
    """Records the mask its call receives; passes its input on."""

    supports_masking = True

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.received = []

    def call(self, x, mask=None):
        self.received.append(mask)
        return x * 2.0


def test_eager_layer_receives_the_carried_mask_and_leaves_its_own():
    masked = layers.Embedding(5, 3, mask_zero=True)(PADDED)
    probe = _Receives()
    out = probe(masked)
    np.testing.assert_array_equal(_np(probe.received[-1]), PADDED != 0)
    np.testing.assert_array_equal(_np(get_mask(out)), PADDED != 0)  # passed on
    # An explicit mask wins over the carried one.
    given = np.array([[True, False, False, False]] * 2)
    probe(masked, mask=given)
    np.testing.assert_array_equal(_np(probe.received[-1]), given)

    # A Masking layer's compute_mask output, then a pooling that reads it: Keras's numbers.
    x = np.random.default_rng(0).normal(size=(2, 4, 3)).astype("float32")
    x[0, 2:] = 0.0
    x[1, 1:] = 0.0
    for L, mask_of in ((keras.layers, _keras_mask), (layers, get_mask)):
        hidden = L.Masking(0.0)(x)
        pooled = L.GlobalAveragePooling1D()(hidden)
        if L is keras.layers:
            expected_mask, expected = np.asarray(mask_of(hidden)), np.asarray(pooled)
        else:
            np.testing.assert_array_equal(_np(mask_of(hidden)), expected_mask)
            np.testing.assert_allclose(_np(pooled), expected, rtol=1e-6, atol=1e-6)


def test_multi_head_attention_takes_query_and_value_masks_eagerly():
    rng = np.random.default_rng(1)
    tokens = np.array([[1, 2, 0], [3, 4, 5]], "int32")
    outs = []
    for L in (keras.layers, layers):
        embedding = L.Embedding(6, 4, mask_zero=True)
        attention = L.MultiHeadAttention(num_heads=2, key_dim=2)
        x = embedding(tokens)
        attention(x, x)
        if L is keras.layers:
            weights = [rng.normal(size=w.shape).astype("float32") for w in embedding.weights]
            weights += [rng.normal(size=w.shape).astype("float32") for w in attention.weights]
        embedding.set_weights(weights[:1])
        attention.set_weights(weights[1:])
        x = embedding(tokens)
        outs.append(np.asarray(ops.convert_to_numpy(attention(x, x))))
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-5)


def _subclassed(L, base):
    class Pooled(base):
        def __init__(self):
            super().__init__()
            self.embedding = L.Embedding(5, 3, mask_zero=True)
            self.dense = L.Dense(1)

        def call(self, x):
            return self.dense(L.GlobalAveragePooling1D()(self.embedding(x)))

    return Pooled()


def _twins():
    theirs = _subclassed(keras.layers, keras.Model)
    ours = _subclassed(layers, lamina.Model)
    theirs(PADDED)
    ours(PADDED)
    rng = np.random.default_rng(2)
    weights = [rng.normal(size=tuple(w.shape)).astype("float32") for w in theirs.weights]
    theirs.set_weights(weights)
    ours.set_weights(weights)
    return theirs, ours


def test_subclassed_model_ignores_padding_in_call_and_predict():
    theirs, ours = _twins()
    expected = np.asarray(theirs(PADDED))
    np.testing.assert_allclose(_np(ours(PADDED)), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours.predict(PADDED, verbose=0), expected, rtol=1e-6, atol=1e-6)
    # The padding changes nothing: [[1, 2, 0, 0]] is [[1, 2]].
    short = ours.predict(SHORT, verbose=0)
    np.testing.assert_allclose(ours.predict(PADDED[:1], verbose=0), short, rtol=1e-6)
    np.testing.assert_allclose(_np(ours(PADDED[:1])), _np(ours(SHORT)), rtol=1e-6)


def test_subclassed_model_trains_on_keras_numbers():
    theirs, ours = _twins()
    y = np.array([[1.0], [-1.0]], "float32")
    for model in (theirs, ours):
        optimizer = (keras if model is theirs else lamina).optimizers.SGD(0.5)
        model.compile(optimizer=optimizer, loss="mse")
    expected = theirs.fit(PADDED, y, epochs=2, batch_size=2, shuffle=False, verbose=0)
    got = ours.fit(PADDED, y, epochs=2, batch_size=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(got.history["loss"], expected.history["loss"], rtol=1e-5)
    expected_weights = [np.asarray(v.value) for v in theirs.weights]
    for mine, reference in zip(ours.get_weights(), expected_weights, strict=True):
        np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-6)
