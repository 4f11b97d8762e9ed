"""Elementwise formulas NumPy has and the engines do not: `cbrt`, `sinc`, `fmax`, `ldexp`, ...

Each is written once from contract ops, so it runs and differentiates on every engine,
and is one graph node on KerasTensors; `vectorize` makes a Python function elementwise.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.cbrt(np.array([8.0, -27.0]))).tolist()
[2.0, -3.0]
"""

from __future__ import annotations

import math

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _op, cast, composite, convert_to_tensor
from lamina.ops.core import _tensor_dtype as dtype


def _float(x):
    x = convert_to_tensor(x)
    return x if "float" in dtype(x) else cast(x, backend.result_type(dtype(x), float))


def _both_float(x1, x2):
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    common = backend.result_type(dtype(x1), dtype(x2))
    return cast(x1, common), cast(x2, common)


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

    >>> import numpy as np
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
    "cbrt",
    "deg2rad",
    "divide_no_nan",
    "exp2",
    "fmax",
    "fmin",
    "heaviside",
    "ldexp",
    "logaddexp2",
    "rad2deg",
    "sinc",
    "vectorize",
]
