"""The NumPy long tail Keras 3 has, written once from other ops.

Aliases (`amax`, `fabs`, `conjugate`, ...), stacking and splitting helpers, NaN-ignoring
reductions, windows, spacing, and small formulas (`sinc`, `heaviside`, `kron`, ...):
compositions of contract ops, so each runs and differentiates on every engine.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.nansum(np.array([1.0, np.nan, 2.0]))).item()
3.0
"""

from __future__ import annotations

import math

import numpy as np

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _op, cast, composite, convert_to_tensor, declared_op, dtype, shape


def _float(x):
    x = convert_to_tensor(x)
    return x if "float" in dtype(x) else cast(x, backend.result_type(dtype(x), float))


def _alias(module, name, alias, doc):
    op = declared_op(module, name)
    op.__name__ = op.__qualname__ = alias
    op.__doc__ = doc
    return op


bitwise_not = _alias(
    "numpy", "bitwise_invert", "bitwise_not", "Elementwise bitwise NOT (alias of `bitwise_invert`)."
)
left_shift = _alias(
    "numpy",
    "bitwise_left_shift",
    "left_shift",
    "Elementwise `x << y` (alias of `bitwise_left_shift`).",
)
right_shift = _alias(
    "numpy",
    "bitwise_right_shift",
    "right_shift",
    "Elementwise `x >> y` (alias of `bitwise_right_shift`).",
)
conjugate = _alias("numpy", "conj", "conjugate", "The complex conjugate of `x` (alias of `conj`).")


@composite
def amax(x, axis=None, keepdims=False):
    """Maximum of `x` along `axis` (alias of `max`)."""
    return lnp.max(x, axis=axis, keepdims=keepdims)


@composite
def amin(x, axis=None, keepdims=False):
    """Minimum of `x` along `axis` (alias of `min`)."""
    return lnp.min(x, axis=axis, keepdims=keepdims)


def array(x, dtype=None):
    """A tensor holding `x` (NumPy's name for `convert_to_tensor`)."""
    return convert_to_tensor(x, dtype=dtype)


def empty(shape, dtype=None):
    """A tensor of `shape` (filled with zeros: engines give no uninitialized memory)."""
    return lnp.zeros(shape, dtype=dtype)


@composite
def empty_like(x, dtype=None):
    """A tensor shaped like `x` (filled with zeros)."""
    return lnp.zeros_like(x, dtype=dtype)


@composite
def allclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element satisfies `abs(x1 - x2) <= atol + rtol * abs(x2)`."""
    return lnp.all(lnp.isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan))


@composite
def cbrt(x):
    """Elementwise real cube root."""
    x = _float(x)
    return lnp.sign(x) * lnp.power(lnp.abs(x), 1.0 / 3.0)


@composite
def deg2rad(x):
    """Degrees to radians."""
    return _float(x) * (math.pi / 180.0)


@composite
def rad2deg(x):
    """Radians to degrees."""
    return _float(x) * (180.0 / math.pi)


@composite
def exp2(x):
    """Elementwise `2 ** x`."""
    return lnp.power(2.0, _float(x))


@composite
def fabs(x):
    """Elementwise absolute value, as a float."""
    return lnp.abs(_float(x))


@composite
def fliplr(x):
    """`x` with the order along axis 1 reversed."""
    return lnp.flip(x, axis=1)


@composite
def flipud(x):
    """`x` with the order along axis 0 reversed."""
    return lnp.flip(x, axis=0)


def _both_float(x1, x2):
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    common = backend.result_type(dtype(x1), dtype(x2))
    return cast(x1, common), cast(x2, common)


@composite
def fmax(x1, x2):
    """Elementwise maximum, ignoring NaNs (NaN only where both are NaN)."""
    x1, x2 = _both_float(x1, x2)
    if "float" not in dtype(x1):
        return lnp.maximum(x1, x2)
    return lnp.where(lnp.isnan(x1), x2, lnp.where(lnp.isnan(x2), x1, lnp.maximum(x1, x2)))


@composite
def fmin(x1, x2):
    """Elementwise minimum, ignoring NaNs (NaN only where both are NaN)."""
    x1, x2 = _both_float(x1, x2)
    if "float" not in dtype(x1):
        return lnp.minimum(x1, x2)
    return lnp.where(lnp.isnan(x1), x2, lnp.where(lnp.isnan(x2), x1, lnp.minimum(x1, x2)))


@composite
def heaviside(x1, x2):
    """Step function: 0 where `x1 < 0`, `x2` where `x1 == 0`, 1 where `x1 > 0`."""
    x1, x2 = _both_float(x1, x2)
    if "float" not in dtype(x1):
        x1, x2 = _float(x1), _float(x2)
    step = lnp.where(lnp.greater(x1, 0), 1.0, x2)
    return cast(lnp.where(lnp.less(x1, 0), 0.0, step), dtype(x1))


@composite
def isneginf(x):
    """Elementwise test for negative infinity."""
    x = convert_to_tensor(x)
    return lnp.logical_and(lnp.isinf(x), lnp.less(x, 0))


@composite
def isposinf(x):
    """Elementwise test for positive infinity."""
    x = convert_to_tensor(x)
    return lnp.logical_and(lnp.isinf(x), lnp.greater(x, 0))


@composite
def isreal(x):
    """Whether each element has a zero imaginary part (True for real tensors)."""
    return lnp.equal(lnp.imag(x), 0)


@composite
def ldexp(x1, x2):
    """Elementwise `x1 * 2 ** x2` (`x2` integer)."""
    x2 = convert_to_tensor(x2)
    if "int" not in dtype(x2):
        raise TypeError(f"ldexp: the exponents `x2` must be integers, received dtype {dtype(x2)}.")
    x1 = _float(x1)
    return x1 * lnp.power(cast(2.0, dtype(x1)), cast(x2, dtype(x1)))


@composite
def logaddexp2(x1, x2):
    """Elementwise `log2(2 ** x1 + 2 ** x2)`, computed stably."""
    x1, x2 = _both_float(_float(x1), _float(x2))
    larger = lnp.maximum(x1, x2)
    return larger + lnp.log2(1.0 + lnp.power(2.0, -lnp.abs(x1 - x2)))


def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """`base ** linspace(start, stop, num)`."""
    exponents = lnp.linspace(start, stop, num, endpoint=endpoint, axis=axis)
    out = lnp.power(cast(base, "float32"), exponents)
    return out if dtype is None else cast(out, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """`num` numbers spaced evenly on a log scale from `start` to `stop`."""
    start, stop = _float(start), _float(stop)
    sign = lnp.sign(start)
    logs = lnp.linspace(
        lnp.log(lnp.abs(start)), lnp.log(lnp.abs(stop)), num, endpoint=endpoint, axis=axis
    )
    out = sign * lnp.exp(logs)
    return out if dtype is None else cast(out, dtype)


@composite
def ptp(x, axis=None, keepdims=False):
    """Range (`max - min`) of `x` along `axis`."""
    return lnp.subtract(
        lnp.max(x, axis=axis, keepdims=keepdims), lnp.min(x, axis=axis, keepdims=keepdims)
    )


@composite
def sinc(x):
    """Normalized sinc: `sin(pi x) / (pi x)`, 1 at 0."""
    x = _float(x)
    safe = lnp.where(lnp.equal(x, 0), 1.0, x) * math.pi
    return lnp.where(lnp.equal(x, 0), 1.0, lnp.sin(safe) / safe)


@composite
def diagflat(x, k=0):
    """A 2-D tensor with the flattened `x` on its `k`-th diagonal."""
    return lnp.diag(lnp.ravel(x), k=k)


@composite
def diff(a, n=1, axis=-1):
    """The `n`-th discrete difference along `axis`."""
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
def divide_no_nan(x1, x2):
    """`x1 / x2`, 0 where `x2` is 0."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    zero = lnp.equal(x2, 0)
    return lnp.where(zero, 0.0, lnp.divide(x1, lnp.where(zero, 1, x2)))


def _sections(size, indices_or_sections):
    if isinstance(indices_or_sections, int):
        per, extra = divmod(size, indices_or_sections)
        bounds = np.cumsum([per + 1] * extra + [per] * (indices_or_sections - extra))
        return [int(b) for b in bounds[:-1]]
    return [int(i) for i in indices_or_sections]


def array_split(x, indices_or_sections, axis=0):
    """`x` split along `axis` into `indices_or_sections` parts, which may be unequal."""
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
    """`x` split along axis 1 (axis 0 for 1-D tensors)."""
    return _split_on(x, indices_or_sections, 0 if len(shape(x)) == 1 else 1, "hsplit", 1)


def vsplit(x, indices_or_sections):
    """`x` split along axis 0 (rank 2 or more)."""
    return _split_on(x, indices_or_sections, 0, "vsplit", 2)


def dsplit(x, indices_or_sections):
    """`x` split along axis 2 (rank 3 or more)."""
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
    """The tensors `xs` joined along axis 1 (axis 0 for 1-D tensors)."""
    axis = 0 if all(len(shape(x)) <= 1 for x in xs) else 1
    return lnp.concatenate([_at_least(x, 1) if axis == 0 else x for x in xs], axis=axis)


def vstack(xs):
    """The tensors `xs` (1-D ones as rows) joined along axis 0."""
    return lnp.concatenate([_at_least(x, 2) for x in xs], axis=0)


def dstack(xs):
    """The tensors `xs` (made at least 3-D) joined along axis 2."""
    return lnp.concatenate([_at_least(x, 3) for x in xs], axis=2)


@composite
def inner(x1, x2):
    """Inner product over the last axes of `x1` and `x2` (a product for scalars)."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    if not shape(x1) or not shape(x2):
        return lnp.multiply(x1, x2)
    return lnp.tensordot(x1, x2, axes=[[-1], [-1]])


@composite
def vdot(x1, x2):
    """Dot product of the flattened `x1` (conjugated) and `x2`."""
    return lnp.sum(lnp.multiply(lnp.conj(lnp.ravel(x1)), lnp.ravel(x2)))


@composite
def kron(x1, x2):
    """Kronecker product: blocks `x1[i, j] * x2`."""
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
    """The Vandermonde matrix of 1-D `x`: columns are powers of `x`."""
    x = convert_to_tensor(x)
    if len(shape(x)) != 1:
        raise ValueError(f"vander: expected a 1-D tensor, received shape {shape(x)}.")
    n = shape(x)[0] if N is None else int(N)
    powers = np.arange(n) if increasing else np.arange(n)[::-1]
    return lnp.power(lnp.expand_dims(x, 1), cast(powers.copy(), dtype(x)))


@composite
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of `y` along `axis` by the trapezoidal rule (sample points `x` or
    spacing `dx`)."""
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
    """`array` rotated by 90 degrees `k` times in the plane of `axes`."""
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
    """Elements from `choicelist[i]` where `condlist[i]` holds first, else `default`."""
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
    """The coordinates in an array of `shape` of each flat index in `indices`."""
    return _unravel_op(indices, tuple(int(d) for d in shape))


def _unravel(indices, dims):
    indices = convert_to_tensor(indices)
    strides = np.cumprod((1,) + dims[::-1])[:-1][::-1]
    return tuple(lnp.mod(lnp.floor_divide(indices, int(s)), d) for s, d in zip(strides, dims))


_unravel_op = _op(_unravel, name="unravel_index")


@composite
def corrcoef(x):
    """Pearson correlation coefficients between the rows of `x`."""
    x = _float(x)
    centered = x - lnp.mean(x, axis=-1, keepdims=True)
    cov = lnp.matmul(centered, lnp.transpose(centered))
    scale = lnp.sqrt(lnp.diagonal(cov))
    return lnp.clip(cov / lnp.outer(scale, scale), -1.0, 1.0)


# NaN-ignoring reductions ----------------------------------------------------------------
def _masked(x, fill):
    x = convert_to_tensor(x)
    if "float" not in dtype(x):
        return x, None
    nan = lnp.isnan(x)
    return lnp.where(nan, cast(fill, dtype(x)), x), nan


@composite
def nansum(x, axis=None, keepdims=False):
    """Sum along `axis`, NaNs counted as 0."""
    return lnp.sum(_masked(x, 0.0)[0], axis=axis, keepdims=keepdims)


@composite
def nanprod(x, axis=None, keepdims=False):
    """Product along `axis`, NaNs counted as 1."""
    return lnp.prod(_masked(x, 1.0)[0], axis=axis, keepdims=keepdims)


@composite
def nanmean(x, axis=None, keepdims=False):
    """Mean along `axis` of the non-NaN elements (NaN where all are NaN)."""
    filled, nan = _masked(x, 0.0)
    if nan is None:
        return lnp.mean(filled, axis=axis, keepdims=keepdims)
    count = lnp.sum(lnp.logical_not(nan), axis=axis, keepdims=keepdims)
    return lnp.sum(filled, axis=axis, keepdims=keepdims) / cast(count, dtype(filled))


@composite
def nanvar(x, axis=None, keepdims=False):
    """Variance along `axis` of the non-NaN elements."""
    filled, nan = _masked(x, 0.0)
    if nan is None:
        return lnp.var(filled, axis=axis, keepdims=keepdims)
    mean = nanmean(x, axis=axis, keepdims=True)
    squares = lnp.where(nan, 0.0, lnp.square(filled - mean))
    count = lnp.sum(lnp.logical_not(nan), axis=axis, keepdims=keepdims)
    return lnp.sum(squares, axis=axis, keepdims=keepdims) / cast(count, dtype(filled))


@composite
def nanstd(x, axis=None, keepdims=False):
    """Standard deviation along `axis` of the non-NaN elements."""
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
    """Maximum along `axis`, ignoring NaNs (NaN where all are NaN)."""
    return _nan_extreme(x, axis, keepdims, lnp.max, -math.inf)


@composite
def nanmin(x, axis=None, keepdims=False):
    """Minimum along `axis`, ignoring NaNs (NaN where all are NaN)."""
    return _nan_extreme(x, axis, keepdims, lnp.min, math.inf)


@composite
def nanargmax(x, axis=None, keepdims=False):
    """Index of the maximum along `axis`, ignoring NaNs."""
    return lnp.argmax(_masked(x, -math.inf)[0], axis=axis, keepdims=keepdims)


@composite
def nanargmin(x, axis=None, keepdims=False):
    """Index of the minimum along `axis`, ignoring NaNs."""
    return lnp.argmin(_masked(x, math.inf)[0], axis=axis, keepdims=keepdims)


@composite
def nancumsum(x, axis=None, dtype=None):
    """Cumulative sum along `axis`, NaNs counted as 0."""
    return lnp.cumsum(_masked(x, 0.0)[0], axis=axis, dtype=dtype)


@composite
def nancumprod(x, axis=None, dtype=None):
    """Cumulative product along `axis`, NaNs counted as 1."""
    return lnp.cumprod(_masked(x, 1.0)[0], axis=axis, dtype=dtype)


@composite
def percentile(x, q, axis=None, method="linear", keepdims=False):
    """The `q`-th percentiles of `x` along `axis` (`q` in `[0, 100]`)."""
    return lnp.quantile(x, lnp.divide(q, 100.0), axis=axis, method=method, keepdims=keepdims)


@composite
def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """`percentile` ignoring NaNs."""
    return lnp.nanquantile(x, lnp.divide(q, 100.0), axis=axis, method=method, keepdims=keepdims)


# Windows ----------------------------------------------------------------------------------
def _window(name, x, values):
    if not isinstance(x, (int, np.integer)):
        x = int(np.asarray(backend.convert_to_numpy(x)))
    return convert_to_tensor(values(int(x)).astype("float32"))


def bartlett(x):
    """The Bartlett (triangular) window of `x` points."""
    return _window("bartlett", x, np.bartlett)


def blackman(x):
    """The Blackman window of `x` points."""
    return _window("blackman", x, np.blackman)


def hamming(x):
    """The Hamming window of `x` points."""
    return _window("hamming", x, np.hamming)


def hanning(x):
    """The Hann window of `x` points."""
    return _window("hanning", x, np.hanning)


def kaiser(x, beta):
    """The Kaiser window of `x` points with shape parameter `beta`."""
    return _window("kaiser", x, lambda n: np.kaiser(n, float(beta)))


def vectorize(pyfunc, *, excluded=None, signature=None):
    """`pyfunc` made to apply elementwise (or per `signature`'s core dimensions),
    broadcasting its arguments; usable as a decorator."""
    return _op(
        backend.numpy.vectorize(pyfunc, excluded=excluded, signature=signature),
        name=getattr(pyfunc, "__name__", "vectorize"),
    )


__all__ = [
    "allclose",
    "amax",
    "amin",
    "array",
    "array_split",
    "bartlett",
    "bitwise_not",
    "blackman",
    "cbrt",
    "conjugate",
    "corrcoef",
    "deg2rad",
    "diagflat",
    "diff",
    "divide_no_nan",
    "dsplit",
    "dstack",
    "empty",
    "empty_like",
    "exp2",
    "fabs",
    "fliplr",
    "flipud",
    "fmax",
    "fmin",
    "geomspace",
    "hamming",
    "hanning",
    "heaviside",
    "hsplit",
    "hstack",
    "inner",
    "isneginf",
    "isposinf",
    "isreal",
    "kaiser",
    "kron",
    "ldexp",
    "left_shift",
    "logaddexp2",
    "logspace",
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
    "ptp",
    "rad2deg",
    "right_shift",
    "rot90",
    "select",
    "sinc",
    "trapezoid",
    "unravel_index",
    "vander",
    "vdot",
    "vectorize",
    "vsplit",
    "vstack",
]
