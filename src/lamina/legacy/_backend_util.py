"""Helpers shared by the classic backend modules, and the introspection functions.

`int_shape`, `ndim` and `dtype` live here because every family uses them; they are
public through `lamina.legacy.backend_ops`.
"""

from __future__ import annotations

import builtins
import functools

import numpy as np

from lamina import backend, ops
from lamina.backend.common.variables import Variable
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.operation import any_symbolic, symbolic_call


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


def _padding(padding: str) -> str:
    if padding not in ("valid", "same"):
        raise ValueError(f"`padding` must be 'valid' or 'same'; received {padding!r}.")
    return padding


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


def _variable(value, dtype, name):
    return backend.Variable(value, dtype=dtype, name=name)


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
    """The number of axes of `x`.

    >>> from lamina import backend as K
    >>> K.ndim(K.zeros((2, 3, 4))), K.ndim(K.placeholder(shape=(None, 5)))
    (3, 2)
    """
    return len(int_shape(x))


def dtype(x):
    """The dtype of `x` as a string such as `"float32"`.

    >>> from lamina import backend as K
    >>> K.dtype(K.constant([1.0])), K.dtype(K.constant([1], dtype="int32"))
    ('float32', 'int32')
    """
    return ops.dtype(x)
