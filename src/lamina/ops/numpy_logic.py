"""Tests and choices written once from other ops: `allclose`, `isposinf`, `isreal`, `select`.

>>> import numpy as np
>>> from lamina import ops
>>> bool(ops.convert_to_numpy(ops.allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]))))
True
"""

from __future__ import annotations

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _op, cast, composite, convert_to_tensor
from lamina.ops.core import _tensor_dtype as dtype


@composite
def allclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether two tensors are equal elementwise within a tolerance.

    True when every element satisfies `abs(x1 - x2) <= atol + rtol * abs(x2)`, after
    broadcasting; see `isclose` for the elementwise test.

    Args:
        x1: First tensor.
        x2: Second tensor, broadcastable with `x1`.
        rtol: Relative tolerance.
        atol: Absolute tolerance.
        equal_nan: If `True`, NaNs in the same place count as equal.

    Returns:
        A boolean scalar tensor.

    Example:

    >>> from lamina import ops
    >>> bool(ops.allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9])))
    True
    >>> bool(ops.allclose(np.array([1.0, np.nan]), np.array([1.0, np.nan]), equal_nan=True))
    True
    """
    return lnp.all(lnp.isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan))


@composite
def isneginf(x):
    """Elementwise test for negative infinity.

    Args:
        x: Input tensor.

    Returns:
        A boolean tensor, `True` where `x` is `-inf`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.isneginf(np.array([-np.inf, np.inf, 1.0]))).tolist()
    [True, False, False]
    """
    x = convert_to_tensor(x)
    return lnp.logical_and(lnp.isinf(x), lnp.less(x, 0))


@composite
def isposinf(x):
    """Elementwise test for positive infinity.

    Args:
        x: Input tensor.

    Returns:
        A boolean tensor, `True` where `x` is `+inf`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.isposinf(np.array([-np.inf, np.inf, 1.0]))).tolist()
    [False, True, False]
    """
    x = convert_to_tensor(x)
    return lnp.logical_and(lnp.isinf(x), lnp.greater(x, 0))


@composite
def isreal(x):
    """Elementwise test for a zero imaginary part.

    Args:
        x: Input tensor, real or complex.

    Returns:
        A boolean tensor, `True` where the imaginary part of `x` is zero (everywhere for
        a real tensor).

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.isreal(np.array([1.0 + 0j, 1.0 + 2j]))).tolist()
    [True, False]
    """
    return lnp.equal(lnp.imag(x), 0)


def select(condlist, choicelist, default=0):
    """Elements taken from `choicelist` according to `condlist`, else `default`.

    At each position the result is `choicelist[i]` for the first `i` whose `condlist[i]`
    is `True` there, or `default` where no condition holds.

    Args:
        condlist: List of boolean tensors, the conditions.
        choicelist: List of tensors, one per condition, broadcastable with them.
        default: Value used where no condition holds.

    Returns:
        A tensor in the promoted dtype of the choices and `default`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.arange(6)
    >>> ops.convert_to_numpy(ops.select([x < 2, x > 3], [x, x * 10], default=-1)).tolist()
    [0, 1, -1, -1, 40, 50]
    """
    if len(condlist) != len(choicelist):
        raise ValueError(
            f"select: {len(condlist)} conditions but {len(choicelist)} choices; give one choice per condition."
        )
    return _select_op(list(condlist), list(choicelist), default)


def _select(condlist, choicelist, default):
    out = convert_to_tensor(default)
    common = backend.result_type(*[dtype(convert_to_tensor(c)) for c in choicelist], dtype(out))
    out = cast(out, common)
    for condition, choice in reversed(list(zip(condlist, choicelist))):
        out = lnp.where(condition, cast(convert_to_tensor(choice), common), out)
    return out


_select_op = _op(_select, name="select")


__all__ = [
    "allclose",
    "isneginf",
    "isposinf",
    "isreal",
    "select",
]
