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

This module is the engine's `numpy` contract module: it holds the elementwise functions
(math, trigonometry, arithmetic, comparisons and logic) and re-exports the other families,
one module each, named as in `lamina.backend.declarations` and as on the JAX engine:
`numpy_creation`, `numpy_products`, `numpy_reductions`, `numpy_statistics`,
`numpy_shapes`, `numpy_indexing`, `numpy_bitwise` and `numpy_complex`. The dtype helpers
they share (promotion, weak scalars, axes) are in `numpy_arguments`.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np
import torch

from lamina.backend.torch.numpy_arguments import (
    _BOUND,
    _INT32,
    _WEAK,
    _as_float,
    _common,
    _floating,
    _kind,
    _pair,
    _pair_tensors,
    _promote,
    _t,
    _Tensor,
)

# The other families; every name is part of this module's contract.
from lamina.backend.torch.numpy_bitwise import (  # noqa: F401
    bitwise_and,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    gcd,
    lcm,
    view,
)
from lamina.backend.torch.numpy_complex import (  # noqa: F401
    angle,
    conj,
    imag,
    real,
)
from lamina.backend.torch.numpy_creation import (  # noqa: F401
    arange,
    copy,
    eye,
    full,
    full_like,
    identity,
    linspace,
    meshgrid,
    ones,
    ones_like,
    tri,
    tril,
    triu,
    zeros,
    zeros_like,
)
from lamina.backend.torch.numpy_indexing import (  # noqa: F401
    argpartition,
    argsort,
    digitize,
    get_item,
    nonzero,
    searchsorted,
    sort,
    take,
    take_along_axis,
    unique,
)
from lamina.backend.torch.numpy_products import (  # noqa: F401
    correlate,
    cross,
    diag,
    diagonal,
    dot,
    einsum,
    matmul,
    outer,
    tensordot,
    trace,
)
from lamina.backend.torch.numpy_reductions import (  # noqa: F401
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
    var,
)
from lamina.backend.torch.numpy_shapes import (  # noqa: F401
    append,
    broadcast_to,
    concatenate,
    expand_dims,
    flip,
    moveaxis,
    ndim,
    pad,
    ravel,
    repeat,
    reshape,
    roll,
    size,
    split,
    squeeze,
    stack,
    swapaxes,
    tile,
    transpose,
)
from lamina.backend.torch.numpy_statistics import (  # noqa: F401
    bincount,
    histogram,
    median,
    nanmedian,
    nanquantile,
    quantile,
)


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


# Elementwise, the rarer ones -----------------------------------------------------------
def fmod(x1, x2):
    x1, x2 = _common(x1, x2)
    if x1.dtype == torch.bool:
        x1, x2 = x1.to(_INT32), x2.to(_INT32)
    return torch.fmod(x1, x2)


def hypot(x1, x2):
    return torch.hypot(*_common(x1, x2, float))


def nextafter(x1, x2):
    return torch.nextafter(*_common(x1, x2, float))


def i0(x):
    return torch.special.i0(_as_float(x))


def signbit(x):
    return torch.signbit(_t(x))


def trunc(x):
    x = _t(x)
    return torch.trunc(x) if x.is_floating_point() else x.clone()


def isin(x1, x2, assume_unique=False, invert=False):
    x1, x2 = _common(x1, x2)
    return torch.isin(x1, x2, assume_unique=assume_unique, invert=invert)


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
