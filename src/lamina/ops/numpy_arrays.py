"""The NumPy long tail, part two: splitting and stacking, products, selection.

`array_split` and the `h`/`v`/`d` splits and stacks, `inner`, `vdot`, `kron`, `vander`,
`trapezoid`, `rot90`, `select`, `unravel_index` and `corrcoef`, written once from other
ops as `numpy_extra` is (split from it to keep each module a readable size); every
name is re-exported there and found in `lamina.ops`.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.kron(np.eye(2), np.ones((1, 2)))).tolist()
[[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
"""

from __future__ import annotations

import numpy as np

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _op, cast, composite, convert_to_tensor, shape
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.numpy_extra import _float, diff


def _sections(size, indices_or_sections):
    if isinstance(indices_or_sections, int):
        per, extra = divmod(size, indices_or_sections)
        bounds = np.cumsum([per + 1] * extra + [per] * (indices_or_sections - extra))
        return [int(b) for b in bounds[:-1]]
    return [int(i) for i in indices_or_sections]


def array_split(x, indices_or_sections, axis=0):
    """Split `x` along `axis` into sub-tensors, allowing unequal sizes.

    Like `split`, but an integer `indices_or_sections` that does not divide the axis is
    allowed: an axis of length `l` split into `n` parts gives `l % n` parts of size
    `l // n + 1` first, then parts of size `l // n`.

    Args:
        x: Input tensor.
        indices_or_sections: Either a positive int, the number of parts, or a list of
            the indices along `axis` at which to cut.
        axis: Axis to split along.

    Returns:
        A list of tensors.

    Example:

    >>> from lamina import ops
    >>> [ops.convert_to_numpy(p).tolist() for p in ops.array_split(np.arange(7), 3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    """
    x = convert_to_tensor(x) if not hasattr(x, "shape") else x
    if isinstance(indices_or_sections, int) and indices_or_sections <= 0:
        raise ValueError(
            f"array_split: the number of sections must be positive, received {indices_or_sections}."
        )
    return lnp.split(x, _sections(shape(x)[axis], indices_or_sections), axis=axis)


def _split_on(x, indices_or_sections, axis, op, min_rank):
    if len(shape(x)) < min_rank:
        raise ValueError(
            f"{op}: expected a tensor of rank >= {min_rank}, received shape {shape(x)}."
        )
    return lnp.split(x, indices_or_sections, axis=axis)


def hsplit(x, indices_or_sections):
    """Split `x` horizontally: along axis 1 (axis 0 for a 1-D tensor).

    Args:
        x: Input tensor of rank 1 or more.
        indices_or_sections: Either an int, the number of equal parts (it must divide the
            axis), or a list of the indices at which to cut.

    Returns:
        A list of tensors.

    Example:

    >>> from lamina import ops
    >>> parts = ops.hsplit(np.arange(8).reshape(2, 4), 2)
    >>> [ops.convert_to_numpy(p).tolist() for p in parts]
    [[[0, 1], [4, 5]], [[2, 3], [6, 7]]]
    """
    return _split_on(x, indices_or_sections, 0 if len(shape(x)) == 1 else 1, "hsplit", 1)


def vsplit(x, indices_or_sections):
    """Split `x` vertically: along axis 0.

    Args:
        x: Input tensor of rank 2 or more.
        indices_or_sections: Either an int, the number of equal parts (it must divide the
            axis), or a list of the indices at which to cut.

    Returns:
        A list of tensors.

    Example:

    >>> from lamina import ops
    >>> parts = ops.vsplit(np.arange(8).reshape(4, 2), [1])
    >>> [ops.convert_to_numpy(p).tolist() for p in parts]
    [[[0, 1]], [[2, 3], [4, 5], [6, 7]]]
    """
    return _split_on(x, indices_or_sections, 0, "vsplit", 2)


def dsplit(x, indices_or_sections):
    """Split `x` depth-wise: along axis 2.

    Args:
        x: Input tensor of rank 3 or more.
        indices_or_sections: Either an int, the number of equal parts (it must divide the
            axis), or a list of the indices at which to cut.

    Returns:
        A list of tensors.

    Example:

    >>> from lamina import ops
    >>> parts = ops.dsplit(np.zeros((2, 3, 4)), 2)
    >>> [ops.convert_to_numpy(p).shape for p in parts]
    [(2, 3, 2), (2, 3, 2)]
    """
    return _split_on(x, indices_or_sections, 2, "dsplit", 3)


def _at_least(x, rank):
    x = convert_to_tensor(x) if not hasattr(x, "shape") else x
    if len(shape(x)) >= rank:
        return x
    if rank == 2:
        return lnp.reshape(x, (1, -1)) if len(shape(x)) == 1 else lnp.reshape(x, (1, 1))
    if len(shape(x)) == 2:
        return lnp.expand_dims(x, -1)
    return lnp.reshape(x, (1, -1, 1)) if len(shape(x)) == 1 else lnp.reshape(x, (1, 1, 1))


def hstack(xs):
    """Join a sequence of tensors horizontally: along axis 1 (axis 0 for 1-D tensors).

    Args:
        xs: Sequence of tensors; their shapes must match except along the joined axis.

    Returns:
        The joined tensor.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.hstack([np.array([1, 2]), np.array([3])])).tolist()
    [1, 2, 3]
    >>> ops.convert_to_numpy(ops.hstack([np.ones((2, 1)), np.zeros((2, 2))])).tolist()
    [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    axis = 0 if all(len(shape(x)) <= 1 for x in xs) else 1
    return lnp.concatenate([_at_least(x, 1) if axis == 0 else x for x in xs], axis=axis)


def vstack(xs):
    """Join a sequence of tensors vertically: along axis 0, 1-D tensors as rows.

    Args:
        xs: Sequence of tensors; their shapes must match except along axis 0 (1-D tensors
            of shape `(n,)` count as `(1, n)`).

    Returns:
        The joined tensor, at least 2-D.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.vstack([np.array([1, 2]), np.array([3, 4])])).tolist()
    [[1, 2], [3, 4]]
    """
    return lnp.concatenate([_at_least(x, 2) for x in xs], axis=0)


def dstack(xs):
    """Join a sequence of tensors depth-wise: along axis 2.

    1-D tensors of shape `(n,)` count as `(1, n, 1)` and 2-D ones of shape `(m, n)` as
    `(m, n, 1)`.

    Args:
        xs: Sequence of tensors; their shapes (so extended) must match except along axis 2.

    Returns:
        The joined tensor, at least 3-D.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.dstack([np.array([1, 2]), np.array([3, 4])])).tolist()
    [[[1, 3], [2, 4]]]
    """
    return lnp.concatenate([_at_least(x, 3) for x in xs], axis=2)


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


@composite
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D tensor: columns are powers of `x`.

    With `increasing=False` column `j` is `x ** (N - 1 - j)`, so the last column is ones.

    Args:
        x: 1-D input tensor.
        N: Number of columns; `None` means `len(x)`.
        increasing: If `True`, the powers increase from left to right (starting at 0).

    Returns:
        A tensor of shape `(len(x), N)`, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.vander(np.array([1, 2, 3]))).tolist()
    [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    >>> ops.convert_to_numpy(ops.vander(np.array([1, 2, 3]), N=2, increasing=True)).tolist()
    [[1, 1], [1, 2], [1, 3]]
    """
    x = convert_to_tensor(x)
    if len(shape(x)) != 1:
        raise ValueError(f"vander: expected a 1-D tensor, received shape {shape(x)}.")
    n = shape(x)[0] if N is None else int(N)
    powers = np.arange(n) if increasing else np.arange(n)[::-1]
    return lnp.power(lnp.expand_dims(x, 1), cast(powers.copy(), dtype(x)))


@composite
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integrate `y` along `axis` with the composite trapezoidal rule.

    Args:
        y: Values of the function to integrate.
        x: Sample points of `y` (1-D of the length of `axis`, or shaped like `y`);
            `None` means points evenly spaced by `dx`.
        dx: Spacing between sample points when `x` is `None`.
        axis: Axis along which to integrate.

    Returns:
        The integral, with `axis` removed, as floats.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.trapezoid(np.array([1.0, 2.0, 3.0]))).tolist()
    4.0
    >>> ops.convert_to_numpy(ops.trapezoid(np.array([1.0, 2.0, 3.0]), x=np.array([0.0, 1.0, 3.0]))).tolist()
    6.5
    """
    y = _float(y)
    axis = axis % len(shape(y))
    n = shape(y)[axis]
    average = (
        lnp.take(y, lnp.arange(1, n), axis=axis) + lnp.take(y, lnp.arange(0, n - 1), axis=axis)
    ) / 2.0
    if x is None:
        return lnp.sum(average, axis=axis) * dx
    spacing = diff(_float(x), axis=-1 if len(shape(x)) == 1 else axis)
    if len(shape(spacing)) == 1:
        target = [1] * len(shape(y))
        target[axis] = n - 1
        spacing = lnp.reshape(spacing, target)
    return lnp.sum(average * spacing, axis=axis)


@composite
def rot90(array, k=1, axes=(0, 1)):
    """Rotate `array` by 90 degrees `k` times in the plane given by `axes`.

    The rotation goes from the first axis towards the second (counter-clockwise for a
    matrix shown in the usual way); negative `k` rotates the other way.

    Args:
        array: Input tensor of rank 2 or more.
        k: Number of quarter turns.
        axes: The two (different) axes defining the plane of rotation.

    Returns:
        The rotated tensor.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.rot90(np.array([[1, 2], [3, 4]]))).tolist()
    [[2, 4], [1, 3]]
    """
    array = convert_to_tensor(array)
    a0, a1 = (a % len(shape(array)) for a in axes)
    if a0 == a1:
        raise ValueError(f"rot90: the two axes must differ, received {axes}.")
    k %= 4
    if k == 0:
        return array
    if k == 2:
        return lnp.flip(lnp.flip(array, a0), a1)
    if k == 1:
        return lnp.swapaxes(lnp.flip(array, a1), a0, a1)
    return lnp.flip(lnp.swapaxes(array, a0, a1), a1)


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


def unravel_index(indices, shape):
    """Convert flat indices into coordinates in a tensor of shape `shape`.

    The inverse of flattening in C (row-major) order.

    Args:
        indices: Integer tensor (or int) of flat indices.
        shape: Shape of the tensor the indices point into, a tuple of ints.

    Returns:
        A tuple of `len(shape)` integer tensors, one coordinate per axis, each shaped like
        `indices`.

    Example:

    >>> from lamina import ops
    >>> rows, cols = ops.unravel_index(np.array([5, 7]), (3, 4))
    >>> ops.convert_to_numpy(rows).tolist(), ops.convert_to_numpy(cols).tolist()
    ([1, 1], [1, 3])
    """
    return _unravel_op(indices, tuple(int(d) for d in shape))


def _unravel(indices, dims):
    indices = convert_to_tensor(indices)
    strides = np.cumprod((1,) + dims[::-1])[:-1][::-1]
    return tuple(lnp.mod(lnp.floor_divide(indices, int(s)), d) for s, d in zip(strides, dims))


_unravel_op = _op(_unravel, name="unravel_index")


@composite
def corrcoef(x):
    """Pearson correlation coefficients between the rows of `x`.

    Each row of `x` is a variable and each column an observation.

    Args:
        x: 2-D tensor of shape `(variables, observations)`.

    Returns:
        A `(variables, variables)` float tensor of correlations in `[-1, 1]`.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, 2.0, 3.0], [6.0, 4.0, 2.0]])
    >>> np.round(ops.convert_to_numpy(ops.corrcoef(x)), 4)
    array([[ 1., -1.],
           [-1.,  1.]], dtype=float32)
    """
    x = _float(x)
    centered = x - lnp.mean(x, axis=-1, keepdims=True)
    cov = lnp.matmul(centered, lnp.transpose(centered))
    scale = lnp.sqrt(lnp.diagonal(cov))
    return lnp.clip(cov / lnp.outer(scale, scale), -1.0, 1.0)


__all__ = [
    "array_split",
    "corrcoef",
    "dsplit",
    "dstack",
    "hsplit",
    "hstack",
    "inner",
    "kron",
    "rot90",
    "select",
    "trapezoid",
    "unravel_index",
    "vander",
    "vdot",
    "vsplit",
    "vstack",
]
