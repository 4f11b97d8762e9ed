"""Array creation on torch tensors: filled arrays, ranges, grids, triangles, copies.

Tensors are made on the current device (`core.get_device()`), with the JAX engine's
default dtypes (`floatx()` for floats, int32 for Python ints).

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_creation`).
"""

from __future__ import annotations

import torch

from lamina.backend import config
from lamina.backend.common.dtypes import result_type
from lamina.backend.torch.core import (
    convert_to_tensor,
    dtype_name,
    get_device,
    to_torch_dtype,
)
from lamina.backend.torch.numpy_arguments import (
    _WEAK,
    _dtype,
    _float,
    _promote,
    _shape,
    _t,
    _Tensor,
)


def zeros(shape, dtype=None):
    return torch.zeros(shape, dtype=_float(dtype), device=get_device())


def ones(shape, dtype=None):
    return torch.ones(shape, dtype=_float(dtype), device=get_device())


def full(shape, fill_value, dtype=None):
    dtype = config.floatx() if dtype is None else dtype  # as in Keras
    if type(fill_value) in _WEAK:
        return torch.full(_shape(shape), fill_value, dtype=_dtype(dtype), device=get_device())
    fill = convert_to_tensor(fill_value, dtype)
    return torch.broadcast_to(fill, _shape(shape)).clone()


def zeros_like(x, dtype=None):
    return torch.zeros_like(_t(x), dtype=_dtype(dtype))


def ones_like(x, dtype=None):
    return torch.ones_like(_t(x), dtype=_dtype(dtype))


def full_like(x, fill_value, dtype=None):
    x = _t(x)
    if type(fill_value) in _WEAK:
        return torch.full_like(x, fill_value, dtype=_dtype(dtype))
    fill = convert_to_tensor(fill_value, dtype or x.dtype)
    return torch.broadcast_to(fill, x.shape).clone()


def eye(N, M=None, k=0, dtype=None):
    device = get_device()
    rows = torch.arange(N, device=device)[:, None]
    cols = torch.arange(N if M is None else M, device=device)
    return (rows + k == cols).to(_float(dtype))


def identity(n, dtype=None):
    return torch.eye(n, dtype=_float(dtype), device=get_device())


def _python_number(x):
    return x.item() if isinstance(x, (_Tensor,)) or hasattr(x, "item") else x


def arange(start, stop=None, step=None, dtype=None):
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    bounds = [_python_number(v) for v in (start, stop, step)]
    if dtype is None:
        kinds = [
            v.dtype if hasattr(v, "dtype") else type(v)
            for v in (start, stop, step)
            if v is not None
        ]
        dtype = result_type(*(dtype_name(k) if isinstance(k, torch.dtype) else k for k in kinds))
    dtype = to_torch_dtype(dtype)
    exact = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    out = torch.arange(*bounds, dtype=exact, device=get_device())
    return out if exact == dtype else out.to(dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """JAX's formula (`start * (1 - t) + stop * t`, floored for integer dtypes)."""
    if num < 0:
        raise ValueError(f"linspace: number of samples, {num}, must be non-negative.")
    dtype = _float(dtype)
    compute = dtype if dtype.is_floating_point else _promote(dtype, float)
    name = dtype_name(compute)
    start, stop = convert_to_tensor(start, name), convert_to_tensor(stop, name)
    if start.device != stop.device:  # a Python bound was made on the default device
        device = stop.device if start.device.type == "cpu" else start.device
        start, stop = start.to(device), stop.to(device)
    start, stop = torch.broadcast_tensors(start, stop)
    bounds_shape = list(start.shape)
    axis = len(bounds_shape) + axis + 1 if axis < 0 else axis
    bounds_shape.insert(axis, 1)
    div = (num - 1) if endpoint else num
    if num > 1:
        delta = (stop - start) / div
        t_shape = [1] * len(bounds_shape)
        t_shape[axis] = div
        t = (torch.arange(div, dtype=compute, device=start.device) / div).reshape(t_shape)
        out = start.reshape(bounds_shape) * (1 - t) + stop.reshape(bounds_shape) * t
        if endpoint:
            out = torch.cat([out, stop.unsqueeze(axis)], dim=axis)
    elif num == 1:
        delta = torch.full((), float("nan"), dtype=compute, device=start.device)
        if not endpoint:
            delta = stop - start
        out = start.reshape(bounds_shape)
    else:
        delta = torch.full((), float("nan"), dtype=compute, device=start.device)
        bounds_shape[axis] = 0
        out = torch.empty(bounds_shape, dtype=compute, device=start.device)
    if not dtype.is_floating_point:
        out = torch.floor(out)
    out = out.to(dtype)
    return (out, delta) if retstep else out


def tri(N, M=None, k=0, dtype=None):
    device = get_device()
    rows = torch.arange(N, device=device)[:, None]
    cols = torch.arange(N if M is None else M, device=device)
    return (cols <= rows + k).to(_float(dtype))


def tril(x, k=0):
    return torch.tril(_t(x), k)


def triu(x, k=0):
    return torch.triu(_t(x), k)


def meshgrid(*x, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij'; received {indexing!r}.")
    vectors = [_t(v).reshape(-1) for v in x]
    shape = [v.shape[0] for v in vectors]
    if indexing == "xy" and len(vectors) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    grids = []
    for i, v in enumerate(vectors):
        axis = i
        if indexing == "xy" and len(vectors) > 1 and i < 2:
            axis = 1 - i
        view_shape = [1] * len(vectors)
        view_shape[axis] = -1
        grids.append(v.reshape(view_shape).expand(shape))
    return grids


def copy(x):
    return x.clone() if isinstance(x, _Tensor) else convert_to_tensor(x)
