"""How the torch engine's NumPy-style functions take their arguments: dtypes, promotion, conversion.

The helpers shared by `numpy.py` and its family modules (`numpy_reductions.py`,
`numpy_shapes.py`, ...), which all import them from here. Dtype promotion is Keras 3's
(`result_type`): both operands of a binary function are cast to the promoted dtype first,
and Python scalars are weak (`int8_tensor + 1` stays int8); two tensors of one dtype skip
all of this.
"""

from __future__ import annotations

import builtins

import torch

from lamina.backend import config
from lamina.backend.common.dtypes import result_type
from lamina.backend.torch.core import TORCH_DTYPES, convert_to_tensor, dtype_name, to_torch_dtype

_Tensor = torch.Tensor


_WEAK = (int, float, bool)


_BOUND = (int, float, type(None))


_INT32 = torch.int32


_UINT32 = torch.uint32


def _t(x) -> torch.Tensor:
    """`x` as a tensor; tensors pass through untouched (the common, fast case)."""
    return x if isinstance(x, _Tensor) else convert_to_tensor(x)


def _dtype(dtype):
    if dtype is None or isinstance(dtype, torch.dtype):
        return dtype
    return TORCH_DTYPES.get(dtype) or to_torch_dtype(dtype)


def _float(dtype):
    return _dtype(config.floatx() if dtype is None else dtype)


_PROMOTED: dict = {}


def _promote(*kinds) -> torch.dtype:
    """Keras's promotion of torch dtypes and weak Python types (`int`, `float`, `bool`)."""
    key = (kinds, config.floatx())
    found = _PROMOTED.get(key)
    if found is None:
        names = [dtype_name(k) if isinstance(k, torch.dtype) else k for k in kinds]
        found = _PROMOTED[key] = TORCH_DTYPES[result_type(*names)]
    return found


def _kind(x):
    """A weak Python scalar's type, or `x` as a tensor."""
    return type(x) if type(x) in _WEAK else _t(x)


def _pair(x1, x2):
    """Both operands cast to their promoted dtype; one of them may stay a Python scalar.

    Torch keeps a tensor's dtype when combined with a Python scalar of a kind it already
    holds (which the promoted dtype guarantees), so scalars need no tensor of their own.
    """
    if isinstance(x1, _Tensor):
        if isinstance(x2, _Tensor):
            if x1.dtype == x2.dtype:
                return x1, x2
            dtype = _promote(x1.dtype, x2.dtype)
            return x1.to(dtype), x2.to(dtype)
        if type(x2) in _WEAK:
            dtype = _promote(x1.dtype, type(x2))
            return (x1 if x1.dtype == dtype else x1.to(dtype)), x2
    elif isinstance(x2, _Tensor) and type(x1) in _WEAK:
        dtype = _promote(type(x1), x2.dtype)
        return x1, (x2 if x2.dtype == dtype else x2.to(dtype))
    a, b = _kind(x1), _kind(x2)
    a_tensor, b_tensor = isinstance(a, _Tensor), isinstance(b, _Tensor)
    dtype = _promote(a.dtype if a_tensor else a, b.dtype if b_tensor else b)
    if a_tensor:
        x1 = a.to(dtype)
    if b_tensor:
        x2 = b.to(dtype)
    if not (a_tensor or b_tensor):
        x1 = convert_to_tensor(x1, dtype_name(dtype))
    return x1, x2


def _pair_tensors(x1, x2):
    """Like `_pair`, with Python scalars made tensors (for functions that need two)."""
    x1, x2 = _pair(x1, x2)
    if not isinstance(x1, _Tensor):
        x1 = torch.tensor(x1, dtype=x2.dtype, device=x2.device)
    elif not isinstance(x2, _Tensor):
        x2 = torch.tensor(x2, dtype=x1.dtype, device=x1.device)
    return x1, x2


def _floating(x) -> torch.Tensor:
    """`x` as a float tensor (integers and bool take the float dtype Keras promotes to)."""
    x = _t(x)
    return x if x.is_floating_point() else x.to(_promote(x.dtype, float))


def _axis_tuple(axis, rank):
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(a % rank if rank else a for a in axis)


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def _promote_all(tensors):
    tensors = [x if isinstance(x, _Tensor) else convert_to_tensor(x) for x in tensors]
    first = tensors[0].dtype
    if builtins.all([x.dtype == first for x in tensors]):
        return tensors
    dtype = _promote(*(x.dtype for x in tensors))
    return [x.to(dtype) for x in tensors]


def _common(x1, x2, *extra):
    x1, x2 = _t(x1), _t(x2)
    dtype = to_torch_dtype(result_type(dtype_name(x1.dtype), dtype_name(x2.dtype), *extra))
    return x1.to(dtype), x2.to(dtype)


def _as_float(x):
    x = _t(x)
    if x.is_floating_point() or x.is_complex():
        return x
    return x.to(to_torch_dtype(result_type(dtype_name(x.dtype), float)))


def _indices(x) -> torch.Tensor:
    """Index data as an int64 tensor (torch's gather and scatter take only int64)."""
    x = _t(x)
    return x if x.dtype == torch.int64 else x.long()


def _refuse_sparse(op, sparse):
    if sparse:
        raise ValueError(
            f"{op}(sparse=True): the torch backend has no sparse tensors; pass sparse=False."
        )
