"""Bitwise and integer functions on JAX arrays: bit operations, `gcd`, `lcm`, `view`.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_bitwise`).
"""

from __future__ import annotations

import jax.numpy as jnp

from lamina.backend.common.dtypes import result_type
from lamina.backend.common.variables import standardize_dtype


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


def view(x, dtype=None):
    x = jnp.asarray(x)
    return x if dtype is None else x.view(standardize_dtype(dtype))
