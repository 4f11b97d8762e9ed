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

import math

import numpy as np

from lamina import backend
from lamina.ops import docs as op_docs
from lamina.ops import numpy as lnp
from lamina.ops.core import _op, cast, composite, convert_to_tensor, declared_op, dtype, shape


def _float(x):
    x = convert_to_tensor(x)
    return x if "float" in dtype(x) else cast(x, backend.result_type(dtype(x), float))


def _alias(module, name, alias, doc):
    """`module.name` under NumPy's other name `alias`, documented.

    The docstring is the entry `lamina.ops.docs` holds for `alias` itself; without one,
    `doc` as the summary line over the rest of the full docstring of `name` (the alias
    takes the same arguments); without that either, just `doc`.
    """
    op = declared_op(module, name)
    op.__name__ = op.__qualname__ = alias
    own, full = op_docs.lookup(module, alias), op_docs.lookup(module, name)
    if own is not None:
        op.__doc__ = own
    else:
        op.__doc__ = doc if full is None else "\n".join([doc, *full.splitlines()[1:]])
    return op


bitwise_not = _alias(
    "numpy", "bitwise_invert", "bitwise_not", "Elementwise bitwise NOT (alias of `bitwise_invert`)."
)
left_shift = _alias(
    "numpy",
    "bitwise_left_shift",
    "left_shift",
    "Elementwise `x << y` (alias of `bitwise_left_shift`).",
)
right_shift = _alias(
    "numpy",
    "bitwise_right_shift",
    "right_shift",
    "Elementwise `x >> y` (alias of `bitwise_right_shift`).",
)
conjugate = _alias("numpy", "conj", "conjugate", "The complex conjugate of `x` (alias of `conj`).")


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


def _sections(size, indices_or_sections):
    if isinstance(indices_or_sections, int):
        per, extra = divmod(size, indices_or_sections)
        bounds = np.cumsum([per + 1] * extra + [per] * (indices_or_sections - extra))
        return [int(b) for b in bounds[:-1]]
    return [int(i) for i in indices_or_sections]


def array_split(x, indices_or_sections, axis=0):
    """Split `x` along `axis` into sub-tensors, allowing unequal sizes.

    Like `split`, but an integer `indices_or_sections` that does not divide the axis is
    allowed: an axis of length `l` split into `n` parts gives `l % n` parts of size
    `l // n + 1` first, then parts of size `l // n`.

    Args:
        x: Input tensor.
        indices_or_sections: Either a positive int, the number of parts, or a list of
            the indices along `axis` at which to cut.
        axis: Axis to split along.

    Returns:
        A list of tensors.

    Example:

    >>> from lamina import ops
    >>> [ops.convert_to_numpy(p).tolist() for p in ops.array_split(np.arange(7), 3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    """
    x = convert_to_tensor(x) if not hasattr(x, "shape") else x
    if isinstance(indices_or_sections, int) and indices_or_sections <= 0:
        raise ValueError(
            f"array_split: the number of sections must be positive, received {indices_or_sections}."
        )
    return lnp.split(x, _sections(shape(x)[axis], indices_or_sections), axis=axis)


def _split_on(x, indices_or_sections, axis, op, min_rank):
    if len(shape(x)) < min_rank:
        raise ValueError(
            f"{op}: expected a tensor of rank >= {min_rank}, received shape {shape(x)}."
        )
    return lnp.split(x, indices_or_sections, axis=axis)


def hsplit(x, indices_or_sections):
    """Split `x` horizontally: along axis 1 (axis 0 for a 1-D tensor).

    Args:
        x: Input tensor of rank 1 or more.
        indices_or_sections: Either an int, the number of equal parts (it must divide the
            axis), or a list of the indices at which to cut.

    Returns:
        A list of tensors.

    Example:

    >>> from lamina import ops
    >>> parts = ops.hsplit(np.arange(8).reshape(2, 4), 2)
    >>> [ops.convert_to_numpy(p).tolist() for p in parts]
    [[[0, 1], [4, 5]], [[2, 3], [6, 7]]]
    """
    return _split_on(x, indices_or_sections, 0 if len(shape(x)) == 1 else 1, "hsplit", 1)


def vsplit(x, indices_or_sections):
    """Split `x` vertically: along axis 0.

    Args:
        x: Input tensor of rank 2 or more.
        indices_or_sections: Either an int, the number of equal parts (it must divide the
            axis), or a list of the indices at which to cut.

    Returns:
        A list of tensors.

    Example:

    >>> from lamina import ops
    >>> parts = ops.vsplit(np.arange(8).reshape(4, 2), [1])
    >>> [ops.convert_to_numpy(p).tolist() for p in parts]
    [[[0, 1]], [[2, 3], [4, 5], [6, 7]]]
    """
    return _split_on(x, indices_or_sections, 0, "vsplit", 2)


def dsplit(x, indices_or_sections):
    """Split `x` depth-wise: along axis 2.

    Args:
        x: Input tensor of rank 3 or more.
        indices_or_sections: Either an int, the number of equal parts (it must divide the
            axis), or a list of the indices at which to cut.

    Returns:
        A list of tensors.

    Example:

    >>> from lamina import ops
    >>> parts = ops.dsplit(np.zeros((2, 3, 4)), 2)
    >>> [ops.convert_to_numpy(p).shape for p in parts]
    [(2, 3, 2), (2, 3, 2)]
    """
    return _split_on(x, indices_or_sections, 2, "dsplit", 3)


def _at_least(x, rank):
    x = convert_to_tensor(x) if not hasattr(x, "shape") else x
    if len(shape(x)) >= rank:
        return x
    if rank == 2:
        return lnp.reshape(x, (1, -1)) if len(shape(x)) == 1 else lnp.reshape(x, (1, 1))
    if len(shape(x)) == 2:
        return lnp.expand_dims(x, -1)
    return lnp.reshape(x, (1, -1, 1)) if len(shape(x)) == 1 else lnp.reshape(x, (1, 1, 1))


def hstack(xs):
    """Join a sequence of tensors horizontally: along axis 1 (axis 0 for 1-D tensors).

    Args:
        xs: Sequence of tensors; their shapes must match except along the joined axis.

    Returns:
        The joined tensor.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.hstack([np.array([1, 2]), np.array([3])])).tolist()
    [1, 2, 3]
    >>> ops.convert_to_numpy(ops.hstack([np.ones((2, 1)), np.zeros((2, 2))])).tolist()
    [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    axis = 0 if all(len(shape(x)) <= 1 for x in xs) else 1
    return lnp.concatenate([_at_least(x, 1) if axis == 0 else x for x in xs], axis=axis)


def vstack(xs):
    """Join a sequence of tensors vertically: along axis 0, 1-D tensors as rows.

    Args:
        xs: Sequence of tensors; their shapes must match except along axis 0 (1-D tensors
            of shape `(n,)` count as `(1, n)`).

    Returns:
        The joined tensor, at least 2-D.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.vstack([np.array([1, 2]), np.array([3, 4])])).tolist()
    [[1, 2], [3, 4]]
    """
    return lnp.concatenate([_at_least(x, 2) for x in xs], axis=0)


def dstack(xs):
    """Join a sequence of tensors depth-wise: along axis 2.

    1-D tensors of shape `(n,)` count as `(1, n, 1)` and 2-D ones of shape `(m, n)` as
    `(m, n, 1)`.

    Args:
        xs: Sequence of tensors; their shapes (so extended) must match except along axis 2.

    Returns:
        The joined tensor, at least 3-D.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.dstack([np.array([1, 2]), np.array([3, 4])])).tolist()
    [[[1, 3], [2, 4]]]
    """
    return lnp.concatenate([_at_least(x, 3) for x in xs], axis=2)


@composite
def inner(x1, x2):
    """Inner product of two tensors over their last axes.

    For 1-D tensors this is the dot product; in general `inner(a, b)[i, j] =
    sum(a[i, :] * b[j, :])` for the leading index tuples `i`, `j`. A scalar operand
    multiplies the other.

    Args:
        x1: First tensor.
        x2: Second tensor; its last axis must match that of `x1`.

    Returns:
        A tensor of shape `x1.shape[:-1] + x2.shape[:-1]`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.inner(np.array([1.0, 2.0]), np.array([3.0, 4.0]))).tolist()
    11.0
    """
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    if not shape(x1) or not shape(x2):
        return lnp.multiply(x1, x2)
    return lnp.tensordot(x1, x2, axes=[[-1], [-1]])


@composite
def vdot(x1, x2):
    """Dot product of two tensors, flattened, with the first conjugated.

    Any shapes with the same number of elements are accepted: both are flattened first.
    For complex `x1`, its complex conjugate is used.

    Args:
        x1: First tensor (conjugated if complex).
        x2: Second tensor, with as many elements as `x1`.

    Returns:
        A scalar tensor.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.vdot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.ones((2, 2)))).tolist()
    10.0
    """
    return lnp.sum(lnp.multiply(lnp.conj(lnp.ravel(x1)), lnp.ravel(x2)))


@composite
def kron(x1, x2):
    """Kronecker product of two tensors.

    A block tensor: each element `x1[i, j, ...]` is replaced by the block
    `x1[i, j, ...] * x2`. The operand of smaller rank gets leading size-1 axes first.

    Args:
        x1: First tensor.
        x2: Second tensor.

    Returns:
        A tensor whose shape is the elementwise product of the two shapes.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.kron(np.array([[1, 2], [3, 4]]), np.array([[1, 1]]))).tolist()
    [[1, 1, 2, 2], [3, 3, 4, 4]]
    """
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    rank = max(len(shape(x1)), len(shape(x2)))
    x1 = lnp.reshape(x1, (1,) * (rank - len(shape(x1))) + shape(x1))
    x2 = lnp.reshape(x2, (1,) * (rank - len(shape(x2))) + shape(x2))
    # Interleave: (a0, b0, a1, b1, ...) then merge each pair of axes.
    a = lnp.reshape(x1, tuple(d for s in shape(x1) for d in (s, 1)))
    b = lnp.reshape(x2, tuple(d for s in shape(x2) for d in (1, s)))
    return lnp.reshape(lnp.multiply(a, b), tuple(p * q for p, q in zip(shape(x1), shape(x2))))


@composite
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D tensor: columns are powers of `x`.

    With `increasing=False` column `j` is `x ** (N - 1 - j)`, so the last column is ones.

    Args:
        x: 1-D input tensor.
        N: Number of columns; `None` means `len(x)`.
        increasing: If `True`, the powers increase from left to right (starting at 0).

    Returns:
        A tensor of shape `(len(x), N)`, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.vander(np.array([1, 2, 3]))).tolist()
    [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    >>> ops.convert_to_numpy(ops.vander(np.array([1, 2, 3]), N=2, increasing=True)).tolist()
    [[1, 1], [1, 2], [1, 3]]
    """
    x = convert_to_tensor(x)
    if len(shape(x)) != 1:
        raise ValueError(f"vander: expected a 1-D tensor, received shape {shape(x)}.")
    n = shape(x)[0] if N is None else int(N)
    powers = np.arange(n) if increasing else np.arange(n)[::-1]
    return lnp.power(lnp.expand_dims(x, 1), cast(powers.copy(), dtype(x)))


@composite
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integrate `y` along `axis` with the composite trapezoidal rule.

    Args:
        y: Values of the function to integrate.
        x: Sample points of `y` (1-D of the length of `axis`, or shaped like `y`);
            `None` means points evenly spaced by `dx`.
        dx: Spacing between sample points when `x` is `None`.
        axis: Axis along which to integrate.

    Returns:
        The integral, with `axis` removed, as floats.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.trapezoid(np.array([1.0, 2.0, 3.0]))).tolist()
    4.0
    >>> ops.convert_to_numpy(ops.trapezoid(np.array([1.0, 2.0, 3.0]), x=np.array([0.0, 1.0, 3.0]))).tolist()
    6.5
    """
    y = _float(y)
    axis = axis % len(shape(y))
    n = shape(y)[axis]
    average = (
        lnp.take(y, lnp.arange(1, n), axis=axis) + lnp.take(y, lnp.arange(0, n - 1), axis=axis)
    ) / 2.0
    if x is None:
        return lnp.sum(average, axis=axis) * dx
    spacing = diff(_float(x), axis=-1 if len(shape(x)) == 1 else axis)
    if len(shape(spacing)) == 1:
        target = [1] * len(shape(y))
        target[axis] = n - 1
        spacing = lnp.reshape(spacing, target)
    return lnp.sum(average * spacing, axis=axis)


@composite
def rot90(array, k=1, axes=(0, 1)):
    """Rotate `array` by 90 degrees `k` times in the plane given by `axes`.

    The rotation goes from the first axis towards the second (counter-clockwise for a
    matrix shown in the usual way); negative `k` rotates the other way.

    Args:
        array: Input tensor of rank 2 or more.
        k: Number of quarter turns.
        axes: The two (different) axes defining the plane of rotation.

    Returns:
        The rotated tensor.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.rot90(np.array([[1, 2], [3, 4]]))).tolist()
    [[2, 4], [1, 3]]
    """
    array = convert_to_tensor(array)
    a0, a1 = (a % len(shape(array)) for a in axes)
    if a0 == a1:
        raise ValueError(f"rot90: the two axes must differ, received {axes}.")
    k %= 4
    if k == 0:
        return array
    if k == 2:
        return lnp.flip(lnp.flip(array, a0), a1)
    if k == 1:
        return lnp.swapaxes(lnp.flip(array, a1), a0, a1)
    return lnp.flip(lnp.swapaxes(array, a0, a1), a1)


def select(condlist, choicelist, default=0):
    """Elements taken from `choicelist` according to `condlist`, else `default`.

    At each position the result is `choicelist[i]` for the first `i` whose `condlist[i]`
    is `True` there, or `default` where no condition holds.

    Args:
        condlist: List of boolean tensors, the conditions.
        choicelist: List of tensors, one per condition, broadcastable with them.
        default: Value used where no condition holds.

    Returns:
        A tensor in the promoted dtype of the choices and `default`.

    Example:

    >>> from lamina import ops
    >>> x = np.arange(6)
    >>> ops.convert_to_numpy(ops.select([x < 2, x > 3], [x, x * 10], default=-1)).tolist()
    [0, 1, -1, -1, 40, 50]
    """
    if len(condlist) != len(choicelist):
        raise ValueError(
            f"select: {len(condlist)} conditions but {len(choicelist)} choices; give one choice per condition."
        )
    return _select_op(list(condlist), list(choicelist), default)


def _select(condlist, choicelist, default):
    out = convert_to_tensor(default)
    common = backend.result_type(*[dtype(convert_to_tensor(c)) for c in choicelist], dtype(out))
    out = cast(out, common)
    for condition, choice in reversed(list(zip(condlist, choicelist))):
        out = lnp.where(condition, cast(convert_to_tensor(choice), common), out)
    return out


_select_op = _op(_select, name="select")


def unravel_index(indices, shape):
    """Convert flat indices into coordinates in a tensor of shape `shape`.

    The inverse of flattening in C (row-major) order.

    Args:
        indices: Integer tensor (or int) of flat indices.
        shape: Shape of the tensor the indices point into, a tuple of ints.

    Returns:
        A tuple of `len(shape)` integer tensors, one coordinate per axis, each shaped like
        `indices`.

    Example:

    >>> from lamina import ops
    >>> rows, cols = ops.unravel_index(np.array([5, 7]), (3, 4))
    >>> ops.convert_to_numpy(rows).tolist(), ops.convert_to_numpy(cols).tolist()
    ([1, 1], [1, 3])
    """
    return _unravel_op(indices, tuple(int(d) for d in shape))


def _unravel(indices, dims):
    indices = convert_to_tensor(indices)
    strides = np.cumprod((1,) + dims[::-1])[:-1][::-1]
    return tuple(lnp.mod(lnp.floor_divide(indices, int(s)), d) for s, d in zip(strides, dims))


_unravel_op = _op(_unravel, name="unravel_index")


@composite
def corrcoef(x):
    """Pearson correlation coefficients between the rows of `x`.

    Each row of `x` is a variable and each column an observation.

    Args:
        x: 2-D tensor of shape `(variables, observations)`.

    Returns:
        A `(variables, variables)` float tensor of correlations in `[-1, 1]`.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, 2.0, 3.0], [6.0, 4.0, 2.0]])
    >>> np.round(ops.convert_to_numpy(ops.corrcoef(x)), 4)
    array([[ 1., -1.],
           [-1.,  1.]], dtype=float32)
    """
    x = _float(x)
    centered = x - lnp.mean(x, axis=-1, keepdims=True)
    cov = lnp.matmul(centered, lnp.transpose(centered))
    scale = lnp.sqrt(lnp.diagonal(cov))
    return lnp.clip(cov / lnp.outer(scale, scale), -1.0, 1.0)


# NaN-ignoring reductions ----------------------------------------------------------------
def _masked(x, fill):
    x = convert_to_tensor(x)
    if "float" not in dtype(x):
        return x, None
    nan = lnp.isnan(x)
    return lnp.where(nan, cast(fill, dtype(x)), x), nan


@composite
def nansum(x, axis=None, keepdims=False):
    """Sum of the elements of `x` along `axis`, treating NaNs as zero.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The sums, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan], [3.0, 4.0]])
    >>> ops.convert_to_numpy(ops.nansum(x, axis=1)).tolist()
    [1.0, 7.0]
    """
    return lnp.sum(_masked(x, 0.0)[0], axis=axis, keepdims=keepdims)


@composite
def nanprod(x, axis=None, keepdims=False):
    """Product of the elements of `x` along `axis`, treating NaNs as one.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The products, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[2.0, np.nan], [3.0, 4.0]])
    >>> ops.convert_to_numpy(ops.nanprod(x, axis=1)).tolist()
    [2.0, 12.0]
    """
    return lnp.prod(_masked(x, 1.0)[0], axis=axis, keepdims=keepdims)


@composite
def nanmean(x, axis=None, keepdims=False):
    """Mean of the non-NaN elements of `x` along `axis`.

    Where every element reduced is NaN the mean is NaN.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The means, as floats.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan], [3.0, 4.0]])
    >>> ops.convert_to_numpy(ops.nanmean(x, axis=1)).tolist()
    [1.0, 3.5]
    """
    filled, nan = _masked(x, 0.0)
    if nan is None:
        return lnp.mean(filled, axis=axis, keepdims=keepdims)
    count = lnp.sum(lnp.logical_not(nan), axis=axis, keepdims=keepdims)
    return lnp.sum(filled, axis=axis, keepdims=keepdims) / cast(count, dtype(filled))


@composite
def nanvar(x, axis=None, keepdims=False):
    """Variance of the non-NaN elements of `x` along `axis`.

    The population variance (divided by the count of non-NaN elements); NaN where every
    element reduced is NaN.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The variances, as floats.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan, 3.0], [2.0, 4.0, 6.0]])
    >>> np.round(ops.convert_to_numpy(ops.nanvar(x, axis=1)), 4)
    array([1.    , 2.6667], dtype=float32)
    """
    filled, nan = _masked(x, 0.0)
    if nan is None:
        return lnp.var(filled, axis=axis, keepdims=keepdims)
    mean = nanmean(x, axis=axis, keepdims=True)
    squares = lnp.where(nan, 0.0, lnp.square(filled - mean))
    count = lnp.sum(lnp.logical_not(nan), axis=axis, keepdims=keepdims)
    return lnp.sum(squares, axis=axis, keepdims=keepdims) / cast(count, dtype(filled))


@composite
def nanstd(x, axis=None, keepdims=False):
    """Standard deviation of the non-NaN elements of `x` along `axis`.

    The square root of `nanvar` (population form); NaN where every element reduced is NaN.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The standard deviations, as floats.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan, 3.0], [2.0, 4.0, 6.0]])
    >>> np.round(ops.convert_to_numpy(ops.nanstd(x, axis=1)), 4)
    array([1.   , 1.633], dtype=float32)
    """
    return lnp.sqrt(nanvar(x, axis=axis, keepdims=keepdims))


def _nan_extreme(x, axis, keepdims, reduce, fill):
    filled, nan = _masked(x, fill)
    out = reduce(filled, axis=axis, keepdims=keepdims)
    if nan is None:
        return out
    all_nan = lnp.all(nan, axis=axis, keepdims=keepdims)
    return lnp.where(all_nan, math.nan, out)


@composite
def nanmax(x, axis=None, keepdims=False):
    """Maximum of `x` along `axis`, ignoring NaNs.

    Where every element reduced is NaN the result is NaN.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The maxima, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan], [3.0, 4.0]])
    >>> ops.convert_to_numpy(ops.nanmax(x, axis=1)).tolist()
    [1.0, 4.0]
    """
    return _nan_extreme(x, axis, keepdims, lnp.max, -math.inf)


@composite
def nanmin(x, axis=None, keepdims=False):
    """Minimum of `x` along `axis`, ignoring NaNs.

    Where every element reduced is NaN the result is NaN.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The minima, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[np.nan, 2.0], [3.0, 4.0]])
    >>> ops.convert_to_numpy(ops.nanmin(x, axis=1)).tolist()
    [2.0, 3.0]
    """
    return _nan_extreme(x, axis, keepdims, lnp.min, math.inf)


@composite
def nanargmax(x, axis=None, keepdims=False):
    """Index of the maximum of `x` along `axis`, ignoring NaNs.

    With `axis=None` the index is into the flattened `x`. Where every element reduced is
    NaN the index is 0.

    Args:
        x: Input tensor.
        axis: Axis to reduce; `None` (the default) searches the flattened `x`.
        keepdims: If `True`, the reduced axis stays as a size-1 axis.

    Returns:
        An integer tensor of indices.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan, 3.0], [5.0, 4.0, np.nan]])
    >>> ops.convert_to_numpy(ops.nanargmax(x, axis=1)).tolist()
    [2, 0]
    """
    return lnp.argmax(_masked(x, -math.inf)[0], axis=axis, keepdims=keepdims)


@composite
def nanargmin(x, axis=None, keepdims=False):
    """Index of the minimum of `x` along `axis`, ignoring NaNs.

    With `axis=None` the index is into the flattened `x`. Where every element reduced is
    NaN the index is 0.

    Args:
        x: Input tensor.
        axis: Axis to reduce; `None` (the default) searches the flattened `x`.
        keepdims: If `True`, the reduced axis stays as a size-1 axis.

    Returns:
        An integer tensor of indices.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan, 3.0], [5.0, 4.0, np.nan]])
    >>> ops.convert_to_numpy(ops.nanargmin(x, axis=1)).tolist()
    [0, 1]
    """
    return lnp.argmin(_masked(x, math.inf)[0], axis=axis, keepdims=keepdims)


@composite
def nancumsum(x, axis=None, dtype=None):
    """Cumulative sum of `x` along `axis`, treating NaNs as zero.

    Args:
        x: Input tensor.
        axis: Axis along which to accumulate; `None` (the default) flattens `x` first.
        dtype: Dtype of the result; `None` keeps the dtype of `x`.

    Returns:
        The running sums: same shape as `x`, or 1-D when `axis` is `None`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.nancumsum(np.array([1.0, np.nan, 3.0]))).tolist()
    [1.0, 1.0, 4.0]
    """
    return lnp.cumsum(_masked(x, 0.0)[0], axis=axis, dtype=dtype)


@composite
def nancumprod(x, axis=None, dtype=None):
    """Cumulative product of `x` along `axis`, treating NaNs as one.

    Args:
        x: Input tensor.
        axis: Axis along which to accumulate; `None` (the default) flattens `x` first.
        dtype: Dtype of the result; `None` keeps the dtype of `x`.

    Returns:
        The running products: same shape as `x`, or 1-D when `axis` is `None`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.nancumprod(np.array([2.0, np.nan, 3.0]))).tolist()
    [2.0, 2.0, 6.0]
    """
    return lnp.cumprod(_masked(x, 1.0)[0], axis=axis, dtype=dtype)


@composite
def percentile(x, q, axis=None, method="linear", keepdims=False):
    """The `q`-th percentiles of the elements of `x` along `axis`.

    The same as `quantile(x, q / 100, ...)`.

    Args:
        x: Input tensor.
        q: Percentile or tensor of percentiles, each in `[0, 100]`.
        axis: Axis or tuple of axes to compute over; `None` (the default) uses all of `x`.
        method: How to pick a value that falls between two data points: `"linear"`
            (interpolate), `"lower"`, `"higher"`, `"midpoint"` or `"nearest"`.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The percentiles, as floats. With a tensor `q`, its shape comes first in the result.

    Example:

    >>> from lamina import ops
    >>> x = np.array([1.0, 2.0, 3.0, 4.0])
    >>> ops.convert_to_numpy(ops.percentile(x, 50)).tolist()
    2.5
    >>> ops.convert_to_numpy(ops.percentile(x, [25, 75])).tolist()
    [1.75, 3.25]
    """
    return lnp.quantile(
        x, lnp.divide(convert_to_tensor(q), 100.0), axis=axis, method=method, keepdims=keepdims
    )


@composite
def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """The `q`-th percentiles of the non-NaN elements of `x` along `axis`.

    Like `percentile`, with the NaNs left out of each computation.

    Args:
        x: Input tensor.
        q: Percentile or tensor of percentiles, each in `[0, 100]`.
        axis: Axis or tuple of axes to compute over; `None` (the default) uses all of `x`.
        method: How to pick a value that falls between two data points: `"linear"`
            (interpolate), `"lower"`, `"higher"`, `"midpoint"` or `"nearest"`.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The percentiles, as floats. With a tensor `q`, its shape comes first in the result.

    Example:

    >>> from lamina import ops
    >>> x = np.array([1.0, np.nan, 3.0, 4.0])
    >>> ops.convert_to_numpy(ops.nanpercentile(x, 50)).tolist()
    3.0
    >>> ops.convert_to_numpy(ops.nanpercentile(x, [0, 100])).tolist()
    [1.0, 4.0]
    """
    return lnp.nanquantile(
        x, lnp.divide(convert_to_tensor(q), 100.0), axis=axis, method=method, keepdims=keepdims
    )


# Windows ----------------------------------------------------------------------------------
def _window(name, x, values):
    if not isinstance(x, (int, np.integer)):
        x = int(np.asarray(backend.convert_to_numpy(x)))
    return convert_to_tensor(values(int(x)).astype("float32"))


def bartlett(x):
    """The Bartlett (triangular) window of `x` points.

    Rises linearly from 0 to 1 and falls back to 0; used to taper signals before a
    Fourier transform.

    Args:
        x: Number of points in the window, an int (or a scalar integer tensor).

    Returns:
        A 1-D float32 tensor of `x` values, symmetric, peaking at 1 in the middle for odd
        `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.bartlett(5)).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    return _window("bartlett", x, np.bartlett)


def blackman(x):
    """The Blackman window of `x` points.

    A taper of three cosine terms, with stronger sidelobe suppression than the Hann or
    Hamming windows.

    Args:
        x: Number of points in the window, an int (or a scalar integer tensor).

    Returns:
        A 1-D float32 tensor of `x` values, symmetric, peaking at 1 in the middle for odd
        `x`.

    Example:

    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.blackman(5)), 2)
    array([-0.  ,  0.34,  1.  ,  0.34, -0.  ], dtype=float32)
    """
    return _window("blackman", x, np.blackman)


def hamming(x):
    """The Hamming window of `x` points.

    `0.54 - 0.46 * cos(2 pi n / (x - 1))`: a raised cosine that does not reach 0 at the ends.

    Args:
        x: Number of points in the window, an int (or a scalar integer tensor).

    Returns:
        A 1-D float32 tensor of `x` values, symmetric, peaking at 1 in the middle for odd
        `x`.

    Example:

    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.hamming(5)), 2)
    array([0.08, 0.54, 1.  , 0.54, 0.08], dtype=float32)
    """
    return _window("hamming", x, np.hamming)


def hanning(x):
    """The Hann window of `x` points.

    `0.5 - 0.5 * cos(2 pi n / (x - 1))`: a raised cosine that is 0 at both ends.

    Args:
        x: Number of points in the window, an int (or a scalar integer tensor).

    Returns:
        A 1-D float32 tensor of `x` values, symmetric, peaking at 1 in the middle for odd
        `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.hanning(5)).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    return _window("hanning", x, np.hanning)


def kaiser(x, beta):
    """The Kaiser window of `x` points with shape parameter `beta`.

    Built from the modified Bessel function `i0`; larger `beta` narrows the window
    (`beta=0` is rectangular, about 5 resembles Hamming, about 8.6 Blackman).

    Args:
        x: Number of points in the window, an int (or a scalar integer tensor).
        beta: Shape parameter of the window, a float.

    Returns:
        A 1-D float32 tensor of `x` values, symmetric, peaking at 1 in the middle for odd
        `x`.

    Example:

    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.kaiser(5, 2.0)), 4)
    array([0.4387, 0.8348, 1.    , 0.8348, 0.4387], dtype=float32)
    """
    return _window("kaiser", x, lambda n: np.kaiser(n, float(beta)))


def vectorize(pyfunc, *, excluded=None, signature=None):
    """Turn `pyfunc` into a function that maps over the elements (or sub-arrays) of tensors.

    Like `numpy.vectorize`: the returned function broadcasts its tensor arguments and calls
    `pyfunc` on each element, or with a `signature` on each sub-array of the given core
    shape; `pyfunc` receives engine tensors, so write it with ops. The JAX engine
    vectorizes it (`jax.numpy.vectorize`); the torch engine calls it once per element or
    sub-array in a Python loop, so prefer whole-tensor ops where they exist. Usable as a
    decorator.

    Args:
        pyfunc: The function to vectorize; it takes and returns tensors.
        excluded: Optional set of positional argument indices (ints) that are passed to
            `pyfunc` unchanged rather than mapped over.
        signature: Optional generalized-ufunc signature naming the core dimensions, e.g.
            `"(m,n),(n)->(m)"` for a matrix-vector product; by default `pyfunc` takes
            and returns scalars.

    Returns:
        The vectorized function.

    Example:

    >>> from lamina import ops
    >>> clipped_square = ops.vectorize(lambda v: ops.minimum(v * v, 5.0))
    >>> ops.convert_to_numpy(clipped_square(np.array([1.0, 2.0, 3.0]))).tolist()
    [1.0, 4.0, 5.0]
    >>> mat_vec = ops.vectorize(ops.matmul, signature="(m,n),(n)->(m)")
    >>> ops.convert_to_numpy(mat_vec(np.ones((4, 2, 3)), np.ones((4, 3)))).shape
    (4, 2)
    """
    return _op(
        backend.numpy.vectorize(pyfunc, excluded=excluded, signature=signature),
        name=getattr(pyfunc, "__name__", "vectorize"),
    )


__all__ = [
    "allclose",
    "amax",
    "amin",
    "array",
    "array_split",
    "bartlett",
    "bitwise_not",
    "blackman",
    "cbrt",
    "conjugate",
    "corrcoef",
    "deg2rad",
    "diagflat",
    "diff",
    "divide_no_nan",
    "dsplit",
    "dstack",
    "empty",
    "empty_like",
    "exp2",
    "fabs",
    "fliplr",
    "flipud",
    "fmax",
    "fmin",
    "geomspace",
    "hamming",
    "hanning",
    "heaviside",
    "hsplit",
    "hstack",
    "inner",
    "isneginf",
    "isposinf",
    "isreal",
    "kaiser",
    "kron",
    "ldexp",
    "left_shift",
    "logaddexp2",
    "logspace",
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmin",
    "nanpercentile",
    "nanprod",
    "nanstd",
    "nansum",
    "nanvar",
    "percentile",
    "ptp",
    "rad2deg",
    "right_shift",
    "rot90",
    "select",
    "sinc",
    "trapezoid",
    "unravel_index",
    "vander",
    "vdot",
    "vectorize",
    "vsplit",
    "vstack",
]
