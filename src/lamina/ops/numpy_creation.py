"""Array creation written once from other ops: `empty`, log and geometric spaces, windows.

`empty`/`empty_like`, `logspace`/`geomspace`, `diagflat`, `vander` and the signal
windows (`bartlett`, `blackman`, `hamming`, `hanning`, `kaiser`); the contract's creation
functions (`zeros`, `arange`, `eye`, ...) are in `lamina.backend.declarations`.

>>> from lamina import ops
>>> ops.convert_to_numpy(ops.logspace(0, 2, num=3)).tolist()
[1.0, 10.0, 100.0]
"""

from __future__ import annotations

import numpy as np

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, convert_to_tensor, shape
from lamina.ops.numpy_elementwise import _float


def empty(shape, dtype=None):
    """A new tensor of shape `shape`, filled with zeros.

    NumPy leaves the values of `empty` unset; the engines give no uninitialized memory, so
    lamina (like Keras) fills it with zeros.

    Args:
        shape: Shape of the tensor, an int or a tuple of ints.
        dtype: Dtype of the tensor; `None` means `"float32"`.

    Returns:
        A zero-filled tensor of that shape and dtype.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.empty((2, 3))).shape
    (2, 3)
    """
    return lnp.zeros(shape, dtype=dtype)


@composite
def empty_like(x, dtype=None):
    """A new tensor with the shape of `x`, filled with zeros.

    Args:
        x: Tensor whose shape (and, without `dtype`, dtype) the result takes.
        dtype: Dtype of the result; `None` keeps the dtype of `x`.

    Returns:
        A zero-filled tensor shaped like `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.empty_like(np.ones((2, 2)), dtype="int32")).tolist()
    [[0, 0], [0, 0]]
    """
    return lnp.zeros_like(x, dtype=dtype)


def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """`num` numbers spaced evenly on a log scale: `base ** linspace(start, stop, num)`.

    Args:
        start: Exponent of the first value (`base ** start`).
        stop: Exponent of the last value (`base ** stop`), included when `endpoint`.
        num: Number of values.
        endpoint: If `True`, `base ** stop` is the last value; otherwise the values stop
            one step before it.
        base: Base of the log scale.
        dtype: Dtype of the result; `None` gives `"float32"`.
        axis: Axis of the result along which the values run when `start`/`stop` are
            tensors.

    Returns:
        A tensor of `num` values.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.logspace(0.0, 3.0, num=4)), 2)
    array([   1.,   10.,  100., 1000.], dtype=float32)
    >>> np.round(ops.convert_to_numpy(ops.logspace(0.0, 3.0, num=4, base=2)), 2)
    array([1., 2., 4., 8.], dtype=float32)
    """
    exponents = lnp.linspace(start, stop, num, endpoint=endpoint, axis=axis)
    out = lnp.power(cast(base, "float32"), exponents)
    return out if dtype is None else cast(out, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """`num` numbers spaced evenly on a log scale (a geometric progression) from `start` to `stop`.

    Each value is a constant multiple of the one before. `start` and `stop` must be nonzero
    and of the same sign.

    Args:
        start: First value.
        stop: Last value, included when `endpoint`.
        num: Number of values.
        endpoint: If `True`, `stop` is the last value; otherwise the values stop one step
            before it.
        dtype: Dtype of the result; `None` gives floats.
        axis: Axis of the result along which the values run when `start`/`stop` are
            tensors.

    Returns:
        A tensor of `num` values.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> np.round(ops.convert_to_numpy(ops.geomspace(1.0, 1000.0, num=4)), 2)
    array([   1.,   10.,  100., 1000.], dtype=float32)
    """
    start, stop = _float(start), _float(stop)
    sign = lnp.sign(start)
    logs = lnp.linspace(
        lnp.log(lnp.abs(start)), lnp.log(lnp.abs(stop)), num, endpoint=endpoint, axis=axis
    )
    out = sign * lnp.exp(logs)
    return out if dtype is None else cast(out, dtype)


@composite
def diagflat(x, k=0):
    """A 2-D tensor with the flattened `x` on its `k`-th diagonal and zeros elsewhere.

    Args:
        x: Input tensor of any shape; it is flattened first.
        k: Diagonal to fill: 0 is the main diagonal, positive values are above it,
            negative values below.

    Returns:
        A square tensor of side `size(x) + abs(k)`, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.diagflat(np.array([[1, 2], [3, 4]]))).tolist()
    [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 4]]
    >>> ops.convert_to_numpy(ops.diagflat(np.array([1, 2]), k=1)).tolist()
    [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    """
    return lnp.diag(lnp.ravel(x), k=k)


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


__all__ = [
    "bartlett",
    "blackman",
    "diagflat",
    "empty",
    "empty_like",
    "geomspace",
    "hamming",
    "hanning",
    "kaiser",
    "logspace",
    "vander",
]
