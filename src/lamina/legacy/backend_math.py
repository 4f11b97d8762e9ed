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
from lamina.graph.function import note_reduction as _note_reduction
from lamina.graph.function import running as _graph_running
from lamina.graph.keras_tensor import KerasTensor
from lamina.legacy._backend_util import _to_floatx_if_bool


# Math and reductions --------------------------------------------------------------------
def abs(x):
    """Element-wise absolute value.

    >>> from lamina import backend as K
    >>> K.eval(K.abs([-1.5, 2.0])).tolist()
    [1.5, 2.0]
    """
    return ops.absolute(x)


def all(x, axis=None, keepdims=False):
    """Logical AND over `axis` (`x` is read as booleans).

    >>> from lamina import backend as K
    >>> K.eval(K.all([[1, 0], [1, 1]], axis=1)).tolist()
    [False, True]
    """
    return ops.all(ops.cast(x, "bool"), axis=axis, keepdims=keepdims)


def any(x, axis=None, keepdims=False):
    """Logical OR over `axis` (`x` is read as booleans).

    >>> from lamina import backend as K
    >>> K.eval(K.any([[0, 0], [1, 0]], axis=1)).tolist()
    [False, True]
    """
    return ops.any(ops.cast(x, "bool"), axis=axis, keepdims=keepdims)


def argmax(x, axis=-1):
    """Index of the maximum along `axis` (default: the last).

    >>> from lamina import backend as K
    >>> K.eval(K.argmax([[1.0, 3.0, 2.0], [5.0, 0.0, 1.0]])).tolist()
    [1, 0]
    """
    return ops.argmax(x, axis=axis)


def argmin(x, axis=-1):
    """Index of the minimum along `axis` (default: the last).

    >>> from lamina import backend as K
    >>> K.eval(K.argmin([[1.0, 3.0, 2.0], [5.0, 0.0, 1.0]])).tolist()
    [0, 1]
    """
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

    >>> from lamina import backend as K
    >>> K.eval(K.clip([-2.0, 0.5, 3.0], 0.0, 1.0)).tolist()
    [0.0, 0.5, 1.0]
    """
    if isinstance(min_value, (int, float)) and isinstance(max_value, (int, float)):
        max_value = builtins.max(min_value, max_value)
    if min_value is None:
        min_value = -np.inf
    if max_value is None:
        max_value = np.inf
    return ops.clip(x, min_value, max_value)


def cos(x):
    """Element-wise cosine.

    >>> from lamina import backend as K
    >>> K.eval(K.cos([0.0])).tolist()
    [1.0]
    """
    return ops.cos(x)


def sin(x):
    """Element-wise sine.

    >>> from lamina import backend as K
    >>> K.eval(K.sin([0.0])).tolist()
    [0.0]
    """
    return ops.sin(x)


def cumsum(x, axis=0):
    """Cumulative sum along `axis` (default: the first).

    >>> from lamina import backend as K
    >>> K.eval(K.cumsum([[1, 2], [3, 4]])).tolist()
    [[1, 2], [4, 6]]
    """
    return ops.cumsum(x, axis=axis)


def cumprod(x, axis=0):
    """Cumulative product along `axis` (default: the first).

    >>> from lamina import backend as K
    >>> K.eval(K.cumprod([1, 2, 3, 4])).tolist()
    [1, 2, 6, 24]
    """
    return ops.cumprod(x, axis=axis)


def exp(x):
    """Element-wise exponential.

    >>> from lamina import backend as K
    >>> K.eval(K.exp([0.0, 1.0])).round(3)
    array([1.   , 2.718], dtype=float32)
    """
    return ops.exp(x)


def log(x):
    """Element-wise natural logarithm.

    >>> from lamina import backend as K
    >>> K.eval(K.log([1.0, 100.0])).round(3)
    array([0.   , 4.605], dtype=float32)
    """
    return ops.log(x)


def logsumexp(x, axis=None, keepdims=False):
    """`log(sum(exp(x)))` over `axis`, computed stably.

    >>> from lamina import backend as K
    >>> import numpy as np
    >>> K.eval(K.logsumexp(np.zeros((2, 2)), axis=1)).round(3)
    array([0.693, 0.693], dtype=float32)
    """
    return ops.logsumexp(x, axis=axis, keepdims=keepdims)


def max(x, axis=None, keepdims=False):
    """Maximum over `axis` (all axes when `None`).

    >>> from lamina import backend as K
    >>> K.eval(K.max([[1, 5], [7, 2]], axis=0)).tolist()
    [7, 5]
    """
    return ops.max(x, axis=axis, keepdims=keepdims)


def min(x, axis=None, keepdims=False):
    """Minimum over `axis` (all axes when `None`).

    >>> from lamina import backend as K
    >>> K.eval(K.min([[1, 5], [7, 2]], axis=1)).tolist()
    [1, 2]
    """
    return ops.min(x, axis=axis, keepdims=keepdims)


def sum(x, axis=None, keepdims=False):
    """Sum over `axis` (all axes when `None`).

    >>> from lamina import backend as K
    >>> K.eval(K.sum([[1, 2], [3, 4]], axis=1, keepdims=True)).tolist()
    [[3], [7]]
    """
    out = ops.sum(x, axis=axis, keepdims=keepdims)
    # Inside a layer's call on a run's values, `K.gradients` may take it as its loss.
    _note_reduction(out, x, 1.0)
    return out


def prod(x, axis=None, keepdims=False):
    """Product over `axis` (all axes when `None`).

    >>> from lamina import backend as K
    >>> K.eval(K.prod([[1, 2], [3, 4]], axis=0)).tolist()
    [3, 8]
    """
    return ops.prod(x, axis=axis, keepdims=keepdims)


def mean(x, axis=None, keepdims=False):
    """Mean over `axis`; booleans count as `floatx` 0/1.

    >>> from lamina import backend as K
    >>> K.eval(K.mean([[1.0, 2.0], [3.0, 5.0]], axis=-1)).tolist()
    [1.5, 4.0]
    """
    out = ops.mean(_to_floatx_if_bool(x), axis=axis, keepdims=keepdims)
    if _graph_running() and hasattr(x, "shape"):  # a sum / count, for `K.gradients` (`sum`)
        shape = tuple(x.shape)
        axes = range(len(shape)) if axis is None else np.atleast_1d(axis)
        count = np.prod([shape[int(a)] for a in axes], dtype=float)
        if count:
            _note_reduction(out, x, 1.0 / count)
    return out


def std(x, axis=None, keepdims=False):
    """Population standard deviation over `axis`; booleans count as `floatx` 0/1.

    >>> from lamina import backend as K
    >>> float(K.eval(K.std([1.0, 3.0])))
    1.0
    """
    return ops.std(_to_floatx_if_bool(x), axis=axis, keepdims=keepdims)


def var(x, axis=None, keepdims=False):
    """Population variance over `axis`; booleans count as `floatx` 0/1.

    >>> from lamina import backend as K
    >>> float(K.eval(K.var([1.0, 3.0])))
    1.0
    """
    return ops.var(_to_floatx_if_bool(x), axis=axis, keepdims=keepdims)


def maximum(x, y):
    """Element-wise maximum.

    >>> from lamina import backend as K
    >>> K.eval(K.maximum([1, 5], [3, 2])).tolist()
    [3, 5]
    """
    return ops.maximum(x, y)


def minimum(x, y):
    """Element-wise minimum.

    >>> from lamina import backend as K
    >>> K.eval(K.minimum([1, 5], [3, 2])).tolist()
    [1, 2]
    """
    return ops.minimum(x, y)


def pow(x, a):
    """Element-wise `x ** a`.

    >>> from lamina import backend as K
    >>> K.eval(K.pow([2.0, 3.0], 2)).tolist()
    [4.0, 9.0]
    """
    return ops.power(x, a)


def round(x):
    """Round to the nearest integer, halves to even (as `tf.round`).

    >>> from lamina import backend as K
    >>> K.eval(K.round([0.4, 1.6, -2.7])).tolist()
    [0.0, 2.0, -3.0]
    """
    return ops.round(x)


def sign(x):
    """Element-wise sign: -1, 0 or 1.

    >>> from lamina import backend as K
    >>> K.eval(K.sign([-3.0, 0.0, 2.0])).tolist()
    [-1.0, 0.0, 1.0]
    """
    return ops.sign(x)


def sqrt(x):
    """Element-wise square root; negative values count as 0 (Keras 2 clamps them).

    >>> from lamina import backend as K
    >>> K.eval(K.sqrt([4.0, 9.0])).tolist()
    [2.0, 3.0]
    """
    return ops.sqrt(ops.maximum(x, ops.zeros_like(x)))


def square(x):
    """Element-wise square.

    >>> from lamina import backend as K
    >>> K.eval(K.square([2.0, -3.0])).tolist()
    [4.0, 9.0]
    """
    return ops.square(x)


def tanh(x):
    """Element-wise hyperbolic tangent.

    >>> from lamina import backend as K
    >>> K.eval(K.tanh([0.0, 1.0])).round(3)
    array([0.   , 0.762], dtype=float32)
    """
    return ops.tanh(x)


def equal(x, y):
    """Element-wise `x == y`.

    >>> from lamina import backend as K
    >>> K.eval(K.equal([1, 2, 3], [1, 0, 3])).tolist()
    [True, False, True]
    """
    return ops.equal(x, y)


def not_equal(x, y):
    """Element-wise `x != y`.

    >>> from lamina import backend as K
    >>> K.eval(K.not_equal([1, 2, 3], [1, 0, 3])).tolist()
    [False, True, False]
    """
    return ops.not_equal(x, y)


def greater(x, y):
    """Element-wise `x > y`.

    >>> from lamina import backend as K
    >>> K.eval(K.greater([1, 2, 3], 2)).tolist()
    [False, False, True]
    """
    return ops.greater(x, y)


def greater_equal(x, y):
    """Element-wise `x >= y`.

    >>> from lamina import backend as K
    >>> K.eval(K.greater_equal([1, 2, 3], 2)).tolist()
    [False, True, True]
    """
    return ops.greater_equal(x, y)


def less(x, y):
    """Element-wise `x < y`.

    >>> from lamina import backend as K
    >>> K.eval(K.less([1, 2, 3], 2)).tolist()
    [True, False, False]
    """
    return ops.less(x, y)


def less_equal(x, y):
    """Element-wise `x <= y`.

    >>> from lamina import backend as K
    >>> K.eval(K.less_equal([1, 2, 3], 2)).tolist()
    [True, True, False]
    """
    return ops.less_equal(x, y)


def stop_gradient(variables):
    """`variables` (a tensor, or a list of them) with gradients stopped.

    >>> from lamina import backend as K
    >>> K.eval(K.stop_gradient(K.constant([1.0, 2.0]))).tolist()
    [1.0, 2.0]
    """
    if isinstance(variables, (list, tuple)):
        return [ops.stop_gradient(v) for v in variables]
    return ops.stop_gradient(variables)


def identity(x, name=None):
    """`x` unchanged, as a new tensor.

    >>> from lamina import backend as K
    >>> K.eval(K.identity([1.0, 2.0])).tolist()
    [1.0, 2.0]
    """
    return ops.copy(x)


__all__ = sorted(
    name
    for name, value in list(globals().items())
    if not name.startswith("_")
    and callable(value)
    and getattr(value, "__module__", None) == __name__
)
