"""NumPy-style ops that differed from Keras 3 (or between lamina's engines), now aligned.

Each case compares with Keras 3 itself on JAX (the test-only reference) or with NumPy,
eagerly on both engines; a few check that symbolic (KerasTensor) and `jax.jit`-traced use
keep working, or fail with a clear message where a value-dependent rule cannot apply.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402

from lamina import ops  # noqa: E402
from lamina.graph.keras_tensor import KerasTensor  # noqa: E402


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


def _keras(x):
    return np.asarray(keras.ops.convert_to_numpy(x))


def _same(got, want):
    """Same values, shape and dtype (lamina's result against a NumPy/Keras reference)."""
    got = _np(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want)


# 1. bincount: lengths from the data, eagerly ---------------------------------------------
def test_bincount_rank2_without_minlength_counts_to_max_plus_one():
    x = np.array([[0, 1], [1, 1]], "int32")
    _same(ops.bincount(x), _keras(keras.ops.bincount(x)))


def test_bincount_rank2_rows_of_different_maxima_share_one_length():
    x = np.array([[0, 3], [1, 1]], "int32")
    want = np.stack([np.bincount(row, minlength=4) for row in x]).astype("int32")
    _same(ops.bincount(x), want)


def test_bincount_rank2_weights_without_minlength():
    x = np.array([[0, 2], [2, 2]], "int32")
    w = np.array([[0.5, 1.0], [2.0, 0.25]], "float32")
    want = np.stack([np.bincount(r, weights=v, minlength=3) for r, v in zip(x, w)])
    _same(ops.bincount(x, weights=w), want.astype("float32"))


@pytest.mark.parametrize("shape", [(4,), (2, 2)])
def test_bincount_minlength_is_a_minimum_not_a_cut(shape):
    x = np.array([0, 5, 1, 1], "int32").reshape(shape)
    got = ops.bincount(x, minlength=3)
    if len(shape) == 1:
        _same(got, _keras(keras.ops.bincount(x, minlength=3)))
    else:
        _same(got, np.stack([np.bincount(r, minlength=6) for r in x]).astype("int32"))


def test_bincount_symbolic_with_minlength():
    # As Keras: the length is unknown, since the data may hold values past `minlength`
    # (eagerly the length is max(max(x) + 1, minlength)).
    out = ops.bincount(KerasTensor((None, 3), "int32"), minlength=4)
    assert out.shape == (None, None) and out.dtype == "int32"


@pytest.mark.engine("jax")
@pytest.mark.parametrize("shape", [(4,), (2, 2)])
def test_bincount_traced_without_minlength_asks_for_it(shape):
    import jax

    x = np.array([0, 1, 1, 3], "int32").reshape(shape)
    with pytest.raises(ValueError, match="minlength"):
        jax.jit(ops.bincount)(x)
    # With minlength the traced length is minlength (values beyond it are dropped).
    got = jax.jit(lambda v: ops.bincount(v, minlength=4))(x)
    want = np.bincount(x.reshape(-1), minlength=4) if len(shape) == 1 else None
    if want is not None:
        _same(got, want.astype("int32"))
    else:
        _same(got, np.stack([np.bincount(r, minlength=4) for r in x]).astype("int32"))


# 2. clip: one Python bound, one tensor bound -----------------------------------------------
@pytest.mark.parametrize(
    "x, lo, hi",
    [
        (np.array([1.0, 5.0], "float32"), 0.0, np.array([3.0, 3.0], "float32")),
        (np.array([-1.0, 5.0], "float32"), np.array([0.0, 1.0], "float32"), 3.0),
        (np.array([1, 5], "int32"), 0, np.array([3, 3], "int32")),
        (np.array([1, 5], "int32"), 0.5, np.array([3, 3], "int32")),
        (np.array([-2, 5], "int32"), np.array([0.0, 1.0], "float32"), 4),
    ],
)
def test_clip_mixed_number_and_tensor_bounds(x, lo, hi):
    _same(ops.clip(x, lo, hi), _keras(keras.ops.clip(x, lo, hi)))


# 3. where(condition): the indices of the true elements -------------------------------------
@pytest.mark.parametrize(
    "condition",
    [np.array([[0, 1], [1, 0]], "int32"), np.array([True, False, True]), np.zeros((2, 3))],
)
def test_where_one_argument_is_nonzero(condition):
    got = ops.where(condition)
    want = keras.ops.where(condition)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        _same(g, _keras(w))


@pytest.mark.parametrize("given", ["x1", "x2"])
def test_where_with_only_one_of_x1_x2_raises(given):
    c = np.array([True, False])
    kwargs = {given: np.array([1.0, 2.0], "float32")}
    with pytest.raises(ValueError, match="both x1 and x2"):
        ops.where(c, **kwargs)


# 4. Shape functions on NumPy input give engine tensors with lamina's dtypes -----------------
@pytest.mark.parametrize(
    "f",
    [
        lambda o, x: o.reshape(x, (3, 2)),
        lambda o, x: o.reshape(x, (-1,)),
        lambda o, x: x[1] if o is np else o.get_item(x, 1),
        lambda o, x: x[:, 0:2] if o is np else o.get_item(x, (slice(None), slice(0, 2))),
    ],
    ids=["reshape", "reshape_flat", "get_item", "get_item_slice"],
)
def test_numpy_int64_input_gives_engine_int32_tensor(f):
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    got = f(ops, x)
    assert ops.is_tensor(got) and not isinstance(got, np.ndarray), type(got)
    assert ops.dtype(got) == ops.dtype(ops.convert_to_tensor(x)) == "int32"
    _same(got, f(np, x).astype("int32"))


def test_reshape_of_numpy_matches_keras():
    x = np.arange(6, dtype=np.int64)
    _same(ops.reshape(x, (2, None)), _keras(keras.ops.reshape(x, (2, -1))))


# 5. pad: constant_values only with mode="constant" ----------------------------------------
@pytest.mark.parametrize("mode", ["reflect", "edge", "symmetric", "wrap"])
def test_pad_constant_values_with_other_mode_raises(mode):
    x = np.ones((3,), "float32")
    with pytest.raises(ValueError, match="constant_values"):
        ops.pad(x, 1, mode=mode, constant_values=2)


def test_pad_constant_values_none_with_other_mode_still_pads():
    x = np.array([1.0, 2.0, 3.0], "float32")
    _same(ops.pad(x, 1, mode="reflect"), np.pad(x, 1, mode="reflect"))


# 6. quantile / nanquantile: q outside [0, 1] -----------------------------------------------
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
@pytest.mark.parametrize("q", [1.5, -0.1, [0.5, 2.0], np.array(1.5, "float32")])
def test_quantile_out_of_range_q_raises(fn, q):
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        getattr(ops, fn)(np.arange(3.0, dtype="float32"), q)


def test_percentile_out_of_range_raises():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ops.percentile(np.arange(3.0, dtype="float32"), 150)


@pytest.mark.parametrize("q", [0.0, 1.0, [0.25, 0.75]])
def test_quantile_in_range_still_matches_numpy(q):
    x = np.array([3.0, 1.0, 2.0, 5.0], "float32")
    _same(ops.quantile(x, q), np.quantile(x, q).astype("float32"))


@pytest.mark.engine("jax")
def test_quantile_traced_q_keeps_working():
    import jax

    x = np.array([3.0, 1.0, 2.0, 5.0], "float32")
    got = jax.jit(lambda q: ops.quantile(x, q))(np.float32(0.5))
    _same(got, np.quantile(x, 0.5).astype("float32"))


def test_quantile_out_of_range_q_raises_for_symbolic_x():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ops.quantile(KerasTensor((None, 3), "float32"), 1.5, axis=1)
    out = ops.quantile(KerasTensor((None, 3), "float32"), 0.5, axis=1)
    assert out.shape == (None,)


# Python lists as array arguments (Keras converts them; JAX's jnp refuses them) ------------
@pytest.mark.parametrize(
    "f",
    [
        lambda o: o.sum([[1, 2], [3, 4]], axis=0),
        lambda o: o.mean([1.0, 2.5]),
        lambda o: o.take(np.arange(5, dtype="int32"), [0, 3]),
        lambda o: o.add([1, 2], 1),
        lambda o: o.multiply([1.5, 2.0], np.array([2.0, 2.0], "float32")),
        lambda o: o.concatenate([[1, 2], [3]]),
        lambda o: o.stack([[1.0, 2.0], [3.0, 4.0]], axis=1),
        lambda o: o.einsum("i,i->", [1.0, 2.0], [3.0, 4.0]),
        lambda o: o.average([1.0, 2.0, 4.0], weights=[1.0, 0.0, 1.0]),
        lambda o: o.transpose([[1, 2, 3]]),
        lambda o: o.matmul([[1.0, 2.0]], [[3.0], [4.0]]),
        lambda o: o.sort([3, 1, 2]),
    ],
    ids=lambda f: "",
)
def test_list_arguments_are_arrays(f):
    _same(f(ops), _keras(f(keras.ops)))


def test_where_takes_lists():
    # Keras 3 refuses lists here; NumPy is the reference.
    want = np.where([True, False], [1, 2], [3, 4]).astype("int32")
    _same(ops.where([True, False], [1, 2], [3, 4]), want)


@pytest.mark.engine("jax")
def test_list_of_traced_arrays_under_jit():
    import jax

    got = jax.jit(lambda a: ops.stack([a, [1.0, 2.0]]))(np.ones(2, "float32"))
    _same(got, np.array([[1.0, 1.0], [1.0, 2.0]], "float32"))
    got = jax.jit(lambda a, b: ops.sum([a, b]))(np.float32(1.0), np.float32(2.0))
    _same(got, np.array(3.0, "float32"))


# round: integers to negative decimals (jnp refuses them; torch and NumPy do it) ---------
@pytest.mark.parametrize("decimals", [-1, -2])
def test_round_integers_to_negative_decimals(decimals):
    x = np.array([15, 25, -15, 149, 150, 250, -251, 7], "int32")
    _same(ops.round(x, decimals), np.round(x, decimals))


def test_round_small_integers_without_overflow():
    x = np.array([-128, -51, -50, 49, 50, 51, 127], "int8")
    _same(ops.round(x, -2), np.round(x.astype("int32"), -2).astype("int8"))


# floor / ceil of integers and bool give floats; int8 matmul accumulates in int32 ---------
@pytest.mark.parametrize("name", ["floor", "ceil"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "int64", "float16"])
def test_floor_ceil_dtypes_follow_keras(name, dtype):
    x = np.array([[1, -2, 3], [0, 4, -1]]).astype(dtype)
    _same(getattr(ops, name)(x), _keras(getattr(keras.ops, name)(x)))


def test_int8_matmul_accumulates_in_int32():
    a = np.full((2, 8), 100, "int8")
    b = np.full((8, 3), 100, "int8")
    want = _keras(keras.ops.matmul(a, b))
    assert want.dtype == np.int32 and want[0, 0] == 80000
    _same(ops.matmul(a, b), want)


# full: the default dtype is floatx whatever the fill value ---------------------------------
@pytest.mark.parametrize("fill", [3, 2.5, True, np.int32(3), np.array([1, 2], "int8")], ids=str)
def test_full_default_dtype_follows_keras(fill):
    _same(ops.full((3, 2), fill), _keras(keras.ops.full((3, 2), fill)))


def test_full_with_dtype():
    _same(ops.full((2,), 7, dtype="int32"), np.full((2,), 7, "int32"))


# Engine parity on edge cases (both engines now as NumPy / the JAX engine) -----------------
def test_clip_without_bounds_is_identity():
    x = np.array([-1.0, 2.0], "float32")
    _same(ops.clip(x, None, None), x)


@pytest.mark.parametrize("fn", ["nonzero", "where"])
def test_nonzero_of_0d_raises(fn):
    with pytest.raises(ValueError):
        getattr(ops, fn)(np.array(1))


def test_pad_negative_width_raises():
    with pytest.raises(ValueError):
        ops.pad(np.ones(3, "float32"), -1)


@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
def test_quantile_nan_q_raises(fn):
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        getattr(ops, fn)(np.arange(3.0, dtype="float32"), np.nan)


@pytest.mark.parametrize(
    "f",
    [
        lambda o: o.subtract(np.array([1, 2], "int8"), True),
        lambda o: o.subtract(True, np.array([1, 2], "int32")),
        lambda o: o.append(np.array([1, 2], "int8"), 3),
        lambda o: o.append(np.array([1.0], "float16"), 2.5),
        lambda o: o.median(np.array([[1.0, 3.0, 2.0], [4.0, 0.5, 1.5]], "float16"), axis=1),
        lambda o: o.quantile(np.array([1.0, 3.0, 2.0], "float16"), [0.25, 0.5]),
    ],
    ids=["sub_int8_bool", "sub_bool_int32", "append_int8", "append_f16", "median", "quantile"],
)
def test_weak_scalars_and_half_precision_quantiles(f):
    want = _keras(f(keras.ops))
    got = _np(f(ops))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.astype("float32"), want.astype("float32"), rtol=1e-2)
