"""The classic backend's element-wise math, reductions and comparisons: `K.abs`, `K.mean`,
`K.equal`, ...

Each keeps Keras 2's name, arguments and defaults, and delegates to `lamina.ops`, so it
computes eagerly on arrays and Variables and builds graph nodes on KerasTensors. Public
through `lamina.legacy.backend_ops` (and `lamina.backend`).
"""

from __future__ import annotations

import builtins

import numpy as np

from lamina import ops
from lamina.graph.keras_tensor import KerasTensor
from lamina.legacy._backend_util import _to_floatx_if_bool


# Math and reductions --------------------------------------------------------------------
def abs(x):
    """Element-wise absolute value."""
    return ops.absolute(x)


def all(x, axis=None, keepdims=False):
    """Logical AND over `axis` (`x` is read as booleans)."""
    return ops.all(ops.cast(x, "bool"), axis=axis, keepdims=keepdims)


def any(x, axis=None, keepdims=False):
    """Logical OR over `axis` (`x` is read as booleans)."""
    return ops.any(ops.cast(x, "bool"), axis=axis, keepdims=keepdims)


def argmax(x, axis=-1):
    """Index of the maximum along `axis` (default: the last)."""
    return ops.argmax(x, axis=axis)


def argmin(x, axis=-1):
    """Index of the minimum along `axis` (default: the last)."""
    return ops.argmin(x, axis=axis)


def arange(start, stop=None, step=1, dtype="int32"):
    """`[start, stop)` in steps of `step`, as Keras 2: one argument is the stop.

    A single negative argument gives an empty range (Keras 2 clamps the start to 0).

    >>> from lamina import ops
    >>> ops.convert_to_numpy(arange(3)).tolist()
    [0, 1, 2]
    """
    if stop is None and not isinstance(start, KerasTensor) and start < 0:
        start = 0
    return ops.arange(start, stop, step, dtype=dtype)


def clip(x, min_value, max_value):
    """Clip `x` to `[min_value, max_value]`; `None` leaves that side open.

    As in Keras 2, a numeric `max_value` below `min_value` is raised to `min_value`.
    """
    if isinstance(min_value, (int, float)) and isinstance(max_value, (int, float)):
        max_value = builtins.max(min_value, max_value)
    if min_value is None:
        min_value = -np.inf
    if max_value is None:
        max_value = np.inf
    return ops.clip(x, min_value, max_value)


def cos(x):
    """Element-wise cosine."""
    return ops.cos(x)


def sin(x):
    """Element-wise sine."""
    return ops.sin(x)


def cumsum(x, axis=0):
    """Cumulative sum along `axis` (default: the first)."""
    return ops.cumsum(x, axis=axis)


def cumprod(x, axis=0):
    """Cumulative product along `axis` (default: the first)."""
    return ops.cumprod(x, axis=axis)


def exp(x):
    """Element-wise exponential."""
    return ops.exp(x)


def log(x):
    """Element-wise natural logarithm."""
    return ops.log(x)


def logsumexp(x, axis=None, keepdims=False):
    """`log(sum(exp(x)))` over `axis`, computed stably."""
    return ops.logsumexp(x, axis=axis, keepdims=keepdims)


def max(x, axis=None, keepdims=False):
    """Maximum over `axis` (all axes when `None`)."""
    return ops.max(x, axis=axis, keepdims=keepdims)


def min(x, axis=None, keepdims=False):
    """Minimum over `axis` (all axes when `None`)."""
    return ops.min(x, axis=axis, keepdims=keepdims)


def sum(x, axis=None, keepdims=False):
    """Sum over `axis` (all axes when `None`)."""
    return ops.sum(x, axis=axis, keepdims=keepdims)


def prod(x, axis=None, keepdims=False):
    """Product over `axis` (all axes when `None`)."""
    return ops.prod(x, axis=axis, keepdims=keepdims)


def mean(x, axis=None, keepdims=False):
    """Mean over `axis`; booleans count as `floatx` 0/1."""
    return ops.mean(_to_floatx_if_bool(x), axis=axis, keepdims=keepdims)


def std(x, axis=None, keepdims=False):
    """Population standard deviation over `axis`; booleans count as `floatx` 0/1."""
    return ops.std(_to_floatx_if_bool(x), axis=axis, keepdims=keepdims)


def var(x, axis=None, keepdims=False):
    """Population variance over `axis`; booleans count as `floatx` 0/1."""
    return ops.var(_to_floatx_if_bool(x), axis=axis, keepdims=keepdims)


def maximum(x, y):
    """Element-wise maximum."""
    return ops.maximum(x, y)


def minimum(x, y):
    """Element-wise minimum."""
    return ops.minimum(x, y)


def pow(x, a):
    """Element-wise `x ** a`."""
    return ops.power(x, a)


def round(x):
    """Round to the nearest integer, halves to even (as `tf.round`)."""
    return ops.round(x)


def sign(x):
    """Element-wise sign: -1, 0 or 1."""
    return ops.sign(x)


def sqrt(x):
    """Element-wise square root; negative values count as 0 (Keras 2 clamps them)."""
    return ops.sqrt(ops.maximum(x, ops.zeros_like(x)))


def square(x):
    """Element-wise square."""
    return ops.square(x)


def tanh(x):
    """Element-wise hyperbolic tangent."""
    return ops.tanh(x)


def equal(x, y):
    """Element-wise `x == y`."""
    return ops.equal(x, y)


def not_equal(x, y):
    """Element-wise `x != y`."""
    return ops.not_equal(x, y)


def greater(x, y):
    """Element-wise `x > y`."""
    return ops.greater(x, y)


def greater_equal(x, y):
    """Element-wise `x >= y`."""
    return ops.greater_equal(x, y)


def less(x, y):
    """Element-wise `x < y`."""
    return ops.less(x, y)


def less_equal(x, y):
    """Element-wise `x <= y`."""
    return ops.less_equal(x, y)


def stop_gradient(variables):
    """`variables` (a tensor, or a list of them) with gradients stopped."""
    if isinstance(variables, (list, tuple)):
        return [ops.stop_gradient(v) for v in variables]
    return ops.stop_gradient(variables)


def identity(x, name=None):
    """`x` unchanged, as a new tensor."""
    return ops.copy(x)


__all__ = sorted(
    name
    for name, value in list(globals().items())
    if not name.startswith("_")
    and callable(value)
    and getattr(value, "__module__", None) == __name__
)
