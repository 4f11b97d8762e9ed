"""Core, pooling and seed ops that differed from Keras 3 (or between engines), now aligned.

`while_loop` unpacks a tuple or list of loop variables as Keras does, pooling and
convolution take float64 and int64 NumPy inputs as every op converts them, and a seed
drawn from a `SeedGenerator` is a value of its own. Each case compares with Keras 3
itself on JAX (the test-only reference) or with a NumPy formula, on both engines.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402

import lamina  # noqa: E402
from lamina import ops  # noqa: E402
from lamina.ops import random  # noqa: E402


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


def _same_result(ours, theirs):
    """Same structure (tuple, dict or one value) and the same values."""
    if isinstance(theirs, (tuple, dict)):
        assert type(ours) is type(theirs), (type(ours), type(theirs))
    if isinstance(theirs, dict):
        assert ours.keys() == theirs.keys()
        pairs = [(ours[k], theirs[k]) for k in theirs]
    elif isinstance(theirs, tuple):
        assert len(ours) == len(theirs)
        pairs = list(zip(ours, theirs, strict=True))
    else:
        pairs = [(ours, theirs)]
    for a, b in pairs:
        assert ops.is_tensor(a), type(a)
        np.testing.assert_allclose(_np(a), np.asarray(b), rtol=1e-6)


# while_loop ---------------------------------------------------------------------------
WHILE_CASES = {
    # (cond, body, loop_vars, maximum_iterations)
    "tuple": (lambda i, s: i < 3, lambda i, s: (i + 1, s + i), (0, 0), None),
    "list_body_list": (lambda i, s: i < 4, lambda i, s: [i + 1, s * 2.0], [0, 1.5], None),
    "tuple_capped": (lambda i, s: i < 10, lambda i, s: (i + 1, s + i), (0, 0), 3),
    "one_item_tuple": (lambda i: i < 5, lambda i: (i + 2,), (0,), None),
    "single": (lambda v: v < 10, lambda v: v * 2, 1, None),
    "single_capped": (lambda v: v < 100, lambda v: v + 1, 0, 5),
    "dict": (lambda d: d["a"] < 3, lambda d: {"a": d["a"] + 1, "b": d["b"] * 2}, None, None),
}


@pytest.mark.parametrize("name", list(WHILE_CASES))
def test_while_loop_unpacks_like_keras(name):
    cond, body, loop_vars, max_iter = WHILE_CASES[name]
    if name == "dict":
        loop_vars = {"a": 0, "b": np.array([1.0, 2.0], "float32")}
    ours = ops.while_loop(cond, body, loop_vars, maximum_iterations=max_iter)
    theirs = keras.ops.while_loop(cond, body, loop_vars, maximum_iterations=max_iter)
    _same_result(ours, theirs)


def test_while_loop_keyword_and_array_state():
    # A tuple of arrays, unpacked into two arguments; the result is a tuple.
    x = np.arange(3, dtype="float32")

    def cond(total, step):
        return ops.sum(total) < 20.0

    def body(total, step):
        return total + step, step + 1.0

    total, step = ops.while_loop(cond=cond, body=body, loop_vars=(x, np.ones(3, "float32")))
    # NumPy reference: the same loop in Python.
    t, s = x.copy(), np.ones(3, "float32")
    while t.sum() < 20.0:
        t, s = t + s, s + 1.0
    np.testing.assert_allclose(_np(total), t)
    np.testing.assert_allclose(_np(step), s)


def test_while_loop_in_a_functional_model():
    inputs = lamina.Input(shape=(2,))
    a, b = ops.while_loop(
        lambda a, b: ops.sum(a) < 10.0, lambda a, b: (a + b, b), (inputs, inputs * 0.0 + 1.0)
    )
    assert a.shape == (None, 2) and b.shape == (None, 2)
    model = lamina.Model(inputs, a + 0.0 * b)
    x = np.array([[1.0, 2.0]], "float32")
    out = _np(model(x))
    expected = x.copy()
    while expected.sum() < 10.0:
        expected = expected + 1.0
    np.testing.assert_allclose(out, expected)


def test_while_loop_body_returning_the_wrong_count_is_a_clear_error():
    with pytest.raises(ValueError, match="as many values as `loop_vars`"):
        ops.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1,), (0, 0))


# Pooling and convolution with float64 / int64 NumPy inputs ----------------------------
X64 = np.random.RandomState(0).uniform(-2, 2, size=(2, 5, 5, 3))  # float64
K64 = np.random.RandomState(1).uniform(-1, 1, size=(2, 2, 3, 2))  # float64

POOL_CONV_CASES = {
    "average_pool_valid": lambda o: o.average_pool(X64, 2, 2),
    "average_pool_same": lambda o: o.average_pool(X64, 3, 2, padding="same"),
    "average_pool_int64": lambda o: o.average_pool(np.arange(25).reshape(1, 5, 5, 1), 2, 2),
    "max_pool_same": lambda o: o.max_pool(X64, 3, 2, padding="same"),
    # An int64 init value wrapped to 0 when narrowed to int32: the max of negative ints.
    "max_pool_negative_int64": lambda o: o.max_pool(-np.arange(1, 26).reshape(1, 5, 5, 1), 2, 2),
    "conv": lambda o: o.conv(X64, K64, padding="same"),
    "depthwise_conv": lambda o: o.depthwise_conv(X64, K64),
    "separable_conv": lambda o: o.separable_conv(X64, K64, np.ones((1, 1, 6, 2))),
    "conv_transpose": lambda o: o.conv_transpose(X64, np.ones((2, 2, 2, 3)), 2),
}


@pytest.mark.parametrize("name", list(POOL_CONV_CASES))
def test_pool_and_conv_take_float64_and_int64_numpy_like_keras(name):
    if name == "max_pool_negative_int64" and lamina.backend.backend() == "torch":
        pytest.skip("torch has no integer max pooling kernel (max_pool1d_impl for Int)")
    fn = POOL_CONV_CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = fn(ops)
    with warnings.catch_warnings():
        # Keras itself warns here ("float64 ... truncated to float32" for "same" average
        # pooling on JAX); its values are still the reference.
        warnings.simplefilter("ignore")
        theirs = fn(keras.ops)
    assert ops.dtype(ours) == keras.ops.dtype(theirs)
    np.testing.assert_allclose(_np(ours), np.asarray(theirs), rtol=1e-5, atol=1e-5)


def test_average_pool_float64_matches_numpy_window_means():
    x = np.arange(16, dtype="float64").reshape(1, 4, 4, 1)
    out = _np(ops.average_pool(x, 2))
    expected = x.reshape(1, 2, 2, 2, 2, 1).mean(axis=(2, 4))
    np.testing.assert_allclose(out, expected)
    assert out.dtype == np.float32


# Seeds drawn from a SeedGenerator -----------------------------------------------------
def test_drawn_seed_keeps_its_value_when_the_generator_advances():
    gen = random.SeedGenerator(3)
    state_before = _np(gen.state).copy()
    first = random.draw_seed(gen)
    first_value = _np(first).copy()
    second = random.draw_seed(gen)
    # The draw is the state before the draw, and stays so after the next draw.
    np.testing.assert_array_equal(first_value, state_before)
    np.testing.assert_array_equal(_np(first), first_value)
    assert (_np(first) != _np(second)).any()
    third = gen.next()
    assert (_np(second) != _np(third)).any() and (_np(first) != _np(third)).any()


def test_sample_from_a_generator_uses_the_seed_it_drew():
    # A sample drawn with a generator equals the sample drawn with the seed tensor that
    # the generator held before the draw (the seed the draw hands out).
    gen = random.SeedGenerator(5)
    for _ in range(2):
        held = ops.convert_to_tensor(_np(gen.state).copy())
        with_gen = _np(random.uniform((4,), seed=gen))
        with_seed = _np(random.uniform((4,), seed=held))
        np.testing.assert_array_equal(with_gen, with_seed)
