"""NumPy-style tensor functions on JAX arrays (names and semantics follow NumPy).

This module is the engine's `numpy` contract module: it holds the elementwise functions
(math, trigonometry, arithmetic, comparisons and logic) and re-exports the other families,
one module each, named as in `lamina.backend.declarations` and as on the torch engine:
`numpy_creation`, `numpy_products`, `numpy_reductions`, `numpy_statistics`,
`numpy_shapes`, `numpy_indexing`, `numpy_bitwise` and `numpy_complex`. Their shared
argument handling is in `numpy_arguments`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from lamina.backend.common.dtypes import result_type
from lamina.backend.common.variables import standardize_dtype
from lamina.backend.jax.numpy_arguments import (
    _as_float,
    _floats,
    _taking_sequences,
    _taking_sequences_of_arrays,
    _taking_sequences_varargs,
)

# The other families; every name is part of this module's contract.
from lamina.backend.jax.numpy_bitwise import (  # noqa: F401
    bitwise_and,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    gcd,
    lcm,
    view,
)
from lamina.backend.jax.numpy_complex import (  # noqa: F401
    angle,
    conj,
    imag,
    real,
)
from lamina.backend.jax.numpy_creation import (  # noqa: F401
    arange,
    copy,
    eye,
    full,
    full_like,
    identity,
    linspace,
    meshgrid,
    ones,
    ones_like,
    tri,
    tril,
    triu,
    zeros,
    zeros_like,
)
from lamina.backend.jax.numpy_indexing import (  # noqa: F401
    argpartition,
    argsort,
    digitize,
    get_item,
    nonzero,
    searchsorted,
    sort,
    take,
    take_along_axis,
    unique,
)
from lamina.backend.jax.numpy_products import (  # noqa: F401
    correlate,
    cross,
    diag,
    diagonal,
    dot,
    einsum,
    matmul,
    outer,
    tensordot,
    trace,
)
from lamina.backend.jax.numpy_reductions import (  # noqa: F401
    all,
    any,
    argmax,
    argmin,
    average,
    count_nonzero,
    cumprod,
    cumsum,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)
from lamina.backend.jax.numpy_shapes import (  # noqa: F401
    append,
    broadcast_to,
    concatenate,
    expand_dims,
    flip,
    moveaxis,
    ndim,
    pad,
    ravel,
    repeat,
    reshape,
    roll,
    size,
    split,
    squeeze,
    stack,
    swapaxes,
    tile,
    transpose,
)
from lamina.backend.jax.numpy_statistics import (  # noqa: F401
    bincount,
    histogram,
    median,
    nanmedian,
    nanquantile,
    quantile,
)


# Elementwise, one argument ------------------------------------------------------------
def abs(x):
    return jnp.abs(x)


def absolute(x):
    return jnp.abs(x)


def negative(x):
    return jnp.negative(x)


def sign(x):
    return jnp.sign(x)


def sqrt(x):
    return jnp.sqrt(x)


def square(x):
    return jnp.square(x)


def exp(x):
    return jnp.exp(x)


def expm1(x):
    return jnp.expm1(x)


def log(x):
    return jnp.log(x)


def log1p(x):
    return jnp.log1p(x)


def log2(x):
    return jnp.log2(x)


def log10(x):
    return jnp.log10(x)


def sin(x):
    return jnp.sin(x)


def cos(x):
    return jnp.cos(x)


def tan(x):
    return jnp.tan(x)


def arcsin(x):
    return jnp.arcsin(x)


def arccos(x):
    return jnp.arccos(x)


def arctan(x):
    return jnp.arctan(x)


def sinh(x):
    return jnp.sinh(x)


def cosh(x):
    return jnp.cosh(x)


def tanh(x):
    return jnp.tanh(x)


def arcsinh(x):
    return jnp.arcsinh(x)


def arccosh(x):
    return jnp.arccosh(x)


def arctanh(x):
    return jnp.arctanh(x)


def _inexact(x):
    """`x` as an inexact array: integers and bool take the float dtype Keras promotes to."""
    x = jnp.asarray(x)
    if jnp.issubdtype(x.dtype, jnp.inexact):
        return x
    return x.astype(result_type(standardize_dtype(x.dtype), float))


def floor(x):
    return jnp.floor(_inexact(x))


def ceil(x):
    return jnp.ceil(_inexact(x))


def round(x, decimals=0):
    if decimals < 0:
        x = jnp.asarray(x)
        if jnp.issubdtype(x.dtype, jnp.integer):
            return _round_integers(x, decimals)
    return jnp.round(x, decimals)


def _round_integers(x, decimals):
    """Integers to a multiple of `10**-decimals`, halves to even, exactly (jnp refuses)."""
    unit = jnp.asarray(10**-decimals, x.dtype)
    quotient = jnp.floor_divide(x, unit)
    rest = x - quotient * unit
    gap = unit - rest  # compared with rest instead of 2 * rest, which could overflow
    up = (rest > gap) | ((rest == gap) & (quotient % 2 == 1))
    return (quotient + up.astype(x.dtype)) * unit


def reciprocal(x):
    return jnp.reciprocal(x)


def logical_not(x):
    return jnp.logical_not(x)


def isnan(x):
    return jnp.isnan(x)


def isinf(x):
    return jnp.isinf(x)


def isfinite(x):
    return jnp.isfinite(x)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return jnp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


# Elementwise, two arguments -----------------------------------------------------------
def add(x1, x2):
    return jnp.add(x1, x2)


def subtract(x1, x2):
    return jnp.subtract(x1, x2)


def multiply(x1, x2):
    return jnp.multiply(x1, x2)


def divide(x1, x2):
    return jnp.true_divide(x1, x2)


def true_divide(x1, x2):
    return jnp.true_divide(x1, x2)


def floor_divide(x1, x2):
    return jnp.floor_divide(x1, x2)


def mod(x1, x2):
    return jnp.mod(x1, x2)


def power(x1, x2):
    return jnp.power(x1, x2)


def maximum(x1, x2):
    return jnp.maximum(x1, x2)


def minimum(x1, x2):
    return jnp.minimum(x1, x2)


def arctan2(x1, x2):
    return jnp.arctan2(x1, x2)


def logaddexp(x1, x2):
    return jnp.logaddexp(x1, x2)


def equal(x1, x2):
    return jnp.equal(x1, x2)


def not_equal(x1, x2):
    return jnp.not_equal(x1, x2)


def less(x1, x2):
    return jnp.less(x1, x2)


def less_equal(x1, x2):
    return jnp.less_equal(x1, x2)


def greater(x1, x2):
    return jnp.greater(x1, x2)


def greater_equal(x1, x2):
    return jnp.greater_equal(x1, x2)


def logical_and(x1, x2):
    return jnp.logical_and(x1, x2)


def logical_or(x1, x2):
    return jnp.logical_or(x1, x2)


def logical_xor(x1, x2):
    return jnp.logical_xor(x1, x2)


def isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    return jnp.isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan)


def clip(x, x_min, x_max):
    return jnp.clip(x, x_min, x_max)


def where(condition, x1=None, x2=None):
    """`x1` where `condition` holds, else `x2`; with `condition` alone, `nonzero(condition)`.

    The one-argument form has a data-dependent shape: it works eagerly only, and raises
    a `ValueError` under tracing (`jax.jit`, symbolic shape inference).
    """
    if x1 is None and x2 is None:
        try:
            return nonzero(condition)
        except jax.errors.ConcretizationTypeError:
            raise ValueError(
                "where(condition) with one argument returns the indices of the true "
                "elements, whose number depends on the data, so it cannot run under tracing "
                "(jax.jit, symbolic shapes); call it eagerly, or pass both x1 and x2."
            ) from None
    if x1 is None or x2 is None:
        raise ValueError(
            "where: pass both x1 and x2 (or neither, for the indices of the true elements); "
            f"received only {'x1' if x2 is None else 'x2'}."
        )
    return jnp.where(condition, x1, x2)


# Elementwise, the rarer ones -----------------------------------------------------------
def fmod(x1, x2):
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    dtype = result_type(standardize_dtype(x1.dtype), standardize_dtype(x2.dtype))
    if dtype == "bool":
        dtype = "int32"
    return jnp.fmod(x1.astype(dtype), x2.astype(dtype))


def hypot(x1, x2):
    return jnp.hypot(*_floats(x1, x2))


def nextafter(x1, x2):
    return jnp.nextafter(*_floats(x1, x2))


def i0(x):
    return jnp.i0(_as_float(x))


def signbit(x):
    return jnp.signbit(jnp.asarray(x))


def trunc(x):
    return jnp.trunc(jnp.asarray(x))


def isin(x1, x2, assume_unique=False, invert=False):
    return jnp.isin(jnp.asarray(x1), jnp.asarray(x2), assume_unique=assume_unique, invert=invert)


def vectorize(pyfunc, excluded=None, signature=None):
    return jnp.vectorize(pyfunc, excluded=excluded or set(), signature=signature)


# Python lists as array arguments of the functions above (see `_from_sequence`).
_ARRAY_ARGUMENTS = {
    **dict.fromkeys(
        """zeros_like ones_like full_like tril triu copy abs absolute negative sign sqrt
        square exp expm1 log log1p log2 log10 sin cos tan arcsin arccos arctan sinh cosh
        tanh arcsinh arccosh arctanh floor ceil round reciprocal logical_not isnan isinf
        isfinite nan_to_num sum mean max min prod std var any all argmax argmin cumsum
        cumprod count_nonzero trace transpose expand_dims squeeze ravel flip roll swapaxes
        moveaxis broadcast_to split tile repeat pad diag diagonal sort argsort size ndim
        quantile nanquantile""".split(),
        1,
    ),
    **dict.fromkeys(
        """add subtract multiply divide true_divide floor_divide mod power maximum minimum
        arctan2 logaddexp equal not_equal less less_equal greater greater_equal
        logical_and logical_or logical_xor isclose matmul dot tensordot outer cross append
        take take_along_axis searchsorted digitize""".split(),
        2,
    ),
    "clip": 3,
    "where": 3,
}
for _name, _count in _ARRAY_ARGUMENTS.items():
    globals()[_name] = _taking_sequences(globals()[_name], _count)
concatenate = _taking_sequences_of_arrays(concatenate)
stack = _taking_sequences_of_arrays(stack)
meshgrid = _taking_sequences_varargs(meshgrid, 0)
einsum = _taking_sequences_varargs(einsum, 1)
