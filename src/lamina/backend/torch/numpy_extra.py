"""The rarer NumPy functions on torch tensors: bitwise, number theory, quantiles, sets.

Re-exported by `backend/torch/numpy.py`; results and dtypes follow the JAX engine
(`backend/jax/numpy_extra.py`): Keras's dtype promotion, int32 indices and counts.
"""

from __future__ import annotations

import builtins

import numpy as np
import torch
import torch.nn.functional as F

from lamina.backend.common.dtypes import result_type
from lamina.backend.torch.core import (
    convert_to_tensor,
    dtype_name,
    to_torch_dtype,
)

_INT32 = torch.int32
_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _t(x):
    return x if isinstance(x, torch.Tensor) else convert_to_tensor(x)


def _common(x1, x2, *extra):
    x1, x2 = _t(x1), _t(x2)
    dtype = to_torch_dtype(result_type(dtype_name(x1.dtype), dtype_name(x2.dtype), *extra))
    return x1.to(dtype), x2.to(dtype)


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


def fmod(x1, x2):
    x1, x2 = _common(x1, x2)
    if x1.dtype == torch.bool:
        x1, x2 = x1.to(_INT32), x2.to(_INT32)
    return torch.fmod(x1, x2)


def hypot(x1, x2):
    return torch.hypot(*_common(x1, x2, float))


def nextafter(x1, x2):
    return torch.nextafter(*_common(x1, x2, float))


def _float(x):
    x = _t(x)
    if x.is_floating_point() or x.is_complex():
        return x
    return x.to(to_torch_dtype(result_type(dtype_name(x.dtype), float)))


def i0(x):
    return torch.special.i0(_float(x))


def signbit(x):
    return torch.signbit(_t(x))


def trunc(x):
    x = _t(x)
    return torch.trunc(x) if x.is_floating_point() else x.clone()


def isin(x1, x2, assume_unique=False, invert=False):
    x1, x2 = _common(x1, x2)
    return torch.isin(x1, x2, assume_unique=assume_unique, invert=invert)


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
    return torch.angle(_float(x))


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
    x = _float(x)
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


def histogram(x, bins=10, range=None):
    x = _float(x)
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


def view(x, dtype=None):
    x = _t(x)
    return x if dtype is None else x.view(to_torch_dtype(dtype))


def vectorize(pyfunc, excluded=None, signature=None):
    """`pyfunc` applied elementwise (or per core dimensions of `signature`), by looping."""
    excluded = set(excluded or ())
    if signature is not None:
        inputs_spec = signature.split("->")[0]
        cores = [
            len([d for d in part.strip("() ").split(",") if d.strip()])
            for part in inputs_spec.split("),")
        ]
    else:
        cores = None

    def wrapped(*args, **kwargs):
        loop = [i for i in builtins.range(len(args)) if i not in excluded]
        tensors = {i: _t(args[i]) for i in loop}
        core = {i: (cores[k] if cores else 0) for k, i in enumerate(loop)}
        batch = torch.broadcast_shapes(
            *[tensors[i].shape[: tensors[i].ndim - core[i]] for i in loop]
        )
        expanded = {
            i: tensors[i].expand(*batch, *tensors[i].shape[tensors[i].ndim - core[i] :])
            for i in loop
        }
        outputs = []
        for index in np.ndindex(*batch):
            call = list(args)
            for i in loop:
                call[i] = expanded[i][index]
            outputs.append(pyfunc(*call, **kwargs))
        if not outputs:
            return torch.zeros(batch)
        if isinstance(outputs[0], tuple):
            return tuple(
                torch.stack([_t(o[j]) for o in outputs]).reshape(*batch, *_t(outputs[0][j]).shape)
                for j in builtins.range(len(outputs[0]))
            )
        return torch.stack([_t(o) for o in outputs]).reshape(*batch, *_t(outputs[0]).shape)

    return wrapped


def view_as_complex(x):
    x = _float(x)
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
