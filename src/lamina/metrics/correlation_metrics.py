"""Correlation metrics: Pearson's and Lin's concordance correlation coefficients.

Each is computed per sample along `axis` and averaged over batches (weighted by
`sample_weight`), as Keras 3 does; they are not the coefficient of the whole dataset.
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.common import serialization
from lamina.losses.loss import graph_function, squeeze_or_expand_to_same_rank
from lamina.metrics.reduction_metrics import MeanMetricWrapper


def _prepare(y_true, y_pred):
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, ops.dtype(y_pred))
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


@graph_function
def pearson_correlation(y_true, y_pred, axis=-1):
    """Pearson's correlation coefficient of `y_true` and `y_pred` along `axis`.

    The mean product of the standardized values (population standard deviations); a
    constant row has no correlation and gives NaN.

    >>> [round(v, 4) for v in pearson_correlation([[1.0, 2.0, 3.0]], [[2.0, 4.0, 7.0]]).tolist()]
    [0.9934]
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    true_centered = y_true - ops.mean(y_true, axis=axis, keepdims=True)
    pred_centered = y_pred - ops.mean(y_pred, axis=axis, keepdims=True)
    true_standard = true_centered / ops.std(true_centered, axis=axis, keepdims=True)
    pred_standard = pred_centered / ops.std(pred_centered, axis=axis, keepdims=True)
    return ops.mean(true_standard * pred_standard, axis=axis)


@graph_function
def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation coefficient along `axis`, written as Keras 3.15 does.

    `mean(2 * (y_true - mean(y_pred)) * (y_pred - mean(y_pred)) / (var(y_true) +
    var(y_pred) + (mean(y_true) - mean(y_pred)) ** 2 + epsilon))`. Keras centres
    `y_true` on the mean of `y_pred` in the numerator (Lin's coefficient centres it on
    its own mean); lamina gives Keras's values, so the two agree when the means match.

    >>> [round(v, 4) for v in concordance_correlation([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]]).tolist()]
    [1.0]
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    true_mean = ops.mean(y_true, axis=axis, keepdims=True)
    pred_mean = ops.mean(y_pred, axis=axis, keepdims=True)
    true_var = ops.var(y_true - true_mean, axis=axis, keepdims=True)
    pred_var = ops.var(y_pred - pred_mean, axis=axis, keepdims=True)
    covariance = (y_true - pred_mean) * (y_pred - pred_mean)
    norm = true_var + pred_var + ops.square(true_mean - pred_mean)
    return ops.mean(2.0 * covariance / (norm + backend.epsilon()), axis=axis)


class PearsonCorrelation(MeanMetricWrapper):
    """The mean over samples of Pearson's correlation along `axis`.

    Args:
        name: the metric name.
        dtype: the dtype of the state.
        axis: the axis the correlation is taken along (default -1).

    >>> m = PearsonCorrelation()
    >>> round(float(m([[1.0, 2.0, 3.0]], [[2.0, 4.0, 7.0]])), 4)
    0.9934
    """

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(pearson_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self._dtype, "axis": self.axis}


class ConcordanceCorrelation(MeanMetricWrapper):
    """The mean over samples of the concordance correlation along `axis` (see
    `concordance_correlation`).

    Args:
        name: the metric name.
        dtype: the dtype of the state.
        axis: the axis the coefficient is taken along (default -1).

    >>> m = ConcordanceCorrelation()
    >>> round(float(m([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]])), 4)
    1.0
    """

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(concordance_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self._dtype, "axis": self.axis}


for _obj in (
    pearson_correlation,
    concordance_correlation,
    PearsonCorrelation,
    ConcordanceCorrelation,
):
    serialization.register_builtin("metrics", _obj)
