"""The rarer NumPy functions on JAX arrays: bitwise, number theory, quantiles, sets.

Re-exported by `backend/jax/numpy.py`; the ops built on them are in `lamina.ops.numpy`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from lamina.backend.common.dtypes import result_type
from lamina.backend.common.variables import standardize_dtype

_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _integers(x1, x2, op):
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    dtype = result_type(standardize_dtype(x1.dtype), standardize_dtype(x2.dtype))
    if "int" not in dtype and dtype != "bool":
        raise TypeError(
            f"{op}: expected integer or bool tensors, received {x1.dtype} and {x2.dtype}."
        )
    return x1.astype(dtype), x2.astype(dtype)


def bitwise_and(x, y):
    return jnp.bitwise_and(*_integers(x, y, "bitwise_and"))


def bitwise_or(x, y):
    return jnp.bitwise_or(*_integers(x, y, "bitwise_or"))


def bitwise_xor(x, y):
    return jnp.bitwise_xor(*_integers(x, y, "bitwise_xor"))


def bitwise_invert(x):
    return jnp.invert(jnp.asarray(x))


def bitwise_left_shift(x, y):
    return jnp.left_shift(*_integers(x, y, "bitwise_left_shift"))


def bitwise_right_shift(x, y):
    return jnp.right_shift(*_integers(x, y, "bitwise_right_shift"))


def gcd(x1, x2):
    return jnp.gcd(*_integers(x1, x2, "gcd"))


def lcm(x1, x2):
    return jnp.lcm(*_integers(x1, x2, "lcm"))


def _floats(x1, x2):
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    dtype = result_type(standardize_dtype(x1.dtype), standardize_dtype(x2.dtype), float)
    return x1.astype(dtype), x2.astype(dtype)


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


def _float(x):
    x = jnp.asarray(x)
    if jnp.issubdtype(x.dtype, jnp.floating):
        return x
    return x.astype(result_type(standardize_dtype(x.dtype), float))


def i0(x):
    return jnp.i0(_float(x))


def signbit(x):
    return jnp.signbit(jnp.asarray(x))


def trunc(x):
    return jnp.trunc(jnp.asarray(x))


def isin(x1, x2, assume_unique=False, invert=False):
    return jnp.isin(jnp.asarray(x1), jnp.asarray(x2), assume_unique=assume_unique, invert=invert)


def real(x):
    return jnp.real(jnp.asarray(x))


def imag(x):
    return jnp.imag(jnp.asarray(x))


def conj(x):
    return jnp.conj(jnp.asarray(x))


def angle(x):
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.complexfloating):
        x = _float(x)
    return jnp.angle(x)


def _check_method(method, op):
    if method not in _QUANTILE_METHODS:
        raise ValueError(
            f"{op}: unknown method {method!r}; expected one of {list(_QUANTILE_METHODS)}."
        )


def quantile(x, q, axis=None, method="linear", keepdims=False):
    _check_method(method, "quantile")
    x = _float(x)
    return jnp.quantile(x, jnp.asarray(q, x.dtype), axis=axis, method=method, keepdims=keepdims)


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    _check_method(method, "nanquantile")
    x = _float(x)
    return jnp.nanquantile(x, jnp.asarray(q, x.dtype), axis=axis, method=method, keepdims=keepdims)


def median(x, axis=None, keepdims=False):
    return quantile(x, 0.5, axis=axis, keepdims=keepdims)


def nanmedian(x, axis=None, keepdims=False):
    return nanquantile(x, 0.5, axis=axis, keepdims=keepdims)


def nonzero(x):
    return tuple(i.astype("int32") for i in jnp.nonzero(jnp.asarray(x)))


def unique(
    x,
    sorted=True,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    size=None,
    fill_value=None,
):
    result = jnp.unique(
        jnp.asarray(x),
        return_index=return_index,
        return_inverse=return_inverse,
        return_counts=return_counts,
        axis=axis,
        size=size,
        fill_value=fill_value,
    )
    if not isinstance(result, tuple):
        return result
    return (result[0], *(r.astype("int32") for r in result[1:]))


def argpartition(x, kth, axis=-1):
    return jnp.argpartition(jnp.asarray(x), kth, axis=axis).astype("int32")


def histogram(x, bins=10, range=None):
    x = jnp.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"histogram: expected a 1-D tensor, received shape {x.shape}.")
    counts, edges = jnp.histogram(_float(x), bins=bins, range=range)
    return counts.astype(edges.dtype), edges


def correlate(x1, x2, mode="valid"):
    x1, x2 = _floats(x1, x2)
    return jnp.correlate(x1, x2, mode=mode)


def view(x, dtype=None):
    x = jnp.asarray(x)
    return x if dtype is None else x.view(standardize_dtype(dtype))


def vectorize(pyfunc, excluded=None, signature=None):
    return jnp.vectorize(pyfunc, excluded=excluded or set(), signature=signature)


def view_as_complex(x):
    x = jnp.asarray(x)
    if x.ndim < 1 or x.shape[-1] != 2:
        raise ValueError(
            f"view_as_complex: the last axis must have length 2, received shape {x.shape}."
        )
    return jax.lax.complex(x[..., 0], x[..., 1])


def view_as_real(x):
    x = jnp.asarray(x)
    return jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)
