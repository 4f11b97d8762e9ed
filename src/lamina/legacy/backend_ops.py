"""The same-named functions of the classic Keras 2.x backend (`K.mean`, `K.batch_dot`, ...).

Programs of the Keras 2 era write losses, metrics and `Lambda` layers with
`from keras import backend as K`. Each function here keeps Keras 2's name, argument
names, defaults and results, and delegates to `lamina.ops`, so it computes eagerly on
arrays and Variables and builds graph nodes on KerasTensors, on every engine.

Two kinds of delegation:

- a direct one (`K.mean` is `ops.mean` with Keras 2's defaults): on KerasTensors the
  nodes are ordinary ops;
- a composite whose shape logic or Python callables need concrete shapes (`batch_dot`,
  `rnn`, `switch`, `map_fn`, ...): on KerasTensors the whole composite becomes one graph
  node, its output spec found by the engine's abstract evaluation.

The variable, placeholder, gradient and configuration names (`K.variable`,
`K.function`, `K.epsilon`, ...) live in `lamina.legacy.backend`.

>>> import numpy as np
>>> from lamina.legacy import backend_ops as K
>>> float(K.mean(K.square(np.array([1.0, 3.0]))))
5.0
"""

from __future__ import annotations

import builtins
import functools
import itertools
import math

import numpy as np

from lamina import backend, ops, tree
from lamina.backend.common.global_state import register_reset_hook
from lamina.backend.common.variables import Variable
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.operation import any_symbolic, symbolic_call
from lamina.ops.ctc import ctc_decode as _ctc_decode_op
from lamina.ops.ctc import ctc_loss as _ctc_loss_op


def _composite(fn):
    """Run `fn` eagerly, or as one graph node when any argument is a KerasTensor."""
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if any_symbolic(args, kwargs):
            return symbolic_call(fn, name, args, kwargs)
        return fn(*args, **kwargs)

    return wrapper


def _tensor(x):
    """`x` as an engine tensor, so Python operators work on every engine.

    KerasTensors and Variables are kept: their operators are already ops.
    """
    if x is None or isinstance(x, (KerasTensor, Variable)) or backend.is_tensor(x):
        return x
    return ops.convert_to_tensor(x)


def _data_format(data_format):
    return backend.standardize_data_format(data_format)


def _is_bool(x) -> bool:
    return dtype(x) == "bool"


def _to_floatx_if_bool(x):
    return ops.cast(x, backend.floatx()) if _is_bool(x) else x


def _tuple(value, n: int, what: str) -> tuple:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) != n:
        raise ValueError(f"`{what}` must be an int or a tuple of {n} ints; received {value!r}.")
    return value


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


def _print(x, message):
    try:
        value = ops.convert_to_numpy(x)
    except Exception:  # a traced stand-in (compiled code, shape inference): no values
        return x
    print(message, value)
    return x


def print_tensor(x, message=""):
    """Print `message` and the value of `x`, and return `x`.

    Eagerly it prints at once; on a KerasTensor it prints each time the graph runs
    uncompiled (`K.function`, a model called eagerly). Compiled code (`fit`, `predict`)
    has no values to print and prints nothing.
    """
    if isinstance(x, KerasTensor):
        return symbolic_call(functools.partial(_print, message=message), "print_tensor", (x,), {})
    return _print(_tensor(x), message)


_UIDS: dict = {}


def get_uid(prefix=""):
    """A counter per `prefix`: 1 on the first call, then 2, 3, ... (reset by `reset_uids`
    and `clear_session`)."""
    _UIDS[prefix] = _UIDS.get(prefix, 0) + 1
    return _UIDS[prefix]


def reset_uids():
    """Restart every `get_uid` counter."""
    _UIDS.clear()


register_reset_hook(reset_uids)


# Shapes and dtypes ----------------------------------------------------------------------
def int_shape(x):
    """The static shape of `x` as a tuple of ints (`None` for unknown dims).

    Returns `None` for objects that have no shape.

    >>> import numpy as np
    >>> int_shape(np.zeros((2, 3)))
    (2, 3)
    """
    shape = getattr(x, "shape", None)
    if shape is None:
        return None
    return tuple(None if d is None else int(d) for d in shape)


def ndim(x):
    """The number of axes of `x`."""
    return len(int_shape(x))


def dtype(x):
    """The dtype of `x` as a string such as `"float32"`."""
    return ops.dtype(x)


def _shape_of(x):
    return ops.convert_to_tensor(np.asarray(x.shape, dtype="int32"))


def shape(x):
    """The shape of `x` as a 1-D int32 tensor (Keras 2's `tf.shape`).

    On a KerasTensor it is a symbolic tensor whose values are known when the graph runs.
    On arrays (also inside a `Lambda` layer and in compiled code, where shapes are
    static) it is a NumPy int32 array, so `K.shape(x)[0]` can size new tensors
    (`K.random_normal((K.shape(x)[0], 2))`).

    >>> import numpy as np
    >>> shape(np.zeros((2, 3))).tolist()
    [2, 3]
    """
    if isinstance(x, KerasTensor):
        return symbolic_call(_shape_of, "shape", (x,), {})
    return np.asarray(getattr(x, "shape", np.shape(x)), dtype="int32")


def reshape(x, shape):
    """`x` with a new shape (one dim may be -1)."""
    return ops.reshape(x, _static_shape(shape))


_SYMBOLIC_SIZE = (
    "K.{name} needs sizes known when the graph is built; received {shape!r}, a size "
    "computed from a graph tensor (such as K.shape(x)[0]), known only when the graph "
    "runs. Use -1 for one unknown size in K.reshape, or move the code into a Lambda "
    "layer, where K.shape(x) holds concrete sizes."
)


def _static_shape(shape, name="reshape"):
    """`shape` as a tuple of ints (from a list, a NumPy array or a concrete tensor)."""
    if isinstance(shape, KerasTensor) or (
        isinstance(shape, (list, tuple)) and builtins.any(isinstance(d, KerasTensor) for d in shape)
    ):
        raise ValueError(_SYMBOLIC_SIZE.format(name=name, shape=shape))
    if backend.is_tensor(shape) or isinstance(shape, np.ndarray):
        return tuple(int(d) for d in ops.convert_to_numpy(shape).reshape(-1))
    if isinstance(shape, (list, tuple)):
        return tuple(d if d is None else int(d) for d in shape)
    return shape


def transpose(x):
    """`x` with its axes reversed."""
    return ops.transpose(x)


def permute_dimensions(x, pattern):
    """`x` with its axes reordered by `pattern`, e.g. `(0, 2, 1)`."""
    return ops.transpose(x, axes=tuple(pattern))


def expand_dims(x, axis=-1):
    """`x` with a new axis of size 1 at `axis` (default: last)."""
    return ops.expand_dims(x, axis)


def squeeze(x, axis):
    """`x` without the size-1 axis `axis`."""
    return ops.squeeze(x, axis=axis)


def flatten(x):
    """`x` as one dimension."""
    return ops.reshape(x, (-1,))


@_composite
def batch_flatten(x):
    """`x` as `(batch, everything else)`.

    >>> import numpy as np
    >>> batch_flatten(np.zeros((2, 3, 4))).shape
    (2, 12)
    """
    return ops.reshape(x, (-1, math.prod(x.shape[1:])))


def concatenate(tensors, axis=-1):
    """Join `tensors` along an existing `axis` (default: last)."""
    return ops.concatenate(list(tensors), axis=axis)


def stack(x, axis=0):
    """Stack the list of tensors `x` along a new `axis`."""
    return ops.stack(list(x), axis=axis)


def tile(x, n):
    """Repeat `x` `n[i]` times along axis `i` (an int `n` tiles a 1-D `x`)."""
    if isinstance(n, int):
        n = [n]
    return ops.tile(x, _static_shape(n, "tile"))


def repeat(x, n):
    """Repeat a 2-D `(batch, dim)` tensor `n` times: `(batch, n, dim)`."""
    if ndim(x) != 2:
        raise ValueError(
            f"K.repeat expects a 2-D tensor (batch, features); received shape {int_shape(x)}. "
            "Use K.repeat_elements or K.tile for other ranks."
        )
    return ops.repeat(ops.expand_dims(x, 1), n, axis=1)


def repeat_elements(x, rep, axis):
    """Repeat each element `rep` times along `axis`, like `np.repeat`."""
    return ops.repeat(x, rep, axis=axis)


def gather(reference, indices):
    """Rows of `reference` at `indices` (along axis 0)."""
    return ops.take(reference, ops.cast(indices, "int32"), axis=0)


def reverse(x, axes):
    """`x` reversed along `axes` (an int or a list of ints)."""
    if isinstance(axes, int):
        axes = [axes]
    for axis in axes:
        x = ops.flip(x, axis=axis)
    return x


def one_hot(indices, num_classes):
    """One-hot float encoding of integer `indices`, a new last axis of `num_classes`."""
    return ops.one_hot(indices, num_classes)


def _padded(x, spatial_pads, data_format):
    zero = [(0, 0)]
    if data_format == "channels_first":
        pattern = zero * 2 + spatial_pads
    else:
        pattern = zero + spatial_pads + zero
    return ops.pad(x, pattern)


def temporal_padding(x, padding=(1, 1)):
    """Pad the middle axis of a 3-D tensor `(batch, steps, features)` with zeros."""
    if len(padding) != 2:
        raise ValueError(f"`padding` must be a tuple of 2 ints; received {padding!r}.")
    return _padded(x, [tuple(padding)], "channels_last")


def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    """Pad the rows and columns of a 4-D image tensor with zeros."""
    if len(padding) != 2 or builtins.any(len(p) != 2 for p in padding):
        raise ValueError(f"`padding` must be 2 tuples of 2 ints; received {padding!r}.")
    return _padded(x, [tuple(p) for p in padding], _data_format(data_format))


def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)), data_format=None):
    """Pad the three spatial axes of a 5-D volume tensor with zeros."""
    if len(padding) != 3 or builtins.any(len(p) != 2 for p in padding):
        raise ValueError(f"`padding` must be 3 tuples of 2 ints; received {padding!r}.")
    return _padded(x, [tuple(p) for p in padding], _data_format(data_format))


_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "lanczos3", "lanczos5", "area")


@_composite
def resize_images(x, height_factor, width_factor, data_format, interpolation="nearest"):
    """Upsample a 4-D image tensor by integer factors.

    Args:
        x: `(batch, rows, cols, channels)` or, channels first, `(batch, channels, rows,
            cols)`.
        height_factor, width_factor: positive ints.
        data_format: `"channels_last"` or `"channels_first"` (required, as in Keras 2).
        interpolation: `"nearest"` (repeats pixels) or `"bilinear"`, ...
    """
    data_format = _data_format(data_format)
    if interpolation == "nearest":
        rows = 2 if data_format == "channels_first" else 1
        return ops.repeat(ops.repeat(x, height_factor, axis=rows), width_factor, axis=rows + 1)
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(
            f"`interpolation` must be one of {list(_INTERPOLATIONS)}; received {interpolation!r}."
        )
    rows, cols = (2, 3) if data_format == "channels_first" else (1, 2)
    size = (x.shape[rows] * height_factor, x.shape[cols] * width_factor)
    return ops.image.resize(x, size, interpolation=interpolation, data_format=data_format)


def resize_volumes(x, depth_factor, height_factor, width_factor, data_format):
    """Upsample a 5-D volume tensor by repeating elements along its three spatial axes."""
    first = 2 if _data_format(data_format) == "channels_first" else 1
    for offset, factor in enumerate((depth_factor, height_factor, width_factor)):
        x = ops.repeat(x, factor, axis=first + offset)
    return x


def _variable(value, dtype, name):
    return backend.Variable(value, dtype=dtype, name=name)


def zeros(shape, dtype=None, name=None):
    """A Variable of zeros (Keras 2 made variables here; ops on it read its value)."""
    dtype = dtype or backend.floatx()
    return _variable(ops.zeros(_static_shape(shape, "zeros"), dtype=dtype), dtype, name)


def ones(shape, dtype=None, name=None):
    """A Variable of ones."""
    dtype = dtype or backend.floatx()
    return _variable(ops.ones(_static_shape(shape, "ones"), dtype=dtype), dtype, name)


def eye(size, dtype=None, name=None):
    """A Variable holding an identity matrix; `size` is `n` or `(rows, cols)`."""
    dtype = dtype or backend.floatx()
    rows, cols = (size, size) if isinstance(size, int) else tuple(size)
    return _variable(ops.eye(rows, cols, dtype=dtype), dtype, name)


def zeros_like(x, dtype=None, name=None):
    """A tensor of zeros shaped like `x`."""
    return ops.zeros_like(x, dtype=dtype)


def ones_like(x, dtype=None, name=None):
    """A tensor of ones shaped like `x`."""
    return ops.ones_like(x, dtype=dtype)


def cast(x, dtype):
    """`x` converted to `dtype` (works on arrays, Variables and KerasTensors)."""
    return ops.cast(x, dtype)


def cast_to_floatx(x):
    """`x` in `floatx`: tensors stay tensors, anything else becomes a NumPy array."""
    if backend.is_tensor(x) or isinstance(x, (KerasTensor, Variable)):
        return ops.cast(x, backend.floatx())
    return np.asarray(x, dtype=backend.floatx())


def is_sparse(tensor):
    """Whether `tensor` is sparse: always False (lamina's engines make dense tensors)."""
    return False


def to_dense(tensor):
    """`tensor` itself: lamina's tensors are always dense."""
    return tensor


def is_tensor(x):
    """Whether `x` is a tensor: an engine tensor, a Variable or a KerasTensor."""
    return isinstance(x, (KerasTensor, Variable)) or backend.is_tensor(x)


def is_keras_tensor(x):
    """Whether `x` is a KerasTensor (the output of `Input`, a layer or an op on them).

    Raises:
        ValueError: `x` is not a tensor at all (a NumPy array, a number), as Keras 2 did.
    """
    if not is_tensor(x):
        raise ValueError(
            f"K.is_keras_tensor expects a tensor (an engine tensor, a Variable or a "
            f"KerasTensor); received {type(x).__name__}."
        )
    return isinstance(x, KerasTensor)


# Linear algebra -------------------------------------------------------------------------
def dot(x, y):
    """Keras 2's dot: `x`'s last axis against `y`'s second-to-last (or only) axis.

    For N-D tensors the result shape is `x.shape[:-1] + y.shape[:-2] + y.shape[-1:]`:
    `(2, 3, 4) . (4, 3, 5) -> (2, 3, 3, 5)`, as `np.dot`.
    """
    x_ndim, y_ndim = ndim(x), ndim(y)
    if x_ndim <= 2 and y_ndim <= 2:
        return ops.matmul(x, y)
    return ops.tensordot(x, y, axes=([x_ndim - 1], [builtins.max(y_ndim - 2, 0)]))


def batch_dot(x, y, axes=None):
    """Dot product of each sample of `x` with the same sample of `y` (Keras 2's rules).

    `axes` is an int or a pair `(axis of x, axis of y)` to contract; by default the last
    axis of `x` with the last axis of `y` when `y` is 2-D, else with its second-to-last.
    The result has the batch axis, then `x`'s other axes, then `y`'s other axes; two 2-D
    inputs give `(batch, 1)`.

    >>> import numpy as np
    >>> batch_dot(np.ones((32, 20, 1)), np.ones((32, 30, 20)), axes=(1, 2)).shape
    (32, 1, 30)
    """
    x_shape, y_shape = int_shape(x), int_shape(y)
    x_ndim, y_ndim = len(x_shape), len(y_shape)
    if x_ndim < 2 or y_ndim < 2:
        raise ValueError(
            f"K.batch_dot needs inputs of rank 2 or more; received shapes {x_shape} and {y_shape}."
        )
    if x_shape[0] is not None and y_shape[0] is not None and x_shape[0] != y_shape[0]:
        raise ValueError(
            f"K.batch_dot needs the same batch size; received shapes {x_shape} and {y_shape}."
        )
    if isinstance(axes, int):
        axes = (axes, axes)
    if axes is None:
        axes = (x_ndim - 1, y_ndim - 1 if y_ndim == 2 else y_ndim - 2)
    if builtins.any(isinstance(a, (list, tuple)) for a in axes) or len(axes) != 2:
        raise ValueError(
            f"K.batch_dot `axes` must be None, an int or a pair of ints; received {axes!r}."
        )
    a0, a1 = axes[0] % x_ndim, axes[1] % y_ndim
    if a0 == 0 or a1 == 0:
        raise ValueError(
            "K.batch_dot cannot contract the batch axis 0. If your inputs are not batched, "
            "add a batch axis with K.expand_dims(x, 0)."
        )
    d0, d1 = x_shape[a0], y_shape[a1]
    if d0 is not None and d1 is not None and d0 != d1:
        raise ValueError(
            f"K.batch_dot: x.shape[{a0}] != y.shape[{a1}] ({d0} != {d1}) for shapes "
            f"{x_shape} and {y_shape} with axes={tuple(axes)}."
        )
    letters = iter("bcdefghijklmnopqrstuvwxyz")
    x_sub = ["a"] + [next(letters) for _ in range(x_ndim - 1)]
    y_sub = ["a"] + [next(letters) for _ in range(y_ndim - 1)]
    y_sub[a1] = x_sub[a0] = "z"
    out = [s for i, s in enumerate(x_sub) if i != a0]
    out += [s for i, s in enumerate(y_sub) if i not in (0, a1)]
    result = ops.einsum(f"{''.join(x_sub)},{''.join(y_sub)}->{''.join(out)}", x, y)
    if x_ndim == 2 and y_ndim == 2:
        result = ops.expand_dims(result, 1)
    return result


# Neural-network functions ---------------------------------------------------------------
def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """Rectified linear unit with Keras 2's options.

    `x` above `threshold` passes (capped at `max_value`); below, the output is
    `alpha * (x - threshold)`.
    """
    if alpha != 0.0 and max_value is None and threshold == 0:
        return ops.leaky_relu(x, negative_slope=alpha)
    x = _tensor(x)
    negative_part = ops.relu(threshold - x) if alpha != 0.0 else None
    if threshold != 0:
        x = x * ops.cast(ops.greater(x, threshold), dtype(x))
    else:
        x = ops.relu(x)
    if max_value is not None:
        x = ops.clip(x, 0.0, max_value)
    if negative_part is not None:
        x = x - alpha * negative_part
    return x


def elu(x, alpha=1.0):
    """Exponential linear unit: `x` if `x > 0` else `alpha * (exp(x) - 1)`."""
    return ops.elu(x, alpha=alpha)


def softmax(x, axis=-1):
    """Softmax over `axis` (an int or a tuple). 1-D inputs are refused, as in Keras 2."""
    if ndim(x) <= 1:
        raise ValueError(
            f"K.softmax cannot be applied to a 1-D tensor (shape {int_shape(x)}); "
            "add a batch axis with K.expand_dims(x, 0)."
        )
    if isinstance(axis, int):
        return ops.softmax(x, axis=axis)
    x = _tensor(x)
    e = ops.exp(x - ops.max(x, axis=axis, keepdims=True))
    return e / ops.sum(e, axis=axis, keepdims=True)


def softplus(x):
    """`log(1 + exp(x))`."""
    return ops.softplus(x)


def softsign(x):
    """`x / (1 + |x|)`."""
    return ops.softsign(x)


def sigmoid(x):
    """`1 / (1 + exp(-x))`."""
    return ops.sigmoid(x)


def hard_sigmoid(x):
    """Keras 2's piecewise-linear sigmoid: `clip(0.2 * x + 0.5, 0, 1)`."""
    return ops.clip(_tensor(x) * 0.2 + 0.5, 0.0, 1.0)


@_composite
def dropout(x, level, noise_shape=None, seed=None):
    """Zero each entry with probability `level`, scaling the rest by `1 / (1 - level)`.

    `seed` is an int, a `lamina.random.SeedGenerator` or `None` (lamina's global seed
    generator; inside a compiled step pass a `SeedGenerator` held by a layer).
    """
    return ops.random.dropout(x, level, noise_shape=noise_shape, seed=seed)


def l2_normalize(x, axis=None):
    """`x / sqrt(max(sum(x ** 2, axis), 1e-12))`."""
    x = _tensor(x)
    squares = ops.sum(ops.square(x), axis=axis, keepdims=True)
    return x * ops.rsqrt(ops.maximum(squares, 1e-12))


def bias_add(x, bias, data_format=None):
    """Add `bias` to `x` along the channel axis (1-D bias) or as a whole (N-D bias).

    Args:
        x: `(batch, ..., channels)` or, channels first, `(batch, channels, ...)`.
        bias: `(channels,)`, or `(*spatial, channels)`; with channels first, such an
            N-D bias is reshaped (not transposed) to `(channels, *spatial)`, as Keras 2
            did.
        data_format: `"channels_last"` or `"channels_first"` (default: the global one).
    """
    data_format = _data_format(data_format)
    x, bias = _tensor(x), _tensor(bias)
    bias_shape, x_ndim = int_shape(bias), ndim(x)
    if len(bias_shape) not in (1, x_ndim - 1):
        raise ValueError(
            f"K.bias_add: bias of rank {len(bias_shape)} (shape {bias_shape}) cannot be added "
            f"to x of shape {int_shape(x)}; expected rank 1 or {x_ndim - 1}."
        )
    if data_format == "channels_first":
        if len(bias_shape) == 1:
            shape = (1, bias_shape[0]) + (1,) * (x_ndim - 2)
        else:
            shape = (1, bias_shape[-1]) + bias_shape[:-1]
        return x + ops.reshape(bias, shape)
    return x + ops.reshape(bias, (1,) * (x_ndim - len(bias_shape)) + bias_shape)


def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=1e-3):
    """`(x - mean) / sqrt(var + epsilon) * gamma + beta` (`beta`, `gamma` may be None)."""
    x, mean, var, beta, gamma = (_tensor(v) for v in (x, mean, var, beta, gamma))
    y = (x - mean) * ops.rsqrt(var + epsilon)
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    return y


@_composite
def normalize_batch_in_training(x, gamma, beta, reduction_axes, epsilon=1e-3):
    """Normalize `x` by its own mean and variance over `reduction_axes`.

    Returns:
        `(normalized, mean, variance)`; the statistics have the axes that were not
        reduced. `gamma` and `beta` (or None) hold one value per kept entry.
    """
    x = _tensor(x)
    axes = sorted(a % ndim(x) for a in reduction_axes)
    mean, variance = ops.moments(x, axes, keepdims=True)
    kept = tuple(d for i, d in enumerate(int_shape(x)) if i not in axes)
    broadcast = tuple(1 if i in axes else d for i, d in enumerate(int_shape(x)))

    def shaped(v):
        return None if v is None else ops.reshape(_tensor(v), broadcast)

    normed = batch_normalization(x, mean, variance, shaped(beta), shaped(gamma), epsilon=epsilon)
    return normed, ops.reshape(mean, kept), ops.reshape(variance, kept)


def in_top_k(predictions, targets, k):
    """Whether each `targets[i]` is among the `k` largest `predictions[i]` (note the order)."""
    return ops.in_top_k(ops.cast(targets, "int32"), predictions, k)


def _padding(padding: str) -> str:
    if padding not in ("valid", "same"):
        raise ValueError(f"`padding` must be 'valid' or 'same'; received {padding!r}.")
    return padding


def conv1d(x, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """1-D convolution; `kernel` is `(width, in_channels, out_channels)`.

    `padding` is `"valid"`, `"same"` or `"causal"` (left padding only).
    """
    data_format = _data_format(data_format)
    if padding == "causal":
        dilation = dilation_rate if isinstance(dilation_rate, int) else dilation_rate[0]
        left = dilation * (int_shape(kernel)[0] - 1)
        if data_format == "channels_first":
            x = ops.pad(x, [(0, 0), (0, 0), (left, 0)])
        else:
            x = ops.pad(x, [(0, 0), (left, 0), (0, 0)])
        padding = "valid"
    return ops.conv(x, kernel, strides, _padding(padding), data_format, dilation_rate)


def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    """2-D convolution; `kernel` is `(rows, cols, in_channels, out_channels)`."""
    return ops.conv(x, kernel, strides, _padding(padding), _data_format(data_format), dilation_rate)


def conv3d(
    x, kernel, strides=(1, 1, 1), padding="valid", data_format=None, dilation_rate=(1, 1, 1)
):
    """3-D convolution; `kernel` is `(depth, rows, cols, in_channels, out_channels)`."""
    return ops.conv(x, kernel, strides, _padding(padding), _data_format(data_format), dilation_rate)


def _conv_transpose(x, kernel, output_shape, strides, padding, data_format, dilation, n, name):
    data_format = _data_format(data_format)
    padding = _padding(padding)
    strides = _tuple(strides, n, "strides")
    dilation = _tuple(dilation, n, "dilation_rate")
    first = 1 if data_format == "channels_last" else 2
    # The full ("valid") transposed convolution, then TF's window of it: cropped by the
    # padding a forward convolution of the output would have used, or zero-extended.
    full = ops.conv_transpose(x, kernel, strides, "valid", 0, data_format, dilation)
    index = [builtins.slice(None)] * ndim(x)
    pads = [(0, 0)] * ndim(x)
    for i in range(n):
        axis = first + i
        length, wanted, size = x.shape[axis], int(output_shape[axis]), full.shape[axis]
        stride = strides[i]
        if padding == "same":
            low, high = (length - 1) * stride + 1, length * stride
        else:
            low, high = size, size + stride - 1
        if not low <= wanted <= high:
            raise ValueError(
                f"K.{name} with padding={padding!r} and strides {strides} cannot give "
                f"output length {wanted} on axis {axis} from input length {length} "
                f"(kernel {int_shape(kernel)}); possible lengths are {low} to {high}."
            )
        before = builtins.max(size - wanted, 0) // 2 if padding == "same" else 0
        index[axis] = builtins.slice(before, builtins.min(before + wanted, size))
        pads[axis] = (0, builtins.max(before + wanted - size, 0))
    out = full[tuple(index)]
    if builtins.any(p != (0, 0) for p in pads):
        out = ops.pad(out, pads)
    return out


@_composite
def conv2d_transpose(
    x,
    kernel,
    output_shape,
    strides=(1, 1),
    padding="valid",
    data_format=None,
    dilation_rate=(1, 1),
):
    """Transposed 2-D convolution to the given `output_shape`, as TensorFlow computes it.

    Args:
        kernel: `(rows, cols, out_channels, in_channels)`, as TF's.
        output_shape: the full output shape, e.g. `(batch, rows, cols, channels)`; its
            batch entry may be `None`. With `"same"` padding each spatial length `n`
            needs `ceil(n / stride)` equal to the input's; with `"valid"`, `n` is
            `(input - 1) * stride + kernel` plus at most `stride - 1`.
    """
    return _conv_transpose(
        x,
        kernel,
        output_shape,
        strides,
        padding,
        data_format,
        dilation_rate,
        2,
        "conv2d_transpose",
    )


@_composite
def conv3d_transpose(x, kernel, output_shape, strides=(1, 1, 1), padding="valid", data_format=None):
    """Transposed 3-D convolution to the given `output_shape` (see `conv2d_transpose`).

    `kernel` is `(depth, rows, cols, out_channels, in_channels)`.
    """
    return _conv_transpose(
        x, kernel, output_shape, strides, padding, data_format, 1, 3, "conv3d_transpose"
    )


def depthwise_conv2d(
    x, depthwise_kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)
):
    """Depthwise 2-D convolution; kernel `(rows, cols, in_channels, multiplier)`."""
    return ops.depthwise_conv(
        x, depthwise_kernel, strides, _padding(padding), _data_format(data_format), dilation_rate
    )


def separable_conv1d(
    x,
    depthwise_kernel,
    pointwise_kernel,
    strides=1,
    padding="valid",
    data_format=None,
    dilation_rate=1,
):
    """Depthwise then pointwise 1-D convolution."""
    return ops.separable_conv(
        x,
        depthwise_kernel,
        pointwise_kernel,
        strides,
        _padding(padding),
        _data_format(data_format),
        dilation_rate,
    )


def separable_conv2d(
    x,
    depthwise_kernel,
    pointwise_kernel,
    strides=(1, 1),
    padding="valid",
    data_format=None,
    dilation_rate=(1, 1),
):
    """Depthwise then pointwise 2-D convolution."""
    return ops.separable_conv(
        x,
        depthwise_kernel,
        pointwise_kernel,
        strides,
        _padding(padding),
        _data_format(data_format),
        dilation_rate,
    )


def _pool(x, pool_size, strides, padding, data_format, pool_mode, n):
    pool_size = _tuple(pool_size, n, "pool_size")
    strides = _tuple(strides, n, "strides")
    padding, data_format = _padding(padding), _data_format(data_format)
    if pool_mode == "max":
        return ops.max_pool(x, pool_size, strides, padding, data_format)
    if pool_mode == "avg":
        return ops.average_pool(x, pool_size, strides, padding, data_format)
    raise ValueError(f"`pool_mode` must be 'max' or 'avg'; received {pool_mode!r}.")


def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    """2-D max or average pooling (`pool_mode` `"max"` or `"avg"`; strides default 1)."""
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 2)


def pool3d(x, pool_size, strides=(1, 1, 1), padding="valid", data_format=None, pool_mode="max"):
    """3-D max or average pooling (`pool_mode` `"max"` or `"avg"`; strides default 1)."""
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 3)


def _local_windows(x, kernel_size, strides, out_sizes, data_format):
    """`(batch, positions, window size)`: each output position's input window, flattened
    in the input's own axis order (channels last: `(rows..., channels)`; channels
    first: `(channels, rows...)`), as Keras 2 laid out locally-connected kernels."""
    lead = (builtins.slice(None),) * (2 if data_format == "channels_first" else 1)
    windows = []
    for position in itertools.product(*[range(n) for n in out_sizes]):
        index = tuple(
            builtins.slice(p * s, p * s + k)
            for p, s, k in zip(position, strides, kernel_size, strict=True)
        )
        window = x[lead + index]
        windows.append(ops.reshape(window, (-1, math.prod(window.shape[1:]))))
    return ops.stack(windows, axis=1)


def _local_conv(inputs, kernel, kernel_size, strides, out_sizes, data_format):
    data_format = _data_format(data_format)
    windows = _local_windows(inputs, kernel_size, strides, out_sizes, data_format)
    out = ops.einsum("bpk,pkf->bpf", windows, kernel)
    out = ops.reshape(out, (-1, *out_sizes, int_shape(kernel)[-1]))
    return ops.moveaxis(out, -1, 1) if data_format == "channels_first" else out


@_composite
def local_conv1d(inputs, kernel, kernel_size, strides, data_format=None):
    """Unshared-weight 1-D convolution (the op of `LocallyConnected1D`).

    Args:
        inputs: `(batch, steps, channels)` (or channels first).
        kernel: `(output_length, kernel_size * channels, filters)`: one kernel per output
            step.
        kernel_size, strides: 1-tuples (or ints).
    """
    kernel_size, strides = _tuple(kernel_size, 1, "kernel_size"), _tuple(strides, 1, "strides")
    out_sizes = (int_shape(kernel)[0],)
    return _local_conv(inputs, kernel, kernel_size, strides, out_sizes, data_format)


@_composite
def local_conv2d(inputs, kernel, kernel_size, strides, output_shape, data_format=None):
    """Unshared-weight 2-D convolution (the op of `LocallyConnected2D`).

    Args:
        inputs: `(batch, rows, cols, channels)` (or channels first).
        kernel: `(out_rows * out_cols, kernel_rows * kernel_cols * channels, filters)`.
        kernel_size, strides: 2-tuples.
        output_shape: `(out_rows, out_cols)`.
    """
    kernel_size, strides = _tuple(kernel_size, 2, "kernel_size"), _tuple(strides, 2, "strides")
    out_sizes = tuple(int(n) for n in output_shape)
    return _local_conv(inputs, kernel, kernel_size, strides, out_sizes, data_format)


# Losses (Keras 2's argument order: target first) ----------------------------------------
def _clip_probabilities(output):
    eps = backend.epsilon()
    return ops.clip(output, eps, 1.0 - eps)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Crossentropy of one-hot (or soft) `target` and class probabilities `output`.

    Probabilities are rescaled to sum to 1 over `axis` and clipped to
    `[epsilon, 1 - epsilon]`; with `from_logits=True`, `output` holds logits.
    """
    target, output = _tensor(target), _tensor(output)
    if from_logits:
        return -ops.sum(target * ops.log_softmax(output, axis=axis), axis=axis)
    output = output / ops.sum(output, axis=axis, keepdims=True)
    return -ops.sum(target * ops.log(_clip_probabilities(output)), axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1, ignore_class=None):
    """Crossentropy of integer class `target` and class probabilities (or logits) `output`.

    Probabilities are clipped to `[epsilon, 1 - epsilon]`. With `ignore_class`, entries
    whose target is that class contribute 0.
    """
    if not from_logits:
        output = ops.log(_clip_probabilities(output))
    if axis != -1 and axis != ndim(output) - 1:
        output = ops.moveaxis(output, axis, -1)
    target = ops.cast(target, "int32")
    if ndim(target) == ndim(output):  # a trailing size-1 class axis
        target = ops.squeeze(target, -1)
    valid = None
    if ignore_class is not None:
        valid = ops.not_equal(target, ignore_class)
        target = ops.where(valid, target, ops.zeros_like(target))
    losses = -ops.sum(
        ops.one_hot(target, int_shape(output)[-1], dtype=dtype(output))
        * ops.log_softmax(output, axis=-1),
        axis=-1,
    )
    if valid is not None:
        losses = ops.where(valid, losses, ops.zeros_like(losses))
    return losses


def binary_crossentropy(target, output, from_logits=False):
    """Element-wise binary crossentropy; probabilities are clipped to `[eps, 1 - eps]`."""
    target, output = _tensor(target), _tensor(output)
    if from_logits:
        # max(z, 0) - z * t + log(1 + exp(-|z|)): stable for large |z|.
        return ops.relu(output) - output * target + ops.log1p(ops.exp(-ops.absolute(output)))
    eps = backend.epsilon()
    output = _clip_probabilities(output)
    return -(target * ops.log(output + eps) + (1.0 - target) * ops.log(1.0 - output + eps))


def binary_focal_crossentropy(
    target, output, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False
):
    """Binary crossentropy scaled by `(1 - p_t) ** gamma` (optionally class-balanced)."""
    target, output = _tensor(target), _tensor(output)
    probs = ops.sigmoid(output) if from_logits else output
    p_t = target * probs + (1.0 - target) * (1.0 - probs)
    loss = ops.power(1.0 - p_t, gamma) * binary_crossentropy(target, output, from_logits)
    if apply_class_balancing:
        loss = (target * alpha + (1.0 - target) * (1.0 - alpha)) * loss
    return loss


def categorical_focal_crossentropy(
    target, output, alpha=0.25, gamma=2.0, from_logits=False, axis=-1
):
    """Categorical crossentropy weighted by `alpha * (1 - p) ** gamma` per class."""
    target, output = _tensor(target), _tensor(output)
    if from_logits:
        output = ops.softmax(output, axis=axis)
    output = _clip_probabilities(output / ops.sum(output, axis=axis, keepdims=True))
    weight = alpha * ops.power(1.0 - output, gamma)
    return ops.sum(-weight * target * ops.log(output), axis=axis)


def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """CTC loss of each sample, `(batch, 1)`, from softmax outputs (blank = last class).

    Args:
        y_true: `(batch, max_label_length)` integer labels.
        y_pred: `(batch, time, num_classes)` probabilities (a softmax output).
        input_length: `(batch, 1)` valid time steps of each sample of `y_pred`.
        label_length: `(batch, 1)` valid labels of each sample of `y_true`.
    """
    num_classes = int_shape(y_pred)[-1]
    loss = _ctc_loss_op(
        y_true,
        ops.log(y_pred + backend.epsilon()),
        ops.squeeze(ops.cast(label_length, "int32"), -1),
        ops.squeeze(ops.cast(input_length, "int32"), -1),
        mask_index=num_classes - 1,
    )
    return ops.expand_dims(loss, 1)


def ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """Decode softmax outputs `(batch, time, classes)`; blank is the last class.

    Beam search keeps Keras 2's (TensorFlow 1's) `merge_repeated` behaviour: equal
    labels next to each other in a decoded path are merged even when a blank separated
    them in the alignment (`[1, 1]` decodes as `[1]`); greedy decoding keeps them.

    Returns:
        `(decoded, log_prob)`: a list of `top_paths` int tensors `(batch, time)` padded
        with -1 (the best first), and `(batch, top_paths)` scores (greedy: the negative
        sum of the best log probability of each step; beam search: log probabilities).
    """
    num_classes = int_shape(y_pred)[-1]
    decoded, log_prob = _ctc_decode_op(
        ops.log(_tensor(y_pred) + backend.epsilon()),
        ops.cast(ops.reshape(input_length, (-1,)), "int32"),
        strategy="greedy" if greedy else "beam_search",
        beam_width=beam_width,
        top_paths=1 if greedy else top_paths,
        mask_index=num_classes - 1,
    )
    paths = [decoded[i] for i in range(int_shape(decoded)[0])]
    if not greedy:
        paths = [_merge_repeated_labels(p) for p in paths]
    return paths, log_prob


def _merge_repeated_labels(paths):
    """`(batch, time)` labels padded with -1, equal neighbours merged, kept at the front."""
    steps = int_shape(paths)[1]
    previous = ops.pad(paths[:, :-1], [(0, 0), (1, 0)], constant_values=-1)
    keep = ops.logical_and(ops.not_equal(paths, previous), ops.not_equal(paths, -1))
    labels = ops.where(keep, paths, -1)
    position = ops.expand_dims(ops.arange(steps, dtype="int32"), 0)
    order = ops.argsort(ops.where(keep, position, position + steps), axis=-1)
    return ops.take_along_axis(labels, order, axis=-1)


def ctc_label_dense_to_sparse(labels, label_lengths):
    """Not available: lamina has no sparse tensors.

    Raises:
        NotImplementedError: always; pass dense labels and lengths to `K.ctc_batch_cost`
            or `lamina.ops.ctc_loss` instead.
    """
    raise NotImplementedError(
        "K.ctc_label_dense_to_sparse makes a TensorFlow SparseTensor; lamina's engines have "
        "no sparse tensors. K.ctc_batch_cost and lamina.ops.ctc_loss take the dense labels "
        "and their lengths directly."
    )


# Random ---------------------------------------------------------------------------------
def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Samples of a normal distribution. `seed`: an int, a SeedGenerator or None."""
    return ops.random.normal(
        _static_shape(shape, "random_normal"), mean, stddev, dtype or backend.floatx(), seed
    )


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Samples of a uniform distribution on `[minval, maxval)`."""
    return ops.random.uniform(
        _static_shape(shape, "random_uniform"), minval, maxval, dtype or backend.floatx(), seed
    )


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples, those beyond two standard deviations drawn again."""
    return ops.random.truncated_normal(
        _static_shape(shape, "truncated_normal"), mean, stddev, dtype or backend.floatx(), seed
    )


def random_bernoulli(shape, p=0.0, dtype=None, seed=None):
    """Samples of 1 (with probability `p`) and 0, in `dtype` (default `floatx`)."""
    dtype = dtype or backend.floatx()
    draws = ops.random.uniform(_static_shape(shape, "random_bernoulli"), 0.0, 1.0, "float32", seed)
    return ops.cast(ops.less(draws, p), dtype)


def random_binomial(shape, p=0.0, dtype=None, seed=None):
    """Keras 2's older name for `random_bernoulli`."""
    return random_bernoulli(shape, p=p, dtype=dtype, seed=seed)


def random_normal_variable(shape, mean, scale, dtype=None, name=None, seed=None):
    """A Variable filled with normal samples of mean `mean` and deviation `scale`."""
    dtype = dtype or backend.floatx()
    return _variable(random_normal(shape, mean, scale, dtype, seed), dtype, name)


def random_uniform_variable(shape, low, high, dtype=None, name=None, seed=None):
    """A Variable filled with uniform samples on `[low, high)`."""
    dtype = dtype or backend.floatx()
    return _variable(random_uniform(shape, low, high, dtype, seed), dtype, name)


# Control flow ---------------------------------------------------------------------------
def _call_if_callable(value):
    return value() if callable(value) else value


@_composite
def switch(condition, then_expression, else_expression):
    """`then_expression` where `condition` holds, else `else_expression`.

    A scalar `condition` picks one branch (callables are called for that branch only,
    as one conditional when compiled). A condition of lower rank than the expressions
    selects along their leading axes: a `(batch,)` condition picks whole samples.
    """
    condition = ops.cast(condition, "bool")
    cond_ndim = ndim(condition)
    if cond_ndim == 0 and (callable(then_expression) or callable(else_expression)):
        return ops.cond(
            condition,
            lambda: _call_if_callable(then_expression),
            lambda: _call_if_callable(else_expression),
        )
    then_value = ops.convert_to_tensor(_call_if_callable(then_expression))
    else_value = ops.convert_to_tensor(_call_if_callable(else_expression))
    expr_ndim = builtins.max(ndim(then_value), ndim(else_value))
    if cond_ndim > expr_ndim:
        raise ValueError(
            f"K.switch: the condition's rank ({cond_ndim}) must not exceed the rank of the "
            f"expressions ({expr_ndim})."
        )
    if cond_ndim > 0:
        condition = ops.reshape(condition, int_shape(condition) + (1,) * (expr_ndim - cond_ndim))
    return ops.where(condition, then_value, else_value)


def _time_major(x):
    return ops.swapaxes(x, 0, 1)


@_composite
def rnn(
    step_function,
    inputs,
    initial_states,
    go_backwards=False,
    mask=None,
    constants=None,
    unroll=False,
    input_length=None,
    time_major=False,
    zero_output_for_mask=False,
):
    """Iterate `step_function` over the time axis of `inputs` (Keras 2's `K.rnn`).

    Args:
        step_function: `(input_t, states) -> (output_t, new_states)`, where `states` is
            the list of states followed by `constants`.
        inputs: `(batch, time, ...)` (or `(time, batch, ...)` with `time_major=True`);
            a list or tuple of such tensors is iterated together.
        initial_states: list of `(batch, ...)` tensors.
        go_backwards: iterate from the last step to the first (outputs in that order).
        mask: `(batch, time)` booleans; a masked step keeps the states and repeats the
            previous output (zeros with `zero_output_for_mask=True`).
        constants: tensors passed to every step after the states.
        unroll: accepted for compatibility; the loop is compiled as a scan either way.
        input_length: ignored (as in Keras 2 with TensorFlow).

    Returns:
        `(last_output, outputs, new_states)`: `outputs` is `(batch, time, ...)` (time
        first with `time_major=True`).
    """
    del unroll, input_length
    constants = [_tensor(c) for c in constants or []]
    inputs = tree.map_structure(_tensor, inputs)
    initial_states = [_tensor(s) for s in initial_states]
    mask = _tensor(mask)
    xs = inputs if time_major else tree.map_structure(_time_major, inputs)
    if mask is not None:
        mask = ops.cast(mask, "bool")
        if ndim(mask) == 3:
            mask = ops.squeeze(mask, -1)
        if not time_major:
            mask = ops.swapaxes(mask, 0, 1)
    if go_backwards:
        xs = tree.map_structure(lambda x: ops.flip(x, 0), xs)
        if mask is not None:
            mask = ops.flip(mask, 0)
    states = list(initial_states)

    def step(x_t, states_t):
        output, new_states = step_function(x_t, list(states_t) + constants)
        return output, list(new_states)

    def masked(m_t, new, old):
        m = ops.reshape(m_t, int_shape(m_t) + (1,) * (ndim(new) - 1))
        return ops.where(m, new, old)

    # The first step runs outside the loop, to learn the output's shape.
    first = tree.map_structure(lambda x: x[0], xs)
    output, new_states = step(first, states)
    if mask is not None:
        zero = ops.zeros_like(output)
        output = masked(mask[0], output, zero)
        new_states = [masked(mask[0], n, o) for n, o in zip(new_states, states, strict=True)]
    num_steps = int_shape(tree.flatten(xs)[0])[0]
    if num_steps == 1:
        outputs = ops.expand_dims(output, 0)
        last_states = new_states
    else:
        rest = tree.map_structure(lambda x: x[1:], xs)

        def body(carry, inputs_t):
            prev_output, prev_states = carry
            if mask is None:
                x_t = inputs_t
            else:
                x_t, m_t = inputs_t
            out, states_t = step(x_t, prev_states)
            if mask is not None:
                keep = ops.zeros_like(out) if zero_output_for_mask else prev_output
                out = masked(m_t, out, keep)
                states_t = [masked(m_t, n, o) for n, o in zip(states_t, prev_states, strict=True)]
            return (out, states_t), out

        scan_xs = rest if mask is None else (rest, mask[1:])
        (_, last_states), tail = ops.scan(body, (output, new_states), scan_xs)
        outputs = ops.concatenate([ops.expand_dims(output, 0), tail], axis=0)
    last_output = outputs[-1]
    if not time_major:
        outputs = _time_major(outputs)
    return last_output, outputs, list(last_states)


@_composite
def map_fn(fn, elems, name=None, dtype=None):
    """`fn` applied to each element of `elems` along axis 0, the results stacked."""
    elems = tree.map_structure(_tensor, elems)
    _, ys = ops.scan(lambda carry, x: (carry, fn(x)), 0, elems)
    return ys


def _fold(fn, elems, initializer, reverse):
    elems = tree.map_structure(_tensor, elems)
    initializer = tree.map_structure(_tensor, initializer)
    if initializer is None:
        first = tree.map_structure(lambda x: x[-1] if reverse else x[0], elems)
        elems = tree.map_structure(lambda x: x[:-1] if reverse else x[1:], elems)
        initializer = first
    carry, _ = ops.scan(lambda acc, x: (fn(acc, x), None), initializer, elems, reverse=reverse)
    return carry


@_composite
def foldl(fn, elems, initializer=None, name=None):
    """Reduce `elems` from the first element: `acc = fn(acc, x)`.

    Without `initializer`, the first element starts the accumulator.

    >>> import numpy as np
    >>> float(foldl(lambda acc, x: acc * 10 + x, np.array([1.0, 2.0, 3.0])))
    123.0
    """
    return _fold(fn, elems, initializer, reverse=False)


@_composite
def foldr(fn, elems, initializer=None, name=None):
    """Reduce `elems` from the last element: `acc = fn(acc, x)`.

    >>> import numpy as np
    >>> float(foldr(lambda acc, x: acc * 10 + x, np.array([1.0, 2.0, 3.0])))
    321.0
    """
    return _fold(fn, elems, initializer, reverse=True)


__all__ = [
    name
    for name, value in sorted(globals().items())
    if not name.startswith("_")
    and callable(value)
    and getattr(value, "__module__", None) == __name__
]
