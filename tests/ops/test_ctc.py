"""ops.ctc_loss and ops.ctc_decode against Keras 3 (JAX backend) and NumPy references."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

import lamina
from lamina import backend, ops

os.environ.setdefault("KERAS_BACKEND", "jax")


def _np(x):
    return ops.convert_to_numpy(x)


def _case(seed=0, batch=3, steps=6, classes=4, max_label=3):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(batch, steps, classes)).astype("float32")
    target = rng.integers(1, classes, size=(batch, max_label)).astype("int32")
    target[0, 1] = target[0, 0]  # a repeated label needs a blank between
    target_length = np.array([3, 2, 1][:batch], "int32")
    output_length = np.array([steps - 1, steps - 2, steps - 3][:batch], "int32")
    return target, logits, target_length, output_length


def _brute_force_loss(target, logits, length, label_length, blank):
    """-log of the summed probability of every alignment that collapses to the label."""
    log_probs = logits[:length] - np.log(np.exp(logits[:length]).sum(-1, keepdims=True))
    label = tuple(target[:label_length])
    total = 0.0
    for path in itertools.product(range(logits.shape[-1]), repeat=length):
        collapsed = [c for i, c in enumerate(path) if c != blank and (i == 0 or path[i - 1] != c)]
        if tuple(collapsed) == label:
            total += np.exp(sum(log_probs[t, c] for t, c in enumerate(path)))
    return -np.log(total)


@pytest.mark.parametrize("mask_index", [0, 3])
def test_ctc_loss_matches_brute_force_enumeration(mask_index):
    target, logits, target_length, output_length = _case(classes=4)
    target = np.where(target == mask_index, (mask_index + 1) % 4, target)
    got = _np(ops.ctc_loss(target, logits, target_length, output_length, mask_index))
    want = [
        _brute_force_loss(target[b], logits[b], output_length[b], target_length[b], mask_index)
        for b in range(3)
    ]
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_ctc_loss_and_its_gradient_match_keras():
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "jax":
        pytest.skip("Keras reference runs on its JAX backend")
    import jax

    target, logits, target_length, output_length = _case(seed=1)

    def keras_total(z):  # compiled once with its gradient (eager Keras compiles per op)
        losses = keras.ops.ctc_loss(target, z, target_length, output_length)
        return keras.ops.sum(losses), losses

    (_, want), want_grad = jax.jit(jax.value_and_grad(keras_total, has_aux=True))(logits)
    got = _np(ops.ctc_loss(target, logits, target_length, output_length))
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5)
    if backend.backend() == "jax":
        grad = jax.grad(lambda z: ops.sum(ops.ctc_loss(target, z, target_length, output_length)))
        got_grad = np.asarray(jax.jit(grad)(logits))
    else:
        import torch

        z = torch.tensor(logits, requires_grad=True)
        ops.sum(ops.ctc_loss(target, z, target_length, output_length)).backward()
        got_grad = z.grad.numpy()
    np.testing.assert_allclose(got_grad, np.asarray(want_grad), rtol=1e-4, atol=1e-6)


def test_ctc_loss_of_an_impossible_label_is_large_and_finite():
    target = np.array([[1, 1, 1]], "int32")  # needs 5 steps, only 3 given
    loss = _np(ops.ctc_loss(target, np.zeros((1, 3, 3), "float32"), [3], [3]))
    assert np.isfinite(loss).all() and loss[0] > 1e4


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"merge_repeated": False},
        {"mask_index": 3},
        {"strategy": "beam_search", "beam_width": 10, "top_paths": 3, "mask_index": 3},
    ],
)
def test_ctc_decode_matches_keras(kwargs):
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "jax":
        pytest.skip("Keras reference runs on its JAX backend")
    import jax

    _, logits, _, lengths = _case(seed=2, steps=7)
    decoded, scores = ops.ctc_decode(logits, lengths, **kwargs)
    # Compiled: one compilation instead of one per eager Keras op.
    want_decoded, want_scores = jax.jit(lambda z: keras.ops.ctc_decode(z, lengths, **kwargs))(
        logits
    )
    np.testing.assert_array_equal(_np(decoded), np.asarray(want_decoded))
    np.testing.assert_allclose(_np(scores), np.asarray(want_scores), rtol=1e-5, atol=1e-5)


def test_ctc_ops_are_symbolic_with_the_eager_shapes():
    target, logits, target_length, output_length = _case()
    x = lamina.Input((6, 4))
    labels = lamina.Input((3,), dtype="int32")
    lengths = lamina.Input((), dtype="int32")
    loss = ops.ctc_loss(labels, x, lengths, lengths)
    assert loss.shape == (None,) and loss.dtype == "float32"
    for strategy in ("greedy", "beam_search"):
        decoded, scores = ops.ctc_decode(x, lengths, strategy=strategy, top_paths=2)
        eager_decoded, eager_scores = ops.ctc_decode(
            logits, output_length, strategy=strategy, top_paths=2
        )
        top = eager_decoded.shape[0]
        assert decoded.shape == (top, None, 6) and decoded.dtype == "int32"
        assert scores.shape == (None, top) and scores.dtype == "float32"
        model = lamina.Model([x, lengths], [decoded, scores])
        if strategy == "beam_search" and backend.backend() == "jax":
            # Beam search runs on the host: compiled code has no values to give it.
            with pytest.raises(ValueError, match="runs on the host"):
                model([logits, output_length])
            continue
        got = model([logits, output_length])
        np.testing.assert_array_equal(_np(got[0]), _np(eager_decoded))
    model = lamina.Model([labels, x, lengths], loss)
    np.testing.assert_allclose(
        _np(model([target, logits, output_length])),
        _np(ops.ctc_loss(target, logits, output_length, output_length)),
        rtol=1e-6,
    )


def test_ctc_decode_refuses_an_unknown_strategy():
    with pytest.raises(ValueError, match="unknown strategy 'best'"):
        ops.ctc_decode(np.zeros((1, 2, 3), "float32"), [2], strategy="best")
