"""NumPy-style reductions on torch tensors: sums, means, extremes, spreads, cumulations.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_reductions`); the dtype helpers are in
`numpy_arguments`. Results and dtypes follow the JAX engine: integer
sums and products are int32 (uint32 for unsigned input), `argmax`/`argmin` and counts are
int32, and `mean`, `std`, `var` and `average` of integers give floats.
"""

from __future__ import annotations

import torch

from lamina.backend.torch.numpy_arguments import (
    _INT32,
    _UINT32,
    _axis_tuple,
    _dtype,
    _float,
    _floating,
    _pair_tensors,
    _t,
)

# Integer reductions on JAX (no 64-bit types): small signed ints and bool sum to int32,
# small unsigned ints to uint32.
_SUM_DTYPE = {
    torch.bool: _INT32,
    torch.int8: _INT32,
    torch.int16: _INT32,
    torch.int32: _INT32,
    torch.int64: _INT32,
    torch.uint8: _UINT32,
    torch.uint16: _UINT32,
    torch.uint32: _UINT32,
}


def _axes(axis):
    """A reduction axis as torch takes it: `None`, an int, or a tuple of ints."""
    if axis is None or isinstance(axis, int):
        return axis
    return tuple(axis)


# Reductions ---------------------------------------------------------------------------
def sum(x, axis=None, keepdims=False):
    x = _t(x)
    if x.is_floating_point():
        return torch.sum(x, dim=_axes(axis), keepdim=keepdims)
    return _integer_sum(torch.sum, x, _axes(axis), keepdims)


def _integer_sum(reduce, x, axis, keepdims):
    target = _SUM_DTYPE.get(x.dtype, x.dtype)
    if target == _UINT32:  # torch cannot add uint32 on CPU: add in int64, then narrow
        return reduce(x, dim=axis, keepdim=keepdims, dtype=torch.int64).to(target)
    return reduce(x, dim=axis, keepdim=keepdims, dtype=target)


def mean(x, axis=None, keepdims=False):
    x = _t(x)
    if not x.is_floating_point():
        x = x.to(_float(None))
    return torch.mean(x, dim=_axes(axis), keepdim=keepdims)


def _extreme(reduce, combine, x, axis, keepdims, initial):
    x = _t(x)
    dims = () if axis is None else _axes(axis)
    if initial is None:
        return reduce(x, dim=dims, keepdim=keepdims)
    if x.numel() == 0:  # nothing to reduce: `initial` everywhere (torch would refuse)
        reduced = _axis_tuple(axis, x.dim())
        shape = [1 if i in reduced else d for i, d in enumerate(x.shape)]
        if not keepdims:
            shape = [d for i, d in enumerate(shape) if i not in reduced]
        return torch.full(shape, initial, dtype=x.dtype, device=x.device)
    out = reduce(x, dim=dims, keepdim=keepdims)
    return combine(out, torch.tensor(initial, device=out.device).to(out.dtype))


def max(x, axis=None, keepdims=False, initial=None):
    return _extreme(torch.amax, torch.maximum, x, axis, keepdims, initial)


def min(x, axis=None, keepdims=False, initial=None):
    return _extreme(torch.amin, torch.minimum, x, axis, keepdims, initial)


def prod(x, axis=None, keepdims=False, dtype=None):
    x = _t(x)
    if dtype is not None:
        x, target = x.to(_dtype(dtype)), _dtype(dtype)
    else:
        target = None if x.is_floating_point() else _SUM_DTYPE.get(x.dtype, x.dtype)
    narrow = None
    if target == _UINT32:  # no uint32 products on CPU: multiply in int64, then narrow
        target, narrow = torch.int64, _UINT32
    if axis is None:
        out = torch.prod(x, dtype=target)
        if keepdims:
            out = out.reshape([1] * x.dim())
    else:
        out = x
        for a in sorted(_axis_tuple(axis, x.dim()), reverse=True):
            out = torch.prod(out, a, keepdim=keepdims, dtype=target)
    return out if narrow is None else out.to(narrow)


def std(x, axis=None, keepdims=False):
    return torch.std(_floating(x), dim=_axes(axis), correction=0, keepdim=keepdims)


def var(x, axis=None, keepdims=False):
    return torch.var(_floating(x), dim=_axes(axis), correction=0, keepdim=keepdims)


def _truth(x):
    x = _t(x)
    return x if x.dtype == torch.bool else x != 0


def any(x, axis=None, keepdims=False):
    return torch.any(_truth(x), dim=_axes(axis), keepdim=keepdims)


def all(x, axis=None, keepdims=False):
    return torch.all(_truth(x), dim=_axes(axis), keepdim=keepdims)


def _arg_extreme(fn, x, axis, keepdims):
    x = _t(x)
    if x.dtype == torch.bool:
        x = x.to(torch.uint8)
    return fn(x, dim=axis, keepdim=keepdims).to(_INT32)


def argmax(x, axis=None, keepdims=False):
    return _arg_extreme(torch.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    return _arg_extreme(torch.argmin, x, axis, keepdims)


def _cumulative(fn, x, axis, dtype):
    x = _t(x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    if dtype is not None:
        target = _dtype(dtype)
    elif x.dtype == torch.bool:
        target = _INT32
    else:
        target = x.dtype  # JAX keeps the input dtype (int8 stays int8)
    return fn(x, axis, dtype=target)


def cumsum(x, axis=None, dtype=None):
    return _cumulative(torch.cumsum, x, axis, dtype)


def cumprod(x, axis=None, dtype=None):
    return _cumulative(torch.cumprod, x, axis, dtype)


def count_nonzero(x, axis=None):
    return torch.count_nonzero(_t(x), dim=_axes(axis)).to(_INT32)


def average(x, axis=None, weights=None):
    if weights is None:
        return mean(x, axis)
    x, weights = _pair_tensors(x, weights)
    if not x.is_floating_point():
        x, weights = _floating(x), _floating(weights)
    if weights.shape != x.shape:
        if axis is None:
            raise ValueError(
                f"average: weights of shape {tuple(weights.shape)} differ from x's shape "
                f"{tuple(x.shape)}; pass `axis` (weights then has one value per element "
                "along it) or weights of x's shape."
            )
        if weights.dim() != 1 or weights.shape[0] != x.shape[axis]:
            raise ValueError(
                f"average: weights must be 1-D of length {x.shape[axis]} (x's axis {axis}); "
                f"received shape {tuple(weights.shape)}."
            )
        view = [1] * x.dim()
        view[axis] = -1
        weights = weights.reshape(view)
    axis = _axes(axis)
    return torch.sum(x * weights, dim=axis) / torch.sum(
        torch.broadcast_to(weights, x.shape), dim=axis
    )
