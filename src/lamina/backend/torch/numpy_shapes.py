"""NumPy-style shape functions on torch tensors.

Reshaping and moving axes, joining and splitting, tiling, padding, sizes. Part of the
engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_shapes`); the dtype helpers are in `numpy_arguments`.
"""

from __future__ import annotations

import builtins

import torch
import torch.nn.functional as F

from lamina.backend.torch.numpy_arguments import (
    _axis_tuple,
    _indices,
    _pair_tensors,
    _promote_all,
    _shape,
    _t,
    _Tensor,
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


def size(x):
    return _t(x).numel()


def ndim(x):
    return _t(x).dim()
