"""Regression losses: squared, absolute, percentage, logarithmic, Huber, log-cosh, cosine.

Each loss is a function returning one value per sample (the mean over the last axis)
and a `LossFunctionWrapper` class with Keras's name and defaults.
"""

from __future__ import annotations

import math

from lamina import backend, ops
from lamina.common import serialization
from lamina.losses.loss import (
    LossFunctionWrapper,
    graph_function,
    squeeze_or_expand_to_same_rank,
)


def _prepare(y_true, y_pred):
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, ops.dtype(y_pred))
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


@graph_function
def mean_squared_error(y_true, y_pred):
    """Mean of `(y_true - y_pred) ** 2` over the last axis.

    >>> float(mean_squared_error([[0.0, 1.0]], [[1.0, 1.0]])[0])
    0.5
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    return ops.mean(ops.square(y_true - y_pred), axis=-1)


@graph_function
def mean_absolute_error(y_true, y_pred):
    """Mean of `abs(y_true - y_pred)` over the last axis.

    >>> float(mean_absolute_error([[0.0, 1.0]], [[1.0, 3.0]])[0])
    1.5
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    return ops.mean(ops.abs(y_true - y_pred), axis=-1)


@graph_function
def mean_absolute_percentage_error(y_true, y_pred):
    """`100 * mean(abs((y_true - y_pred) / max(abs(y_true), epsilon)))` over the last axis.

    >>> float(mean_absolute_percentage_error([[2.0, 4.0]], [[1.0, 4.0]])[0])
    25.0
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    diff = ops.abs((y_true - y_pred) / ops.maximum(ops.abs(y_true), backend.epsilon()))
    return 100.0 * ops.mean(diff, axis=-1)


@graph_function
def mean_squared_logarithmic_error(y_true, y_pred):
    """Mean of `(log(1 + y_pred) - log(1 + y_true)) ** 2`, inputs floored at epsilon.

    >>> round(float(mean_squared_logarithmic_error([[0.0]], [[1.0]])[0]), 4)
    0.4805
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    first = ops.log(ops.maximum(y_pred, backend.epsilon()) + 1.0)
    second = ops.log(ops.maximum(y_true, backend.epsilon()) + 1.0)
    return ops.mean(ops.square(first - second), axis=-1)


@graph_function
def huber(y_true, y_pred, delta=1.0):
    """Quadratic for errors up to `delta`, linear beyond: robust to outliers.

    >>> float(huber([[0.0, 0.0]], [[0.5, 3.0]])[0])
    1.3125
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    error = y_pred - y_true
    abs_error = ops.abs(error)
    quadratic = 0.5 * ops.square(error)
    linear = delta * abs_error - 0.5 * delta**2
    return ops.mean(ops.where(abs_error <= delta, quadratic, linear), axis=-1)


@graph_function
def log_cosh(y_true, y_pred):
    """Mean of `log(cosh(y_pred - y_true))`, computed without overflow.

    >>> round(float(log_cosh([[0.0]], [[1.0]])[0]), 4)
    0.4338
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    x = y_pred - y_true
    return ops.mean(x + ops.softplus(-2.0 * x) - math.log(2.0), axis=-1)


def l2_normalize(x, axis=-1):
    """`x / max(norm(x), epsilon)` along `axis`."""
    square_sum = ops.sum(ops.square(x), axis=axis, keepdims=True)
    return x * ops.rsqrt(ops.maximum(square_sum, backend.epsilon() ** 2))


@graph_function
def cosine_similarity(y_true, y_pred, axis=-1):
    """Negative cosine similarity: -1 when aligned, 0 when orthogonal (so lower is better).

    >>> float(cosine_similarity([[1.0, 0.0]], [[2.0, 0.0]])[0])
    -1.0
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    return -ops.sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis=axis)


class MeanSquaredError(LossFunctionWrapper):
    """Mean of squared errors: `mean((y_true - y_pred) ** 2)`.

    Args:
        reduction: see `Loss` (default `"sum_over_batch_size"`).
        name: the loss name.
        dtype: the compute dtype.

    >>> float(MeanSquaredError()([[0.0, 1.0]], [[1.0, 1.0]]))
    0.5
    """

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, reduction=reduction, name=name, dtype=dtype)


class MeanAbsoluteError(LossFunctionWrapper):
    """Mean of absolute errors: `mean(abs(y_true - y_pred))`.

    >>> float(MeanAbsoluteError()([[0.0, 1.0]], [[1.0, 3.0]]))
    1.5
    """

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, reduction=reduction, name=name, dtype=dtype)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """Mean absolute error as a percentage of the target.

    >>> float(MeanAbsolutePercentageError()([[2.0, 4.0]], [[1.0, 4.0]]))
    25.0
    """

    def __init__(
        self, reduction="sum_over_batch_size", name="mean_absolute_percentage_error", dtype=None
    ):
        super().__init__(
            mean_absolute_percentage_error, reduction=reduction, name=name, dtype=dtype
        )


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    """Mean squared error of `log(1 + x)`: for positive targets spanning magnitudes.

    >>> round(float(MeanSquaredLogarithmicError()([[0.0]], [[1.0]])), 4)
    0.4805
    """

    def __init__(
        self, reduction="sum_over_batch_size", name="mean_squared_logarithmic_error", dtype=None
    ):
        super().__init__(
            mean_squared_logarithmic_error, reduction=reduction, name=name, dtype=dtype
        )


class Huber(LossFunctionWrapper):
    """Huber loss: quadratic for `|error| <= delta`, linear beyond.

    Args:
        delta: where the loss turns from quadratic to linear.

    >>> float(Huber(delta=1.0)([[0.0, 0.0]], [[0.5, 3.0]]))
    1.3125
    """

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss", dtype=None):
        super().__init__(huber, reduction=reduction, name=name, dtype=dtype, delta=float(delta))


class LogCosh(LossFunctionWrapper):
    """`log(cosh(y_pred - y_true))`: like squared error near 0, absolute error far out.

    >>> round(float(LogCosh()([[0.0]], [[1.0]])), 4)
    0.4338
    """

    def __init__(self, reduction="sum_over_batch_size", name="log_cosh", dtype=None):
        super().__init__(log_cosh, reduction=reduction, name=name, dtype=dtype)


class CosineSimilarity(LossFunctionWrapper):
    """Negative cosine similarity between targets and predictions along `axis`.

    Args:
        axis: the axis along which the similarity is computed.

    >>> float(CosineSimilarity()([[1.0, 0.0]], [[2.0, 0.0]]))
    -1.0
    """

    def __init__(
        self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity", dtype=None
    ):
        super().__init__(cosine_similarity, reduction=reduction, name=name, dtype=dtype, axis=axis)


for _obj in (
    mean_squared_error,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_logarithmic_error,
    huber,
    log_cosh,
    cosine_similarity,
    MeanSquaredError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError,
    Huber,
    LogCosh,
    CosineSimilarity,
):
    serialization.register_builtin("losses", _obj)
