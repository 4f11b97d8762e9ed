"""Bitwise and integer functions on torch tensors: bit operations, `gcd`, `lcm`, `view`.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_bitwise`).
"""

from __future__ import annotations

import torch

from lamina.backend.torch.core import (
    to_torch_dtype,
)
from lamina.backend.torch.numpy_arguments import (
    _common,
    _t,
)


def _integers(x1, x2, op):
    x1, x2 = _common(x1, x2)
    if x1.is_floating_point() or x1.is_complex():
        raise TypeError(f"{op}: expected integer or bool tensors, received {x1.dtype}.")
    return x1, x2


def bitwise_and(x, y):
    return torch.bitwise_and(*_integers(x, y, "bitwise_and"))


def bitwise_or(x, y):
    return torch.bitwise_or(*_integers(x, y, "bitwise_or"))


def bitwise_xor(x, y):
    return torch.bitwise_xor(*_integers(x, y, "bitwise_xor"))


def bitwise_invert(x):
    return torch.bitwise_not(_t(x))


def bitwise_left_shift(x, y):
    return torch.bitwise_left_shift(*_integers(x, y, "bitwise_left_shift"))


def bitwise_right_shift(x, y):
    return torch.bitwise_right_shift(*_integers(x, y, "bitwise_right_shift"))


def gcd(x1, x2):
    return torch.gcd(*_integers(x1, x2, "gcd"))


def lcm(x1, x2):
    return torch.lcm(*_integers(x1, x2, "lcm"))


def view(x, dtype=None):
    x = _t(x)
    return x if dtype is None else x.view(to_torch_dtype(dtype))
