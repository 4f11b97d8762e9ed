"""Indexing, sorting and searching on torch tensors: `take`, `sort`, `nonzero`, `unique`, ...

As on the JAX engine: negative indices wrap in `take`/`take_along_axis`, negative slice
steps work in `get_item`, and indices come back as int32.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_indexing`).
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
    _indices,
    _pair_tensors,
    _t,
    _Tensor,
)


def get_item(x, key):
    x = _t(x)
    if type(key) is tuple:
        if builtins.any(type(k) is slice and k.step is not None and k.step < 0 for k in key):
            x, key = _flip_negative_steps(x, key)
    elif type(key) is slice and key.step is not None and key.step < 0:
        x, key = _flip_negative_steps(x, (key,))
    return x[key]


def _flip_negative_steps(x, key):
    """Torch slices step forward only: flip the axes that a negative step walks back."""
    consumed = builtins.sum(_key_rank(k) for k in key if k is not Ellipsis)
    axis, new_key, flips = 0, [], []
    for k in key:
        if k is Ellipsis:
            axis += x.dim() - consumed
            new_key.append(k)
            continue
        if type(k) is slice and k.step is not None and k.step < 0:
            n = x.shape[axis]
            start, stop, step = k.indices(n)
            flips.append(axis)
            k = slice(n - 1 - start, n - 1 - stop, -step)
        new_key.append(k)
        axis += _key_rank(k)
    return torch.flip(x, flips), tuple(new_key)


def _key_rank(k):
    """How many axes of the indexed tensor one index element consumes."""
    if k is None:
        return 0
    if isinstance(k, _Tensor) and k.dtype == torch.bool:
        return k.dim()
    if hasattr(k, "dtype") and str(k.dtype) == "bool":
        return k.ndim
    return 1


def take(x, indices, axis=None):
    x = _t(x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    if isinstance(indices, int):
        return torch.select(x, axis, indices)
    if (
        type(indices) is np.ndarray
        and indices.ndim == 1
        and indices.dtype in (np.int32, np.int64)
        and x.dim()
    ):
        # Indices on the host (a batch's rows in `fit`): negatives wrap there, and one
        # `index_select` gathers (advanced indexing costs 2-3x as much on CPU).
        axis = axis % x.dim()
        if indices.size and indices.min() < 0:
            indices = np.where(indices < 0, indices + x.shape[axis], indices)
        index = torch.from_numpy(indices)
        if index.device != x.device:
            index = index.to(x.device)
        return torch.index_select(x, axis, index)
    indices = _t(indices)
    if indices.is_floating_point() or indices.dtype == torch.bool:
        raise TypeError(
            f"take: indices must be integers; received dtype {dtype_name(indices.dtype)}."
        )
    axis = axis % x.dim()
    flat = _wrap(indices.reshape(-1), x.shape[axis])
    out = torch.index_select(x, axis, flat)
    return out.reshape(x.shape[:axis] + indices.shape + x.shape[axis + 1 :])


def _wrap(indices, size):
    """Negative indices counted from the end, as NumPy does."""
    return torch.where(indices < 0, indices + size, indices)


def take_along_axis(x, indices, axis=None):
    x = _t(x)
    indices = _indices(indices)
    if axis is None:
        if indices.dim() != 1:
            raise ValueError(
                "take_along_axis with axis=None needs 1-D indices; received shape "
                f"{tuple(indices.shape)}."
            )
        x, axis = x.reshape(-1), 0
    return torch.take_along_dim(x, _wrap(indices, x.shape[axis]), dim=axis)


def sort(x, axis=-1):
    x = _t(x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    return torch.sort(x, dim=axis, stable=True).values


def argsort(x, axis=-1):
    x = _t(x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    return torch.argsort(x, dim=axis, stable=True).to(_INT32)


def searchsorted(sorted_sequence, values, side="left"):
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right'; received {side!r}.")
    sorted_sequence, values = _pair_tensors(sorted_sequence, values)
    if sorted_sequence.dim() != 1:
        raise ValueError(
            "searchsorted: sorted_sequence must be 1-D; received shape "
            f"{tuple(sorted_sequence.shape)}."
        )
    return torch.searchsorted(sorted_sequence, values, side=side, out_int32=True)


def digitize(x, bins):
    """The bucket of each value: `i` such that `bins[i - 1] <= x < bins[i]` (NumPy's rule)."""
    return searchsorted(bins, x, side="right")


def nonzero(x):
    x = _t(x)
    if x.dim() == 0:
        raise ValueError(
            "nonzero: received a 0-d tensor, which has no axes to index; reshape it to 1-D "
            "first (as NumPy and the JAX engine require)."
        )
    return tuple(i.to(_INT32) for i in torch.nonzero(x, as_tuple=True))


def unique(
    x,
    sorted=True,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    size=None,
    fill_value=None,
):
    x = _t(x)
    flat = x.reshape(-1) if axis is None else x
    values, inverse, counts = torch.unique(
        flat, sorted=True, return_inverse=True, return_counts=True, dim=axis
    )
    dim = 0 if axis is None else axis
    if return_index:
        # The first position of each unique value: the smallest index mapped to it.
        positions = torch.arange(inverse.shape[0], device=inverse.device)
        index = torch.full((values.shape[dim],), inverse.shape[0], device=inverse.device)
        index = index.scatter_reduce(0, inverse, positions, reduce="amin")
    if size is not None:
        found = values.shape[dim]
        if found < size:
            fill = values.select(dim, 0) if fill_value is None else fill_value
            pad_shape = list(values.shape)
            pad_shape[dim] = size - found
            padding = torch.ones(pad_shape, dtype=values.dtype, device=values.device) * _t(fill).to(
                values.dtype
            )
            values = torch.cat([values, padding], dim=dim)
            counts = torch.cat(
                [counts, torch.zeros(size - found, dtype=counts.dtype, device=counts.device)]
            )
            if return_index:
                index = torch.cat(
                    [index, torch.zeros(size - found, dtype=index.dtype, device=index.device)]
                )
        else:
            values, counts = values.narrow(dim, 0, size), counts[:size]
            if return_index:
                index = index[:size]
    results = [values]
    if return_index:
        results.append(index.to(_INT32))
    if return_inverse:
        results.append((inverse if axis is not None else inverse.reshape(x.shape)).to(_INT32))
    if return_counts:
        results.append(counts.to(_INT32))
    return results[0] if len(results) == 1 else tuple(results)


def argpartition(x, kth, axis=-1):
    # A full stable sort is one valid partition: every element before `kth` is no larger.
    return torch.argsort(_t(x), dim=axis, stable=True).to(_INT32)
