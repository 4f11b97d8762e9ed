"""Order statistics and counts on torch tensors: quantiles, medians, histograms, `bincount`.

Results and dtypes follow the JAX engine: quantiles of integers are floats, counts int32.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_statistics`).
"""

from __future__ import annotations

import builtins

import numpy as np
import torch

from lamina.backend.torch.core import (
    dtype_name,
)
from lamina.backend.torch.numpy_arguments import (
    _INT32,
    _as_float,
    _indices,
    _refuse_sparse,
    _t,
)

_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check_method(method, op):
    if method not in _QUANTILE_METHODS:
        raise ValueError(
            f"{op}: unknown method {method!r}; expected one of {list(_QUANTILE_METHODS)}."
        )


def _check_q(q, op):
    """A `q` outside `[0, 1]` is refused (on the meta device there are no values)."""
    if isinstance(q, torch.Tensor):
        if q.is_meta:
            return
        values = q.detach().to("cpu", torch.float64).numpy()
    else:
        values = np.asarray(q, dtype="float64")
    if values.size and not np.all((values >= 0) & (values <= 1)):  # NaN fails too
        raise ValueError(
            f"{op}: q must lie in [0, 1] (a percentile's in [0, 100]); received "
            f"q={values.tolist()}."
        )


def _quantile(fn, x, q, axis, method, keepdims, op):
    _check_method(method, op)
    x = _as_float(x)
    _check_q(q, op)
    if x.dtype in (torch.float16, torch.bfloat16):  # torch.quantile takes float32/64 only
        out = _quantile(fn, x.float(), q, axis, method, keepdims, op)
        return out.to(x.dtype)
    q = _t(q).to(x.dtype)
    if axis is None:
        out = fn(x.reshape(-1), q, dim=0, interpolation=method)
        if keepdims:
            out = out.reshape(q.shape + (1,) * x.ndim)
        return out
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(a % x.ndim for a in axes)
    rest = [a for a in range(x.ndim) if a not in axes]
    # The reduced axes moved to the end and flattened into one.
    moved = x.permute(*rest, *axes).reshape(*[x.shape[a] for a in rest], -1)
    out = fn(moved, q, dim=-1, interpolation=method)
    if keepdims:
        shape = [1 if a in axes else x.shape[a] for a in range(x.ndim)]
        out = out.reshape(q.shape + tuple(shape))
    return out


def quantile(x, q, axis=None, method="linear", keepdims=False):
    return _quantile(torch.quantile, x, q, axis, method, keepdims, "quantile")


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    return _quantile(torch.nanquantile, x, q, axis, method, keepdims, "nanquantile")


def median(x, axis=None, keepdims=False):
    return quantile(x, 0.5, axis=axis, keepdims=keepdims)


def nanmedian(x, axis=None, keepdims=False):
    return nanquantile(x, 0.5, axis=axis, keepdims=keepdims)


def histogram(x, bins=10, range=None):
    x = _as_float(x)
    if x.ndim != 1:
        raise ValueError(f"histogram: expected a 1-D tensor, received shape {tuple(x.shape)}.")
    low, high = (x.min(), x.max()) if range is None else (_t(range[0]), _t(range[1]))
    low, high = low.to(x.dtype), high.to(x.dtype)
    high = torch.where(high > low, high, low + 1)
    edges = low + (high - low) * torch.arange(bins + 1, device=x.device, dtype=x.dtype) / bins
    # Bin i holds edges[i] <= v < edges[i + 1]; the last bin also holds its right edge.
    index = torch.searchsorted(edges, x, right=True) - 1
    index = torch.where(x == edges[-1], bins - 1, index)
    inside = (index >= 0) & (index < bins)
    counts = torch.zeros(bins, dtype=torch.int64, device=x.device)
    counts = counts.index_add(0, index.clamp(0, bins - 1), inside.to(torch.int64))
    return counts.to(edges.dtype), edges


def bincount(x, weights=None, minlength=0, sparse=False):
    """Counts of each non-negative integer along the last axis (rank 1 or 2 input).

    As on the JAX engine: negative values count as 0, and the output length is
    `max(max(x) + 1, minlength)` (one length for all rows of a rank-2 input). On the
    `meta` device (abstract evaluation) there is no data: the length is `minlength`,
    which must then be given, and values `>= minlength` would be dropped.
    """
    _refuse_sparse("bincount", sparse)
    x = _t(x)
    if x.is_floating_point() or x.dtype == torch.bool:
        raise TypeError(f"bincount: x must have an integer type; received {dtype_name(x.dtype)}.")
    if x.dim() not in (1, 2):
        raise ValueError(
            f"bincount expects a rank-1 or rank-2 input; received shape {tuple(x.shape)}."
        )
    if weights is None:
        values = torch.ones(x.shape, dtype=_INT32, device=x.device)
    else:
        values = _t(weights)
        if values.shape != x.shape:
            values = torch.broadcast_to(values, x.shape)
    length = minlength
    if x.is_meta:
        if not minlength:
            raise ValueError(
                "bincount: on the meta device (abstract evaluation) the output length "
                "cannot come from the data; pass minlength=N for N bins."
            )
    elif x.numel():
        length = builtins.max(int(x.max()) + 1, minlength)
    x = _indices(x).clamp_min(0)
    kept = x < length
    x = torch.where(kept, x, 0)
    values = torch.where(kept, values, torch.zeros((), dtype=values.dtype, device=x.device))
    out = torch.zeros((*x.shape[:-1], length), dtype=values.dtype, device=x.device)
    if length == 0:
        return out
    return out.scatter_add(-1, x, values)
