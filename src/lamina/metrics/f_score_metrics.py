"""F-scores: `FBetaScore` and `F1Score`, per class or averaged (micro, macro, weighted).

The state is one running count per class (or a single count for `"micro"`), so the
metric needs the number of classes: it is read from `y_pred` at `build`, which a
trainer calls before compiling and `update_state` calls on first use.
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.common import serialization
from lamina.losses.loss import broadcast_weights
from lamina.metrics.metric import Metric

_AVERAGES = (None, "micro", "macro", "weighted")


class FBetaScore(Metric):
    """The F-beta score: `(1 + beta**2) * precision * recall / (beta**2 * precision + recall)`.

    Targets and predictions have shape `(batch, num_classes)` (one-hot or multi-label).

    Args:
        average: `None` (one score per class), `"micro"` (pool every class's counts),
            `"macro"` (unweighted mean of class scores) or `"weighted"` (mean weighted
            by each class's support).
        beta: how many times more recall counts than precision.
        threshold: predictions above it count as positive; `None` takes the argmax of
            each sample as its one positive.
        name: the metric name.
        dtype: the dtype of the state.

    >>> m = FBetaScore(beta=2.0, threshold=0.5)
    >>> [round(float(v), 4) for v in m([[1, 0], [0, 1]], [[0.9, 0.6], [0.2, 0.7]])]
    [1.0, 0.8333]
    """

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if average not in _AVERAGES:
            raise ValueError(
                f"{type(self).__name__}: invalid average {average!r}; expected one of "
                f"{list(_AVERAGES)}."
            )
        if not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"{type(self).__name__}: beta must be a float > 0, received {beta!r}.")
        if threshold is not None and not 0.0 < float(threshold) <= 1.0:
            raise ValueError(
                f"{type(self).__name__}: threshold must be in (0, 1], received {threshold!r}."
            )
        self.average = average
        self.beta = float(beta)
        self.threshold = threshold
        self.axis = None if average == "micro" else 0
        self.built = False

    def build(self, y_true_shape, y_pred_shape) -> None:
        if self.built:
            return
        y_pred_shape = tuple(y_pred_shape)
        if len(y_pred_shape) != 2 or y_pred_shape[-1] is None:
            raise ValueError(
                f"{type(self).__name__} expects predictions of shape (batch, num_classes) "
                f"with a known number of classes, received shape {y_pred_shape}."
            )
        shape = () if self.average == "micro" else (int(y_pred_shape[-1]),)
        self.true_positives = self.add_variable(shape, name="true_positives")
        self.false_positives = self.add_variable(shape, name="false_positives")
        self.false_negatives = self.add_variable(shape, name="false_negatives")
        self.intermediate_weights = self.add_variable(shape, name="intermediate_weights")
        self.built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = ops.convert_to_tensor(y_true, dtype=self.dtype)
        y_pred = ops.convert_to_tensor(y_pred, dtype=self.dtype)
        if not self.built:
            self.build(ops.shape(y_true), ops.shape(y_pred))
        if self.threshold is None:
            top = ops.max(y_pred, axis=-1, keepdims=True)
            # An all-zero row must not make every class positive.
            positive = ops.logical_and(y_pred >= top, ops.abs(y_pred) > 1e-9)
        else:
            positive = y_pred > self.threshold
        y_pred = ops.cast(positive, self.dtype)
        weights = None
        if sample_weight is not None:
            weights = broadcast_weights(ops.cast(sample_weight, self.dtype), y_pred)

        def weighted_sum(values):
            if weights is not None:
                values = values * weights
            return ops.sum(values, axis=self.axis)

        self.true_positives.assign_add(weighted_sum(y_pred * y_true))
        self.false_positives.assign_add(weighted_sum(y_pred * (1.0 - y_true)))
        self.false_negatives.assign_add(weighted_sum((1.0 - y_pred) * y_true))
        self.intermediate_weights.assign_add(weighted_sum(y_true))

    def result(self):
        if not self.built:
            return ops.convert_to_tensor(0.0, dtype=self.dtype)
        epsilon = backend.epsilon()
        tp = self.true_positives.value
        precision = tp / (tp + self.false_positives.value + epsilon)
        recall = tp / (tp + self.false_negatives.value + epsilon)
        beta2 = self.beta**2
        score = (1.0 + beta2) * precision * recall / (beta2 * precision + recall + epsilon)
        if self.average == "weighted":
            support = self.intermediate_weights.value
            return ops.sum(score * support / (ops.sum(support) + epsilon))
        if self.average is not None:
            return ops.mean(score)
        return score

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "average": self.average,
            "beta": self.beta,
            "threshold": self.threshold,
        }


class F1Score(FBetaScore):
    """The F1 score, the harmonic mean of precision and recall (`FBetaScore` with beta 1).

    Args:
        average: `None`, `"micro"`, `"macro"` or `"weighted"` (see `FBetaScore`).
        threshold: predictions above it count as positive; `None` takes the argmax.
        name: the metric name.
        dtype: the dtype of the state.

    >>> m = F1Score(average="micro", threshold=0.5)
    >>> round(float(m([[1, 0], [0, 1]], [[0.9, 0.6], [0.2, 0.7]])), 4)
    0.8
    """

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["beta"]
        return config


for _cls in (FBetaScore, F1Score):
    serialization.register_builtin("metrics", _cls)
