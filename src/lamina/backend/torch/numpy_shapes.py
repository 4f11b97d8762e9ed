"""NumPy-style shape and indexing functions on torch tensors.

Reshaping and moving axes, joining and splitting, padding, gathering (`take`,
`take_along_axis`, `get_item`), diagonals, sorting and searching, and `bincount`.
Re-exported by `backend/torch/numpy.py`, whose contract these functions are part of, and
which holds the dtype helpers used here. As on the JAX engine: negative indices wrap in
`take`/`take_along_axis`, negative slice steps work in `get_item`, and indices
(`argsort`, `searchsorted`, `digitize`) and counts are int32.
"""

from __future__ import annotations

import builtins

import numpy as np
import torch
import torch.nn.functional as F

from lamina.backend.torch.core import dtype_name

# numpy.py imports this module only after these helpers are defined.
from lamina.backend.torch.numpy import (
    _INT32,
    _axis_tuple,
    _pair_tensors,
    _promote_all,
    _shape,
    _t,
    _Tensor,
)


def _indices(x) -> torch.Tensor:
    """Index data as an int64 tensor (torch's gather and scatter take only int64)."""
    x = _t(x)
    return x if x.dtype == torch.int64 else x.long()


def _refuse_sparse(op, sparse):
    if sparse:
        raise ValueError(
            f"{op}(sparse=True): the torch backend has no sparse tensors; pass sparse=False."
        )


# Shapes -------------------------------------------------------------------------------
def reshape(x, newshape):
    if isinstance(newshape, int):
        newshape = (newshape,)
    elif None in newshape:
        newshape = tuple(-1 if d is None else d for d in newshape)
    return torch.reshape(_t(x), newshape)


def transpose(x, axes=None):
    x = _t(x)
    if axes is None:
        return x.t() if x.dim() <= 2 else x.permute(tuple(range(x.dim() - 1, -1, -1)))
    return x.permute(tuple(axes))


def expand_dims(x, axis):
    x = _t(x)
    if isinstance(axis, int):
        return torch.unsqueeze(x, axis)
    ndim = x.dim() + len(axis)
    for a in sorted(a % ndim for a in axis):
        x = torch.unsqueeze(x, a)
    return x


def squeeze(x, axis=None):
    x = _t(x)
    if axis is None:
        return torch.squeeze(x)
    axes = _axis_tuple(axis, x.dim())
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(
                f"squeeze: axis {a} has size {x.shape[a]}, not 1, in shape {tuple(x.shape)}; "
                "squeeze only axes of length 1 (or pass axis=None)."
            )
    return torch.squeeze(x, axes)


def ravel(x):
    return torch.ravel(_t(x))


def flip(x, axis=None):
    x = _t(x)
    return torch.flip(x, _axis_tuple(axis, x.dim()))


def roll(x, shift, axis=None):
    x = _t(x)
    if isinstance(shift, _Tensor):
        shift = shift.tolist()
    return torch.roll(x, shift, axis)


def swapaxes(x, axis1, axis2):
    return torch.swapaxes(_t(x), axis1, axis2)


def moveaxis(x, source, destination):
    if not isinstance(source, int):
        source, destination = tuple(source), tuple(destination)
    return torch.movedim(_t(x), source, destination)


def broadcast_to(x, shape):
    return torch.broadcast_to(_t(x), _shape(shape))


def concatenate(xs, axis=0):
    xs = _promote_all(xs)
    if axis is None:
        return torch.cat([x.reshape(-1) for x in xs])
    return torch.cat(xs, dim=axis)


def stack(x, axis=0):
    return torch.stack(_promote_all(x), dim=axis)


def split(x, indices_or_sections, axis=0):
    x = _t(x)
    if isinstance(indices_or_sections, int):
        size = x.shape[axis]
        if size % indices_or_sections:
            raise ValueError(
                f"split: axis {axis} of length {size} does not divide into "
                f"{indices_or_sections} equal sections; pass a divisor of {size} or a "
                "list of split indices."
            )
        return list(torch.tensor_split(x, indices_or_sections, dim=axis))
    if isinstance(indices_or_sections, _Tensor):
        indices_or_sections = indices_or_sections.tolist()
    return list(torch.tensor_split(x, [int(i) for i in indices_or_sections], dim=axis))


def append(x1, x2, axis=None):
    x1, x2 = _pair_tensors(x1, x2)  # a Python scalar is weak, as on JAX
    if axis is None:
        return torch.cat([x1.reshape(-1), x2.reshape(-1)])
    return torch.cat([x1, x2], dim=axis)


def tile(x, repeats):
    return torch.tile(_t(x), _shape(repeats))


def repeat(x, repeats, axis=None):
    x = _t(x)
    if not isinstance(repeats, int):
        repeats = _indices(repeats).to(x.device)
        if repeats.dim() == 0:
            repeats = int(repeats)
    return torch.repeat_interleave(x, repeats, dim=axis)


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def pad(x, pad_width, mode="constant", constant_values=None):
    """NumPy's padding for the modes in `_PAD_MODES`, on any rank and dtype."""
    x = _t(x)
    if mode not in _PAD_MODES:
        raise ValueError(
            f"pad: unsupported mode {mode!r} on the torch backend; expected one of "
            f"{list(_PAD_MODES)}."
        )
    if constant_values is not None and mode != "constant":
        raise ValueError(
            f"pad: constant_values applies to mode='constant' only; received mode={mode!r} "
            f"with constant_values={constant_values!r}. Drop constant_values, or use "
            "mode='constant'."
        )
    widths = _pad_widths(pad_width, x.dim())
    if builtins.any(w < 0 for pair in widths for w in pair):
        raise ValueError(
            f"pad: pad_width must be non-negative; received {pad_width!r} (torch would "
            "crop the tensor instead)."
        )
    if mode == "constant":
        value = 0 if constant_values is None else constant_values
        if isinstance(value, _Tensor):
            value = value.tolist()
        if isinstance(value, (int, float, bool)):
            flat = [w for pair in reversed(widths) for w in pair]
            if builtins.any(flat):
                x = F.pad(x, flat, value=value)
            return x
        values = _pad_widths(value, x.dim())
        for axis, ((before, after), (v_before, v_after)) in enumerate(
            zip(widths, values, strict=True)
        ):
            parts = []
            for width, v in ((before, v_before), (after, v_after)):
                shape = list(x.shape)
                shape[axis] = width
                parts.append(torch.full(shape, v, dtype=x.dtype, device=x.device))
            x = torch.cat([parts[0], x, parts[1]], dim=axis)
        return x
    for axis, (before, after) in enumerate(widths):
        if before == 0 and after == 0:
            continue
        n = x.shape[axis]
        if n == 0:
            raise ValueError(f"pad: cannot pad an empty axis {axis} in mode {mode!r}.")
        i = torch.arange(-before, n + after, device=x.device)
        if mode == "edge":
            i = i.clamp(0, n - 1)
        elif mode == "wrap":
            i = i % n
        elif mode == "reflect":
            period = 2 * (n - 1)
            if period == 0:
                i = torch.zeros_like(i)
            else:
                i = i % period
                i = torch.where(i < n, i, period - i)
        else:  # symmetric
            i = i % (2 * n)
            i = torch.where(i < n, i, 2 * n - 1 - i)
        x = torch.index_select(x, axis, i)
    return x


def _pad_widths(pad_width, ndim):
    """NumPy's `pad_width` forms (int, pair, one pair per axis) as `ndim` pairs."""
    if isinstance(pad_width, _Tensor):
        pad_width = pad_width.tolist()
    if hasattr(pad_width, "tolist"):
        pad_width = pad_width.tolist()
    if isinstance(pad_width, (int, float)):
        return [(pad_width, pad_width)] * ndim
    pad_width = list(pad_width)
    if len(pad_width) == 2 and builtins.all(isinstance(w, (int, float)) for w in pad_width):
        return [tuple(pad_width)] * ndim
    if len(pad_width) == 1:
        (pair,) = pad_width
        pair = (pair, pair) if isinstance(pair, (int, float)) else tuple(pair)
        return [pair] * ndim
    if len(pad_width) != ndim:
        raise ValueError(
            f"pad: pad_width has {len(pad_width)} entries for an input of rank {ndim}; "
            "give one (before, after) pair per axis, or one pair for all axes."
        )
    return [(w, w) if isinstance(w, (int, float)) else tuple(w) for w in pad_width]


def _wrap(indices, size):
    """Negative indices counted from the end, as NumPy does."""
    return torch.where(indices < 0, indices + size, indices)


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


def diag(x, k=0):
    return torch.diag(_t(x), k)


def diagonal(x, offset=0, axis1=0, axis2=1):
    return torch.diagonal(_t(x), offset, axis1, axis2)


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


def size(x):
    return _t(x).numel()


def ndim(x):
    return _t(x).dim()


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
