"""The NumPy long tail, part three: NaN-ignoring reductions, percentiles, windows, vectorize.

Written once from other ops, as `numpy_extra` is (split from it to keep each module a
readable size); every name is re-exported there and found in `lamina.ops`.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.nanmax(np.array([1.0, np.nan, 2.0]))).item()
2.0
"""

from __future__ import annotations

import math

import numpy as np

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _op, cast, composite, convert_to_tensor
from lamina.ops.core import _tensor_dtype as dtype


# NaN-ignoring reductions ----------------------------------------------------------------
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


# Windows ----------------------------------------------------------------------------------
def _window(name, x, values):
    if not isinstance(x, (int, np.integer)):
        x = int(np.asarray(backend.convert_to_numpy(x)))
    return convert_to_tensor(values(int(x)).astype("float32"))


def bartlett(x):
    """The Bartlett (triangular) window of `x` points.

    Rises linearly from 0 to 1 and falls back to 0; used to taper signals before a
    Fourier transform.

    Args:
        x: Number of points in the window, an int (or a scalar integer tensor).

    Returns:
        A 1-D float32 tensor of `x` values, symmetric, peaking at 1 in the middle for odd
        `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.bartlett(5)).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    return _window("bartlett", x, np.bartlett)


def blackman(x):
    """The Blackman window of `x` points.

    A taper of three cosine terms, with stronger sidelobe suppression than the Hann or
    Hamming windows.

    Args:
        x: Number of points in the window, an int (or a scalar integer tensor).

    Returns:
        A 1-D float32 tensor of `x` values, symmetric, peaking at 1 in the middle for odd
        `x`.

    Example:

    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.blackman(5)), 2)
    array([-0.  ,  0.34,  1.  ,  0.34, -0.  ], dtype=float32)
    """
    return _window("blackman", x, np.blackman)


def hamming(x):
    """The Hamming window of `x` points.

    `0.54 - 0.46 * cos(2 pi n / (x - 1))`: a raised cosine that does not reach 0 at the ends.

    Args:
        x: Number of points in the window, an int (or a scalar integer tensor).

    Returns:
        A 1-D float32 tensor of `x` values, symmetric, peaking at 1 in the middle for odd
        `x`.

    Example:

    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.hamming(5)), 2)
    array([0.08, 0.54, 1.  , 0.54, 0.08], dtype=float32)
    """
    return _window("hamming", x, np.hamming)


def hanning(x):
    """The Hann window of `x` points.

    `0.5 - 0.5 * cos(2 pi n / (x - 1))`: a raised cosine that is 0 at both ends.

    Args:
        x: Number of points in the window, an int (or a scalar integer tensor).

    Returns:
        A 1-D float32 tensor of `x` values, symmetric, peaking at 1 in the middle for odd
        `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.hanning(5)).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    return _window("hanning", x, np.hanning)


def kaiser(x, beta):
    """The Kaiser window of `x` points with shape parameter `beta`.

    Built from the modified Bessel function `i0`; larger `beta` narrows the window
    (`beta=0` is rectangular, about 5 resembles Hamming, about 8.6 Blackman).

    Args:
        x: Number of points in the window, an int (or a scalar integer tensor).
        beta: Shape parameter of the window, a float.

    Returns:
        A 1-D float32 tensor of `x` values, symmetric, peaking at 1 in the middle for odd
        `x`.

    Example:

    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.kaiser(5, 2.0)), 4)
    array([0.4387, 0.8348, 1.    , 0.8348, 0.4387], dtype=float32)
    """
    return _window("kaiser", x, lambda n: np.kaiser(n, float(beta)))


def vectorize(pyfunc, *, excluded=None, signature=None):
    """Turn `pyfunc` into a function that maps over the elements (or sub-arrays) of tensors.

    Like `numpy.vectorize`: the returned function broadcasts its tensor arguments and calls
    `pyfunc` on each element, or with a `signature` on each sub-array of the given core
    shape; `pyfunc` receives engine tensors, so write it with ops. The JAX engine
    vectorizes it (`jax.numpy.vectorize`); the torch engine calls it once per element or
    sub-array in a Python loop, so prefer whole-tensor ops where they exist. Usable as a
    decorator.

    Args:
        pyfunc: The function to vectorize; it takes and returns tensors.
        excluded: Optional set of positional argument indices (ints) that are passed to
            `pyfunc` unchanged rather than mapped over.
        signature: Optional generalized-ufunc signature naming the core dimensions, e.g.
            `"(m,n),(n)->(m)"` for a matrix-vector product; by default `pyfunc` takes
            and returns scalars.

    Returns:
        The vectorized function.

    Example:

    >>> from lamina import ops
    >>> clipped_square = ops.vectorize(lambda v: ops.minimum(v * v, 5.0))
    >>> ops.convert_to_numpy(clipped_square(np.array([1.0, 2.0, 3.0]))).tolist()
    [1.0, 4.0, 5.0]
    >>> mat_vec = ops.vectorize(ops.matmul, signature="(m,n),(n)->(m)")
    >>> ops.convert_to_numpy(mat_vec(np.ones((4, 2, 3)), np.ones((4, 3)))).shape
    (4, 2)
    """
    return _op(
        backend.numpy.vectorize(pyfunc, excluded=excluded, signature=signature),
        name=getattr(pyfunc, "__name__", "vectorize"),
    )


__all__ = [
    "bartlett",
    "blackman",
    "hamming",
    "hanning",
    "kaiser",
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
    "percentile",
    "vectorize",
]
