"""Products and diagonals on JAX arrays: `matmul`, `einsum`, `trace`, `correlate`, ...

As in Keras on JAX, int8 products accumulate in int32.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_products`).
"""

from __future__ import annotations

import builtins

import jax.numpy as jnp

from lamina.backend.jax.numpy_arguments import _floats


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


def trace(x, offset=0, axis1=0, axis2=1):
    return jnp.trace(x, offset=offset, axis1=axis1, axis2=axis2)


def diag(x, k=0):
    return jnp.diag(x, k)


def diagonal(x, offset=0, axis1=0, axis2=1):
    return jnp.diagonal(x, offset, axis1, axis2)


def correlate(x1, x2, mode="valid"):
    x1, x2 = _floats(x1, x2)
    return jnp.correlate(x1, x2, mode=mode)
