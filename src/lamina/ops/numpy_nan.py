"""NaN-ignoring reductions: `nansum`, `nanmean`, `nanmax`, `nanargmin`, `nanpercentile`, ...

Each treats NaNs as absent (a sum as if they were zero, an extreme as if they were not
there), written once from other ops.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.nanmax(np.array([1.0, np.nan, 2.0]))).item()
2.0
"""

from __future__ import annotations

import math

from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, convert_to_tensor


def _masked(x, fill):
    x = convert_to_tensor(x)
    if "float" not in dtype(x):
        return x, None
    nan = lnp.isnan(x)
    return lnp.where(nan, cast(fill, dtype(x)), x), nan


@composite
def nansum(x, axis=None, keepdims=False):
    """Sum of the elements of `x` along `axis`, treating NaNs as zero.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The sums, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan], [3.0, 4.0]])
    >>> ops.convert_to_numpy(ops.nansum(x, axis=1)).tolist()
    [1.0, 7.0]
    """
    return lnp.sum(_masked(x, 0.0)[0], axis=axis, keepdims=keepdims)


@composite
def nanprod(x, axis=None, keepdims=False):
    """Product of the elements of `x` along `axis`, treating NaNs as one.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The products, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[2.0, np.nan], [3.0, 4.0]])
    >>> ops.convert_to_numpy(ops.nanprod(x, axis=1)).tolist()
    [2.0, 12.0]
    """
    return lnp.prod(_masked(x, 1.0)[0], axis=axis, keepdims=keepdims)


@composite
def nanmean(x, axis=None, keepdims=False):
    """Mean of the non-NaN elements of `x` along `axis`.

    Where every element reduced is NaN the mean is NaN.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The means, as floats.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan], [3.0, 4.0]])
    >>> ops.convert_to_numpy(ops.nanmean(x, axis=1)).tolist()
    [1.0, 3.5]
    """
    filled, nan = _masked(x, 0.0)
    if nan is None:
        return lnp.mean(filled, axis=axis, keepdims=keepdims)
    count = lnp.sum(lnp.logical_not(nan), axis=axis, keepdims=keepdims)
    return lnp.sum(filled, axis=axis, keepdims=keepdims) / cast(count, dtype(filled))


@composite
def nanvar(x, axis=None, keepdims=False):
    """Variance of the non-NaN elements of `x` along `axis`.

    The population variance (divided by the count of non-NaN elements); NaN where every
    element reduced is NaN.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The variances, as floats.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan, 3.0], [2.0, 4.0, 6.0]])
    >>> np.round(ops.convert_to_numpy(ops.nanvar(x, axis=1)), 4)
    array([1.    , 2.6667], dtype=float32)
    """
    filled, nan = _masked(x, 0.0)
    if nan is None:
        return lnp.var(filled, axis=axis, keepdims=keepdims)
    mean = nanmean(x, axis=axis, keepdims=True)
    squares = lnp.where(nan, 0.0, lnp.square(filled - mean))
    count = lnp.sum(lnp.logical_not(nan), axis=axis, keepdims=keepdims)
    return lnp.sum(squares, axis=axis, keepdims=keepdims) / cast(count, dtype(filled))


@composite
def nanstd(x, axis=None, keepdims=False):
    """Standard deviation of the non-NaN elements of `x` along `axis`.

    The square root of `nanvar` (population form); NaN where every element reduced is NaN.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The standard deviations, as floats.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan, 3.0], [2.0, 4.0, 6.0]])
    >>> np.round(ops.convert_to_numpy(ops.nanstd(x, axis=1)), 4)
    array([1.   , 1.633], dtype=float32)
    """
    return lnp.sqrt(nanvar(x, axis=axis, keepdims=keepdims))


def _nan_extreme(x, axis, keepdims, reduce, fill):
    filled, nan = _masked(x, fill)
    out = reduce(filled, axis=axis, keepdims=keepdims)
    if nan is None:
        return out
    all_nan = lnp.all(nan, axis=axis, keepdims=keepdims)
    return lnp.where(all_nan, math.nan, out)


@composite
def nanmax(x, axis=None, keepdims=False):
    """Maximum of `x` along `axis`, ignoring NaNs.

    Where every element reduced is NaN the result is NaN.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The maxima, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan], [3.0, 4.0]])
    >>> ops.convert_to_numpy(ops.nanmax(x, axis=1)).tolist()
    [1.0, 4.0]
    """
    return _nan_extreme(x, axis, keepdims, lnp.max, -math.inf)


@composite
def nanmin(x, axis=None, keepdims=False):
    """Minimum of `x` along `axis`, ignoring NaNs.

    Where every element reduced is NaN the result is NaN.

    Args:
        x: Input tensor.
        axis: Axis or tuple of axes to reduce; `None` (the default) reduces all axes.
        keepdims: If `True`, the reduced axes stay as size-1 axes.

    Returns:
        The minima, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[np.nan, 2.0], [3.0, 4.0]])
    >>> ops.convert_to_numpy(ops.nanmin(x, axis=1)).tolist()
    [2.0, 3.0]
    """
    return _nan_extreme(x, axis, keepdims, lnp.min, math.inf)


def _nan_arg(arg, x, axis, keepdims, fill):
    """`arg` (argmax or argmin) of `x` with NaNs as `fill`, and -1 where all are NaN."""
    filled, nan = _masked(x, fill)
    index = arg(filled, axis=axis, keepdims=keepdims)
    if nan is None:
        return index
    all_nan = lnp.all(nan, axis=axis, keepdims=keepdims)
    return lnp.where(all_nan, cast(-1, dtype(index)), index)


@composite
def nanargmax(x, axis=None, keepdims=False):
    """Index of the maximum of `x` along `axis`, ignoring NaNs.

    With `axis=None` the index is into the flattened `x`. Where every element reduced is
    NaN the index is -1, as in Keras.

    Args:
        x: Input tensor.
        axis: Axis to reduce; `None` (the default) searches the flattened `x`.
        keepdims: If `True`, the reduced axis stays as a size-1 axis.

    Returns:
        An integer tensor of indices.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan, 3.0], [5.0, 4.0, np.nan]])
    >>> ops.convert_to_numpy(ops.nanargmax(x, axis=1)).tolist()
    [2, 0]
    """
    return _nan_arg(lnp.argmax, x, axis, keepdims, -math.inf)


@composite
def nanargmin(x, axis=None, keepdims=False):
    """Index of the minimum of `x` along `axis`, ignoring NaNs.

    With `axis=None` the index is into the flattened `x`. Where every element reduced is
    NaN the index is -1, as in Keras.

    Args:
        x: Input tensor.
        axis: Axis to reduce; `None` (the default) searches the flattened `x`.
        keepdims: If `True`, the reduced axis stays as a size-1 axis.

    Returns:
        An integer tensor of indices.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[1.0, np.nan, 3.0], [5.0, 4.0, np.nan]])
    >>> ops.convert_to_numpy(ops.nanargmin(x, axis=1)).tolist()
    [0, 1]
    """
    return _nan_arg(lnp.argmin, x, axis, keepdims, math.inf)


@composite
def nancumsum(x, axis=None, dtype=None):
    """Cumulative sum of `x` along `axis`, treating NaNs as zero.

    Args:
        x: Input tensor.
        axis: Axis along which to accumulate; `None` (the default) flattens `x` first.
        dtype: Dtype of the result; `None` keeps the dtype of `x`.

    Returns:
        The running sums: same shape as `x`, or 1-D when `axis` is `None`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.nancumsum(np.array([1.0, np.nan, 3.0]))).tolist()
    [1.0, 1.0, 4.0]
    """
    return lnp.cumsum(_masked(x, 0.0)[0], axis=axis, dtype=dtype)


@composite
def nancumprod(x, axis=None, dtype=None):
    """Cumulative product of `x` along `axis`, treating NaNs as one.

    Args:
        x: Input tensor.
        axis: Axis along which to accumulate; `None` (the default) flattens `x` first.
        dtype: Dtype of the result; `None` keeps the dtype of `x`.

    Returns:
        The running products: same shape as `x`, or 1-D when `axis` is `None`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.nancumprod(np.array([2.0, np.nan, 3.0]))).tolist()
    [2.0, 2.0, 6.0]
    """
    return lnp.cumprod(_masked(x, 1.0)[0], axis=axis, dtype=dtype)


@composite
def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """The `q`-th percentiles of the non-NaN elements of `x` along `axis`.

    Like `percentile`, with the NaNs left out of each computation.

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
    >>> x = np.array([1.0, np.nan, 3.0, 4.0])
    >>> ops.convert_to_numpy(ops.nanpercentile(x, 50)).tolist()
    3.0
    >>> ops.convert_to_numpy(ops.nanpercentile(x, [0, 100])).tolist()
    [1.0, 4.0]
    """
    return lnp.nanquantile(
        x, lnp.divide(convert_to_tensor(q), 100.0), axis=axis, method=method, keepdims=keepdims
    )


__all__ = [
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmin",
    "nanpercentile",
    "nanprod",
    "nanstd",
    "nansum",
    "nanvar",
]
