"""Reducing metrics: weighted `Mean` and `Sum`, and `MeanMetricWrapper` (the mean of a function).

Most built-in metrics are a `MeanMetricWrapper` around a per-sample function such as
`binary_accuracy` or `mean_squared_error`.
"""

from __future__ import annotations

from lamina import ops
from lamina.common import serialization
from lamina.losses.loss import broadcast_weights, squeeze_or_expand_to_same_rank
from lamina.metrics.metric import Metric


def reduce_to_samplewise_values(values, sample_weight, dtype, reduce_fn=ops.mean):
    """Weight `values` and reduce them down to one value (and one weight) per sample.

    Returns `(values, weights)`: values of shape `(batch,)` (or `()`), weighted, and the
    matching per-sample weights (`None` without `sample_weight`). Axes past the weights'
    (then past the batch) are reduced with `reduce_fn`: `ops.mean` for `Mean` (the ratio
    of the sums is then the weighted mean over every element), `ops.sum` for `Sum`
    (every element counts), as in Keras.
    """
    values = ops.cast(values, dtype)
    if sample_weight is not None:
        sample_weight = ops.cast(sample_weight, dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        weight_rank, value_rank = len(ops.shape(sample_weight)), len(ops.shape(values))
        if value_rank > weight_rank:
            values = reduce_fn(values, axis=tuple(range(weight_rank, value_rank)))
        sample_weight = broadcast_weights(sample_weight, values)
        values = values * sample_weight
        if weight_rank > 1:
            sample_weight = reduce_fn(sample_weight, axis=tuple(range(1, weight_rank)))
    if len(ops.shape(values)) > 1:
        values = reduce_fn(values, axis=tuple(range(1, len(ops.shape(values)))))
    return values, sample_weight


class Sum(Metric):
    """The (weighted) sum of the given values.

    Args:
        name: the metric name.
        dtype: the dtype of the state.

    >>> m = Sum()
    >>> m.update_state([1.0, 3.0, 5.0, 7.0])
    >>> m.update_state([[1.0, 2.0], [3.0, 4.0]], sample_weight=[1.0, 0.5])
    >>> float(m.result())
    22.5
    """

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = reduce_to_samplewise_values(values, sample_weight, self.dtype, ops.sum)
        self.total.assign_add(ops.sum(values))

    def result(self):
        return ops.convert_to_tensor(self.total.value)


class Mean(Metric):
    """The (weighted) mean of the given values.

    With `sample_weight`, the result is `sum(values * weights) / sum(weights)`.

    >>> m = Mean()
    >>> m.update_state([1.0, 3.0, 5.0, 7.0], sample_weight=[1.0, 1.0, 0.0, 0.0])
    >>> float(m.result())
    2.0
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), name="total")
        self.count = self.add_variable((), name="count")

    def update_state(self, values, sample_weight=None):
        if isinstance(sample_weight, (int, float)) and len(ops.shape(values)) == 0:
            # A batch's scalar loss weighted by its size (the loss tracker of every
            # training step): the general path's reshaping and broadcasting change nothing.
            self.total._add_scaled(ops.cast(values, self.dtype), float(sample_weight))
            self.count.assign_add(float(sample_weight))
            return
        values, sample_weight = reduce_to_samplewise_values(values, sample_weight, self.dtype)
        self.total.assign_add(ops.sum(values))
        if sample_weight is not None:
            count = ops.sum(sample_weight)
        else:
            shape = ops.shape(values)
            count = ops.cast(shape[0] if shape else 1, self.dtype)
        self.count.assign_add(count)

    def result(self):
        # `divide_no_nan` without its guard of the divisor, which only keeps a gradient
        # finite: a metric is not differentiated (one kernel fewer in each step).
        count = self.count.value
        return ops.where(ops.not_equal(count, 0), ops.divide(self.total.value, count), 0.0)


class MeanMetricWrapper(Mean):
    """The running weighted mean of `fn(y_true, y_pred, **kwargs)` over batches.

    Args:
        fn: a per-sample function `(y_true, y_pred, **kwargs) -> values`.
        name: the metric name.
        dtype: the dtype of the state.
        **kwargs: keyword arguments passed to `fn`.

    >>> def absolute_error(y_true, y_pred):
    ...     return ops.abs(ops.subtract(y_true, y_pred))
    >>> m = MeanMetricWrapper(absolute_error, name="ae")
    >>> float(m([1.0, 2.0], [2.0, 4.0]))
    1.5
    """

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", None), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = ops.convert_to_tensor(y_true), ops.convert_to_tensor(y_pred)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        super().update_state(values, sample_weight=sample_weight)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._fn_kwargs)
        if type(self) is MeanMetricWrapper:
            config["fn"] = serialization.serialize_keras_object(self._fn, "metrics")
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if cls is MeanMetricWrapper and "fn" in config:
            config["fn"] = serialization.deserialize_keras_object(
                config["fn"], "metrics", custom_objects, printable_module_name="metric function"
            )
        return cls(**config)


for _cls in (Metric, Sum, Mean, MeanMetricWrapper):
    serialization.register_builtin("metrics", _cls)
