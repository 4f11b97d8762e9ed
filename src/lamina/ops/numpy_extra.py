"""The NumPy long tail Keras 3 has, written once from other ops.

Aliases (`amax`, `fabs`, `conjugate`, ...), stacking and splitting helpers, NaN-ignoring
reductions, windows, spacing, and small formulas (`sinc`, `heaviside`, `kron`, ...):
compositions of contract ops, so each runs and differentiates on every engine.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.nansum(np.array([1.0, np.nan, 2.0]))).item()
3.0
"""

from __future__ import annotations

import inspect
import math

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, convert_to_tensor, declared_op, shape


def _float(x):
    x = convert_to_tensor(x)
    return x if "float" in dtype(x) else cast(x, backend.result_type(dtype(x), float))


def _alias(module, name, alias, doc):
    """`module.name` under NumPy's other name `alias`, with its own docstring `doc`."""
    op = declared_op(module, name)
    op.__name__ = op.__qualname__ = alias
    op.__doc__ = inspect.cleandoc(doc)
    return op


bitwise_not = _alias(
    "numpy",
    "bitwise_invert",
    "bitwise_not",
    """Elementwise bitwise NOT (alias of `bitwise_invert`).

    Args:
        x: Integer or bool tensor.

    Returns:
        `~x`, same dtype as `x` (for signed integers, `-x - 1`).

    Example:

    >>> ops.convert_to_numpy(ops.bitwise_not(np.array([0, 5], "int32"))).tolist()
    [-1, -6]
    """,
)
left_shift = _alias(
    "numpy",
    "bitwise_left_shift",
    "left_shift",
    """Elementwise `x << y` (alias of `bitwise_left_shift`).

    Args:
        x: Integer tensor to shift.
        y: Number of bits to shift by (non-negative), broadcastable with `x`.

    Returns:
        `x` shifted left by `y` bits, in the promoted integer dtype.

    Example:

    >>> ops.convert_to_numpy(ops.left_shift(np.array([1, 3]), 2)).tolist()
    [4, 12]
    """,
)
right_shift = _alias(
    "numpy",
    "bitwise_right_shift",
    "right_shift",
    """Elementwise `x >> y` (alias of `bitwise_right_shift`).

    Args:
        x: Integer tensor to shift.
        y: Number of bits to shift by (non-negative), broadcastable with `x`.

    Returns:
        `x` shifted right by `y` bits (sign-extending for signed integers), in the
        promoted integer dtype.

    Example:

    >>> ops.convert_to_numpy(ops.right_shift(np.array([8, 5]), 1)).tolist()
    [4, 2]
    """,
)
conjugate = _alias(
    "numpy",
    "conj",
    "conjugate",
    """The complex conjugate of `x` (alias of `conj`).

    Args:
        x: Input tensor; a real tensor is returned unchanged.

    Returns:
        A tensor with the sign of each imaginary part flipped, same shape as `x`.

    Example:

    >>> ops.convert_to_numpy(ops.conjugate(np.array([1 + 2j]))).tolist()
    [(1-2j)]
    """,
)


@composite
def amax(x, axis=None, keepdims=False):
    """Maximum of `x` along `axis` (alias of `max`).

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The maxima, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.amax(np.array([[1, 5], [3, 2]]), axis=0)).tolist()
    [3, 5]
    """
    return lnp.max(x, axis=axis, keepdims=keepdims)


@composite
def amin(x, axis=None, keepdims=False):
    """Minimum of `x` along `axis` (alias of `min`).

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The minima, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.amin(np.array([[1, 5], [3, 2]]), axis=1)).tolist()
    [1, 2]
    """
    return lnp.min(x, axis=axis, keepdims=keepdims)


def array(x, dtype=None):
    """A tensor holding `x` (NumPy's name for `convert_to_tensor`).

    Args:
        x: Array-like: a NumPy array, nested Python lists or scalars, or a tensor.
        dtype: Dtype of the result; `None` infers it from `x` (Python floats give
            `"float32"`, Python ints `"int32"`).

    Returns:
        A tensor of the current engine holding the values of `x`.

    Example:

    >>> from lamina import ops
    >>> t = ops.array([[1, 2], [3, 4]], dtype="float32")
    >>> ops.convert_to_numpy(t).dtype, ops.shape(t)
    (dtype('float32'), (2, 2))
    """
    return convert_to_tensor(x, dtype=dtype)


def empty(shape, dtype=None):
    """A new tensor of shape `shape`, filled with zeros.

    NumPy leaves the values of `empty` unset; the engines give no uninitialized memory, so
    lamina (like Keras) fills it with zeros.

    Args:
        shape: Shape of the tensor, an int or a tuple of ints.
        dtype: Dtype of the tensor; `None` means `"float32"`.

    Returns:
        A zero-filled tensor of that shape and dtype.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.empty((2, 3))).shape
    (2, 3)
    """
    return lnp.zeros(shape, dtype=dtype)


@composite
def empty_like(x, dtype=None):
    """A new tensor with the shape of `x`, filled with zeros.

    Args:
        x: Tensor whose shape (and, without `dtype`, dtype) the result takes.
        dtype: Dtype of the result; `None` keeps the dtype of `x`.

    Returns:
        A zero-filled tensor shaped like `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.empty_like(np.ones((2, 2)), dtype="int32")).tolist()
    [[0, 0], [0, 0]]
    """
    return lnp.zeros_like(x, dtype=dtype)


@composite
def allclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether two tensors are equal elementwise within a tolerance.

    True when every element satisfies `abs(x1 - x2) <= atol + rtol * abs(x2)`, after
    broadcasting; see `isclose` for the elementwise test.

    Args:
        x1: First tensor.
        x2: Second tensor, broadcastable with `x1`.
        rtol: Relative tolerance.
        atol: Absolute tolerance.
        equal_nan: If `True`, NaNs in the same place count as equal.

    Returns:
        A boolean scalar tensor.

    Example:

    >>> from lamina import ops
    >>> bool(ops.allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9])))
    True
    >>> bool(ops.allclose(np.array([1.0, np.nan]), np.array([1.0, np.nan]), equal_nan=True))
    True
    """
    return lnp.all(lnp.isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan))


@composite
def cbrt(x):
    """Elementwise real cube root of `x`.

    Negative inputs give negative roots (`cbrt(-8) == -2`), unlike `power(x, 1 / 3)`.

    Args:
        x: Input tensor.

    Returns:
        The cube roots, as floats (integer inputs are converted to the default float type).

    Example:

    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.cbrt(np.array([-8.0, 1.0, 27.0]))), 4)
    array([-2.,  1.,  3.], dtype=float32)
    """
    x = _float(x)
    return lnp.sign(x) * lnp.power(lnp.abs(x), 1.0 / 3.0)


@composite
def deg2rad(x):
    """Elementwise conversion of angles from degrees to radians.

    Args:
        x: Angles in degrees.

    Returns:
        The angles in radians (`x * pi / 180`), as floats.

    Example:

    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.deg2rad(np.array([0, 90, 180]))), 4)
    array([0.    , 1.5708, 3.1416], dtype=float32)
    """
    return _float(x) * (math.pi / 180.0)


@composite
def rad2deg(x):
    """Elementwise conversion of angles from radians to degrees.

    Args:
        x: Angles in radians.

    Returns:
        The angles in degrees (`x * 180 / pi`), as floats.

    Example:

    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.rad2deg(np.array([0.0, np.pi / 2]))), 4)
    array([ 0., 90.], dtype=float32)
    """
    return _float(x) * (180.0 / math.pi)


@composite
def exp2(x):
    """Elementwise base-2 exponential, `2 ** x`.

    Args:
        x: Input tensor.

    Returns:
        `2 ** x`, as floats (integer inputs are converted to the default float type).

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.exp2(np.array([0, 1, 3]))).tolist()
    [1.0, 2.0, 8.0]
    """
    return lnp.power(2.0, _float(x))


@composite
def fabs(x):
    """Elementwise absolute value of `x`, as floats.

    Unlike `abs`, integer inputs give a float result.

    Args:
        x: Input tensor (real).

    Returns:
        The absolute values, as floats.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.fabs(np.array([-2, 3]))).tolist()
    [2.0, 3.0]
    """
    return lnp.abs(_float(x))


@composite
def fliplr(x):
    """Reverse the order of the elements of `x` along axis 1 (left/right).

    Args:
        x: Input tensor of rank 2 or more.

    Returns:
        `x` with axis 1 reversed; same shape and dtype.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.fliplr(np.array([[1, 2], [3, 4]]))).tolist()
    [[2, 1], [4, 3]]
    """
    return lnp.flip(x, axis=1)


@composite
def flipud(x):
    """Reverse the order of the elements of `x` along axis 0 (up/down).

    Args:
        x: Input tensor of rank 1 or more.

    Returns:
        `x` with axis 0 reversed; same shape and dtype.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.flipud(np.array([[1, 2], [3, 4]]))).tolist()
    [[3, 4], [1, 2]]
    """
    return lnp.flip(x, axis=0)


def _both_float(x1, x2):
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    common = backend.result_type(dtype(x1), dtype(x2))
    return cast(x1, common), cast(x2, common)


@composite
def fmax(x1, x2):
    """Elementwise maximum of two tensors, ignoring NaNs.

    Where exactly one of the pair is NaN the other is returned; the result is NaN only
    where both are (`maximum` instead propagates NaNs).

    Args:
        x1: First tensor.
        x2: Second tensor, broadcastable with `x1`.

    Returns:
        The elementwise maxima, in the promoted dtype of `x1` and `x2`.

    Example:

    >>> from lamina import ops
    >>> a, b = np.array([1.0, np.nan, 5.0]), np.array([3.0, 2.0, np.nan])
    >>> ops.convert_to_numpy(ops.fmax(a, b)).tolist()
    [3.0, 2.0, 5.0]
    """
    x1, x2 = _both_float(x1, x2)
    if "float" not in dtype(x1):
        return lnp.maximum(x1, x2)
    return lnp.where(lnp.isnan(x1), x2, lnp.where(lnp.isnan(x2), x1, lnp.maximum(x1, x2)))


@composite
def fmin(x1, x2):
    """Elementwise minimum of two tensors, ignoring NaNs.

    Where exactly one of the pair is NaN the other is returned; the result is NaN only
    where both are (`minimum` instead propagates NaNs).

    Args:
        x1: First tensor.
        x2: Second tensor, broadcastable with `x1`.

    Returns:
        The elementwise minima, in the promoted dtype of `x1` and `x2`.

    Example:

    >>> from lamina import ops
    >>> a, b = np.array([1.0, np.nan, 5.0]), np.array([3.0, 2.0, np.nan])
    >>> ops.convert_to_numpy(ops.fmin(a, b)).tolist()
    [1.0, 2.0, 5.0]
    """
    x1, x2 = _both_float(x1, x2)
    if "float" not in dtype(x1):
        return lnp.minimum(x1, x2)
    return lnp.where(lnp.isnan(x1), x2, lnp.where(lnp.isnan(x2), x1, lnp.minimum(x1, x2)))


@composite
def heaviside(x1, x2):
    """Elementwise Heaviside step function.

    0 where `x1 < 0`, `x2` where `x1 == 0`, and 1 where `x1 > 0`.

    Args:
        x1: Input values.
        x2: Value taken where `x1` is zero, broadcastable with `x1`.

    Returns:
        The step values, as floats (integer inputs give the default float type).

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.heaviside(np.array([-1.5, 0.0, 2.0]), 0.5)).tolist()
    [0.0, 0.5, 1.0]
    """
    x1, x2 = _both_float(x1, x2)
    if "float" not in dtype(x1):
        x1, x2 = _float(x1), _float(x2)
    step = lnp.where(lnp.greater(x1, 0), 1.0, x2)
    return cast(lnp.where(lnp.less(x1, 0), 0.0, step), dtype(x1))


@composite
def isneginf(x):
    """Elementwise test for negative infinity.

    Args:
        x: Input tensor.

    Returns:
        A boolean tensor, `True` where `x` is `-inf`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.isneginf(np.array([-np.inf, np.inf, 1.0]))).tolist()
    [True, False, False]
    """
    x = convert_to_tensor(x)
    return lnp.logical_and(lnp.isinf(x), lnp.less(x, 0))


@composite
def isposinf(x):
    """Elementwise test for positive infinity.

    Args:
        x: Input tensor.

    Returns:
        A boolean tensor, `True` where `x` is `+inf`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.isposinf(np.array([-np.inf, np.inf, 1.0]))).tolist()
    [False, True, False]
    """
    x = convert_to_tensor(x)
    return lnp.logical_and(lnp.isinf(x), lnp.greater(x, 0))


@composite
def isreal(x):
    """Elementwise test for a zero imaginary part.

    Args:
        x: Input tensor, real or complex.

    Returns:
        A boolean tensor, `True` where the imaginary part of `x` is zero (everywhere for
        a real tensor).

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.isreal(np.array([1.0 + 0j, 1.0 + 2j]))).tolist()
    [True, False]
    """
    return lnp.equal(lnp.imag(x), 0)


@composite
def ldexp(x1, x2):
    """Elementwise `x1 * 2 ** x2`, for integer exponents `x2`.

    Args:
        x1: Mantissas.
        x2: Integer exponents, broadcastable with `x1`; a float dtype raises `TypeError`.

    Returns:
        `x1 * 2 ** x2`, as floats.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.ldexp(np.array([1.0, 3.0]), np.array([2, 3]))).tolist()
    [4.0, 24.0]
    """
    x2 = convert_to_tensor(x2)
    if "int" not in dtype(x2):
        raise TypeError(f"ldexp: the exponents `x2` must be integers, received dtype {dtype(x2)}.")
    x1 = _float(x1)
    return x1 * lnp.power(cast(2.0, dtype(x1)), cast(x2, dtype(x1)))


@composite
def logaddexp2(x1, x2):
    """Elementwise `log2(2 ** x1 + 2 ** x2)`, computed without overflow.

    Useful to add probabilities stored as base-2 logarithms.

    Args:
        x1: First tensor.
        x2: Second tensor, broadcastable with `x1`.

    Returns:
        The base-2 log of the sum of powers, as floats.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.logaddexp2(np.array([1.0, 100.0]), np.array([1.0, 100.0]))).tolist()
    [2.0, 101.0]
    """
    x1, x2 = _both_float(_float(x1), _float(x2))
    larger = lnp.maximum(x1, x2)
    return larger + lnp.log2(1.0 + lnp.power(2.0, -lnp.abs(x1 - x2)))


def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """`num` numbers spaced evenly on a log scale: `base ** linspace(start, stop, num)`.

    Args:
        start: Exponent of the first value (`base ** start`).
        stop: Exponent of the last value (`base ** stop`), included when `endpoint`.
        num: Number of values.
        endpoint: If `True`, `base ** stop` is the last value; otherwise the values stop
            one step before it.
        base: Base of the log scale.
        dtype: Dtype of the result; `None` gives `"float32"`.
        axis: Axis of the result along which the values run when `start`/`stop` are
            tensors.

    Returns:
        A tensor of `num` values.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.logspace(0.0, 3.0, num=4)), 2)
    array([   1.,   10.,  100., 1000.], dtype=float32)
    >>> np.round(ops.convert_to_numpy(ops.logspace(0.0, 3.0, num=4, base=2)), 2)
    array([1., 2., 4., 8.], dtype=float32)
    """
    exponents = lnp.linspace(start, stop, num, endpoint=endpoint, axis=axis)
    out = lnp.power(cast(base, "float32"), exponents)
    return out if dtype is None else cast(out, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """`num` numbers spaced evenly on a log scale (a geometric progression) from `start` to `stop`.

    Each value is a constant multiple of the one before. `start` and `stop` must be nonzero
    and of the same sign.

    Args:
        start: First value.
        stop: Last value, included when `endpoint`.
        num: Number of values.
        endpoint: If `True`, `stop` is the last value; otherwise the values stop one step
            before it.
        dtype: Dtype of the result; `None` gives floats.
        axis: Axis of the result along which the values run when `start`/`stop` are
            tensors.

    Returns:
        A tensor of `num` values.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.geomspace(1.0, 1000.0, num=4)), 2)
    array([   1.,   10.,  100., 1000.], dtype=float32)
    """
    start, stop = _float(start), _float(stop)
    sign = lnp.sign(start)
    logs = lnp.linspace(
        lnp.log(lnp.abs(start)), lnp.log(lnp.abs(stop)), num, endpoint=endpoint, axis=axis
    )
    out = sign * lnp.exp(logs)
    return out if dtype is None else cast(out, dtype)


@composite
def ptp(x, axis=None, keepdims=False):
    """Range of values (maximum minus minimum, "peak to peak") of `x` along `axis`.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        `max(x) - min(x)` along `axis`, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.ptp(np.array([[4, 9, 2], [3, 5, 7]]), axis=1)).tolist()
    [7, 4]
    """
    return lnp.subtract(
        lnp.max(x, axis=axis, keepdims=keepdims), lnp.min(x, axis=axis, keepdims=keepdims)
    )


@composite
def sinc(x):
    """Elementwise normalized sinc function, `sin(pi * x) / (pi * x)`.

    The value at `x == 0` is 1 (the limit).

    Args:
        x: Input tensor.

    Returns:
        The sinc values, as floats.

    Example:

    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.sinc(np.array([0.0, 0.5, 1.5]))), 4)
    array([ 1.    ,  0.6366, -0.2122], dtype=float32)
    """
    x = _float(x)
    safe = lnp.where(lnp.equal(x, 0), 1.0, x) * math.pi
    return lnp.where(lnp.equal(x, 0), 1.0, lnp.sin(safe) / safe)


@composite
def diagflat(x, k=0):
    """A 2-D tensor with the flattened `x` on its `k`-th diagonal and zeros elsewhere.

    Args:
        x: Input tensor of any shape; it is flattened first.
        k: Diagonal to fill: 0 is the main diagonal, positive values are above it,
            negative values below.

    Returns:
        A square tensor of side `size(x) + abs(k)`, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.diagflat(np.array([[1, 2], [3, 4]]))).tolist()
    [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 4]]
    >>> ops.convert_to_numpy(ops.diagflat(np.array([1, 2]), k=1)).tolist()
    [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    """
    return lnp.diag(lnp.ravel(x), k=k)


@composite
def diff(a, n=1, axis=-1):
    """The `n`-th discrete difference of `a` along `axis`.

    The first difference is `a[i + 1] - a[i]`; higher ones apply it again, so the axis
    shrinks by `n`.

    Args:
        a: Input tensor.
        n: Number of times the difference is taken.
        axis: Axis along which to take it.

    Returns:
        A tensor like `a` with `n` fewer elements along `axis`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.diff(np.array([1, 4, 9, 16]))).tolist()
    [3, 5, 7]
    >>> ops.convert_to_numpy(ops.diff(np.array([1, 4, 9, 16]), n=2)).tolist()
    [2, 2]
    """
    a = convert_to_tensor(a)
    axis = axis % len(shape(a))
    for _ in range(n):
        size = shape(a)[axis]
        a = lnp.subtract(
            lnp.take(a, lnp.arange(1, size), axis=axis),
            lnp.take(a, lnp.arange(0, size - 1), axis=axis),
        )
    return a


@composite
def divide_no_nan(x1, x2):
    """Elementwise `x1 / x2`, with 0 wherever `x2` is 0.

    Where a plain division would give `inf` or NaN for a zero divisor, this gives 0 (and a
    zero gradient there).

    Args:
        x1: Numerators.
        x2: Divisors, broadcastable with `x1`.

    Returns:
        The quotients, as floats (integer inputs give the default float type).

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.divide_no_nan(np.array([1.0, 3.0]), np.array([0.0, 2.0]))).tolist()
    [0.0, 1.5]
    """
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    zero = lnp.equal(x2, 0)
    return lnp.where(zero, 0.0, lnp.divide(x1, lnp.where(zero, 1, x2)))


__all__ = [
    "allclose",
    "amax",
    "amin",
    "array",
    "bitwise_not",
    "cbrt",
    "conjugate",
    "deg2rad",
    "diagflat",
    "diff",
    "divide_no_nan",
    "empty",
    "empty_like",
    "exp2",
    "fabs",
    "fliplr",
    "flipud",
    "fmax",
    "fmin",
    "geomspace",
    "heaviside",
    "isneginf",
    "isposinf",
    "isreal",
    "ldexp",
    "left_shift",
    "logaddexp2",
    "logspace",
    "ptp",
    "rad2deg",
    "right_shift",
    "sinc",
]

# The rest of the long tail, re-exported so every name keeps its import path.
from lamina.ops.numpy_arrays import *  # noqa: E402, F403
from lamina.ops.numpy_arrays import __all__ as _arrays_all  # noqa: E402
from lamina.ops.numpy_nan import *  # noqa: E402, F403
from lamina.ops.numpy_nan import __all__ as _nan_all  # noqa: E402

__all__ += _arrays_all + _nan_all
