"""Complex numbers on torch tensors: parts, conjugate, angle, and real pairs as complex numbers.

`view_as_complex` and `view_as_real` belong to the engine's `math` contract module,
which re-exports them.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_complex`).
"""

from __future__ import annotations

import torch

from lamina.backend.torch.numpy_arguments import (
    _as_float,
    _t,
)


def real(x):
    x = _t(x)
    return torch.real(x) if x.is_complex() else x


def imag(x):
    x = _t(x)
    return torch.imag(x) if x.is_complex() else torch.zeros_like(x)


def conj(x):
    x = _t(x)
    return torch.conj(x).resolve_conj() if x.is_complex() else x


def angle(x):
    return torch.angle(_as_float(x))


def view_as_complex(x):
    x = _as_float(x)
    if x.ndim < 1 or x.shape[-1] != 2:
        raise ValueError(
            f"view_as_complex: the last axis must have length 2, received shape {tuple(x.shape)}."
        )
    return torch.complex(x[..., 0].contiguous(), x[..., 1].contiguous())


def view_as_real(x):
    x = _t(x)
    if not x.is_complex():
        return torch.stack([x, torch.zeros_like(x)], dim=-1)
    return torch.view_as_real(x).clone()
