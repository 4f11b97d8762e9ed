"""NumPy-style ops: elementwise math, products, reductions and shapes.

Each name is the backend function of the same name made into an op by `_op`:
eager on arrays, a graph node on KerasTensors.
"""

from lamina.backend import numpy as _b
from lamina.ops.core import _op

zeros = _op(_b.zeros)
ones = _op(_b.ones)
full = _op(_b.full)
zeros_like = _op(_b.zeros_like)
ones_like = _op(_b.ones_like)
full_like = _op(_b.full_like)
eye = _op(_b.eye)
identity = _op(_b.identity)
arange = _op(_b.arange)
linspace = _op(_b.linspace)
tri = _op(_b.tri)
tril = _op(_b.tril)
triu = _op(_b.triu)
meshgrid = _op(_b.meshgrid)
copy = _op(_b.copy)
abs = _op(_b.abs)
absolute = _op(_b.absolute)
negative = _op(_b.negative)
sign = _op(_b.sign)
sqrt = _op(_b.sqrt)
square = _op(_b.square)
exp = _op(_b.exp)
expm1 = _op(_b.expm1)
log = _op(_b.log)
log1p = _op(_b.log1p)
log2 = _op(_b.log2)
log10 = _op(_b.log10)
sin = _op(_b.sin)
cos = _op(_b.cos)
tan = _op(_b.tan)
arcsin = _op(_b.arcsin)
arccos = _op(_b.arccos)
arctan = _op(_b.arctan)
sinh = _op(_b.sinh)
cosh = _op(_b.cosh)
tanh = _op(_b.tanh)
arcsinh = _op(_b.arcsinh)
arccosh = _op(_b.arccosh)
arctanh = _op(_b.arctanh)
floor = _op(_b.floor)
ceil = _op(_b.ceil)
round = _op(_b.round)
reciprocal = _op(_b.reciprocal)
logical_not = _op(_b.logical_not)
isnan = _op(_b.isnan)
isinf = _op(_b.isinf)
isfinite = _op(_b.isfinite)
nan_to_num = _op(_b.nan_to_num)
add = _op(_b.add)
subtract = _op(_b.subtract)
multiply = _op(_b.multiply)
divide = _op(_b.divide)
true_divide = _op(_b.true_divide)
floor_divide = _op(_b.floor_divide)
mod = _op(_b.mod)
power = _op(_b.power)
maximum = _op(_b.maximum)
minimum = _op(_b.minimum)
arctan2 = _op(_b.arctan2)
logaddexp = _op(_b.logaddexp)
equal = _op(_b.equal)
not_equal = _op(_b.not_equal)
less = _op(_b.less)
less_equal = _op(_b.less_equal)
greater = _op(_b.greater)
greater_equal = _op(_b.greater_equal)
logical_and = _op(_b.logical_and)
logical_or = _op(_b.logical_or)
logical_xor = _op(_b.logical_xor)
isclose = _op(_b.isclose)
clip = _op(_b.clip)
where = _op(_b.where)
matmul = _op(_b.matmul)
dot = _op(_b.dot)
einsum = _op(_b.einsum)
tensordot = _op(_b.tensordot)
outer = _op(_b.outer)
cross = _op(_b.cross)
sum = _op(_b.sum)
mean = _op(_b.mean)
max = _op(_b.max)
min = _op(_b.min)
prod = _op(_b.prod)
std = _op(_b.std)
var = _op(_b.var)
any = _op(_b.any)
all = _op(_b.all)
argmax = _op(_b.argmax)
argmin = _op(_b.argmin)
cumsum = _op(_b.cumsum)
cumprod = _op(_b.cumprod)
count_nonzero = _op(_b.count_nonzero)
average = _op(_b.average)
trace = _op(_b.trace)
reshape = _op(_b.reshape)
transpose = _op(_b.transpose)
expand_dims = _op(_b.expand_dims)
squeeze = _op(_b.squeeze)
ravel = _op(_b.ravel)
flip = _op(_b.flip)
roll = _op(_b.roll)
swapaxes = _op(_b.swapaxes)
moveaxis = _op(_b.moveaxis)
broadcast_to = _op(_b.broadcast_to)
concatenate = _op(_b.concatenate)
stack = _op(_b.stack)
split = _op(_b.split)
append = _op(_b.append)
tile = _op(_b.tile)
repeat = _op(_b.repeat)
pad = _op(_b.pad)
take = _op(_b.take)
take_along_axis = _op(_b.take_along_axis)
diag = _op(_b.diag)
diagonal = _op(_b.diagonal)
sort = _op(_b.sort)
argsort = _op(_b.argsort)
searchsorted = _op(_b.searchsorted)
digitize = _op(_b.digitize)
bincount = _op(_b.bincount)
size = _op(_b.size)
ndim = _op(_b.ndim)
get_item = _op(_b.get_item)

__all__ = [
    "zeros",
    "ones",
    "full",
    "zeros_like",
    "ones_like",
    "full_like",
    "eye",
    "identity",
    "arange",
    "linspace",
    "tri",
    "tril",
    "triu",
    "meshgrid",
    "copy",
    "abs",
    "absolute",
    "negative",
    "sign",
    "sqrt",
    "square",
    "exp",
    "expm1",
    "log",
    "log1p",
    "log2",
    "log10",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "floor",
    "ceil",
    "round",
    "reciprocal",
    "logical_not",
    "isnan",
    "isinf",
    "isfinite",
    "nan_to_num",
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "floor_divide",
    "mod",
    "power",
    "maximum",
    "minimum",
    "arctan2",
    "logaddexp",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "isclose",
    "clip",
    "where",
    "matmul",
    "dot",
    "einsum",
    "tensordot",
    "outer",
    "cross",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "std",
    "var",
    "any",
    "all",
    "argmax",
    "argmin",
    "cumsum",
    "cumprod",
    "count_nonzero",
    "average",
    "trace",
    "reshape",
    "transpose",
    "expand_dims",
    "squeeze",
    "ravel",
    "flip",
    "roll",
    "swapaxes",
    "moveaxis",
    "broadcast_to",
    "concatenate",
    "stack",
    "split",
    "append",
    "tile",
    "repeat",
    "pad",
    "take",
    "take_along_axis",
    "diag",
    "diagonal",
    "sort",
    "argsort",
    "searchsorted",
    "digitize",
    "bincount",
    "size",
    "ndim",
    "get_item",
]
