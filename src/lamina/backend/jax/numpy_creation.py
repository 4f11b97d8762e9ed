"""Array creation on JAX arrays: filled arrays, ranges, grids, triangles, copies.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_creation`).
"""

from __future__ import annotations

import jax.numpy as jnp

from lamina.backend.jax.numpy_arguments import _dtype, _float


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
