"""The activation functions, written once in terms of `lamina.ops`.

Each takes a tensor (an array, a Variable or a KerasTensor: on a KerasTensor every op
becomes a graph node, so an activation can sit inside a functional model) and returns a
tensor of the same shape. Names, arguments and defaults are Keras 3's.
"""

from __future__ import annotations

from typing import Any

from lamina import ops

TensorLike = Any  # an engine array, a NumPy array, a Variable or a KerasTensor


def linear(x: TensorLike) -> TensorLike:
    """Identity: returns `x` unchanged. What `activation=None` means.

    >>> linear(2.5)
    2.5
    """
    return x


def relu(
    x: TensorLike,
    negative_slope: float = 0.0,
    max_value: float | None = None,
    threshold: float = 0.0,
) -> TensorLike:
    """Rectified linear unit: `max(x, 0)` by default.

    With other arguments: `x` above `threshold` (capped at `max_value`), and
    `negative_slope * (x - threshold)` at or below it.

    Args:
        x: input tensor.
        negative_slope: slope below `threshold` (leaky when > 0).
        max_value: saturation cap; the output is clipped to `[0, max_value]` before the
            negative part is added. None for no cap.
        threshold: values at or below it are zeroed (or scaled by `negative_slope`).

    >>> import numpy as np
    >>> np.asarray(relu(np.array([-2.0, 0.5, 9.0]), max_value=6.0)).tolist()
    [0.0, 0.5, 6.0]
    """
    if negative_slope != 0.0 and max_value is None and threshold == 0.0:
        return ops.leaky_relu(x, negative_slope=negative_slope)
    clip = max_value is not None
    if threshold != 0.0:
        out = ops.where(ops.greater(x, threshold), x, 0.0)
    elif max_value == 6:
        out, clip = ops.relu6(x), False  # the engine's native op
    else:
        out = ops.relu(x)
    if clip:
        out = ops.clip(out, 0.0, max_value)
    if negative_slope != 0.0:
        out = out - negative_slope * ops.relu(threshold - x)
    return out


def relu6(x: TensorLike) -> TensorLike:
    """ReLU capped at 6: `min(max(x, 0), 6)`.

    >>> import numpy as np
    >>> np.asarray(relu6(np.array([-1.0, 3.0, 8.0]))).tolist()
    [0.0, 3.0, 6.0]
    """
    return ops.relu6(x)


def leaky_relu(x: TensorLike, negative_slope: float = 0.2) -> TensorLike:
    """Leaky ReLU: `x` if `x >= 0` else `negative_slope * x`.

    >>> import numpy as np
    >>> np.asarray(leaky_relu(np.array([-1.0, 2.0])), float).round(3).tolist()
    [-0.2, 2.0]
    """
    return ops.leaky_relu(x, negative_slope=negative_slope)


def sigmoid(x: TensorLike) -> TensorLike:
    """Logistic sigmoid: `1 / (1 + exp(-x))`.

    >>> import numpy as np
    >>> np.asarray(sigmoid(np.array([0.0]))).tolist()
    [0.5]
    """
    return ops.sigmoid(x)


def hard_sigmoid(x: TensorLike) -> TensorLike:
    """Piecewise-linear sigmoid: `clip(x / 6 + 0.5, 0, 1)` (Keras 3's definition).

    >>> import numpy as np
    >>> np.asarray(hard_sigmoid(np.array([-4.0, 0.0, 4.0]))).tolist()
    [0.0, 0.5, 1.0]
    """
    return ops.hard_sigmoid(x)


def hard_silu(x: TensorLike) -> TensorLike:
    """Hard SiLU (hard swish): `x * hard_sigmoid(x)`.

    >>> import numpy as np
    >>> np.asarray(hard_silu(np.array([0.0, 4.0]))).tolist()
    [0.0, 4.0]
    """
    return ops.hard_silu(x)


hard_swish = hard_silu


def tanh(x: TensorLike) -> TensorLike:
    """Hyperbolic tangent.

    >>> import numpy as np
    >>> np.asarray(tanh(np.array([0.0]))).tolist()
    [0.0]
    """
    return ops.tanh(x)


def hard_tanh(x: TensorLike) -> TensorLike:
    """Piecewise-linear tanh: `clip(x, -1, 1)`.

    >>> import numpy as np
    >>> np.asarray(hard_tanh(np.array([-3.0, 0.5, 3.0]))).tolist()
    [-1.0, 0.5, 1.0]
    """
    return ops.hard_tanh(x)


def softmax(x: TensorLike, axis: int = -1) -> TensorLike:
    """Softmax over `axis`: exponentials normalized to sum to 1.

    >>> import numpy as np
    >>> np.asarray(softmax(np.zeros((1, 4)))).tolist()
    [[0.25, 0.25, 0.25, 0.25]]
    """
    return ops.softmax(x, axis=axis)


def log_softmax(x: TensorLike, axis: int = -1) -> TensorLike:
    """Logarithm of the softmax over `axis`, computed stably.

    >>> import numpy as np
    >>> np.asarray(log_softmax(np.zeros((1, 2))), float).round(4).tolist()
    [[-0.6931, -0.6931]]
    """
    return ops.log_softmax(x, axis=axis)


def sparsemax(x: TensorLike, axis: int = -1) -> TensorLike:
    """Sparsemax (Martins & Astudillo, 2016): the Euclidean projection onto the simplex.

    Like softmax it sums to 1 over `axis`, but small entries become exactly zero.

    >>> import numpy as np
    >>> np.asarray(sparsemax(np.array([[2.0, 1.0, -1.0]]))).tolist()
    [[1.0, 0.0, 0.0]]
    """
    descending = -ops.sort(-x, axis=axis)
    cumulative = ops.cumsum(descending, axis=axis)
    rank = ops.cumsum(ops.ones_like(descending), axis=axis)
    # The support is a prefix of the sorted entries: those above the running threshold.
    support = ops.greater(1.0 + rank * descending, cumulative)
    k = ops.sum(ops.cast(support, ops.dtype(descending)), axis=axis, keepdims=True)
    top_sum = ops.sum(ops.where(support, descending, 0.0), axis=axis, keepdims=True)
    return ops.relu(ops.subtract(x, (top_sum - 1.0) / k))


def softplus(x: TensorLike) -> TensorLike:
    """Softplus: `log(exp(x) + 1)`.

    >>> import numpy as np
    >>> np.asarray(softplus(np.array([0.0])), float).round(4).tolist()
    [0.6931]
    """
    return ops.softplus(x)


def softsign(x: TensorLike) -> TensorLike:
    """Softsign: `x / (abs(x) + 1)`.

    >>> import numpy as np
    >>> np.asarray(softsign(np.array([-3.0, 1.0]))).tolist()
    [-0.75, 0.5]
    """
    return ops.softsign(x)


def squareplus(x: TensorLike, b: float = 4) -> TensorLike:
    """Squareplus: `(x + sqrt(x**2 + b)) / 2`, a smooth ReLU.

    >>> import numpy as np
    >>> np.asarray(squareplus(np.array([0.0, 2.0])), float).round(4).tolist()
    [1.0, 2.4142]
    """
    return ops.add(x, ops.sqrt(ops.square(x) + b)) / 2.0


def sparse_plus(x: TensorLike) -> TensorLike:
    """SparsePlus: 0 for `x <= -1`, `x` for `x >= 1`, `(x + 1)**2 / 4` between.

    >>> import numpy as np
    >>> np.asarray(sparse_plus(np.array([-2.0, 0.0, 2.0]))).tolist()
    [0.0, 0.25, 2.0]
    """
    middle = ops.square(x + 1.0) / 4.0
    return ops.where(ops.less_equal(x, -1.0), 0.0, ops.where(ops.greater_equal(x, 1.0), x, middle))


def sparse_sigmoid(x: TensorLike) -> TensorLike:
    """Sparse sigmoid: 0 for `x <= -1`, 1 for `x >= 1`, `(x + 1) / 2` between.

    >>> import numpy as np
    >>> np.asarray(sparse_sigmoid(np.array([-2.0, 0.0, 2.0]))).tolist()
    [0.0, 0.5, 1.0]
    """
    return ops.clip((x + 1.0) / 2.0, 0.0, 1.0)


def elu(x: TensorLike, alpha: float = 1.0) -> TensorLike:
    """Exponential linear unit: `x` if `x > 0` else `alpha * (exp(x) - 1)`.

    >>> import numpy as np
    >>> np.asarray(elu(np.array([-20.0, 2.0])), float).round(4).tolist()
    [-1.0, 2.0]
    """
    return ops.elu(x, alpha=alpha)


def celu(x: TensorLike, alpha: float = 1.0) -> TensorLike:
    """Continuously differentiable ELU: `x` if `x >= 0` else `alpha * (exp(x / alpha) - 1)`.

    >>> import numpy as np
    >>> np.asarray(celu(np.array([-40.0, 2.0]), alpha=2.0), float).round(4).tolist()
    [-2.0, 2.0]
    """
    return ops.where(ops.greater_equal(x, 0.0), x, alpha * ops.expm1(ops.minimum(x, 0.0) / alpha))


def selu(x: TensorLike) -> TensorLike:
    """Scaled ELU with the self-normalizing constants of Klambauer et al. (2017).

    `scale * x` if `x > 0` else `scale * alpha * (exp(x) - 1)`, with
    `alpha ~ 1.67326` and `scale ~ 1.05070`.

    >>> import numpy as np
    >>> np.asarray(selu(np.array([1.0])), float).round(4).tolist()
    [1.0507]
    """
    return ops.selu(x)


def gelu(x: TensorLike, approximate: bool = False) -> TensorLike:
    """Gaussian error linear unit: `x * P(X <= x)` for a standard normal `X`.

    Args:
        x: input tensor.
        approximate: use the tanh approximation instead of the exact erf form.

    >>> import numpy as np
    >>> np.asarray(gelu(np.array([0.0, 1.0])), float).round(4).tolist()
    [0.0, 0.8413]
    """
    return ops.gelu(x, approximate=approximate)


def silu(x: TensorLike) -> TensorLike:
    """Sigmoid linear unit (swish): `x * sigmoid(x)`.

    >>> import numpy as np
    >>> np.asarray(silu(np.array([0.0, 1.0])), float).round(4).tolist()
    [0.0, 0.7311]
    """
    return ops.silu(x)


swish = silu


def glu(x: TensorLike, axis: int = -1) -> TensorLike:
    """Gated linear unit: split `x` in two halves `a, b` along `axis`; `a * sigmoid(b)`.

    >>> import numpy as np
    >>> np.asarray(glu(np.array([[2.0, 0.0]]))).tolist()
    [[1.0]]
    """
    size = ops.shape(x)[axis]
    if size is not None and size % 2 != 0:
        raise ValueError(
            f"glu splits axis {axis} in two halves, so its size must be even; received "
            f"shape {tuple(ops.shape(x))}."
        )
    a, b = ops.split(x, 2, axis=axis)
    return a * ops.sigmoid(b)


def exponential(x: TensorLike) -> TensorLike:
    """Exponential: `exp(x)`.

    >>> import numpy as np
    >>> np.asarray(exponential(np.array([0.0]))).tolist()
    [1.0]
    """
    return ops.exp(x)


def log_sigmoid(x: TensorLike) -> TensorLike:
    """Logarithm of the sigmoid, computed stably: `-softplus(-x)`.

    >>> import numpy as np
    >>> np.asarray(log_sigmoid(np.array([0.0])), float).round(4).tolist()
    [-0.6931]
    """
    return ops.log_sigmoid(x)


def mish(x: TensorLike) -> TensorLike:
    """Mish (Misra, 2019): `x * tanh(softplus(x))`.

    >>> import numpy as np
    >>> np.asarray(mish(np.array([0.0, 1.0])), float).round(4).tolist()
    [0.0, 0.8651]
    """
    return ops.mish(x)


def hard_shrink(x: TensorLike, threshold: float = 0.5) -> TensorLike:
    """Hard shrinkage: `x` where `abs(x) > threshold`, else 0.

    >>> import numpy as np
    >>> np.asarray(hard_shrink(np.array([-1.0, 0.2, 1.5]))).tolist()
    [-1.0, 0.0, 1.5]
    """
    return ops.where(ops.greater(ops.abs(x), threshold), x, 0.0)


def soft_shrink(x: TensorLike, threshold: float = 0.5) -> TensorLike:
    """Soft shrinkage: moves `x` toward 0 by `threshold`, and zeroes `abs(x) <= threshold`.

    >>> import numpy as np
    >>> np.asarray(soft_shrink(np.array([-1.0, 0.2, 1.5]))).tolist()
    [-0.5, 0.0, 1.0]
    """
    return ops.where(
        ops.greater(x, threshold),
        x - threshold,
        ops.where(ops.less(x, -threshold), x + threshold, 0.0),
    )


def tanh_shrink(x: TensorLike) -> TensorLike:
    """Tanh shrinkage: `x - tanh(x)`.

    >>> import numpy as np
    >>> np.asarray(tanh_shrink(np.array([0.0]))).tolist()
    [0.0]
    """
    return ops.subtract(x, ops.tanh(x))


def threshold(x: TensorLike, threshold: float, default_value: float) -> TensorLike:
    """`x` where `x > threshold`, else `default_value`.

    >>> import numpy as np
    >>> np.asarray(threshold(np.array([-1.0, 2.0]), 0.0, -5.0)).tolist()
    [-5.0, 2.0]
    """
    return ops.where(ops.greater(x, threshold), x, default_value)
