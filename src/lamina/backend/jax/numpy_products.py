"""Products and diagonals on JAX arrays: `matmul`, `einsum`, `trace`, `correlate`, ...

As in Keras on JAX, int8 products accumulate in int32.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_products`).
"""

from __future__ import annotations

import builtins
import math

import jax
import jax.numpy as jnp

from lamina.backend.common import einsum_plans
from lamina.backend.jax.numpy_arguments import _floats


def matmul(x1, x2):
    if _is_int8(x1) and _is_int8(x2):  # as in Keras: int8 products accumulate in int32
        return jnp.matmul(x1, x2, preferred_element_type=jnp.int32)
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    if x1.ndim > 2 and x2.ndim == 2 and jax.default_backend() == "cpu":
        return _flat_matmul(x1, x2)
    return jnp.matmul(x1, x2)


def _flat_matmul(x1, x2):
    """`x1 @ x2` for a stack of rows times a matrix (a Dense layer on a sequence or an
    image), as one 2-D product over the flattened rows: on the CPU, XLA runs the rank-3
    product's output and gradients 2-3.4x slower (a (64, 200, 64) by (64, 256) product
    with its bias and gradients: 42.6 against 12.7 ms). The same sums of the same
    products."""
    rows = math.prod(x1.shape[:-1])
    flat = jnp.matmul(x1.reshape(rows, x1.shape[-1]), x2)
    return flat.reshape(x1.shape[:-1] + (x2.shape[-1],))


def _is_int8(x):
    return getattr(x, "dtype", None) == jnp.int8


def dot(x1, x2):
    return jnp.dot(x1, x2)


def einsum(subscripts, *operands, **kwargs):
    # As Keras on JAX: options (`optimize`, `precision`, `preferred_element_type`) go to
    # `jnp.einsum`, which rejects any other name; int8 products accumulate in int32.
    if kwargs.get("preferred_element_type") is None and builtins.all(map(_is_int8, operands)):
        kwargs["preferred_element_type"] = jnp.int32
    if not kwargs and len(operands) == 2 and jax.default_backend() == "cpu":
        flat = _flat_einsum(subscripts, *operands)
        if flat is not None:
            return flat
    return jnp.einsum(subscripts, *operands, **kwargs)


def _flat_einsum(subscripts, a, b):
    """An einsum that is one product of runs of axes, `BC,CO->BO` (EinsumDense's
    `abc,cde->abde`, attention's output projection `abcd,cde->abe`; see
    `backend.common.einsum_plans`), as a 2-D product; None for any other einsum. On the
    CPU, XLA runs such products' gradients 1.5x slower unflattened (see `_flat_matmul`)."""
    spec = subscripts.replace(" ", "")
    if "..." in spec or spec.count("->") != 1:
        return None
    inputs, out = spec.split("->")
    parts = inputs.split(",")
    plan = einsum_plans.flat_product(*parts, out) if len(parts) == 2 else None
    if plan is None:
        return None
    rows_rank, k = plan
    if rows_rank < 2 and k < 2 and len(out) - rows_rank < 2:
        return None  # a matrix product already
    a, b = jnp.asarray(a), jnp.asarray(b)
    if a.ndim != len(parts[0]) or b.ndim != len(parts[1]) or a.shape[rows_rank:] != b.shape[:k]:
        return None  # jnp.einsum says what is wrong
    rows, inner = math.prod(a.shape[:rows_rank]), math.prod(b.shape[:k])
    flat = jnp.matmul(a.reshape(rows, inner), b.reshape(inner, math.prod(b.shape[k:])))
    return flat.reshape(a.shape[:rows_rank] + b.shape[k:])


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
