"""Normalizations: `normalize`, `batch_normalization`, `layer_normalization`, `rms_normalization`.

Written once from contract ops; each computes in at least float32 (`_compute_dtype`), as
Keras does for half-precision inputs.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.normalize(np.array([3.0, 4.0]))).tolist()
[0.6000000238418579, 0.800000011920929]
"""

from __future__ import annotations

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, convert_to_tensor, declared_op, shape
from lamina.ops.nn_activations import _float_tensor

_rsqrt = declared_op("math", "rsqrt")
_norm = declared_op("math", "norm")


def _compute_dtype(x):
    return backend.result_type(dtype(x), "float32")


@composite
def normalize(x, axis=-1, order=2, epsilon=None):
    """`x` divided by its `order`-norm along `axis`.

    The norm is floored at `epsilon`, so a zero vector stays zero rather than
    becoming NaN.

    Args:
        x: Input tensor.
        axis: The axis the norm is taken over (default -1).
        order: The norm's order, an int >= 1 (default 2, the Euclidean norm).
        epsilon: The smallest norm divided by; None (the default) uses
            `keras.config.epsilon()`.

    Returns:
        A float tensor of the shape of `x` with unit norm along `axis`.

    Raises:
        ValueError: If `order` is not an int >= 1.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> print(np.round(ops.convert_to_numpy(ops.normalize(np.array([[3.0, 4.0]]))), 4))
    [[0.6 0.8]]
    >>> ops.convert_to_numpy(ops.normalize(np.array([[3.0, 1.0]]), order=1)).tolist()
    [[0.75, 0.25]]
    """
    if not isinstance(order, int) or order < 1:
        raise ValueError(f"normalize: `order` must be an int >= 1, received order={order!r}.")
    epsilon = backend.epsilon() if epsilon is None else epsilon
    x = _float_tensor(x)
    if order == 2:
        inv = lnp.minimum(_rsqrt(lnp.sum(lnp.square(x), axis=axis, keepdims=True)), 1.0 / epsilon)
        return lnp.multiply(x, inv)
    norm = _norm(x, ord=order, axis=axis, keepdims=True)
    return lnp.divide(x, lnp.maximum(norm, epsilon))


def _along(v, axis, ndim):
    """Vector `v` shaped to broadcast along `axis` of a rank-`ndim` tensor."""
    if v is None:
        return None
    v = convert_to_tensor(v)
    if len(shape(v)) != 1:
        return v
    target = [1] * ndim
    target[axis] = shape(v)[0]
    return lnp.reshape(v, target)


@composite
def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=0.001):
    """Normalize `x` with a given mean and variance, then scale and offset it.

    `(x - mean) / sqrt(variance + epsilon) * scale + offset`.

    The statistics are not computed here (see `moments`): pass the mean and variance of
    the feature axis `axis`, as vectors of its length or tensors that broadcast with `x`.

    Args:
        x: Input tensor.
        mean: The mean, a vector along `axis` or broadcastable to `x`.
        variance: The variance, shaped like `mean`.
        axis: The feature axis the statistics run along (an int, e.g. -1).
        offset: The shift `beta` added after scaling, shaped like `mean`; None for none.
        scale: The factor `gamma`, shaped like `mean`; None for 1.
        epsilon: Small float added to the variance for stability (default 0.001).

    Returns:
        The normalized tensor, of the shape of `x` (float input keeps its dtype).

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.array([[1.0, 2.0], [3.0, 6.0]])
    >>> mean, variance = np.array([2.0, 4.0]), np.array([1.0, 4.0])
    >>> y = ops.batch_normalization(x, mean, variance, axis=-1, epsilon=0.0)
    >>> ops.convert_to_numpy(y).tolist()
    [[-1.0, -1.0], [1.0, 1.0]]
    """
    x = convert_to_tensor(x)
    ndim = len(shape(x))
    axis = axis % ndim
    inv = _rsqrt(lnp.add(_along(variance, axis, ndim), epsilon))
    if scale is not None:
        inv = lnp.multiply(inv, _along(scale, axis, ndim))
    out = lnp.multiply(lnp.subtract(x, _along(mean, axis, ndim)), inv)
    if offset is not None:
        out = lnp.add(out, _along(offset, axis, ndim))
    return cast(out, dtype(x)) if "float" in dtype(x) else out


def _axes_shape(x, axis):
    ndim = len(shape(x))
    axes = sorted(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))
    return axes, [shape(x)[a] if a in axes else 1 for a in range(ndim)]


def _to_axes(v, axes, target, x):
    if v is None:
        return None
    v = cast(convert_to_tensor(v), dtype(x))
    if len(shape(v)) != len(target) and axes != [len(target) - 1]:
        v = lnp.reshape(v, target)
    return v


@composite
def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """Normalize `x` to mean 0 and variance 1 over `axis`, then `* gamma + beta`.

    The statistics are computed per sample over `axis`, in float32 at least
    (half-precision input is returned in its own dtype).

    Args:
        x: Input tensor.
        gamma: The scale, shaped like the normalized axes; None for 1.
        beta: The shift, shaped like the normalized axes; None for 0.
        axis: The axis or list of axes to normalize over (default -1).
        epsilon: Small float added to the variance; None (the default) uses
            `keras.config.epsilon()`.
        **kwargs: Keras's `rms_scaling=True`, which divides by the standard deviation
            without centering and ignores `beta`; any other keyword is a `TypeError`.

    Returns:
        The normalized tensor, of the shape and dtype of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.layer_normalization(np.array([[1.0, 2.0, 3.0]]), epsilon=0.0)
    >>> print(np.round(ops.convert_to_numpy(y), 4))
    [[-1.2247  0.      1.2247]]
    """
    rms_scaling = kwargs.pop("rms_scaling", False)
    if kwargs:
        raise TypeError(f"layer_normalization: unexpected keyword arguments {sorted(kwargs)}.")
    epsilon = backend.epsilon() if epsilon is None else epsilon
    original = dtype(x)
    x = cast(convert_to_tensor(x), _compute_dtype(x))
    axes, target = _axes_shape(x, axis)
    gamma, beta = _to_axes(gamma, axes, target, x), _to_axes(beta, axes, target, x)
    if rms_scaling:
        inv = _rsqrt(lnp.var(x, axis=axes, keepdims=True) + epsilon)
        out = x * inv if gamma is None else x * inv * gamma
    else:
        mean = lnp.mean(x, axis=axes, keepdims=True)
        centered = lnp.subtract(x, mean)
        inv = _rsqrt(lnp.mean(lnp.square(centered), axis=axes, keepdims=True) + epsilon)
        out = centered * inv
        if gamma is not None:
            out = out * gamma
        if beta is not None:
            out = out + beta
    return cast(out, original)


@composite
def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """Normalize `x` by its root mean square over `axis`, then multiply by `scale`.

    `x / sqrt(mean(square(x), axis) + epsilon) * scale`, computed in float32 at least.

    Args:
        x: Input tensor.
        scale: The factor applied after normalizing, shaped like the normalized axis (or
            broadcastable); None for 1.
        axis: The axis (or tuple of axes) the root mean square is taken over
            (default -1).
        epsilon: Small float added to the mean square; None (the default) uses
            `keras.config.epsilon()`.

    Returns:
        The normalized tensor, of the shape and dtype of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.rms_normalization(np.array([[3.0, 4.0]]), epsilon=0.0)
    >>> print(np.round(ops.convert_to_numpy(y), 4))
    [[0.8485 1.1314]]
    """
    epsilon = backend.epsilon() if epsilon is None else epsilon
    original = dtype(x)
    x = cast(convert_to_tensor(x), _compute_dtype(x))
    if not shape(x):
        x = lnp.expand_dims(x, 0)
    out = x * _rsqrt(lnp.mean(lnp.square(x), axis=axis, keepdims=True) + epsilon)
    if scale is not None:
        out = out * cast(convert_to_tensor(scale), dtype(x))
    return cast(out, original)


__all__ = [
    "batch_normalization",
    "layer_normalization",
    "normalize",
    "rms_normalization",
]
