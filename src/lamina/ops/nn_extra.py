"""Neural-network ops Keras 3 has beyond the engine's primitives, written once from ops.

Activations, normalizations, cross-entropies, attention, pixel shuffles and adaptive
pooling: each is a composition of contract ops, so it runs (and differentiates) on every
engine and becomes one graph node on KerasTensors.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.hard_tanh(np.array([-2.0, 0.5, 3.0]))).tolist()
[-1.0, 0.5, 1.0]
"""

from __future__ import annotations

import math

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, convert_to_tensor, declared_op, shape

_sigmoid = declared_op("nn", "sigmoid")
_softmax = declared_op("nn", "softmax")
_log_softmax = declared_op("nn", "log_softmax")
_log_sigmoid = declared_op("nn", "log_sigmoid")
_one_hot = declared_op("nn", "one_hot")
_rsqrt = declared_op("math", "rsqrt")
_norm = declared_op("math", "norm")


def _float_tensor(x):
    x = convert_to_tensor(x)
    return x if "float" in dtype(x) else cast(x, backend.floatx())


# Activations -------------------------------------------------------------------------
swish = declared_op("nn", "silu")
swish.__name__ = swish.__qualname__ = "swish"
swish.__doc__ = """Swish (the same as SiLU): `x * sigmoid(x)`, elementwise.

Keras's other name for `silu`.

Args:
    x: Input tensor of any shape.

Returns:
    A tensor of the shape of `x`.

Example:

>>> import numpy as np
>>> from lamina import ops
>>> print(np.round(ops.convert_to_numpy(ops.swish(np.array([-1.0, 0.0, 1.0]))), 4))
[-0.2689  0.      0.7311]
"""
hard_swish = declared_op("nn", "hard_silu")
hard_swish.__name__ = hard_swish.__qualname__ = "hard_swish"
hard_swish.__doc__ = """Hard swish (the same as hard SiLU): `x * relu6(x + 3) / 6`, elementwise.

Keras's other name for `hard_silu`: 0 below -3, `x` above 3.

Args:
    x: Input tensor of any shape.

Returns:
    A tensor of the shape of `x`.

Example:

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.hard_swish(np.array([-4.0, 0.0, 3.0, 5.0]))).tolist()
[-0.0, 0.0, 3.0, 5.0]
"""


@composite
def celu(x, alpha=1.0):
    """Continuously differentiable exponential linear unit, elementwise.

    `x` where positive, else `alpha * (exp(x / alpha) - 1)`; unlike `elu`, its slope
    is continuous at 0 for every `alpha` (Barron, 2017).

    Args:
        x: Input tensor of any shape.
        alpha: The scale of the negative part, which tends to `-alpha` (default 1.0).

    Returns:
        A float tensor of the shape of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.celu(np.array([-1.0, 0.0, 2.0]), alpha=2.0)
    >>> print(np.round(ops.convert_to_numpy(y), 4))
    [-0.7869  0.      2.    ]
    """
    x = _float_tensor(x)
    return lnp.where(lnp.greater(x, 0), x, alpha * lnp.expm1(lnp.minimum(x, 0.0) / alpha))


@composite
def glu(x, axis=-1):
    """Gated linear unit: `a * sigmoid(b)`, `a` and `b` the halves of `x` on `axis`.

    Args:
        x: Float tensor whose length on `axis` is even.
        axis: The axis to split in halves (default -1, the last).

    Returns:
        A tensor of the shape of `x` with `axis` halved.

    Raises:
        ValueError: If `x` has odd length on `axis`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.glu(np.array([1.0, 2.0, 0.0, 100.0]))).tolist()
    [0.5, 2.0]
    """
    size = shape(x)[axis]
    if size % 2:
        raise ValueError(
            f"glu: axis {axis} of `x` must have even length to split in halves; received "
            f"shape {shape(x)}."
        )
    a, b = lnp.split(x, 2, axis=axis)
    return lnp.multiply(a, _sigmoid(b))


@composite
def hard_tanh(x):
    """Hard tanh: `x` clipped to `[-1, 1]`, elementwise.

    Args:
        x: Input tensor of any shape.

    Returns:
        A float tensor of the shape of `x` with values in `[-1, 1]`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.hard_tanh(np.array([-2.0, 0.5, 3.0]))).tolist()
    [-1.0, 0.5, 1.0]
    """
    return lnp.clip(_float_tensor(x), -1.0, 1.0)


@composite
def hard_shrink(x, threshold=0.5):
    """Hard shrinkage: `x` where `abs(x) > threshold`, else 0.

    Args:
        x: Input tensor of any shape.
        threshold: The half-width of the band around 0 set to zero (default 0.5).

    Returns:
        A float tensor of the shape of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.hard_shrink(np.array([-1.0, 0.25, 2.0]))).tolist()
    [-1.0, 0.0, 2.0]
    """
    x = _float_tensor(x)
    return lnp.where(lnp.greater(lnp.abs(x), threshold), x, lnp.zeros_like(x))


@composite
def soft_shrink(x, threshold=0.5):
    """Soft shrinkage: `x` moved toward 0 by `threshold` (0 inside the band).

    `x - threshold` above `threshold`, `x + threshold` below `-threshold`, else 0.

    Args:
        x: Input tensor of any shape.
        threshold: The amount of shrinkage (default 0.5).

    Returns:
        A float tensor of the shape of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.soft_shrink(np.array([-1.0, 0.25, 0.75]))).tolist()
    [-0.5, 0.0, 0.25]
    """
    x = _float_tensor(x)
    return lnp.where(
        lnp.greater(x, threshold),
        x - threshold,
        lnp.where(lnp.less(x, -threshold), x + threshold, lnp.zeros_like(x)),
    )


@composite
def tanh_shrink(x):
    """Tanh shrinkage: `x - tanh(x)`, elementwise.

    Args:
        x: Input tensor of any shape.

    Returns:
        A float tensor of the shape of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> print(np.round(ops.convert_to_numpy(ops.tanh_shrink(np.array([-1.0, 0.0, 1.0]))), 4))
    [-0.2384  0.      0.2384]
    """
    x = _float_tensor(x)
    return lnp.subtract(x, lnp.tanh(x))


@composite
def threshold(x, threshold, default_value):
    """Threshold: `x` where `x > threshold`, else `default_value`.

    Args:
        x: Input tensor of any shape.
        threshold: The value `x` must exceed to be kept.
        default_value: The value put where `x <= threshold`.

    Returns:
        A tensor of the shape and dtype of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.threshold(np.array([-1.0, 0.5, 2.0]), 0.5, 9.0)).tolist()
    [9.0, 9.0, 2.0]
    """
    x = convert_to_tensor(x)
    return lnp.where(lnp.greater(x, threshold), x, lnp.full_like(x, default_value))


@composite
def squareplus(x, b=4):
    """Squareplus, a smooth ReLU: `(x + sqrt(x ** 2 + b)) / 2`, elementwise.

    Args:
        x: Input tensor of any shape.
        b: The smoothness, `b >= 0` (default 4); `b = 0` gives `relu`.

    Returns:
        A float tensor of the shape of `x` with positive values (for `b > 0`).

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.squareplus(np.array([-2.0, 0.0, 2.0]), b=0)).tolist()
    [0.0, 0.0, 2.0]
    >>> ops.convert_to_numpy(ops.squareplus(np.array([0.0]))).tolist()
    [1.0]
    """
    x = _float_tensor(x)
    return lnp.divide(lnp.add(x, lnp.sqrt(lnp.add(lnp.square(x), b))), 2.0)


@composite
def sparse_plus(x):
    """SparsePlus: 0 below -1, `(x + 1) ** 2 / 4` on `[-1, 1]`, `x` above 1.

    A softplus-like activation that is exactly zero for `x <= -1`.

    Args:
        x: Input tensor of any shape.

    Returns:
        A float tensor of the shape of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.sparse_plus(np.array([-2.0, 0.0, 1.0, 3.0]))).tolist()
    [0.0, 0.25, 1.0, 3.0]
    """
    x = _float_tensor(x)
    middle = lnp.square(x + 1.0) / 4.0
    return lnp.where(
        lnp.less_equal(x, -1.0), lnp.zeros_like(x), lnp.where(lnp.greater_equal(x, 1.0), x, middle)
    )


@composite
def sparse_sigmoid(x):
    """Sparse sigmoid: 0 below -1, `(x + 1) / 2` on `[-1, 1]`, 1 above.

    A sigmoid-like activation that reaches exactly 0 and 1 (the derivative of
    `sparse_plus`, scaled).

    Args:
        x: Input tensor of any shape.

    Returns:
        A float tensor of the shape of `x` with values in `[0, 1]`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.sparse_sigmoid(np.array([-2.0, 0.0, 0.5, 3.0]))).tolist()
    [0.0, 0.5, 0.75, 1.0]
    """
    return lnp.clip((_float_tensor(x) + 1.0) / 2.0, 0.0, 1.0)


@composite
def sparsemax(x, axis=-1):
    """Sparsemax: the Euclidean projection of `x` onto the probability simplex.

    Like `softmax` it gives non-negative values summing to 1 along `axis`, but low
    scores get exactly 0 (Martins and Astudillo, 2016).

    Args:
        x: Float tensor of scores.
        axis: The axis to normalize over (default -1, the last).

    Returns:
        A tensor of the shape of `x`, non-negative and summing to 1 along `axis`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.sparsemax(np.array([[1.0, 0.0, -1.0], [0.5, 0.5, 0.0]]))
    >>> ops.convert_to_numpy(y).tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]]
    """
    x = _float_tensor(x)
    n = shape(x)[axis]
    # Sorted descending: the support is the k largest values with 1 + k z_k > cumsum_k.
    z = lnp.flip(lnp.sort(x, axis=axis), axis=axis)
    ks_shape = [1] * len(shape(x))
    ks_shape[axis] = n
    ks = lnp.reshape(lnp.arange(1, n + 1, dtype=dtype(x)), ks_shape)
    cumulative = lnp.cumsum(z, axis=axis)
    in_support = lnp.greater(1.0 + ks * z, cumulative)
    k = lnp.sum(cast(in_support, dtype(x)), axis=axis, keepdims=True)
    tau = (lnp.sum(lnp.where(in_support, z, 0.0), axis=axis, keepdims=True) - 1.0) / k
    return lnp.maximum(lnp.subtract(x, tau), 0.0)


polar = declared_op("nn", "polar")


# Normalization -------------------------------------------------------------------------
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


# Cross-entropies and metrics -------------------------------------------------------------
@composite
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy of `target` against probabilities (or logits).

    `-(target * log(p) + (1 - target) * log(1 - p))`, with `p` clipped to
    `[epsilon, 1 - epsilon]` (`keras.config.epsilon()`); with `from_logits`, `p` is
    `sigmoid(output)` and the loss is computed stably from the logits. Nothing is
    averaged: reduce the result yourself (or use `keras.losses.BinaryCrossentropy`).

    Args:
        target: Labels in `[0, 1]`, the shape of `output`.
        output: Predicted probabilities, or logits when `from_logits`.
        from_logits: Whether `output` holds logits (default False).

    Returns:
        A float tensor of the shape of `output`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.binary_crossentropy(np.array([1.0, 0.0]), np.array([0.8, 0.4]))
    >>> print(np.round(ops.convert_to_numpy(y), 4))
    [0.2231 0.5108]
    >>> logits = np.array([0.0, 0.0])
    >>> y = ops.binary_crossentropy(np.array([1.0, 0.0]), logits, from_logits=True)
    >>> print(np.round(ops.convert_to_numpy(y), 4))
    [0.6931 0.6931]
    """
    output = _float_tensor(output)
    target = cast(convert_to_tensor(target), dtype(output))
    if from_logits:
        # max(z, 0) - z t + log(1 + exp(-|z|)): -t log(sigmoid(z)) - (1 - t) log(1 - sigmoid(z)).
        relu_part = lnp.subtract(lnp.maximum(output, 0.0), output * target)
        return lnp.subtract(relu_part, _log_sigmoid(lnp.abs(output)))
    eps = backend.epsilon()
    output = lnp.clip(output, eps, 1.0 - eps)
    return -(target * lnp.log(output) + (1.0 - target) * lnp.log(1.0 - output))


@composite
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy of one-hot (or soft) `target` against class scores on `axis`.

    `-sum(target * log(p), axis)`: probabilities (`from_logits=False`) are divided by
    their sum along `axis` and clipped to `[epsilon, 1 - epsilon]`; logits go through a
    stable log-softmax.

    Args:
        target: Class probabilities (usually one-hot), the shape of `output`.
        output: Class scores: probabilities, or logits when `from_logits`.
        from_logits: Whether `output` holds logits (default False).
        axis: The class axis (default -1, the last).

    Returns:
        The per-sample losses: a float tensor of the shape of `output` without `axis`.

    Raises:
        ValueError: If `target` and `output` differ in shape.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> target = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> output = np.array([[0.25, 0.75], [0.5, 0.5]])
    >>> print(np.round(ops.convert_to_numpy(ops.categorical_crossentropy(target, output)), 4))
    [0.2877 0.6931]
    """
    output = _float_tensor(output)
    target = cast(convert_to_tensor(target), dtype(output))
    if len(shape(target)) < 1 or shape(target) != shape(output):
        raise ValueError(
            "categorical_crossentropy: `target` and `output` must have the same shape, "
            f"received {shape(target)} and {shape(output)}."
        )
    if from_logits:
        log_probs = _log_softmax(output, axis=axis)
    else:
        output = output / lnp.sum(output, axis=axis, keepdims=True)
        eps = backend.epsilon()
        log_probs = lnp.log(lnp.clip(output, eps, 1.0 - eps))
    return -lnp.sum(target * log_probs, axis=axis)


@composite
def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """Multi-hot encoding: 1 for each class present in a row of integer `inputs`.

    Each row (for 2-D input; the whole vector for 1-D input) becomes one vector of
    `num_classes` values, 1 where its class appears at least once.

    Args:
        inputs: Integer tensor of class indices, rank 1 or 2 (`(batch, labels)`).
        num_classes: The number of classes (the length of the encoding).
        axis: Where the class axis goes (default -1, the last).
        dtype: The result's dtype (default: `keras.config.floatx()`).
        sparse: Accepted for Keras compatibility: lamina has no sparse tensors, so
            `True` raises a `ValueError`.
        **kwargs: Keras's older name `num_tokens=` for `num_classes`; any other keyword
            is a `TypeError`.

    Returns:
        A tensor `(batch, num_classes)` (or `(num_classes,)` for 1-D input).

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.multi_hot(np.array([[0, 2], [1, 1]]), 4)).tolist()
    [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
    """
    if num_classes is None:
        num_classes = kwargs.pop("num_tokens", None)
    if kwargs:
        raise TypeError(f"multi_hot: unexpected keyword arguments {sorted(kwargs)}.")
    if num_classes is None:
        raise ValueError("multi_hot: pass `num_classes` (the number of classes).")
    inputs = cast(convert_to_tensor(inputs), "int32")
    reduce_axis = 1 if len(shape(inputs)) > 1 else 0
    encoded = _one_hot(inputs, num_classes, axis=axis, dtype=dtype, sparse=sparse)
    return lnp.max(encoded, axis=reduce_axis)


@composite
def psnr(x1, x2, max_val):
    """Peak signal-to-noise ratio of two images, in decibels.

    `20 * log10(max_val) - 10 * log10(mean(square(x1 - x2)))`, the mean taken over
    every element (the whole batch gives one number); identical inputs give `inf`.

    Args:
        x1: The first image or batch of images.
        x2: The second, of the shape of `x1`.
        max_val: The largest possible pixel value (e.g. 1.0 or 255).

    Returns:
        A float scalar tensor.

    Raises:
        ValueError: If `x1` and `x2` differ in shape.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.psnr(np.zeros((2, 2)), np.full((2, 2), 0.1), max_val=1.0)
    >>> print(np.round(ops.convert_to_numpy(y), 4))
    20.0
    """
    x1, x2 = _float_tensor(x1), _float_tensor(x2)
    if shape(x1) != shape(x2):
        raise ValueError(
            f"psnr: `x1` and `x2` must have the same shape, received {shape(x1)} and {shape(x2)}."
        )
    mse = lnp.mean(lnp.square(lnp.subtract(x1, x2)))
    return 20.0 * math.log10(max_val) - 10.0 * lnp.log10(mse)


# Attention -------------------------------------------------------------------------------
# Also raised by the attention layers given `flash_attention=True`.
NO_FLASH_KERNEL = (
    "flash_attention=True asks for a fused flash-attention kernel, and lamina has none on "
    "any engine or device (Keras raises here too when it finds no kernel, e.g. on a CPU). "
    "Pass flash_attention=None (the default) or False: the attention computed is the same."
)


@composite
def dot_product_attention(
    query,
    key,
    value,
    bias=None,
    mask=None,
    scale=None,
    is_causal=False,
    flash_attention=None,
    attn_logits_soft_cap=None,
):
    """Scaled dot-product attention: `softmax(query @ key^T * scale + bias) @ value`.

    `query` is `(batch, target, heads, head_dim)` and `key`/`value` are
    `(batch, source, kv_heads, head_dim)`; with fewer key heads than query heads
    (grouped-query attention) each key head serves `heads // kv_heads` query heads.
    Rank-3 inputs `(batch, length, head_dim)` have no heads axis. Logits are computed in
    float32 at least; a fully masked row attends uniformly rather than giving NaN.

    Args:
        query: Query tensor `(batch, target, heads, head_dim)`.
        key: Key tensor `(batch, source, kv_heads, head_dim)`.
        value: Value tensor, the shape of `key` (its last axis may differ).
        bias: Tensor added to the logits, broadcast to `(batch, heads, target, source)`;
            None for none.
        mask: Boolean tensor broadcast to `(batch, heads, target, source)`, True where
            attention is allowed; None for none.
        scale: The logits' factor; None (the default) uses `1 / sqrt(head_dim)`.
        is_causal: Whether to also mask later positions, so target `i` sees source
            `j <= i` only (default False).
        flash_attention: Accepted for Keras compatibility: lamina has no fused
            flash-attention kernel, so None (auto) and False compute the same attention
            and True raises a `RuntimeError`, as Keras does where no kernel exists.
        attn_logits_soft_cap: If given, logits are capped smoothly as
            `tanh(logits / cap) * cap` before the bias and mask.

    Returns:
        The attention output, the shape of `query` with `value`'s last axis.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> q = np.ones((1, 2, 1, 4), "float32")
    >>> v = np.arange(8.0, dtype="float32").reshape(1, 2, 1, 4)
    >>> out = ops.dot_product_attention(q, q, v, is_causal=True)
    >>> ops.convert_to_numpy(out)[0, :, 0].tolist()
    [[0.0, 1.0, 2.0, 3.0], [2.0, 3.0, 4.0, 5.0]]
    """
    if flash_attention:
        raise RuntimeError(f"dot_product_attention: {NO_FLASH_KERNEL}")
    query, key, value = (convert_to_tensor(t) for t in (query, key, value))
    rank3 = len(shape(query)) == 3
    if rank3:
        query, key, value = (lnp.expand_dims(t, 2) for t in (query, key, value))
    if len(shape(query)) != 4:
        raise ValueError(
            "dot_product_attention: `query` must be (batch, target, heads, head_dim) or "
            f"(batch, target, head_dim); received shape {shape(query)}."
        )
    heads, kv_heads, head_dim = shape(query)[2], shape(key)[2], shape(query)[-1]
    if heads % kv_heads:
        raise ValueError(
            f"dot_product_attention: the query's {heads} heads must be a multiple of the "
            f"key's {kv_heads}."
        )
    if heads != kv_heads:
        key = lnp.repeat(key, heads // kv_heads, axis=2)
        value = lnp.repeat(value, heads // kv_heads, axis=2)
    scale = 1.0 / math.sqrt(head_dim) if scale is None else scale
    compute = _compute_dtype(query)
    logits = lnp.einsum("btnh,bsnh->bnts", cast(query, compute), cast(key, compute)) * scale
    if attn_logits_soft_cap is not None:
        logits = lnp.tanh(logits / attn_logits_soft_cap) * attn_logits_soft_cap
    if bias is not None:
        logits = logits + cast(convert_to_tensor(bias), compute)
    allowed = None if mask is None else cast(convert_to_tensor(mask), "bool")
    if is_causal:
        target, source = shape(logits)[-2], shape(logits)[-1]
        causal = cast(lnp.tri(target, source, dtype="int32"), "bool")
        allowed = causal if allowed is None else lnp.logical_and(allowed, causal)
    if allowed is not None:
        # A large finite negative, so a fully masked row gives uniform weights, not NaN.
        logits = lnp.where(allowed, logits, -0.7 * 3.4028234663852886e38)
    weights = cast(_softmax(logits, axis=-1), dtype(value))
    out = lnp.einsum("bnts,bsnh->btnh", weights, value)
    return lnp.squeeze(out, 2) if rank3 else out


# Pixel shuffles and adaptive pooling --------------------------------------------------------
def _image4(x, op):
    x = convert_to_tensor(x)
    if len(shape(x)) != 4:
        raise ValueError(f"{op}: expected a 4-D batch of images, received shape {shape(x)}.")
    return x


@composite
def depth_to_space(x, block_size, data_format="channels_last"):
    """Move channels into space: each pixel's channels become a `block_size` square.

    The inverse of `space_to_depth` (PyTorch's `pixel_shuffle` for channels-first):
    `(N, H, W, C)` becomes `(N, H * b, W * b, C / b**2)`, `b = block_size`.

    Args:
        x: A 4-D batch of images whose channels divide by `block_size ** 2`.
        block_size: The side of the spatial blocks, a positive int.
        data_format: `"channels_last"` (the default) or `"channels_first"`.

    Returns:
        A 4-D tensor with `block_size` times the height and width.

    Raises:
        ValueError: If `x` is not 4-D.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.arange(4).reshape(1, 1, 1, 4)
    >>> ops.convert_to_numpy(ops.depth_to_space(x, 2))[0, :, :, 0].tolist()
    [[0, 1], [2, 3]]
    """
    x = _image4(x, "depth_to_space")
    b = int(block_size)
    if data_format == "channels_last":
        n, h, w, c = shape(x)
        x = lnp.reshape(x, (n, h, w, b, b, c // (b * b)))
        x = lnp.transpose(x, (0, 1, 3, 2, 4, 5))
        return lnp.reshape(x, (n, h * b, w * b, c // (b * b)))
    n, c, h, w = shape(x)
    x = lnp.reshape(x, (n, c // (b * b), b, b, h, w))
    x = lnp.transpose(x, (0, 1, 4, 2, 5, 3))
    return lnp.reshape(x, (n, c // (b * b), h * b, w * b))


@composite
def space_to_depth(x, block_size, data_format="channels_last"):
    """Move space into channels: each `block_size` square becomes one pixel.

    The inverse of `depth_to_space`: `(N, H, W, C)` becomes
    `(N, H / b, W / b, C * b**2)`, `b = block_size`.

    Args:
        x: A 4-D batch of images whose height and width divide by `block_size`.
        block_size: The side of the spatial blocks, a positive int.
        data_format: `"channels_last"` (the default) or `"channels_first"`.

    Returns:
        A 4-D tensor with `block_size ** 2` times the channels.

    Raises:
        ValueError: If `x` is not 4-D.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.arange(4).reshape(1, 2, 2, 1)
    >>> ops.convert_to_numpy(ops.space_to_depth(x, 2)).tolist()
    [[[[0, 1, 2, 3]]]]
    """
    x = _image4(x, "space_to_depth")
    b = int(block_size)
    if data_format == "channels_last":
        n, h, w, c = shape(x)
        x = lnp.reshape(x, (n, h // b, b, w // b, b, c))
        x = lnp.transpose(x, (0, 1, 3, 2, 4, 5))
        return lnp.reshape(x, (n, h // b, w // b, b * b * c))
    n, c, h, w = shape(x)
    x = lnp.reshape(x, (n, c, h // b, b, w // b, b))
    x = lnp.transpose(x, (0, 1, 3, 5, 2, 4))
    return lnp.reshape(x, (n, c * b * b, h // b, w // b))


def _bins(length, size):
    """PyTorch's adaptive bins: `[floor(i L / n), ceil((i + 1) L / n))` for each output i."""
    return [((i * length) // size, -((-(i + 1) * length) // size)) for i in range(size)]


def _adaptive_pool(inputs, output_size, data_format, reduce, op):
    x = convert_to_tensor(inputs)
    spatial = len(shape(x)) - 2
    if spatial not in (1, 2, 3):
        raise ValueError(
            f"{op}: expected a 3-D, 4-D or 5-D batch (1 to 3 spatial axes), received shape "
            f"{shape(x)}."
        )
    sizes = (output_size,) * spatial if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != spatial:
        raise ValueError(
            f"{op}: `output_size` {output_size!r} needs one size per spatial axis ({spatial})."
        )
    first = backend.standardize_data_format(data_format) == "channels_first"
    for i, size in enumerate(sizes):
        axis = i + 2 if first else i + 1
        parts = [
            reduce(lnp.take(x, lnp.arange(start, stop), axis=axis), axis)
            for start, stop in _bins(shape(x)[axis], int(size))
        ]
        x = lnp.stack(parts, axis=axis)
    return x


@composite
def adaptive_average_pool(inputs, output_size, data_format=None):
    """Average pooling to a fixed `output_size` per spatial axis.

    The windows are chosen from the input size, as PyTorch's adaptive pooling does:
    output `i` of an axis of length `L` pooled to `n` averages inputs
    `floor(i * L / n)` to `ceil((i + 1) * L / n) - 1` (windows may overlap).

    Args:
        inputs: A 3-D, 4-D or 5-D batch (1 to 3 spatial axes).
        output_size: Int or tuple of ints, one per spatial axis, the output size.
        data_format: `"channels_last"` or `"channels_first"`; default
            `keras.config.image_data_format()`.

    Returns:
        A tensor with spatial sizes `output_size` and the batch and channels of
        `inputs`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.arange(1.0, 6.0).reshape(1, 5, 1)
    >>> ops.convert_to_numpy(ops.adaptive_average_pool(x, 2))[0, :, 0].tolist()
    [2.0, 4.0]
    """
    return _adaptive_pool(
        inputs, output_size, data_format, lambda p, a: lnp.mean(p, axis=a), "adaptive_average_pool"
    )


@composite
def adaptive_max_pool(inputs, output_size, data_format=None):
    """Max pooling to a fixed `output_size` per spatial axis.

    The windows are chosen from the input size, as PyTorch's adaptive pooling does:
    output `i` of an axis of length `L` pooled to `n` is the max of inputs
    `floor(i * L / n)` to `ceil((i + 1) * L / n) - 1` (windows may overlap).

    Args:
        inputs: A 3-D, 4-D or 5-D batch (1 to 3 spatial axes).
        output_size: Int or tuple of ints, one per spatial axis, the output size.
        data_format: `"channels_last"` or `"channels_first"`; default
            `keras.config.image_data_format()`.

    Returns:
        A tensor with spatial sizes `output_size` and the batch and channels of
        `inputs`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.arange(1.0, 6.0).reshape(1, 5, 1)
    >>> ops.convert_to_numpy(ops.adaptive_max_pool(x, 2))[0, :, 0].tolist()
    [3.0, 5.0]
    """
    return _adaptive_pool(
        inputs, output_size, data_format, lambda p, a: lnp.max(p, axis=a), "adaptive_max_pool"
    )


__all__ = [
    "adaptive_average_pool",
    "adaptive_max_pool",
    "batch_normalization",
    "binary_crossentropy",
    "categorical_crossentropy",
    "celu",
    "depth_to_space",
    "dot_product_attention",
    "glu",
    "hard_shrink",
    "hard_swish",
    "hard_tanh",
    "layer_normalization",
    "multi_hot",
    "normalize",
    "polar",
    "psnr",
    "rms_normalization",
    "soft_shrink",
    "space_to_depth",
    "sparse_plus",
    "sparse_sigmoid",
    "sparsemax",
    "squareplus",
    "swish",
    "tanh_shrink",
    "threshold",
]
