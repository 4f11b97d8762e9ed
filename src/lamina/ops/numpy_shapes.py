"""Splitting, stacking and turning arrays: the `h`/`v`/`d` splits and stacks, `rot90`, ...

`array_split`, `hsplit`/`vsplit`/`dsplit`, `hstack`/`vstack`/`dstack`, `fliplr`/`flipud`,
`rot90` and `unravel_index`, written once from the contract's shape functions.

>>> import numpy as np
>>> from lamina import ops
>>> [ops.convert_to_numpy(p).tolist() for p in ops.array_split(np.arange(5), 2)]
[[0, 1, 2], [3, 4]]
"""

from __future__ import annotations

import numpy as np

from lamina.ops import numpy as lnp
from lamina.ops.core import _op, composite, convert_to_tensor, shape


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
    xs = [convert_to_tensor(x) for x in xs]
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
def fliplr(x):
    """Reverse the order of the elements of `x` along axis 1 (left/right).

    Args:
        x: Input tensor of rank 2 or more.

    Returns:
        `x` with axis 1 reversed; same shape and dtype.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.fliplr(np.array([[1, 2], [3, 4]]))).tolist()
    [[2, 1], [4, 3]]
    """
    return lnp.flip(x, axis=1)


@composite
def flipud(x):
    """Reverse the order of the elements of `x` along axis 0 (up/down).

    Args:
        x: Input tensor of rank 1 or more.

    Returns:
        `x` with axis 0 reversed; same shape and dtype.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.flipud(np.array([[1, 2], [3, 4]]))).tolist()
    [[3, 4], [1, 2]]
    """
    return lnp.flip(x, axis=0)


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


__all__ = [
    "array_split",
    "dsplit",
    "dstack",
    "fliplr",
    "flipud",
    "hsplit",
    "hstack",
    "rot90",
    "unravel_index",
    "vsplit",
    "vstack",
]
