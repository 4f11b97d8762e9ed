"""Products NumPy has beyond the contract's: `inner`, `vdot`, `kron`.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.kron(np.eye(2), np.ones((1, 2)))).tolist()
[[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
"""

from __future__ import annotations

from lamina.ops import numpy as lnp
from lamina.ops.core import composite, convert_to_tensor, shape


@composite
def inner(x1, x2):
    """Inner product of two tensors over their last axes.

    For 1-D tensors this is the dot product; in general `inner(a, b)[i, j] =
    sum(a[i, :] * b[j, :])` for the leading index tuples `i`, `j`. A scalar operand
    multiplies the other.

    Args:
        x1: First tensor.
        x2: Second tensor; its last axis must match that of `x1`.

    Returns:
        A tensor of shape `x1.shape[:-1] + x2.shape[:-1]`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.inner(np.array([1.0, 2.0]), np.array([3.0, 4.0]))).tolist()
    11.0
    """
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    if not shape(x1) or not shape(x2):
        return lnp.multiply(x1, x2)
    return lnp.tensordot(x1, x2, axes=[[-1], [-1]])


@composite
def vdot(x1, x2):
    """Dot product of two tensors, flattened, with the first conjugated.

    Any shapes with the same number of elements are accepted: both are flattened first.
    For complex `x1`, its complex conjugate is used.

    Args:
        x1: First tensor (conjugated if complex).
        x2: Second tensor, with as many elements as `x1`.

    Returns:
        A scalar tensor.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.vdot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.ones((2, 2)))).tolist()
    10.0
    """
    return lnp.sum(lnp.multiply(lnp.conj(lnp.ravel(x1)), lnp.ravel(x2)))


@composite
def kron(x1, x2):
    """Kronecker product of two tensors.

    A block tensor: each element `x1[i, j, ...]` is replaced by the block
    `x1[i, j, ...] * x2`. The operand of smaller rank gets leading size-1 axes first.

    Args:
        x1: First tensor.
        x2: Second tensor.

    Returns:
        A tensor whose shape is the elementwise product of the two shapes.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.kron(np.array([[1, 2], [3, 4]]), np.array([[1, 1]]))).tolist()
    [[1, 1, 2, 2], [3, 3, 4, 4]]
    """
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    rank = max(len(shape(x1)), len(shape(x2)))
    x1 = lnp.reshape(x1, (1,) * (rank - len(shape(x1))) + shape(x1))
    x2 = lnp.reshape(x2, (1,) * (rank - len(shape(x2))) + shape(x2))
    # Interleave: (a0, b0, a1, b1, ...) then merge each pair of axes.
    a = lnp.reshape(x1, tuple(d for s in shape(x1) for d in (s, 1)))
    b = lnp.reshape(x2, tuple(d for s in shape(x2) for d in (1, s)))
    return lnp.reshape(lnp.multiply(a, b), tuple(p * q for p, q in zip(shape(x1), shape(x2))))


__all__ = [
    "inner",
    "kron",
    "vdot",
]
