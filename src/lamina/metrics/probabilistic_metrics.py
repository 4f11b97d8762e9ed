"""Loss-named metrics: the batch-averaged cross-entropies, KL divergence, Poisson and hinges.

Each is a `MeanMetricWrapper` around the per-sample loss function of the same name in
`lamina.losses`, so `metrics=["binary_crossentropy"]` reports the same number the loss
would (before loss reduction and regularization).
"""

from __future__ import annotations

from lamina import ops
from lamina.common import serialization
from lamina.losses import probabilistic as _prob
from lamina.losses.hinge import categorical_hinge, hinge, squared_hinge
from lamina.losses.loss import squeeze_or_expand_to_same_rank
from lamina.metrics.reduction_metrics import MeanMetricWrapper


class BinaryCrossentropy(MeanMetricWrapper):
    """The mean binary cross-entropy between targets and predictions.

    Args:
        name: the metric name.
        dtype: the dtype of the state.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in `[0, 1]`, as in `losses.BinaryCrossentropy`.

    >>> round(float(BinaryCrossentropy()([[1.0, 0.0]], [[0.9, 0.2]])), 4)
    0.1643
    """

    def __init__(
        self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0
    ):
        super().__init__(
            _prob.binary_crossentropy,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
        )


class CategoricalCrossentropy(MeanMetricWrapper):
    """The mean cross-entropy between one-hot targets and class probabilities.

    Args:
        name: the metric name.
        dtype: the dtype of the state.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in `[0, 1]`, as in `losses.CategoricalCrossentropy`.
        axis: the class axis.

    >>> round(float(CategoricalCrossentropy()([[0.0, 1.0]], [[0.2, 0.8]])), 4)
    0.2231
    """

    def __init__(
        self,
        name="categorical_crossentropy",
        dtype=None,
        from_logits=False,
        label_smoothing=0,
        axis=-1,
    ):
        super().__init__(
            _prob.categorical_crossentropy,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The mean cross-entropy between integer labels and class probabilities.

    Args:
        name: the metric name.
        dtype: the dtype of the state.
        from_logits: whether `y_pred` holds logits.
        ignore_class: a label whose entries give 0. As in Keras, they leave the mean
            only when a `sample_weight` is given (their weight is then zeroed); without
            one they count as zeros.
        axis: the class axis.

    >>> round(float(SparseCategoricalCrossentropy()([1], [[0.2, 0.8]])), 4)
    0.2231
    """

    def __init__(
        self,
        name="sparse_categorical_crossentropy",
        dtype=None,
        from_logits=False,
        ignore_class=None,
        axis=-1,
    ):
        super().__init__(
            _prob.sparse_categorical_crossentropy,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            ignore_class=ignore_class,
            axis=axis,
        )

    def update_state(self, y_true, y_pred, sample_weight=None):
        ignore_class = self._fn_kwargs["ignore_class"]
        if ignore_class is None or sample_weight is None:
            return super().update_state(y_true, y_pred, sample_weight=sample_weight)
        y_true = ops.convert_to_tensor(y_true)
        values = self._fn(y_true, ops.convert_to_tensor(y_pred), **self._fn_kwargs)
        valid = ops.reshape(ops.not_equal(y_true, ignore_class), ops.shape(values))
        sample_weight, valid = squeeze_or_expand_to_same_rank(
            ops.cast(sample_weight, self.dtype), ops.cast(valid, self.dtype)
        )
        # The mean of the values, as MeanMetricWrapper's parent (`Mean`) takes them.
        return super(MeanMetricWrapper, self).update_state(
            values, sample_weight=sample_weight * valid
        )


class KLDivergence(MeanMetricWrapper):
    """The mean Kullback-Leibler divergence.

    >>> round(float(KLDivergence()([[0.5, 0.5]], [[0.25, 0.75]])), 4)
    0.1438
    """

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(_prob.kl_divergence, name=name, dtype=dtype)


class Poisson(MeanMetricWrapper):
    """The mean Poisson loss.

    >>> round(float(Poisson()([[1.0]], [[2.0]])), 4)
    1.3069
    """

    def __init__(self, name="poisson", dtype=None):
        super().__init__(_prob.poisson, name=name, dtype=dtype)


class Hinge(MeanMetricWrapper):
    """The mean hinge loss, for binary targets in {-1, 1} (or {0, 1}).

    >>> float(Hinge()([[1.0, 0.0]], [[0.5, -2.0]]))
    0.25
    """

    def __init__(self, name="hinge", dtype=None):
        super().__init__(hinge, name=name, dtype=dtype)


class SquaredHinge(MeanMetricWrapper):
    """The mean squared hinge loss.

    >>> float(SquaredHinge()([[1.0, 0.0]], [[0.5, -2.0]]))
    0.125
    """

    def __init__(self, name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, name=name, dtype=dtype)


class CategoricalHinge(MeanMetricWrapper):
    """The mean categorical hinge loss, for one-hot targets.

    >>> float(CategoricalHinge()([[0.0, 1.0]], [[0.3, 0.8]]))
    0.5
    """

    def __init__(self, name="categorical_hinge", dtype=None):
        super().__init__(categorical_hinge, name=name, dtype=dtype)


for _obj in (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    SparseCategoricalCrossentropy,
    KLDivergence,
    Poisson,
    Hinge,
    SquaredHinge,
    CategoricalHinge,
    _prob.binary_crossentropy,
    _prob.categorical_crossentropy,
    _prob.sparse_categorical_crossentropy,
    _prob.kl_divergence,
    _prob.poisson,
    hinge,
    squared_hinge,
    categorical_hinge,
):
    serialization.register_builtin("metrics", _obj)
