"""Reductions along axes on JAX arrays: sums, means, extremes, cumulations.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_reductions`).
"""

from __future__ import annotations

import jax.numpy as jnp

from lamina.backend import config
from lamina.backend.jax.numpy_arguments import _dtype, _from_sequence


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
