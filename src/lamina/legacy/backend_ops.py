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
import math

import numpy as np

from lamina import backend, ops
from lamina.backend.common.global_state import register_reset_hook
from lamina.backend.common.variables import Variable
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.operation import symbolic_call
from lamina.legacy import _backend_util
from lamina.legacy._backend_util import (
    _composite,
    _data_format,
    _static_shape,
    _tensor,
    _variable,
)
from lamina.legacy.backend_control import *  # noqa: F403
from lamina.legacy.backend_control import __all__ as _control_names
from lamina.legacy.backend_math import *  # noqa: F403
from lamina.legacy.backend_math import __all__ as _math_names
from lamina.legacy.backend_nn import *  # noqa: F403
from lamina.legacy.backend_nn import __all__ as _nn_names

# Introspection functions every family uses, defined with the shared helpers.
dtype = _backend_util.dtype
int_shape = _backend_util.int_shape
ndim = _backend_util.ndim


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

    >>> from lamina import backend as K
    >>> y = K.print_tensor(K.constant([1.0, 2.0]), message="y =")
    y = [1. 2.]
    """
    if isinstance(x, KerasTensor):
        return symbolic_call(functools.partial(_print, message=message), "print_tensor", (x,), {})
    return _print(_tensor(x), message)


_UIDS: dict = {}


def get_uid(prefix=""):
    """A counter per `prefix`: 1 on the first call, then 2, 3, ... (reset by `reset_uids`
    and `clear_session`).

    >>> from lamina import backend as K
    >>> K.reset_uids()
    >>> K.get_uid("dense"), K.get_uid("dense"), K.get_uid("conv")
    (1, 2, 1)
    """
    _UIDS[prefix] = _UIDS.get(prefix, 0) + 1
    return _UIDS[prefix]


def reset_uids():
    """Restart every `get_uid` counter.

    >>> from lamina import backend as K
    >>> K.get_uid("dense") >= 1
    True
    >>> K.reset_uids()
    >>> K.get_uid("dense")
    1
    """
    _UIDS.clear()


register_reset_hook(reset_uids)


# Shapes and dtypes ----------------------------------------------------------------------
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
        # Not named "shape": a saved graph would reload it as the engine's shape op.
        return symbolic_call(_shape_of, "backend_shape", (x,), {})
    return np.asarray(getattr(x, "shape", np.shape(x)), dtype="int32")


def reshape(x, shape):
    """`x` with a new shape (one dim may be -1).

    >>> from lamina import backend as K
    >>> K.eval(K.reshape(K.constant([1, 2, 3, 4, 5, 6]), (2, 3))).tolist()
    [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    """
    return ops.reshape(x, _static_shape(shape))


def transpose(x):
    """`x` with its axes reversed.

    >>> from lamina import backend as K
    >>> K.eval(K.transpose(K.constant([[1, 2, 3], [4, 5, 6]]))).tolist()
    [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    """
    return ops.transpose(x)


def permute_dimensions(x, pattern):
    """`x` with its axes reordered by `pattern`, e.g. `(0, 2, 1)`.

    >>> from lamina import backend as K
    >>> K.int_shape(K.permute_dimensions(K.zeros((2, 3, 4)), (0, 2, 1)))
    (2, 4, 3)
    """
    return ops.transpose(x, axes=tuple(pattern))


def expand_dims(x, axis=-1):
    """`x` with a new axis of size 1 at `axis` (default: last).

    >>> from lamina import backend as K
    >>> K.int_shape(K.expand_dims(K.constant([1.0, 2.0])))
    (2, 1)
    """
    return ops.expand_dims(x, axis)


def squeeze(x, axis):
    """`x` without the size-1 axis `axis`.

    >>> from lamina import backend as K
    >>> K.int_shape(K.squeeze(K.ones((3, 1, 2)), axis=1))
    (3, 2)
    """
    return ops.squeeze(x, axis=axis)


def flatten(x):
    """`x` as one dimension.

    >>> from lamina import backend as K
    >>> K.eval(K.flatten(K.constant([[1, 2], [3, 4]]))).tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
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
    """Join `tensors` along an existing `axis` (default: last).

    >>> from lamina import backend as K
    >>> K.eval(K.concatenate([K.constant([[1, 2]]), K.constant([[3]])])).tolist()
    [[1.0, 2.0, 3.0]]
    """
    return ops.concatenate(list(tensors), axis=axis)


def stack(x, axis=0):
    """Stack the list of tensors `x` along a new `axis`.

    >>> from lamina import backend as K
    >>> K.eval(K.stack([K.constant([1, 2]), K.constant([3, 4])], axis=1)).tolist()
    [[1.0, 3.0], [2.0, 4.0]]
    """
    return ops.stack(list(x), axis=axis)


def tile(x, n):
    """Repeat `x` `n[i]` times along axis `i` (an int `n` tiles a 1-D `x`).

    >>> from lamina import backend as K
    >>> K.eval(K.tile(K.constant([[1, 2]]), (2, 2))).tolist()
    [[1.0, 2.0, 1.0, 2.0], [1.0, 2.0, 1.0, 2.0]]
    """
    if isinstance(n, int):
        n = [n]
    return ops.tile(x, _static_shape(n, "tile"))


def repeat(x, n):
    """Repeat a 2-D `(batch, dim)` tensor `n` times: `(batch, n, dim)`.

    >>> from lamina import backend as K
    >>> K.eval(K.repeat(K.constant([[1, 2]]), 3)).tolist()
    [[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]]
    """
    if ndim(x) != 2:
        raise ValueError(
            f"K.repeat expects a 2-D tensor (batch, features); received shape {int_shape(x)}. "
            "Use K.repeat_elements or K.tile for other ranks."
        )
    return ops.repeat(ops.expand_dims(x, 1), n, axis=1)


def repeat_elements(x, rep, axis):
    """Repeat each element `rep` times along `axis`, like `np.repeat`.

    >>> from lamina import backend as K
    >>> K.eval(K.repeat_elements(K.constant([[1, 2]]), 2, axis=1)).tolist()
    [[1.0, 1.0, 2.0, 2.0]]
    """
    return ops.repeat(x, rep, axis=axis)


def gather(reference, indices):
    """Rows of `reference` at `indices` (along axis 0).

    >>> from lamina import backend as K
    >>> K.eval(K.gather(K.constant([[1, 2], [3, 4], [5, 6]]), [2, 0])).tolist()
    [[5.0, 6.0], [1.0, 2.0]]
    """
    return ops.take(reference, ops.cast(indices, "int32"), axis=0)


def reverse(x, axes):
    """`x` reversed along `axes` (an int or a list of ints).

    >>> from lamina import backend as K
    >>> K.eval(K.reverse(K.constant([[1, 2, 3]]), axes=1)).tolist()
    [[3.0, 2.0, 1.0]]
    """
    if isinstance(axes, int):
        axes = [axes]
    for axis in axes:
        x = ops.flip(x, axis=axis)
    return x


def one_hot(indices, num_classes):
    """One-hot float encoding of integer `indices`, a new last axis of `num_classes`.

    >>> from lamina import backend as K
    >>> K.eval(K.one_hot(K.constant([0, 2], dtype="int32"), 3)).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    return ops.one_hot(indices, num_classes)


def _padded(x, spatial_pads, data_format):
    zero = [(0, 0)]
    if data_format == "channels_first":
        pattern = zero * 2 + spatial_pads
    else:
        pattern = zero + spatial_pads + zero
    return ops.pad(x, pattern)


def temporal_padding(x, padding=(1, 1)):
    """Pad the middle axis of a 3-D tensor `(batch, steps, features)` with zeros.

    >>> from lamina import backend as K
    >>> K.int_shape(K.temporal_padding(K.ones((1, 4, 2)), (1, 2)))
    (1, 7, 2)
    """
    if len(padding) != 2:
        raise ValueError(f"`padding` must be a tuple of 2 ints; received {padding!r}.")
    return _padded(x, [tuple(padding)], "channels_last")


def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    """Pad the rows and columns of a 4-D image tensor with zeros.

    >>> from lamina import backend as K
    >>> K.int_shape(K.spatial_2d_padding(K.ones((1, 4, 4, 3))))
    (1, 6, 6, 3)
    """
    if len(padding) != 2 or builtins.any(len(p) != 2 for p in padding):
        raise ValueError(f"`padding` must be 2 tuples of 2 ints; received {padding!r}.")
    return _padded(x, [tuple(p) for p in padding], _data_format(data_format))


def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)), data_format=None):
    """Pad the three spatial axes of a 5-D volume tensor with zeros.

    >>> from lamina import backend as K
    >>> K.int_shape(K.spatial_3d_padding(K.ones((1, 2, 2, 2, 3))))
    (1, 4, 4, 4, 3)
    """
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

    >>> from lamina import backend as K
    >>> x = K.constant([[1.0, 2.0], [3.0, 4.0]])[None, :, :, None]
    >>> K.eval(K.resize_images(x, 2, 2, "channels_last"))[0, :, :, 0].tolist()
    [[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0], [3.0, 3.0, 4.0, 4.0], [3.0, 3.0, 4.0, 4.0]]
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
    """Upsample a 5-D volume tensor by repeating elements along its three spatial axes.

    >>> from lamina import backend as K
    >>> K.int_shape(K.resize_volumes(K.ones((1, 2, 2, 2, 3)), 2, 3, 1, "channels_last"))
    (1, 4, 6, 2, 3)
    """
    first = 2 if _data_format(data_format) == "channels_first" else 1
    for offset, factor in enumerate((depth_factor, height_factor, width_factor)):
        x = ops.repeat(x, factor, axis=first + offset)
    return x


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
    """`x` converted to `dtype` (works on arrays, Variables and KerasTensors).

    >>> from lamina import backend as K
    >>> K.eval(K.cast(K.constant([1.7, -0.2]), "int32")).tolist()
    [1, 0]
    """
    return ops.cast(x, dtype)


def cast_to_floatx(x):
    """`x` in `floatx`: tensors stay tensors, anything else becomes a NumPy array.

    >>> from lamina import backend as K
    >>> K.cast_to_floatx([1, 2])
    array([1., 2.], dtype=float32)
    """
    if backend.is_tensor(x) or isinstance(x, (KerasTensor, Variable)):
        return ops.cast(x, backend.floatx())
    return np.asarray(x, dtype=backend.floatx())


def is_sparse(tensor):
    """Whether `tensor` is sparse: always False (lamina's engines make dense tensors).

    >>> from lamina import backend as K
    >>> K.is_sparse(K.constant([1.0]))
    False
    """
    return False


def to_dense(tensor):
    """`tensor` itself: lamina's tensors are always dense.

    >>> from lamina import backend as K
    >>> K.eval(K.to_dense(K.constant([1.0, 2.0]))).tolist()
    [1.0, 2.0]
    """
    return tensor


def is_tensor(x):
    """Whether `x` is a tensor: an engine tensor, a Variable or a KerasTensor.

    >>> from lamina import backend as K
    >>> import numpy as np
    >>> K.is_tensor(K.constant([1.0])), K.is_tensor(np.ones(2))
    (True, False)
    """
    return isinstance(x, (KerasTensor, Variable)) or backend.is_tensor(x)


def is_keras_tensor(x):
    """Whether `x` is a KerasTensor (the output of `Input`, a layer or an op on them).

    Raises:
        ValueError: `x` is not a tensor at all (a NumPy array, a number), as Keras 2 did.

    >>> from lamina import backend as K
    >>> K.is_keras_tensor(K.placeholder(shape=(None, 3))), K.is_keras_tensor(K.constant([1.0]))
    (True, False)
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

    >>> from lamina import backend as K
    >>> K.eval(K.dot(K.constant([[1.0, 2.0]]), K.constant([[3.0], [4.0]]))).tolist()
    [[11.0]]
    >>> K.int_shape(K.dot(K.ones((2, 3, 4)), K.ones((4, 5))))
    (2, 3, 5)
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


# Random ---------------------------------------------------------------------------------
def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Samples of a normal distribution. `seed`: an int, a SeedGenerator or None.

    >>> from lamina import backend as K
    >>> x = K.random_normal((2, 3), mean=5.0, stddev=0.1, seed=1)
    >>> K.int_shape(x), bool(K.eval(K.all(K.abs(x - 5.0) < 1.0)))
    ((2, 3), True)
    """
    return ops.random.normal(
        _static_shape(shape, "random_normal"), mean, stddev, dtype or backend.floatx(), seed
    )


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Samples of a uniform distribution on `[minval, maxval)`.

    >>> from lamina import backend as K
    >>> x = K.random_uniform((2, 3), minval=-1.0, maxval=1.0, seed=1)
    >>> K.int_shape(x), bool(K.eval(K.all(K.abs(x) <= 1.0)))
    ((2, 3), True)
    """
    return ops.random.uniform(
        _static_shape(shape, "random_uniform"), minval, maxval, dtype or backend.floatx(), seed
    )


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples, those beyond two standard deviations drawn again.

    >>> from lamina import backend as K
    >>> x = K.truncated_normal((100,), stddev=1.0, seed=1)
    >>> K.int_shape(x), bool(K.eval(K.max(K.abs(x))) <= 2.0)
    ((100,), True)
    """
    return ops.random.truncated_normal(
        _static_shape(shape, "truncated_normal"), mean, stddev, dtype or backend.floatx(), seed
    )


def random_bernoulli(shape, p=0.0, dtype=None, seed=None):
    """Samples of 1 (with probability `p`) and 0, in `dtype` (default `floatx`).

    >>> from lamina import backend as K
    >>> x = K.eval(K.random_bernoulli((1000,), p=0.3, seed=1))
    >>> sorted(set(x.tolist())), bool(0.2 < x.mean() < 0.4)
    ([0.0, 1.0], True)
    """
    dtype = dtype or backend.floatx()
    draws = ops.random.uniform(_static_shape(shape, "random_bernoulli"), 0.0, 1.0, "float32", seed)
    return ops.cast(ops.less(draws, p), dtype)


def random_binomial(shape, p=0.0, dtype=None, seed=None):
    """Keras 2's older name for `random_bernoulli`.

    >>> from lamina import backend as K
    >>> K.int_shape(K.random_binomial((3, 2), p=0.3, seed=1))
    (3, 2)
    """
    return random_bernoulli(shape, p=p, dtype=dtype, seed=seed)


def random_normal_variable(shape, mean, scale, dtype=None, name=None, seed=None):
    """A Variable filled with normal samples of mean `mean` and deviation `scale`.

    >>> from lamina import backend as K
    >>> v = K.random_normal_variable((2, 3), mean=0.0, scale=1.0, seed=1)
    >>> K.int_shape(v), K.get_value(v).dtype
    ((2, 3), dtype('float32'))
    """
    dtype = dtype or backend.floatx()
    return _variable(random_normal(shape, mean, scale, dtype, seed), dtype, name)


def random_uniform_variable(shape, low, high, dtype=None, name=None, seed=None):
    """A Variable filled with uniform samples on `[low, high)`.

    >>> from lamina import backend as K
    >>> v = K.random_uniform_variable((2, 3), low=0.0, high=1.0, seed=1)
    >>> K.int_shape(v), bool((K.get_value(v) < 1.0).all())
    ((2, 3), True)
    """
    dtype = dtype or backend.floatx()
    return _variable(random_uniform(shape, low, high, dtype, seed), dtype, name)


__all__ = sorted(
    [
        name
        for name, value in list(globals().items())
        if not name.startswith("_")
        and callable(value)
        and getattr(value, "__module__", None) == __name__
    ]
    + ["dtype", "int_shape", "ndim", *_control_names, *_math_names, *_nn_names]
)
