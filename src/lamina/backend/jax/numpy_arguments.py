"""How the JAX engine's NumPy-style functions take their arguments: dtypes and conversions.

The helpers shared by `numpy.py` and its family modules (`numpy_reductions.py`,
`numpy_shapes.py`, ...), which all import them from here: default dtypes, lamina's
conversions of NumPy arrays and Python lists, and the float dtypes Keras promotes to.
"""

from __future__ import annotations

import builtins
import functools

import jax
import jax.numpy as jnp

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


def _as_float(x):
    x = jnp.asarray(x)
    if jnp.issubdtype(x.dtype, jnp.floating):
        return x
    return x.astype(result_type(standardize_dtype(x.dtype), float))


def _floats(x1, x2):
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    dtype = result_type(standardize_dtype(x1.dtype), standardize_dtype(x2.dtype), float)
    return x1.astype(dtype), x2.astype(dtype)
