"""NumPy's other names for ops: `amax`, `fabs`, `conjugate`, `bitwise_not`, `array`, ...

Each is the op it names under NumPy's other spelling (for the contract ops, the same op
under a second name, with a docstring of its own); found in `lamina.ops` and
`lamina.ops.numpy`, as in Keras 3.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.amax(np.array([[1, 5], [3, 2]]), axis=0)).tolist()
[3, 5]
"""

from __future__ import annotations

import inspect

from lamina.ops import numpy as lnp
from lamina.ops.core import composite, convert_to_tensor, declared_op
from lamina.ops.numpy_elementwise import _float


def _alias(module, name, alias, doc):
    """`module.name` under NumPy's other name `alias`, with its own docstring `doc`."""
    op = declared_op(module, name)
    op.__name__ = op.__qualname__ = alias
    op.__doc__ = inspect.cleandoc(doc)
    return op


bitwise_not = _alias(
    "numpy",
    "bitwise_invert",
    "bitwise_not",
    """Elementwise bitwise NOT (alias of `bitwise_invert`).

    Args:
        x: Integer or bool tensor.

    Returns:
        `~x`, same dtype as `x` (for signed integers, `-x - 1`).

    Example:

    >>> ops.convert_to_numpy(ops.bitwise_not(np.array([0, 5], "int32"))).tolist()
    [-1, -6]
    """,
)


left_shift = _alias(
    "numpy",
    "bitwise_left_shift",
    "left_shift",
    """Elementwise `x << y` (alias of `bitwise_left_shift`).

    Args:
        x: Integer tensor to shift.
        y: Number of bits to shift by (non-negative), broadcastable with `x`.

    Returns:
        `x` shifted left by `y` bits, in the promoted integer dtype.

    Example:

    >>> ops.convert_to_numpy(ops.left_shift(np.array([1, 3]), 2)).tolist()
    [4, 12]
    """,
)


right_shift = _alias(
    "numpy",
    "bitwise_right_shift",
    "right_shift",
    """Elementwise `x >> y` (alias of `bitwise_right_shift`).

    Args:
        x: Integer tensor to shift.
        y: Number of bits to shift by (non-negative), broadcastable with `x`.

    Returns:
        `x` shifted right by `y` bits (sign-extending for signed integers), in the
        promoted integer dtype.

    Example:

    >>> ops.convert_to_numpy(ops.right_shift(np.array([8, 5]), 1)).tolist()
    [4, 2]
    """,
)


conjugate = _alias(
    "numpy",
    "conj",
    "conjugate",
    """The complex conjugate of `x` (alias of `conj`).

    Args:
        x: Input tensor; a real tensor is returned unchanged.

    Returns:
        A tensor with the sign of each imaginary part flipped, same shape as `x`.

    Example:

    >>> ops.convert_to_numpy(ops.conjugate(np.array([1 + 2j]))).tolist()
    [(1-2j)]
    """,
)


@composite
def amax(x, axis=None, keepdims=False):
    """Maximum of `x` along `axis` (alias of `max`).

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The maxima, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.amax(np.array([[1, 5], [3, 2]]), axis=0)).tolist()
    [3, 5]
    """
    return lnp.max(x, axis=axis, keepdims=keepdims)


@composite
def amin(x, axis=None, keepdims=False):
    """Minimum of `x` along `axis` (alias of `min`).

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The minima, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.amin(np.array([[1, 5], [3, 2]]), axis=1)).tolist()
    [1, 2]
    """
    return lnp.min(x, axis=axis, keepdims=keepdims)


@composite
def fabs(x):
    """Elementwise absolute value of `x`, as floats.

    Unlike `abs`, integer inputs give a float result.

    Args:
        x: Input tensor (real).

    Returns:
        The absolute values, as floats.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.fabs(np.array([-2, 3]))).tolist()
    [2.0, 3.0]
    """
    return lnp.abs(_float(x))


def array(x, dtype=None):
    """A tensor holding `x` (NumPy's name for `convert_to_tensor`).

    Args:
        x: Array-like: a NumPy array, nested Python lists or scalars, or a tensor.
        dtype: Dtype of the result; `None` infers it from `x` (Python floats give
            `"float32"`, Python ints `"int32"`).

    Returns:
        A tensor of the current engine holding the values of `x`.

    Example:

    >>> from lamina import ops
    >>> t = ops.array([[1, 2], [3, 4]], dtype="float32")
    >>> ops.convert_to_numpy(t).dtype, ops.shape(t)
    (dtype('float32'), (2, 2))
    """
    return convert_to_tensor(x, dtype=dtype)


__all__ = [
    "amax",
    "amin",
    "array",
    "bitwise_not",
    "conjugate",
    "fabs",
    "left_shift",
    "right_shift",
]
