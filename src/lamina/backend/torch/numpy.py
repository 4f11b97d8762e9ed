"""NumPy-style tensor functions on torch tensors (names and semantics follow NumPy).

The JAX engine (`backend/jax/numpy.py`) is the reference: same results, same output
dtypes. Where torch's own rules differ, the functions here follow NumPy / JAX:

- Dtype promotion is Keras 3's (`result_type`): both operands of a binary op are cast to
  the promoted dtype first, and Python scalars are weak (`int8_tensor + 1` stays int8,
  `float16_tensor + 2.0` stays float16). Two tensors of one dtype skip all of this.
- Integer sums and products are int32 (uint32 for unsigned input), as on JAX without
  64-bit types; indices (`argmax`, `argsort`, `searchsorted`, ...) are int32; `mean` and
  float functions of integers give floats.
- Negative indices wrap in `take`/`take_along_axis`, negative slice steps work in
  `get_item`, `mod` takes the sign of the divisor, `round` rounds halves to even.

Every function stays in torch (no NumPy round trip), so gradients flow and tensors keep
their device; tensors made here use the input's device, or `core.get_device()`.

This module holds the dtype helpers (promotion, weak scalars, axes), creation, elementwise
functions and products. The rest live in sibling modules and are re-exported at the end,
so every name of the contract is found here: reductions in `numpy_reductions.py`, shape
and indexing functions (reshaping, joining, padding, `take`, `get_item`, sorting,
`bincount`) in `numpy_shapes.py`, the rarer functions in `numpy_extra.py`.
"""

from __future__ import annotations

import builtins
import operator

import torch

from lamina.backend import config
from lamina.backend.common.dtypes import result_type
from lamina.backend.torch.core import (
    TORCH_DTYPES,
    convert_to_tensor,
    dtype_name,
    get_device,
    to_torch_dtype,
)

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


# Creation --------------------------------------------------------------------------
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


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


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


# Elementwise, one argument ------------------------------------------------------------
def abs(x):
    x = _t(x)
    return x if x.dtype == torch.bool else torch.abs(x)


def absolute(x):
    return abs(x)


def negative(x):
    return torch.neg(_t(x))


def sign(x):
    return torch.sign(_t(x))


def square(x):
    x = _t(x)
    if x.dtype == torch.bool:
        return x.to(_INT32)
    return torch.square(x)


def round(x, decimals=0):
    x = _t(x)
    if x.is_floating_point():
        return torch.round(x, decimals=decimals) if decimals else torch.round(x)
    if x.dtype == torch.bool:
        raise ValueError("round: received a bool tensor; cast it to a number type first.")
    if decimals >= 0:
        return x
    # Integers to a multiple of 10**-decimals, halves to even, exactly (no float trip).
    unit = 10**-decimals
    quotient = torch.div(x, unit, rounding_mode="floor")
    rest = x - quotient * unit
    gap = unit - rest  # compared with rest instead of 2 * rest, which could overflow
    up = (rest > gap) | ((rest == gap) & (quotient % 2 == 1))
    return (quotient + up.to(x.dtype)) * unit


def _float_function(torch_fn, name):
    """A one-argument float function; integer and bool inputs become floats first."""

    def function(x):
        return torch_fn(_floating(x))

    function.__name__ = function.__qualname__ = name
    return function


sqrt = _float_function(torch.sqrt, "sqrt")
floor = _float_function(torch.floor, "floor")  # as in Keras, integers give floats
ceil = _float_function(torch.ceil, "ceil")
exp = _float_function(torch.exp, "exp")
expm1 = _float_function(torch.expm1, "expm1")
log = _float_function(torch.log, "log")
log1p = _float_function(torch.log1p, "log1p")
log2 = _float_function(torch.log2, "log2")
log10 = _float_function(torch.log10, "log10")
sin = _float_function(torch.sin, "sin")
cos = _float_function(torch.cos, "cos")
tan = _float_function(torch.tan, "tan")
arcsin = _float_function(torch.asin, "arcsin")
arccos = _float_function(torch.acos, "arccos")
arctan = _float_function(torch.atan, "arctan")
sinh = _float_function(torch.sinh, "sinh")
cosh = _float_function(torch.cosh, "cosh")
tanh = _float_function(torch.tanh, "tanh")
arcsinh = _float_function(torch.asinh, "arcsinh")
arccosh = _float_function(torch.acosh, "arccosh")
arctanh = _float_function(torch.atanh, "arctanh")
reciprocal = _float_function(torch.reciprocal, "reciprocal")


def _any_function(torch_fn, name):
    """A one-argument function torch computes for every dtype as JAX does."""

    def function(x):
        return torch_fn(_t(x))

    function.__name__ = function.__qualname__ = name
    return function


logical_not = _any_function(torch.logical_not, "logical_not")
isnan = _any_function(torch.isnan, "isnan")
isinf = _any_function(torch.isinf, "isinf")
isfinite = _any_function(torch.isfinite, "isfinite")


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return torch.nan_to_num(_t(x), nan=nan, posinf=posinf, neginf=neginf)


# Elementwise, two arguments -----------------------------------------------------------
def add(x1, x2):
    x1, x2 = _pair(x1, x2)
    return x1 + x2


def subtract(x1, x2):
    x1, x2 = _pair(x1, x2)
    # torch refuses `-` with a bool operand; a Python bool beside numbers counts as 0 or 1.
    if type(x1) is bool:
        x1 = int(x1)
    elif type(x2) is bool:
        x2 = int(x2)
    return x1 - x2


def multiply(x1, x2):
    x1, x2 = _pair(x1, x2)
    return x1 * x2


def divide(x1, x2):
    x1, x2 = _pair(x1, x2)
    dtype = x1.dtype if isinstance(x1, _Tensor) else x2.dtype
    if not dtype.is_floating_point:
        dtype = _promote(dtype, float)
        x1 = x1.to(dtype) if isinstance(x1, _Tensor) else x1
        x2 = x2.to(dtype) if isinstance(x2, _Tensor) else x2
    return x1 / x2


def true_divide(x1, x2):
    return divide(x1, x2)


def _integer_pair(x1, x2):
    """`_pair`, with bool operands as int32 (JAX's `//`, `%` and `**` of bools)."""
    x1, x2 = _pair_tensors(x1, x2)
    if x1.dtype == torch.bool:
        x1, x2 = x1.to(_INT32), x2.to(_INT32)
    return x1, x2


def floor_divide(x1, x2):
    x1, x2 = _integer_pair(x1, x2)
    return torch.floor_divide(x1, x2)


def mod(x1, x2):
    x1, x2 = _integer_pair(x1, x2)
    return torch.remainder(x1, x2)


def power(x1, x2):
    if isinstance(x1, _Tensor) and type(x2) in _WEAK and x1.is_floating_point():
        return torch.pow(x1, x2)
    x1, x2 = _integer_pair(x1, x2)
    return torch.pow(x1, x2)


def maximum(x1, x2):
    x1, x2 = _pair(x1, x2)
    if not isinstance(x1, _Tensor) or not isinstance(x2, _Tensor):
        if (x1 if isinstance(x1, _Tensor) else x2).dtype == torch.bool:
            return torch.logical_or(*_pair_tensors(x1, x2))
    if not isinstance(x2, _Tensor):
        return torch.clamp_min(x1, x2)
    if not isinstance(x1, _Tensor):
        return torch.clamp_min(x2, x1)
    return torch.maximum(x1, x2)


def minimum(x1, x2):
    x1, x2 = _pair(x1, x2)
    if not isinstance(x1, _Tensor) or not isinstance(x2, _Tensor):
        if (x1 if isinstance(x1, _Tensor) else x2).dtype == torch.bool:
            return torch.logical_and(*_pair_tensors(x1, x2))
    if not isinstance(x2, _Tensor):
        return torch.clamp_max(x1, x2)
    if not isinstance(x1, _Tensor):
        return torch.clamp_max(x2, x1)
    return torch.minimum(x1, x2)


def arctan2(x1, x2):
    x1, x2 = _pair_tensors(x1, x2)
    if not x1.is_floating_point():
        x1, x2 = _floating(x1), _floating(x2)
    return torch.atan2(x1, x2)


def logaddexp(x1, x2):
    x1, x2 = _pair_tensors(x1, x2)
    if not x1.is_floating_point():
        x1, x2 = _floating(x1), _floating(x2)
    return torch.logaddexp(x1, x2)


def _compare(op, name):
    def compare(x1, x2):
        x1, x2 = _pair(x1, x2)
        return op(x1, x2)

    compare.__name__ = compare.__qualname__ = name
    return compare


equal = _compare(operator.eq, "equal")
not_equal = _compare(operator.ne, "not_equal")
less = _compare(operator.lt, "less")
less_equal = _compare(operator.le, "less_equal")
greater = _compare(operator.gt, "greater")
greater_equal = _compare(operator.ge, "greater_equal")


def logical_and(x1, x2):
    return torch.logical_and(*_pair_tensors(x1, x2))


def logical_or(x1, x2):
    return torch.logical_or(*_pair_tensors(x1, x2))


def logical_xor(x1, x2):
    return torch.logical_xor(*_pair_tensors(x1, x2))


def isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    x1, x2 = _pair_tensors(x1, x2)
    return torch.isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan)


def clip(x, x_min, x_max):
    x = _t(x)
    if x_min is None and x_max is None:  # nothing to clip (torch.clamp refuses this)
        return x
    if x.is_floating_point() and type(x_min) in _BOUND and type(x_max) in _BOUND:
        return torch.clamp(x, x_min, x_max)  # weak bounds keep a float dtype
    kinds = [x.dtype]
    for bound in (x_min, x_max):
        if bound is not None:
            kind = _kind(bound)
            kinds.append(kind.dtype if isinstance(kind, _Tensor) else kind)
    dtype = x.dtype if builtins.all(k == x.dtype for k in kinds) else _promote(*kinds)
    if dtype == torch.bool:
        dtype = _INT32
    x = x.to(dtype)
    if isinstance(x_min, _Tensor) or (x_min is not None and type(x_min) not in _WEAK):
        x_min = _t(x_min).to(dtype)
    if isinstance(x_max, _Tensor) or (x_max is not None and type(x_max) not in _WEAK):
        x_max = _t(x_max).to(dtype)
    # torch.clamp takes two numbers or two tensors: a number beside a tensor bound joins it.
    if isinstance(x_min, _Tensor) and type(x_max) in _WEAK:
        x_max = torch.tensor(x_max, dtype=dtype, device=x_min.device)
    elif isinstance(x_max, _Tensor) and type(x_min) in _WEAK:
        x_min = torch.tensor(x_min, dtype=dtype, device=x_max.device)
    return torch.clamp(x, x_min, x_max)


def where(condition, x1=None, x2=None):
    """`x1` where `condition` holds, else `x2`; with `condition` alone, `nonzero(condition)`."""
    if x1 is None and x2 is None:
        return nonzero(condition)
    if x1 is None or x2 is None:
        raise ValueError(
            "where: pass both x1 and x2 (or neither, for the indices of the true elements); "
            f"received only {'x1' if x2 is None else 'x2'}."
        )
    condition = _t(condition)
    if condition.dtype != torch.bool:
        condition = condition != 0
    x1, x2 = _pair(x1, x2)
    return torch.where(condition, x1, x2)


# Products -----------------------------------------------------------------------------
def _promote_all(tensors):
    tensors = [x if isinstance(x, _Tensor) else convert_to_tensor(x) for x in tensors]
    first = tensors[0].dtype
    if builtins.all([x.dtype == first for x in tensors]):
        return tensors
    dtype = _promote(*(x.dtype for x in tensors))
    return [x.to(dtype) for x in tensors]


def _product(fn, x1, x2):
    """`fn(x1, x2)` on promoted operands; bool products are computed in int32."""
    x1, x2 = _pair_tensors(x1, x2)
    if x1.dtype == torch.bool:
        return fn(x1.to(_INT32), x2.to(_INT32)) != 0
    return fn(x1, x2)


def matmul(x1, x2):
    x1, x2 = _t(x1), _t(x2)
    if x1.dtype == torch.int8 and x2.dtype == torch.int8:
        # As in Keras: int8 products accumulate in int32.
        return torch.matmul(x1.to(_INT32), x2.to(_INT32))
    return _product(torch.matmul, x1, x2)


def dot(x1, x2):
    def numpy_dot(a, b):
        if a.dim() == 0 or b.dim() == 0:
            return a * b
        if b.dim() == 1 or (a.dim() <= 2 and b.dim() == 2):
            return torch.matmul(a, b)
        return torch.tensordot(a, b, dims=([a.dim() - 1], [b.dim() - 2]))

    return _product(numpy_dot, x1, x2)


# `jnp.einsum`'s options: torch plans the contraction itself and computes at full precision.
_EINSUM_OPTIONS = ("optimize", "precision", "preferred_element_type")


def einsum(subscripts, *operands, **kwargs):
    unknown = sorted(set(kwargs) - set(_EINSUM_OPTIONS))
    if unknown:
        raise TypeError(
            f"einsum: unexpected keyword argument(s) {unknown}; the options it takes are "
            f"{list(_EINSUM_OPTIONS)}. Pass the operands positionally after `subscripts`."
        )
    operands = _promote_all(operands)
    if operands[0].dtype == torch.bool:
        out = torch.einsum(subscripts, *(x.to(_INT32) for x in operands)) != 0
    elif operands[0].dtype == torch.int8:  # as in Keras: int8 products accumulate in int32
        out = torch.einsum(subscripts, *(x.to(_INT32) for x in operands))
    else:
        out = torch.einsum(subscripts, *operands)
    preferred = kwargs.get("preferred_element_type")
    return out if preferred is None else out.to(to_torch_dtype(preferred))


def tensordot(x1, x2, axes=2):
    if not isinstance(axes, int):
        a_axes, b_axes = axes
        a_axes = [a_axes] if isinstance(a_axes, int) else list(a_axes)
        b_axes = [b_axes] if isinstance(b_axes, int) else list(b_axes)
        axes = (a_axes, b_axes)
    return _product(lambda a, b: torch.tensordot(a, b, dims=axes), x1, x2)


def outer(x1, x2):
    return _product(lambda a, b: torch.outer(a.reshape(-1), b.reshape(-1)), x1, x2)


def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """NumPy's cross product: 3-vectors, or 2-vectors (whose missing z is 0)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _pair_tensors(x1, x2)
    a, b = torch.movedim(a, axisa, -1), torch.movedim(b, axisb, -1)
    sizes = (a.shape[-1], b.shape[-1])
    if builtins.any(s not in (2, 3) for s in sizes):
        raise ValueError(
            f"cross: vectors must have 2 or 3 components along the chosen axes; received "
            f"{sizes[0]} and {sizes[1]} (shapes {tuple(x1.shape)} and {tuple(x2.shape)})."
        )
    a0, a1 = a[..., 0], a[..., 1]
    b0, b1 = b[..., 0], b[..., 1]
    z = a0 * b1 - a1 * b0
    if sizes == (2, 2):
        return z
    a2 = a[..., 2] if sizes[0] == 3 else torch.zeros_like(a0)
    b2 = b[..., 2] if sizes[1] == 3 else torch.zeros_like(b0)
    out = torch.stack(torch.broadcast_tensors(a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z), -1)
    return torch.movedim(out, -1, axisc)


# The reductions, the shape and indexing functions, and the rarer functions live in their
# own modules (the first two take their helpers from the part above); they are part of
# this module's contract.
from lamina.backend.torch.numpy_extra import (  # noqa: E402, F401
    angle,
    argpartition,
    bitwise_and,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    conj,
    correlate,
    fmod,
    gcd,
    histogram,
    hypot,
    i0,
    imag,
    isin,
    lcm,
    median,
    nanmedian,
    nanquantile,
    nextafter,
    nonzero,
    quantile,
    real,
    signbit,
    trunc,
    unique,
    vectorize,
    view,
)
from lamina.backend.torch.numpy_reductions import (  # noqa: E402, F401
    all,
    any,
    argmax,
    argmin,
    average,
    count_nonzero,
    cumprod,
    cumsum,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    trace,
    var,
)
from lamina.backend.torch.numpy_shapes import (  # noqa: E402, F401
    append,
    argsort,
    bincount,
    broadcast_to,
    concatenate,
    diag,
    diagonal,
    digitize,
    expand_dims,
    flip,
    get_item,
    moveaxis,
    ndim,
    pad,
    ravel,
    repeat,
    reshape,
    roll,
    searchsorted,
    size,
    sort,
    split,
    squeeze,
    stack,
    swapaxes,
    take,
    take_along_axis,
    tile,
    transpose,
)
