"""Reductions and differences along an axis: `ptp`, `percentile`, `diff`, `trapezoid`, `corrcoef`.

Written once from the contract's reductions (`lamina.backend.declarations`).

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.diff(np.array([1, 4, 9, 16]))).tolist()
[3, 5, 7]
"""

from __future__ import annotations

from lamina.ops import numpy as lnp
from lamina.ops.core import composite, convert_to_tensor, shape
from lamina.ops.numpy_elementwise import _float


@composite
def ptp(x, axis=None, keepdims=False):
    """Range of values (maximum minus minimum, "peak to peak") of `x` along `axis`.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        `max(x) - min(x)` along `axis`, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.ptp(np.array([[4, 9, 2], [3, 5, 7]]), axis=1)).tolist()
    [7, 4]
    """
    return lnp.subtract(
        lnp.max(x, axis=axis, keepdims=keepdims), lnp.min(x, axis=axis, keepdims=keepdims)
    )


@composite
def percentile(x, q, axis=None, method="linear", keepdims=False):
    """The `q`-th percentiles of the elements of `x` along `axis`.

    The same as `quantile(x, q / 100, ...)`.

    Args:
        x: Input tensor.
        q: Percentile or tensor of percentiles, each in `[0, 100]`.
        axis: Axis or tuple of axes to compute over; `None` (the default) uses all of `x`.
        method: How to pick a value that falls between two data points: `"linear"`
            (interpolate), `"lower"`, `"higher"`, `"midpoint"` or `"nearest"`.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The percentiles, as floats. With a tensor `q`, its shape comes first in the result.

    Example:

    >>> from lamina import ops
    >>> x = np.array([1.0, 2.0, 3.0, 4.0])
    >>> ops.convert_to_numpy(ops.percentile(x, 50)).tolist()
    2.5
    >>> ops.convert_to_numpy(ops.percentile(x, [25, 75])).tolist()
    [1.75, 3.25]
    """
    return lnp.quantile(
        x, lnp.divide(convert_to_tensor(q), 100.0), axis=axis, method=method, keepdims=keepdims
    )


@composite
def diff(a, n=1, axis=-1):
    """The `n`-th discrete difference of `a` along `axis`.

    The first difference is `a[i + 1] - a[i]`; higher ones apply it again, so the axis
    shrinks by `n`.

    Args:
        a: Input tensor.
        n: Number of times the difference is taken.
        axis: Axis along which to take it.

    Returns:
        A tensor like `a` with `n` fewer elements along `axis`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.diff(np.array([1, 4, 9, 16]))).tolist()
    [3, 5, 7]
    >>> ops.convert_to_numpy(ops.diff(np.array([1, 4, 9, 16]), n=2)).tolist()
    [2, 2]
    """
    a = convert_to_tensor(a)
    axis = axis % len(shape(a))
    for _ in range(n):
        size = shape(a)[axis]
        a = lnp.subtract(
            lnp.take(a, lnp.arange(1, size), axis=axis),
            lnp.take(a, lnp.arange(0, size - 1), axis=axis),
        )
    return a


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
def corrcoef(x):
    """Pearson correlation coefficients between the rows of `x`.

    Each row of `x` is a variable and each column an observation.

    Args:
        x: 2-D tensor of shape `(variables, observations)`, or a 1-D tensor of one
            variable's observations.

    Returns:
        A `(variables, variables)` float tensor of correlations in `[-1, 1]`; for a 1-D
        `x`, the scalar correlation of the variable with itself (1.0, NaN if constant),
        as NumPy gives it.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, 2.0, 3.0], [6.0, 4.0, 2.0]])
    >>> np.round(ops.convert_to_numpy(ops.corrcoef(x)), 4)
    array([[ 1., -1.],
           [-1.,  1.]], dtype=float32)
    """
    x = _float(x)
    one_variable = len(shape(x)) == 1
    if one_variable:
        x = lnp.expand_dims(x, 0)
    centered = x - lnp.mean(x, axis=-1, keepdims=True)
    cov = lnp.matmul(centered, lnp.transpose(centered))
    scale = lnp.sqrt(lnp.diagonal(cov))
    out = lnp.clip(cov / lnp.outer(scale, scale), -1.0, 1.0)
    return lnp.reshape(out, ()) if one_variable else out


__all__ = [
    "corrcoef",
    "diff",
    "percentile",
    "ptp",
    "trapezoid",
]
