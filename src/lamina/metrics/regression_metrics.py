"""Regression metrics: mean errors (squared, absolute, percentage, log), RMSE, cosine, R2.

The error metrics average the per-sample loss functions of `lamina.losses` over
batches; `RootMeanSquaredError` and `R2Score` keep their own totals.
"""

from __future__ import annotations

import math

from lamina import ops
from lamina.common import serialization
from lamina.losses import regression as _losses
from lamina.losses.loss import graph_function, squeeze_or_expand_to_same_rank
from lamina.metrics.metric import Metric
from lamina.metrics.reduction_metrics import Mean, MeanMetricWrapper


@graph_function
def cosine_similarity(y_true, y_pred, axis=-1):
    """Cosine similarity along `axis`: 1 when aligned, 0 when orthogonal.

    >>> float(cosine_similarity([[1.0, 0.0]], [[2.0, 0.0]])[0])
    1.0
    """
    return -_losses.cosine_similarity(y_true, y_pred, axis=axis)


class MeanSquaredError(MeanMetricWrapper):
    """The mean of squared errors.

    Args:
        name: the metric name.
        dtype: the dtype of the state.

    >>> float(MeanSquaredError()([[0.0, 1.0]], [[1.0, 1.0]]))
    0.5
    """

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(_losses.mean_squared_error, name=name, dtype=dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    """The mean of absolute errors.

    >>> float(MeanAbsoluteError()([[0.0, 1.0]], [[1.0, 3.0]]))
    1.5
    """

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(_losses.mean_absolute_error, name=name, dtype=dtype)


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """The mean absolute error as a percentage of the target.

    >>> float(MeanAbsolutePercentageError()([[2.0, 4.0]], [[1.0, 4.0]]))
    25.0
    """

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(_losses.mean_absolute_percentage_error, name=name, dtype=dtype)


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    """The mean squared error of `log(1 + x)`.

    >>> round(float(MeanSquaredLogarithmicError()([[0.0]], [[1.0]])), 4)
    0.4805
    """

    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(_losses.mean_squared_logarithmic_error, name=name, dtype=dtype)


class LogCoshError(MeanMetricWrapper):
    """The mean of `log(cosh(y_pred - y_true))`.

    >>> round(float(LogCoshError()([[0.0]], [[1.0]])), 4)
    0.4338
    """

    def __init__(self, name="logcosh", dtype=None):
        super().__init__(_losses.log_cosh, name=name, dtype=dtype)


class CosineSimilarity(MeanMetricWrapper):
    """The mean cosine similarity between targets and predictions along `axis`.

    Args:
        name: the metric name.
        dtype: the dtype of the state.
        axis: the axis along which the similarity is computed.

    >>> float(CosineSimilarity()([[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [1.0, 0.0]]))
    0.5
    """

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(cosine_similarity, name=name, dtype=dtype, axis=axis)


class RootMeanSquaredError(Mean):
    """The square root of the (weighted) mean squared error over everything seen.

    >>> round(float(RootMeanSquaredError()([[0.0, 0.0]], [[3.0, 4.0]])), 4)
    3.5355
    """

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = ops.convert_to_tensor(y_pred, dtype=self.dtype)
        y_true = ops.convert_to_tensor(y_true, dtype=self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        super().update_state(ops.square(y_pred - y_true), sample_weight=sample_weight)

    def result(self):
        return ops.sqrt(super().result())


_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


class R2Score(Metric):
    """The coefficient of determination: `1 - residual sum of squares / total sum of squares`.

    Targets have shape `(batch, num_outputs)` (or `(batch,)` for one output); each
    output gets a score, then they are aggregated.

    Args:
        class_aggregation: `"uniform_average"` (mean of the scores),
            `"variance_weighted_average"` (weighted by each output's variance), or
            `None` (one score per output).
        num_regressors: the number of independent variables, for the adjusted R2
            (0 gives the plain R2).
        name: the metric name.
        dtype: the dtype of the state.

    >>> round(float(R2Score()([[1.0], [2.0], [3.0]], [[1.0], [2.0], [4.0]])), 4)
    0.5
    """

    def __init__(
        self, class_aggregation="uniform_average", num_regressors=0, name="r2_score", dtype=None
    ):
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in _AGGREGATIONS:
            raise ValueError(
                f"R2Score: invalid class_aggregation {class_aggregation!r}; expected one of "
                f"{list(_AGGREGATIONS)}."
            )
        if num_regressors < 0:
            raise ValueError(f"R2Score: num_regressors must be >= 0, received {num_regressors}.")
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable((), name="num_samples")
        self.built = False

    def build(self, y_true_shape, y_pred_shape) -> None:
        if self.built:
            return
        shape = tuple(y_pred_shape)
        if len(shape) > 2 or (len(shape) == 2 and shape[-1] is None):
            raise ValueError(
                "R2Score expects inputs of shape (batch, num_outputs) or (batch,), received "
                f"predictions of shape {shape}."
            )
        outputs = (int(shape[-1]),) if len(shape) == 2 else (1,)
        self.squared_sum = self.add_variable(outputs, name="squared_sum")
        self.sum = self.add_variable(outputs, name="sum")
        self.total_mse = self.add_variable(outputs, name="residual")
        self.count = self.add_variable(outputs, name="count")
        self.built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = ops.convert_to_tensor(y_true, dtype=self.dtype)
        y_pred = ops.convert_to_tensor(y_pred, dtype=self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if not self.built:
            self.build(ops.shape(y_true), ops.shape(y_pred))
        if len(ops.shape(y_pred)) == 1:
            y_true, y_pred = ops.expand_dims(y_true, -1), ops.expand_dims(y_pred, -1)
        weights = ops.ones_like(y_true)
        if sample_weight is not None:
            weights = ops.convert_to_tensor(sample_weight, dtype=self.dtype)
            if len(ops.shape(weights)) == 1:
                weights = ops.expand_dims(weights, 1)
            weights = ops.broadcast_to(weights, ops.shape(y_true))
        weighted_true = y_true * weights
        self.sum.assign_add(ops.sum(weighted_true, axis=0))
        self.squared_sum.assign_add(ops.sum(y_true * weighted_true, axis=0))
        self.total_mse.assign_add(ops.sum(ops.square(y_true - y_pred) * weights, axis=0))
        self.count.assign_add(ops.sum(weights, axis=0))
        # Keras counts every target value (batch * outputs) as a sample of the adjusted R2.
        self.num_samples.assign_add(ops.cast(math.prod(ops.shape(y_true)), self.dtype))

    def result(self):
        mean = self.sum.value / self.count.value
        total = self.squared_sum.value - self.sum.value * mean
        raw = 1.0 - self.total_mse.value / total
        raw = ops.where(ops.isinf(raw), 0.0, raw)
        if self.class_aggregation == "uniform_average":
            score = ops.mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = ops.sum(total * raw) / ops.sum(total)
        else:
            score = raw
        if self.num_regressors:
            n, p = self.num_samples.value, float(self.num_regressors)
            # Undefined with too few samples: the plain R2 there, as in Keras (which
            # also warns; a compiled step cannot).
            defined = n - p - 1.0 > 0
            adjusted = 1.0 - (1.0 - score) * (n - 1.0) / ops.where(defined, n - p - 1.0, 1.0)
            score = ops.where(defined, adjusted, score)
        return score

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "class_aggregation": self.class_aggregation,
            "num_regressors": self.num_regressors,
        }


for _obj in (
    cosine_similarity,
    MeanSquaredError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError,
    LogCoshError,
    CosineSimilarity,
    RootMeanSquaredError,
    R2Score,
):
    serialization.register_builtin("metrics", _obj)
for _fn in (
    _losses.mean_squared_error,
    _losses.mean_absolute_error,
    _losses.mean_absolute_percentage_error,
    _losses.mean_squared_logarithmic_error,
    _losses.log_cosh,
):
    serialization.register_builtin("metrics", _fn)
