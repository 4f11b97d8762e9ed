"""Products and diagonals on torch tensors: `matmul`, `einsum`, `trace`, `correlate`, ...

Operands are promoted with Keras's rules first; int8 products accumulate in int32, as on
the JAX engine.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_products`).
"""

from __future__ import annotations

import builtins

import torch
import torch.nn.functional as F

from lamina.backend.torch.core import (
    to_torch_dtype,
)
from lamina.backend.torch.numpy_arguments import (
    _INT32,
    _common,
    _pair_tensors,
    _promote_all,
    _t,
)
from lamina.backend.torch.numpy_reductions import _integer_sum


def _product(fn, x1, x2):
    """`fn(x1, x2)` on promoted operands; bool products are computed in int32."""
    x1, x2 = _pair_tensors(x1, x2)
    if x1.dtype == torch.bool:
        return fn(x1.to(_INT32), x2.to(_INT32)) != 0
    return fn(x1, x2)


def matmul(x1, x2):
    x1, x2 = _t(x1), _t(x2)
    if x1.dtype == torch.int8 and x2.dtype == torch.int8:
        # As in Keras: int8 products accumulate in int32.
        return torch.matmul(x1.to(_INT32), x2.to(_INT32))
    return _product(torch.matmul, x1, x2)


def dot(x1, x2):
    def numpy_dot(a, b):
        if a.dim() == 0 or b.dim() == 0:
            return a * b
        if b.dim() == 1 or (a.dim() <= 2 and b.dim() == 2):
            return torch.matmul(a, b)
        return torch.tensordot(a, b, dims=([a.dim() - 1], [b.dim() - 2]))

    return _product(numpy_dot, x1, x2)


# `jnp.einsum`'s options: torch plans the contraction itself and computes at full precision.
_EINSUM_OPTIONS = ("optimize", "precision", "preferred_element_type")


def einsum(subscripts, *operands, **kwargs):
    unknown = sorted(set(kwargs) - set(_EINSUM_OPTIONS))
    if unknown:
        raise TypeError(
            f"einsum: unexpected keyword argument(s) {unknown}; the options it takes are "
            f"{list(_EINSUM_OPTIONS)}. Pass the operands positionally after `subscripts`."
        )
    operands = _promote_all(operands)
    if operands[0].dtype == torch.bool:
        out = torch.einsum(subscripts, *(x.to(_INT32) for x in operands)) != 0
    elif operands[0].dtype == torch.int8:  # as in Keras: int8 products accumulate in int32
        out = torch.einsum(subscripts, *(x.to(_INT32) for x in operands))
    else:
        out = torch.einsum(subscripts, *operands)
    preferred = kwargs.get("preferred_element_type")
    return out if preferred is None else out.to(to_torch_dtype(preferred))


def tensordot(x1, x2, axes=2):
    if not isinstance(axes, int):
        a_axes, b_axes = axes
        a_axes = [a_axes] if isinstance(a_axes, int) else list(a_axes)
        b_axes = [b_axes] if isinstance(b_axes, int) else list(b_axes)
        axes = (a_axes, b_axes)
    return _product(lambda a, b: torch.tensordot(a, b, dims=axes), x1, x2)


def outer(x1, x2):
    return _product(lambda a, b: torch.outer(a.reshape(-1), b.reshape(-1)), x1, x2)


def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """NumPy's cross product: 3-vectors, or 2-vectors (whose missing z is 0)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _pair_tensors(x1, x2)
    a, b = torch.movedim(a, axisa, -1), torch.movedim(b, axisb, -1)
    sizes = (a.shape[-1], b.shape[-1])
    if builtins.any(s not in (2, 3) for s in sizes):
        raise ValueError(
            f"cross: vectors must have 2 or 3 components along the chosen axes; received "
            f"{sizes[0]} and {sizes[1]} (shapes {tuple(x1.shape)} and {tuple(x2.shape)})."
        )
    a0, a1 = a[..., 0], a[..., 1]
    b0, b1 = b[..., 0], b[..., 1]
    z = a0 * b1 - a1 * b0
    if sizes == (2, 2):
        return z
    a2 = a[..., 2] if sizes[0] == 3 else torch.zeros_like(a0)
    b2 = b[..., 2] if sizes[1] == 3 else torch.zeros_like(b0)
    out = torch.stack(torch.broadcast_tensors(a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z), -1)
    return torch.movedim(out, -1, axisc)


def trace(x, offset=0, axis1=0, axis2=1):
    x = _t(x)
    diagonal = torch.diagonal(x, offset, axis1, axis2)
    if x.is_floating_point():
        return torch.sum(diagonal, -1)
    return _integer_sum(torch.sum, diagonal, -1, False)


def diag(x, k=0):
    return torch.diag(_t(x), k)


def diagonal(x, offset=0, axis1=0, axis2=1):
    return torch.diagonal(_t(x), offset, axis1, axis2)


def correlate(x1, x2, mode="valid"):
    x1, x2 = _common(x1, x2, float)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError("correlate: expected two 1-D tensors.")
    n, m = x1.shape[0], x2.shape[0]
    if mode == "valid":
        pad = 0
    elif mode == "same":
        pad = (m - 1) // 2 if n >= m else None
    elif mode == "full":
        pad = m - 1
    else:
        raise ValueError(f"correlate: mode must be 'valid', 'same' or 'full', received {mode!r}.")
    if n < m:
        # NumPy swaps the operands (and reverses the result) when the first is shorter.
        return torch.flip(correlate(x2, x1, mode), dims=(0,)).conj()
    if mode == "same":
        left = (m - 1) // 2
        right = m - 1 - left
        padded = F.pad(x1[None, None], (right, left))
        return F.conv1d(padded, x2[None, None])[0, 0]
    return F.conv1d(x1[None, None], x2[None, None], padding=pad)[0, 0]
