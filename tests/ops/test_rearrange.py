"""`ops.rearrange` against Keras 3's `keras.ops.rearrange` and einops-style NumPy references."""

from __future__ import annotations

import os

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.graph import KerasTensor

os.environ.setdefault("KERAS_BACKEND", "jax")
import keras  # noqa: E402

X = np.arange(2 * 4 * 6 * 3, dtype="float32").reshape(2, 4, 6, 3)

KERAS_CASES = [
    ("b h w c -> b c h w", {}),
    ("b h w c -> (b h) w c", {}),
    ("b h w c -> h (b w) c", {}),
    ("b h w c -> b (c h w)", {}),
    ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 3}),
    ("b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 2}),
    ("b h w c -> b h w c", {}),
]


def test_matches_keras():
    # One test item for all cases: each item pays the suite's fresh-session setup.
    for pattern, lengths in KERAS_CASES:
        ours = ops.rearrange(X, pattern, **lengths)
        theirs = np.asarray(keras.ops.rearrange(X, pattern, **lengths))
        np.testing.assert_array_equal(ops.convert_to_numpy(ours), theirs, err_msg=pattern)
        # Symbolic shape inference agrees with Keras's on a fully known shape.
        ours_spec = ops.rearrange(KerasTensor(X.shape), pattern, **lengths)
        theirs_spec = keras.ops.rearrange(keras.KerasTensor(X.shape), pattern, **lengths)
        assert ours_spec.shape == tuple(theirs_spec.shape), pattern


def test_space_to_depth_against_numpy():
    # "b (h h1) (w w1) c -> b h w (c h1 w1)" written with NumPy reshape/transpose.
    want = X.reshape(2, 2, 2, 3, 2, 3).transpose(0, 1, 3, 5, 2, 4).reshape(2, 2, 3, 12)
    got = ops.rearrange(X, "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=2)
    np.testing.assert_array_equal(ops.convert_to_numpy(got), want)


def test_ellipsis():
    got = ops.rearrange(X, "b ... c -> c b ...")
    np.testing.assert_array_equal(ops.convert_to_numpy(got), np.moveaxis(X, 3, 0))
    got = ops.rearrange(X, "b ... c -> (b c) ...")
    want = np.moveaxis(X, 3, 1).reshape(6, 4, 6)
    np.testing.assert_array_equal(ops.convert_to_numpy(got), want)
    got = ops.rearrange(X[0, 0, 0], "... c -> c ...")  # the ellipsis may stand for nothing
    np.testing.assert_array_equal(ops.convert_to_numpy(got), X[0, 0, 0])


def test_symbolic_with_unknown_batch_in_a_model():
    inputs = lamina.Input(shape=(4, 6, 3))
    patches = ops.rearrange(inputs, "b (h p1) (w p2) c -> b (h w) (p1 p2 c)", p1=2, p2=3)
    assert patches.shape == (None, 4, 18)
    merged = ops.rearrange(inputs, "b h w c -> (b h) w c")
    assert merged.shape == (None, 6, 3)
    split = ops.rearrange(inputs, "(b1 b) h w c -> b1 b (h w c)", b1=1)
    assert split.shape == (1, None, 72)
    model = lamina.Model(inputs, patches)
    want = np.asarray(keras.ops.rearrange(X, "b (h p1) (w p2) c -> b (h w) (p1 p2 c)", p1=2, p2=3))
    np.testing.assert_array_equal(ops.convert_to_numpy(model(X)), want)


BAD_PATTERNS = [
    ("b h w c", {}, "->"),
    ("b h w -> b h w", {}, "rank 4"),
    ("b h w c -> b h w", {}, "only on the left: \\['c'\\]"),
    ("b (h1 h) w c -> b h1 h w c", {}, "all but one"),
    ("b (h1 h) w c -> b h1 h w c", {"h1": 3}, "cannot be split"),
    ("b h w c -> b h w c", {"q": 2}, "does not use"),
    ("b h h c -> b h c", {}, "twice"),
    ("b h w c -> b (h w c", {}, "unbalanced"),
    ("b h w c -> b h w c", {"h": 5}, "size 4"),
]


def test_bad_patterns_are_explained():
    for pattern, lengths, message in BAD_PATTERNS:
        with pytest.raises(ValueError, match=message):
            ops.rearrange(X, pattern, **lengths)


def test_gradient_is_the_inverse_rearrangement():
    # d/dx sum(rearrange(x) * w) is w moved back to x's layout: for space-to-depth,
    # the NumPy inverse of the forward reshape/transpose.
    upstream = np.random.default_rng(0).standard_normal((2, 2, 3, 12)).astype("float32")
    want = upstream.reshape(2, 2, 3, 3, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(X.shape)

    def loss(x):
        y = ops.rearrange(x, "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=2)
        return ops.sum(ops.multiply(y, upstream))

    _, grad = lamina.backend.value_and_grad(loss)(ops.convert_to_tensor(X))
    np.testing.assert_allclose(ops.convert_to_numpy(grad), want, atol=1e-6)
