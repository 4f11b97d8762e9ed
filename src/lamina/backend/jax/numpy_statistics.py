"""Order statistics and counts on JAX arrays: quantiles, medians, histograms, `bincount`.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_statistics`).
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import numpy as np

from lamina.backend.jax.numpy_arguments import _array, _as_float, _refuse_sparse

_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check_method(method, op):
    if method not in _QUANTILE_METHODS:
        raise ValueError(
            f"{op}: unknown method {method!r}; expected one of {list(_QUANTILE_METHODS)}."
        )


def _quantile(x, q, axis=None, method="linear", keepdims=False):
    _check_method(method, "quantile")
    x = _as_float(x)
    return jnp.quantile(x, jnp.asarray(q, x.dtype), axis=axis, method=method, keepdims=keepdims)


def _nanquantile(x, q, axis=None, method="linear", keepdims=False):
    _check_method(method, "nanquantile")
    x = _as_float(x)
    return jnp.nanquantile(x, jnp.asarray(q, x.dtype), axis=axis, method=method, keepdims=keepdims)


def median(x, axis=None, keepdims=False):
    return _quantile(x, 0.5, axis=axis, keepdims=keepdims)


def nanmedian(x, axis=None, keepdims=False):
    return _nanquantile(x, 0.5, axis=axis, keepdims=keepdims)


def histogram(x, bins=10, range=None):
    x = jnp.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"histogram: expected a 1-D tensor, received shape {x.shape}.")
    counts, edges = jnp.histogram(_as_float(x), bins=bins, range=range)
    return counts.astype(edges.dtype), edges


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
    return _quantile(x, q, axis=axis, method=method, keepdims=keepdims)


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    _check_q(q, "nanquantile")
    return _nanquantile(x, q, axis=axis, method=method, keepdims=keepdims)
