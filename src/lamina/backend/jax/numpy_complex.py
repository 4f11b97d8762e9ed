"""Complex numbers on JAX arrays: parts, conjugate, angle, and real pairs as complex numbers.

`view_as_complex` and `view_as_real` belong to the engine's `math` contract module,
which re-exports them.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_complex`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from lamina.backend.jax.numpy_arguments import _as_float


def real(x):
    return jnp.real(jnp.asarray(x))


def imag(x):
    return jnp.imag(jnp.asarray(x))


def conj(x):
    return jnp.conj(jnp.asarray(x))


def angle(x):
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.complexfloating):
        x = _as_float(x)
    return jnp.angle(x)


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
