"""`ops.sparse_categorical_crossentropy` (Keras 3's op) against NumPy formulas."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import backend, ops

RNG = np.random.RandomState(0)
LOGITS = RNG.normal(size=(6, 5)).astype("float32")
LABELS = np.array([0, 4, 2, -1, 5, 3], dtype="int32")  # -1 and 5 are out of range


def _log_softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def _expected(log_probs, labels):
    n = log_probs.shape[-1]
    out = np.zeros(len(labels), "float64")
    for i, c in enumerate(labels):
        out[i] = -log_probs[i, c] if 0 <= c < n else 0.0
    return out


def test_from_logits_matches_log_softmax_and_out_of_range_labels_give_zero():
    got = ops.convert_to_numpy(
        ops.sparse_categorical_crossentropy(LABELS, LOGITS, from_logits=True)
    )
    np.testing.assert_allclose(
        got, _expected(_log_softmax(LOGITS.astype("float64")), LABELS), rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_labels_far_outside_the_range_give_zero_in_every_integer_dtype(dtype):
    # Labels far from the range, at the dtype's ends and one past each edge: a loss of 0,
    # as JAX's one-hot gives, never an error, never another class's loss.
    # (int64 labels beyond int32's range are not tried: both engines hold them as int32.)
    info = np.iinfo(dtype)
    wanted = np.array([-(2**31), -7, -1, 0, 4, 5, 6, 99, 2**31 - 1, 3])
    labels = wanted.clip(max(info.min, -(2**31)), min(info.max, 2**31 - 1)).astype(dtype)
    logits = np.resize(LOGITS, (len(labels), 5))
    got = ops.convert_to_numpy(ops.sparse_categorical_crossentropy(labels, logits, True))
    expected = _expected(_log_softmax(logits.astype("float64")), labels.astype(np.int64))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_probabilities_are_normalised_and_clipped():
    probs = np.exp(_log_softmax(LOGITS.astype("float64"))) * 3.0  # not summing to one
    probs[0, 0] = 0.0  # clipped to epsilon, not log(0)
    got = ops.convert_to_numpy(ops.sparse_categorical_crossentropy(LABELS, probs.astype("float32")))
    eps = backend.epsilon()
    normalised = np.clip(probs / probs.sum(axis=-1, keepdims=True), eps, 1 - eps)
    np.testing.assert_allclose(got, _expected(np.log(normalised), LABELS), rtol=1e-5, atol=1e-6)
    assert np.isfinite(got).all()


@pytest.mark.parametrize("axis", [1, -2])
def test_class_axis_other_than_last(axis):
    logits = np.moveaxis(LOGITS, -1, 1)[:, :, None]  # (6, 5, 1)
    labels = LABELS[:, None]
    got = ops.convert_to_numpy(ops.sparse_categorical_crossentropy(labels, logits, True, axis))
    np.testing.assert_allclose(
        got[:, 0], _expected(_log_softmax(LOGITS.astype("float64")), LABELS), rtol=1e-5, atol=1e-6
    )


def test_gradient_is_softmax_minus_one_hot_for_valid_labels():
    valid = (LABELS >= 0) & (LABELS < 5)

    def loss(z):
        return ops.sum(ops.sparse_categorical_crossentropy(LABELS, z, from_logits=True))

    _, grad = backend.value_and_grad(loss)(ops.convert_to_tensor(LOGITS))
    softmax = np.exp(_log_softmax(LOGITS.astype("float64")))
    expected = softmax.copy()
    expected[np.arange(6)[valid], LABELS[valid]] -= 1.0
    expected[~valid] = 0.0
    np.testing.assert_allclose(ops.convert_to_numpy(grad), expected, rtol=1e-5, atol=1e-6)


def test_symbolic_shape():
    import lamina

    x = lamina.Input((5,))
    y = lamina.Input((), dtype="int32")
    out = ops.sparse_categorical_crossentropy(y, x, from_logits=True)
    assert tuple(out.shape) == (None,)
