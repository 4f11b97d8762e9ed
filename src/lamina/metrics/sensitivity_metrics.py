"""One rate at a fixed value of another: PrecisionAtRecall, RecallAtPrecision,
SensitivityAtSpecificity and SpecificityAtSensitivity.

Each counts TP/FP/TN/FN at `num_thresholds` thresholds spread evenly over `[0, 1]` (the
counting of `confusion_metrics`), then returns the best value of one rate among the
thresholds where the other reaches its target (0 when none does).
"""

from __future__ import annotations

from lamina import ops
from lamina.common import serialization
from lamina.losses.loss import divide_no_nan
from lamina.metrics.confusion_metrics import confusion_counts
from lamina.metrics.metric import Metric


class _RateAtRate(Metric):
    """Shared state and update: four counts per threshold."""

    _target_name = ""

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        who = type(self).__name__
        if not 0 <= value <= 1:
            raise ValueError(f"{who}: `{self._target_name}` must be in [0, 1]; received {value!r}.")
        if int(num_thresholds) != num_thresholds or num_thresholds <= 0:
            raise ValueError(
                f"{who}: `num_thresholds` must be an integer > 0; received {num_thresholds!r}."
            )
        super().__init__(name=name, dtype=dtype)
        self.value = value
        self.num_thresholds = int(num_thresholds)
        self.class_id = class_id
        if self.num_thresholds == 1:
            self.thresholds = [0.5]
        else:
            n = self.num_thresholds
            self.thresholds = [0.0, *((i + 1) / (n - 1) for i in range(n - 2)), 1.0]
        shape = (len(self.thresholds),)
        self.true_positives = self.add_variable(shape, name="true_positives")
        self.false_positives = self.add_variable(shape, name="false_positives")
        self.true_negatives = self.add_variable(shape, name="true_negatives")
        self.false_negatives = self.add_variable(shape, name="false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Count (weighted) TP/FP/TN/FN at every threshold (`y_pred > threshold`)."""
        counts = confusion_counts(
            y_true, y_pred, self.thresholds, sample_weight, class_id=self.class_id
        )
        self.true_positives.assign_add(counts["tp"])
        self.false_positives.assign_add(counts["fp"])
        self.true_negatives.assign_add(counts["tn"])
        self.false_negatives.assign_add(counts["fn"])

    def _rates(self):
        tp, fp = self.true_positives.value, self.false_positives.value
        tn, fn = self.true_negatives.value, self.false_negatives.value
        return {
            "recall": divide_no_nan(tp, tp + fn),
            "precision": divide_no_nan(tp, tp + fp),
            "specificity": divide_no_nan(tn, tn + fp),
        }

    def _best(self, constrained, dependent):
        feasible = constrained >= self.value
        return ops.maximum(ops.max(ops.where(feasible, dependent, 0.0)), 0.0)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "class_id": self.class_id,
            "num_thresholds": self.num_thresholds,
            self._target_name: self.value,
        }


class PrecisionAtRecall(_RateAtRate):
    """The best precision at any threshold where recall is at least `recall`.

    Args:
        recall: the recall to reach, in `[0, 1]`.
        num_thresholds: how many thresholds to try, evenly over `[0, 1]` (default 200).
        class_id: compute the metric for this class (last axis) only.
        name: the metric name.
        dtype: the dtype of the state.

    >>> m = PrecisionAtRecall(0.5, num_thresholds=5)
    >>> float(m([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9]))
    1.0
    """

    _target_name = "recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name=name, dtype=dtype)
        self.recall = recall

    def result(self):
        rates = self._rates()
        return self._best(rates["recall"], rates["precision"])


class RecallAtPrecision(_RateAtRate):
    """The best recall at any threshold where precision is at least `precision`.

    Args:
        precision: the precision to reach, in `[0, 1]`.
        num_thresholds: how many thresholds to try (default 200).
        class_id: compute the metric for this class only.
        name: the metric name.
        dtype: the dtype of the state.

    >>> m = RecallAtPrecision(0.8, num_thresholds=5)
    >>> float(m([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9]))
    0.5
    """

    _target_name = "precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name=name, dtype=dtype)
        self.precision = precision

    def result(self):
        rates = self._rates()
        return self._best(rates["precision"], rates["recall"])


class SensitivityAtSpecificity(_RateAtRate):
    """The best sensitivity (recall) where specificity `tn / (tn + fp)` is at least
    `specificity`.

    Args:
        specificity: the specificity to reach, in `[0, 1]`.
        num_thresholds: how many thresholds to try (default 200).
        class_id: compute the metric for this class only.
        name: the metric name.
        dtype: the dtype of the state.

    >>> m = SensitivityAtSpecificity(0.5, num_thresholds=5)
    >>> float(m([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9]))
    1.0
    """

    _target_name = "specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name=name, dtype=dtype)
        self.specificity = specificity

    def result(self):
        rates = self._rates()
        return self._best(rates["specificity"], rates["recall"])


class SpecificityAtSensitivity(_RateAtRate):
    """The best specificity where sensitivity (recall) is at least `sensitivity`.

    Args:
        sensitivity: the sensitivity to reach, in `[0, 1]`.
        num_thresholds: how many thresholds to try (default 200).
        class_id: compute the metric for this class only.
        name: the metric name.
        dtype: the dtype of the state.

    >>> m = SpecificityAtSensitivity(0.5, num_thresholds=5)
    >>> float(m([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9]))
    1.0
    """

    _target_name = "sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name=name, dtype=dtype)
        self.sensitivity = sensitivity

    def result(self):
        rates = self._rates()
        return self._best(rates["recall"], rates["specificity"])


for _cls in (
    PrecisionAtRecall,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
):
    serialization.register_builtin("metrics", _cls)
