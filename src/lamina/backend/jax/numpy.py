"""NumPy-style tensor functions on JAX arrays (names and semantics follow NumPy)."""

from __future__ import annotations

import builtins
import functools

import jax
import jax.numpy as jnp
import numpy as np

from lamina.backend import config
from lamina.backend.common.dtypes import result_type
from lamina.backend.common.variables import standardize_dtype
from lamina.backend.jax.core import convert_to_tensor


def _dtype(dtype):
    return standardize_dtype(dtype) if dtype is not None else None


def _float(dtype):
    return standardize_dtype(dtype) if dtype is not None else config.floatx()


def _array(x):
    """`x` as a JAX array with lamina's conversions (NumPy int64 -> int32, float64 -> floatx).

    Arrays and tracers pass through untouched; NumPy arrays, lists and scalars would
    otherwise reach functions that return them unconverted (`jnp.reshape`, indexing).
    """
    return x if isinstance(x, jax.Array) else convert_to_tensor(x)


def _refuse_sparse(op, sparse):
    if sparse:
        raise ValueError(
            f"{op}(sparse=True): the JAX backend has no sparse tensors; pass sparse=False."
        )


# Creation --------------------------------------------------------------------------
def zeros(shape, dtype=None):
    return jnp.zeros(shape, dtype=_float(dtype))


def ones(shape, dtype=None):
    return jnp.ones(shape, dtype=_float(dtype))


def full(shape, fill_value, dtype=None):
    return jnp.full(shape, fill_value, dtype=_float(dtype))  # as in Keras: floatx by default


def zeros_like(x, dtype=None):
    return jnp.zeros_like(x, dtype=_dtype(dtype))


def ones_like(x, dtype=None):
    return jnp.ones_like(x, dtype=_dtype(dtype))


def full_like(x, fill_value, dtype=None):
    return jnp.full_like(x, fill_value, dtype=_dtype(dtype))


def eye(N, M=None, k=0, dtype=None):
    return jnp.eye(N, M, k=k, dtype=_float(dtype))


def identity(n, dtype=None):
    return jnp.identity(n, dtype=_float(dtype))


def arange(start, stop=None, step=None, dtype=None):
    return jnp.arange(start, stop, 1 if step is None else step, dtype=_dtype(dtype))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    return jnp.linspace(
        start, stop, num, endpoint=endpoint, retstep=retstep, dtype=_float(dtype), axis=axis
    )


def tri(N, M=None, k=0, dtype=None):
    return jnp.tri(N, M, k, dtype=_float(dtype))


def tril(x, k=0):
    return jnp.tril(x, k)


def triu(x, k=0):
    return jnp.triu(x, k)


def meshgrid(*x, indexing="xy"):
    return jnp.meshgrid(*x, indexing=indexing)


def copy(x):
    return jnp.array(x, copy=True)


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


# Products -----------------------------------------------------------------------------
def matmul(x1, x2):
    if _is_int8(x1) and _is_int8(x2):  # as in Keras: int8 products accumulate in int32
        return jnp.matmul(x1, x2, preferred_element_type=jnp.int32)
    return jnp.matmul(x1, x2)


def _is_int8(x):
    return getattr(x, "dtype", None) == jnp.int8


def dot(x1, x2):
    return jnp.dot(x1, x2)


def einsum(subscripts, *operands, **kwargs):
    # As Keras on JAX: options (`optimize`, `precision`, `preferred_element_type`) go to
    # `jnp.einsum`, which rejects any other name; int8 products accumulate in int32.
    if kwargs.get("preferred_element_type") is None and builtins.all(map(_is_int8, operands)):
        kwargs["preferred_element_type"] = jnp.int32
    return jnp.einsum(subscripts, *operands, **kwargs)


def tensordot(x1, x2, axes=2):
    return jnp.tensordot(x1, x2, axes)


def outer(x1, x2):
    return jnp.outer(x1, x2)


def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    return jnp.cross(x1, x2, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)


# Reductions ---------------------------------------------------------------------------
def sum(x, axis=None, keepdims=False):
    return jnp.sum(x, axis=axis, keepdims=keepdims)


def mean(x, axis=None, keepdims=False):
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        x = x.astype(config.floatx())
    return jnp.mean(x, axis=axis, keepdims=keepdims)


def max(x, axis=None, keepdims=False, initial=None):
    return jnp.max(x, axis=axis, keepdims=keepdims, initial=initial)


def min(x, axis=None, keepdims=False, initial=None):
    return jnp.min(x, axis=axis, keepdims=keepdims, initial=initial)


def prod(x, axis=None, keepdims=False, dtype=None):
    return jnp.prod(x, axis=axis, keepdims=keepdims, dtype=_dtype(dtype))


def std(x, axis=None, keepdims=False):
    return jnp.std(x, axis=axis, keepdims=keepdims)


def var(x, axis=None, keepdims=False):
    return jnp.var(x, axis=axis, keepdims=keepdims)


def any(x, axis=None, keepdims=False):
    return jnp.any(x, axis=axis, keepdims=keepdims)


def all(x, axis=None, keepdims=False):
    return jnp.all(x, axis=axis, keepdims=keepdims)


def argmax(x, axis=None, keepdims=False):
    return jnp.argmax(x, axis=axis, keepdims=keepdims)


def argmin(x, axis=None, keepdims=False):
    return jnp.argmin(x, axis=axis, keepdims=keepdims)


def cumsum(x, axis=None, dtype=None):
    return jnp.cumsum(x, axis=axis, dtype=_dtype(dtype))


def cumprod(x, axis=None, dtype=None):
    return jnp.cumprod(x, axis=axis, dtype=_dtype(dtype))


def count_nonzero(x, axis=None):
    return jnp.count_nonzero(x, axis=axis)


def average(x, axis=None, weights=None):
    return jnp.average(_from_sequence(x), axis=axis, weights=_from_sequence(weights))


def trace(x, offset=0, axis1=0, axis2=1):
    return jnp.trace(x, offset=offset, axis1=axis1, axis2=axis2)


# Shapes -------------------------------------------------------------------------------
def reshape(x, newshape):
    if isinstance(newshape, int):
        newshape = (newshape,)
    newshape = tuple(-1 if d is None else d for d in newshape)
    return jnp.reshape(_array(x), newshape)


def transpose(x, axes=None):
    return jnp.transpose(x, axes)


def expand_dims(x, axis):
    return jnp.expand_dims(x, axis)


def squeeze(x, axis=None):
    return jnp.squeeze(x, axis)


def ravel(x):
    return jnp.ravel(x)


def flip(x, axis=None):
    return jnp.flip(x, axis)


def roll(x, shift, axis=None):
    return jnp.roll(x, shift, axis)


def swapaxes(x, axis1, axis2):
    return jnp.swapaxes(x, axis1, axis2)


def moveaxis(x, source, destination):
    return jnp.moveaxis(x, source, destination)


def broadcast_to(x, shape):
    return jnp.broadcast_to(x, shape)


def concatenate(xs, axis=0):
    return jnp.concatenate(xs, axis=axis)


def stack(x, axis=0):
    return jnp.stack(x, axis=axis)


def split(x, indices_or_sections, axis=0):
    return jnp.split(x, indices_or_sections, axis=axis)


def append(x1, x2, axis=None):
    return jnp.append(x1, x2, axis=axis)


def tile(x, repeats):
    return jnp.tile(x, repeats)


def repeat(x, repeats, axis=None):
    return jnp.repeat(x, repeats, axis=axis)


def pad(x, pad_width, mode="constant", constant_values=None):
    if constant_values is None:
        return jnp.pad(x, pad_width, mode=mode)
    if mode != "constant":
        raise ValueError(_pad_values_error(mode, constant_values))
    return jnp.pad(x, pad_width, mode=mode, constant_values=constant_values)


def _pad_values_error(mode, constant_values):
    return (
        f"pad: constant_values applies to mode='constant' only; received mode={mode!r} "
        f"with constant_values={constant_values!r}. Drop constant_values, or use "
        "mode='constant'."
    )


def take(x, indices, axis=None):
    return jnp.take(x, indices, axis=axis)


def take_along_axis(x, indices, axis=None):
    return jnp.take_along_axis(x, indices, axis=axis)


def diag(x, k=0):
    return jnp.diag(x, k)


def diagonal(x, offset=0, axis1=0, axis2=1):
    return jnp.diagonal(x, offset, axis1, axis2)


def sort(x, axis=-1):
    return jnp.sort(x, axis=axis)


def argsort(x, axis=-1):
    return jnp.argsort(x, axis=axis)


def searchsorted(sorted_sequence, values, side="left"):
    return jnp.searchsorted(sorted_sequence, values, side=side)


def digitize(x, bins):
    """The bucket of each value: `i` such that `bins[i - 1] <= x < bins[i]` (NumPy's rule)."""
    bins = jnp.asarray(bins)
    return jnp.searchsorted(bins, x, side="right").astype("int32")


def bincount(x, weights=None, minlength=0, sparse=False):
    """Counts of each non-negative integer along the last axis (rank 1 or 2 input).

    Eagerly the output length is `max(max(x) + 1, minlength)` (one length for all rows of
    a rank-2 input). Under tracing the length must be static: it is `minlength`, which
    must then be given, and values `>= minlength` are dropped.
    """
    _refuse_sparse("bincount", sparse)
    x = _array(x)
    if x.ndim not in (1, 2):
        raise ValueError(f"bincount expects a rank-1 or rank-2 input; received shape {x.shape}.")
    length = _bincount_length(x, minlength)
    if weights is not None:
        weights = _array(weights)
    if x.ndim == 1:
        return jnp.bincount(x, weights=weights, minlength=length, length=length)
    if weights is None:
        return jax.vmap(lambda row: jnp.bincount(row, minlength=length, length=length))(x)
    return jax.vmap(lambda row, w: jnp.bincount(row, weights=w, minlength=length, length=length))(
        x, jnp.broadcast_to(weights, x.shape)
    )


def _bincount_length(x, minlength):
    """The output length: from the data when it is concrete, else `minlength`."""
    if x.size == 0:
        return minlength
    try:
        top = int(jnp.max(x))
    except jax.errors.ConcretizationTypeError:
        if minlength:
            return minlength
        raise ValueError(
            "bincount: under tracing (jax.jit, symbolic shapes) the output length cannot "
            "come from the data; pass minlength=N for N bins (values >= N are then dropped)."
        ) from None
    return builtins.max(top + 1, minlength)


def size(x):
    return jnp.size(x)


def ndim(x):
    return jnp.ndim(x)


def get_item(x, key):
    return _array(x)[key]


def _unused():  # keeps `builtins` referenced for names shadowed above
    return builtins.max


# The rarer functions live in their own module; they are part of this one's contract.
from lamina.backend.jax import numpy_extra as _extra  # noqa: E402
from lamina.backend.jax.numpy_extra import (  # noqa: E402, F401
    angle,
    argpartition,
    bitwise_and,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    conj,
    correlate,
    fmod,
    gcd,
    histogram,
    hypot,
    i0,
    imag,
    isin,
    lcm,
    median,
    nanmedian,
    nextafter,
    nonzero,
    real,
    signbit,
    trunc,
    unique,
    vectorize,
    view,
)


def _check_q(q, op):
    """A concrete `q` outside `[0, 1]` is refused (a traced one cannot be checked)."""
    try:
        values = np.asarray(q, dtype="float64")
    except jax.errors.TracerArrayConversionError:
        return
    if values.size and not np.all((values >= 0) & (values <= 1)):  # NaN fails too
        raise ValueError(
            f"{op}: q must lie in [0, 1] (a percentile's in [0, 100]); received "
            f"q={values.tolist()}."
        )


def quantile(x, q, axis=None, method="linear", keepdims=False):
    _check_q(q, "quantile")
    return _extra.quantile(x, q, axis=axis, method=method, keepdims=keepdims)


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    _check_q(q, "nanquantile")
    return _extra.nanquantile(x, q, axis=axis, method=method, keepdims=keepdims)


# Python lists (and tuples) as array arguments ------------------------------------------
# jnp refuses them ("requires ndarray or scalar arguments"); Keras and lamina's torch engine
# take them as arrays. Only the array arguments are converted (not shapes or axes), and
# only lists and tuples, so Python scalars stay weakly typed.
_SEQUENCES = (list, tuple)


def _from_sequence(x):
    if type(x) not in _SEQUENCES:
        return x
    try:
        return convert_to_tensor(x)
    except jax.errors.TracerArrayConversionError:  # a list holding traced arrays
        return jnp.asarray(x)


def _taking_sequences(fn, count):
    """`fn` with its first `count` (array) arguments converted from lists and tuples."""
    names = fn.__code__.co_varnames[:count]

    @functools.wraps(fn)
    def function(*args, **kwargs):
        if builtins.any(type(a) in _SEQUENCES for a in args[:count]):
            args = tuple(_from_sequence(a) for a in args[:count]) + args[count:]
        if kwargs:
            for name in names:
                if type(kwargs.get(name)) in _SEQUENCES:
                    kwargs[name] = _from_sequence(kwargs[name])
        return fn(*args, **kwargs)

    return function


def _taking_sequences_of_arrays(fn):
    """`fn` whose first argument is a sequence of arrays, any of them a list."""

    @functools.wraps(fn)
    def function(xs, *args, **kwargs):
        if builtins.any(type(x) in _SEQUENCES for x in xs):
            xs = [_from_sequence(x) for x in xs]
        return fn(xs, *args, **kwargs)

    return function


def _taking_sequences_varargs(fn, skip):
    """`fn` whose variadic arrays (after `skip` leading arguments) may be lists."""

    @functools.wraps(fn)
    def function(*args, **kwargs):
        if builtins.any(type(a) in _SEQUENCES for a in args[skip:]):
            args = args[:skip] + tuple(_from_sequence(a) for a in args[skip:])
        return fn(*args, **kwargs)

    return function


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
