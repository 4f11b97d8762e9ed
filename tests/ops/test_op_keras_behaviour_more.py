"""More op behaviours that differed from Keras 3 (or between lamina's engines), aligned.

Symbolic `nonzero`, `unique` and `bincount` have an unknown (None) output length, max
pooling takes integers and booleans, `while_loop` calls `cond` before checking the
iteration cap, `nanargmax`/`nanargmin` give -1 on an all-NaN slice, `dtype` reports a
NumPy array's own dtype, `affine_transform`/`map_coordinates` default `fill_value=0`,
`einsum` takes Keras's `**kwargs`, and `take` out of range does what Keras does on each
engine. Each case compares with Keras 3 itself (the test-only reference, on JAX; Keras's
torch backend functions where the behaviour is torch's) or a NumPy formula.
"""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402

import lamina  # noqa: E402
from lamina import ops  # noqa: E402
from lamina.graph import KerasTensor  # noqa: E402

ENGINE = lamina.backend.backend()


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


def _specs(out):
    """`(shape, dtype)` of each output KerasTensor (one, or a tuple/list of them)."""
    if isinstance(out, (tuple, list)):
        return [(tuple(t.shape), str(t.dtype)) for t in out]
    return (tuple(out.shape), str(out.dtype))


def _keras_torch():
    """Keras's torch backend functions (importable beside Keras on JAX)."""
    from keras.src.backend.torch import core, numpy

    return core, numpy


# 1. Data-dependent output lengths -------------------------------------------------------
SYMBOLIC_CASES = {
    # name: (op name, input shape (batch dim None for an Input), input dtype, kwargs)
    "nonzero_input": ("nonzero", (None, 5), "float32", {}),
    "nonzero_rank3": ("nonzero", (2, 3, 4), "int32", {}),
    "unique": ("unique", (6,), "int32", {}),
    "unique_all": (
        "unique",
        (6,),
        "int32",
        {"return_index": True, "return_inverse": True, "return_counts": True},
    ),
    "unique_axis": ("unique", (4, 3), "float32", {"axis": 0, "return_inverse": True}),
    "unique_size": ("unique", (6,), "int32", {"size": 3, "return_counts": True}),
    "bincount": ("bincount", (6,), "int32", {}),
    "bincount_minlength": ("bincount", (6,), "int32", {"minlength": 3}),
    "bincount_rank2": ("bincount", (2, 6), "int32", {}),
    "bincount_weights": (
        "bincount",
        (6,),
        "int32",
        {"weights": np.linspace(0.0, 1.0, 6).astype("float32")},
    ),
}


@pytest.mark.parametrize("name", list(SYMBOLIC_CASES))
def test_data_dependent_length_is_unknown_symbolically(name):
    op_name, shape, dtype, kwargs = SYMBOLIC_CASES[name]
    ours = getattr(ops, op_name)(KerasTensor(shape, dtype), **kwargs)
    theirs = getattr(keras.ops, op_name)(keras.KerasTensor(shape, dtype), **kwargs)
    assert _specs(ours) == _specs(theirs)


def test_where_with_condition_only_is_nonzero_symbolically():
    # Eagerly `where(condition)` is `nonzero(condition)` (Keras's symbolic spec says one
    # tensor of the condition's shape, which its eager result is not).
    ours = ops.where(KerasTensor((None, 3), "bool"))
    eager = keras.ops.where(np.array([[True, False, True]]))
    assert isinstance(ours, tuple) and len(ours) == len(eager) == 2
    assert _specs(ours) == [((None,), "int32")] * 2
    both = ops.where(KerasTensor((None, 3), "bool"), KerasTensor((3,), "float32"), 1.0)
    assert _specs(both) == ((None, 3), "float32")


def test_data_dependent_specs_match_eager_results():
    # The symbolic dtypes are those the engine computes; the lengths are data's.
    x = np.array([3, 0, 1, 3, 0, 2], "int32")
    y = ops.unique(x, return_index=True, return_inverse=True, return_counts=True)
    spec = ops.unique(KerasTensor((6,), "int32"), True, True, True, True)
    assert [ops.dtype(t) for t in y] == [s.dtype for s in spec]
    np.testing.assert_array_equal(_np(y[0]), [0, 1, 2, 3])
    np.testing.assert_array_equal(_np(y[3]), [2, 1, 1, 2])
    counts = ops.bincount(x, weights=np.ones(6, "float32"))
    assert ops.dtype(counts) == ops.bincount(KerasTensor((6,), "int32"), np.ones(6)).dtype
    np.testing.assert_array_equal(_np(counts), np.bincount(x).astype("float32"))
    rows, cols = ops.nonzero(np.array([[0, 1], [2, 0]]))
    assert ops.dtype(rows) == "int32"
    np.testing.assert_array_equal(_np(cols), [1, 0])


def test_data_dependent_op_in_a_model():
    inputs = lamina.Input((5,), dtype="int32")
    counts = ops.bincount(ops.reshape(inputs, (-1,)), minlength=4)
    assert counts.shape == (None,)
    model = lamina.Model(inputs, counts)
    out = model.predict(np.array([[0, 1, 1, 3, 3]], "int32"), verbose=0)
    np.testing.assert_array_equal(out, [1, 2, 0, 2])


# 2. Pooling integers and booleans -------------------------------------------------------
POOL_CASES = [
    # (rank, pool_size, strides, padding, data_format)
    (1, 2, 2, "valid", "channels_last"),
    (1, 3, 1, "same", "channels_first"),
    (2, 2, 1, "same", "channels_last"),
    (2, 3, 2, "same", "channels_first"),
    (3, 2, 2, "valid", "channels_first"),
    (3, 2, 1, "same", "channels_last"),
]


def _pool_input(rank, data_format, dtype):
    rng = np.random.default_rng(rank)
    shape = (2,) + (5,) * rank + (3,)
    x = rng.integers(-50, 50, size=shape)
    if data_format == "channels_first":
        x = np.moveaxis(x, -1, 1)
    return (x > 0) if dtype == "bool" else x.astype(dtype)


@pytest.mark.parametrize("case", POOL_CASES, ids=[f"{c[0]}d-{c[3]}-{c[4]}" for c in POOL_CASES])
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "bool"])
def test_max_pool_takes_integers_and_booleans(case, dtype):
    rank, size, strides, padding, data_format = case
    x = _pool_input(rank, data_format, dtype)
    if dtype == "uint8":
        x = x - x.min()
    ours = ops.max_pool(x, size, strides, padding, data_format)
    theirs = keras.ops.max_pool(x, size, strides, padding, data_format)
    assert ops.dtype(ours) == keras.ops.dtype(theirs)
    np.testing.assert_array_equal(_np(ours), np.asarray(theirs))


@pytest.mark.parametrize("case", POOL_CASES[:3], ids=[f"{c[0]}d-{c[3]}" for c in POOL_CASES[:3]])
@pytest.mark.parametrize("dtype", ["int32", "uint8", "bool"])
def test_average_pool_of_integers_is_float(case, dtype):
    rank, size, strides, padding, data_format = case
    x = _pool_input(rank, data_format, dtype)
    if dtype == "uint8":
        x = x - x.min()
    # The average of the values: Keras on JAX sums uint8 windows in uint8 (wrapping
    # around), and refuses booleans; lamina averages every dtype as float32.
    reference = keras.ops.average_pool(x.astype("float32"), size, strides, padding, data_format)
    ours = ops.average_pool(x, size, strides, padding, data_format)
    assert ops.dtype(ours) == "float32"
    if dtype == "int32":
        assert keras.ops.dtype(keras.ops.average_pool(x, size, strides, padding, data_format)) == (
            "float32"
        )
    np.testing.assert_allclose(_np(ours), np.asarray(reference), rtol=1e-6)


# 3. while_loop: cond before the iteration cap -------------------------------------------
def _counting_loop(while_loop, maximum_iterations, limit):
    calls = {"cond": 0, "body": 0}

    def cond(i):
        calls["cond"] += 1
        return i < limit

    def body(i):
        calls["body"] += 1
        return i + 1

    out = while_loop(cond, body, 0, maximum_iterations=maximum_iterations)
    return calls, int(np.asarray(ops.convert_to_numpy(out) if ops.is_tensor(out) else out))


@pytest.mark.parametrize("maximum_iterations, limit", [(0, 5), (2, 5), (3, 3), (None, 4)])
def test_while_loop_calls_cond_before_the_cap(maximum_iterations, limit):
    if ENGINE == "torch":
        # Eager Python loop on both: each call of `cond` and `body` counts.
        reference = _keras_torch()[0].while_loop
    else:
        reference = keras.ops.while_loop  # traced: each function traced once
    ours = _counting_loop(ops.while_loop, maximum_iterations, limit)
    theirs = _counting_loop(reference, maximum_iterations, limit)
    assert ours == theirs


def test_while_loop_cond_raising_at_the_cap_raises():
    # Keras evaluates `cond` first: a `cond` that refuses the state at the cap is seen.
    def cond(i):
        if int(ops.convert_to_numpy(i)) >= 2:
            raise RuntimeError("cond saw the capped state")
        return True

    if ENGINE != "torch":
        pytest.skip("JAX traces `cond` once, on an abstract value")
    with pytest.raises(RuntimeError, match="capped state"):
        ops.while_loop(cond, lambda i: i + 1, 0, maximum_iterations=2)
    with pytest.raises(RuntimeError, match="capped state"):
        _keras_torch()[0].while_loop(cond, lambda i: i + 1, 0, maximum_iterations=2)


# 4. nanargmax / nanargmin on all-NaN slices --------------------------------------------
NAN_X = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, 4.0], [np.nan, 2.0, -1.0]], "float32")


@pytest.mark.parametrize("op_name", ["nanargmax", "nanargmin"])
@pytest.mark.parametrize(
    "x, axis, keepdims",
    [
        (NAN_X, 1, False),
        (NAN_X, 0, False),
        (NAN_X, 1, True),
        (NAN_X, None, False),
        (np.full((4,), np.nan, "float32"), None, False),
        (np.full((2, 3), np.nan, "float32"), None, True),
        (np.arange(6).reshape(2, 3), 1, False),
    ],
)
def test_nanarg_all_nan_is_minus_one(op_name, x, axis, keepdims):
    ours = getattr(ops, op_name)(x, axis=axis, keepdims=keepdims)
    theirs = getattr(keras.ops, op_name)(x, axis=axis, keepdims=keepdims)
    np.testing.assert_array_equal(_np(ours), np.asarray(theirs))
    assert _np(ours).shape == np.asarray(theirs).shape


# 5. dtype of NumPy input ---------------------------------------------------------------
@pytest.mark.parametrize(
    "value",
    [
        np.arange(3),
        np.arange(3, dtype="int64"),
        np.zeros(2, "float64"),
        np.zeros(2, "uint32"),
        np.zeros(2, "int16"),
        np.zeros(2, "bool"),
        np.float64(1.5),
        np.int64(3),
    ],
    ids=lambda v: f"{type(v).__name__}-{v.dtype}",
)
def test_dtype_reports_the_numpy_dtype(value):
    assert ops.dtype(value) == keras.ops.dtype(value)


def test_ops_from_other_ops_compute_in_the_converted_dtype():
    # Ops written from other ops work in the dtype a NumPy input converts to: float64
    # input on JAX (no x64) stays float32, with no truncation warning.
    x = np.array([1.0, 3.0, 2.0], "float64")
    out = ops.sparsemax(x)
    assert ops.dtype(out) == ops.dtype(ops.convert_to_tensor(x))
    np.testing.assert_allclose(_np(out), [0.0, 1.0, 0.0], atol=1e-6)
    assert ops.dtype(ops.nanmean(x)) == ops.dtype(ops.convert_to_tensor(x))


def test_dtype_of_converted_int64_stays_int32():
    # Only the reported dtype of the NumPy input changed, not conversion.
    x = np.arange(3, dtype="int64")
    assert ops.dtype(ops.convert_to_tensor(x)) == "int32"
    assert keras.ops.dtype(keras.ops.convert_to_tensor(x)) == "int32"
    assert ops.dtype([1.5, 2.0]) == "float32"  # no `dtype`: converted, as before


# 6. fill_value defaults ----------------------------------------------------------------
@pytest.mark.parametrize("name", ["affine_transform", "map_coordinates"])
def test_fill_value_default_is_int_zero(name):
    ours = inspect.signature(getattr(ops.image, name)).parameters["fill_value"].default
    theirs = inspect.signature(getattr(keras.ops.image, name)).parameters["fill_value"].default
    assert (type(ours), ours) == (type(theirs), theirs) == (int, 0)


def test_affine_transform_default_fill_is_zero():
    images = np.arange(1.0, 17.0, dtype="float32").reshape(1, 4, 4, 1)
    shift = np.array([1, 0, 2, 0, 1, 0, 0, 0], "float32")  # read 2 columns to the right
    out = _np(ops.image.affine_transform(images, shift, interpolation="nearest"))
    expected = np.zeros_like(images)
    expected[:, :, :2] = images[:, :, 2:]
    np.testing.assert_array_equal(out, expected)
    assert out.dtype == np.float32


# 7. einsum takes **kwargs --------------------------------------------------------------
def test_einsum_signature_takes_kwargs():
    ours = [(p.name, p.kind) for p in inspect.signature(ops.einsum).parameters.values()]
    theirs = [(p.name, p.kind) for p in inspect.signature(keras.ops.einsum).parameters.values()]
    assert ours == theirs


def test_einsum_options():
    a = np.arange(6.0, dtype="float32").reshape(2, 3)
    b = np.arange(12.0, dtype="float32").reshape(3, 4)
    for kwargs in ({"optimize": "optimal"}, {"precision": "highest"}, {}):
        np.testing.assert_allclose(_np(ops.einsum("ij,jk->ik", a, b, **kwargs)), a @ b)
    out = ops.einsum(
        "i,i->",
        np.arange(3, dtype="int32"),
        np.arange(3, dtype="int32"),
        preferred_element_type="float32",
    )
    assert ops.dtype(out) == "float32" and float(_np(out)) == 5.0
    with pytest.raises(TypeError, match="unexpected keyword"):
        ops.einsum("ij,jk->ik", a, b, transpose=True)


def test_einsum_of_int8_accumulates_in_int32():
    a = np.full((2, 3), 100, "int8")
    ours = ops.einsum("ij,kj->ik", a, a)
    theirs = keras.ops.einsum("ij,kj->ik", a, a)
    assert ops.dtype(ours) == keras.ops.dtype(theirs) == "int32"
    np.testing.assert_array_equal(_np(ours), np.asarray(theirs))
    np.testing.assert_array_equal(_np(ours), a.astype("int32") @ a.T.astype("int32"))


# 8. take out of range ------------------------------------------------------------------
TAKE_CASES = [
    (np.arange(4.0, dtype="float32"), 5, None),
    (np.arange(4.0, dtype="float32"), np.array([0, -5]), None),
    (np.arange(8.0, dtype="float32").reshape(4, 2), np.array([1, 7]), 0),
    (np.arange(8, dtype="int32").reshape(4, 2), np.array([[2], [9]]), 0),
]


@pytest.mark.parametrize("x, indices, axis", TAKE_CASES)
def test_take_out_of_range_as_keras_on_this_engine(x, indices, axis):
    if ENGINE == "jax":
        # Keras on JAX fills (NaN for floats, the least value for signed integers).
        ours = ops.take(x, indices, axis=axis)
        theirs = keras.ops.take(x, indices, axis=axis)
        np.testing.assert_array_equal(_np(ours), np.asarray(theirs))
        assert ops.dtype(ours) == keras.ops.dtype(theirs)
    else:
        # Keras on torch raises torch's IndexError.
        with pytest.raises(IndexError):
            _keras_torch()[1].take(x, indices, axis=axis)
        with pytest.raises(IndexError):
            ops.take(x, indices, axis=axis)


def test_take_in_range_negative_indices_agree():
    x = np.arange(8.0, dtype="float32").reshape(4, 2)
    ours = ops.take(x, np.array([-1, -4]), axis=0)
    np.testing.assert_array_equal(_np(ours), x[[-1, -4]])
