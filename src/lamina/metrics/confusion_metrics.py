"""Confusion-matrix metrics: TP/TN/FP/FN counts, Precision, Recall and AUC.

All of them count, for each decision threshold `t`, the (weighted) entries where
`y_pred > t` against the entries where `y_true` is nonzero. The counting is one
vectorised comparison of shape `(num_thresholds, num_entries)`, so it compiles to a
handful of array ops with no Python loop or branch on values.
"""

from __future__ import annotations

import numpy as np

from lamina import backend, ops
from lamina.common import serialization
from lamina.losses.loss import broadcast_weights, divide_no_nan, squeeze_or_expand_to_same_rank
from lamina.metrics.metric import Metric

NEG_INF = -1e10


def _parse_thresholds(thresholds, default, owner):
    if thresholds is None:
        return [default]
    values = [thresholds] if isinstance(thresholds, (int, float)) else list(thresholds)
    for t in values:
        if not 0.0 <= float(t) <= 1.0:
            raise ValueError(
                f"{owner}: every threshold must be in [0, 1], received thresholds={thresholds!r}."
            )
    return [float(t) for t in values]


def _filter_top_k(x, k):
    """Keep the top `k` values along the last axis; push the others to `NEG_INF`."""
    _, indices = ops.top_k(x, k)
    keep = ops.sum(ops.one_hot(indices, ops.shape(x)[-1], dtype=ops.dtype(x)), axis=-2)
    return x * keep + NEG_INF * (1.0 - keep)


def confusion_counts(
    y_true,
    y_pred,
    thresholds,
    sample_weight=None,
    top_k=None,
    class_id=None,
    multi_label=False,
    label_weights=None,
):
    """Weighted `{"tp", "fp", "tn", "fn"}` counts per threshold.

    Shapes are `(num_thresholds,)`, or `(num_thresholds, num_labels)` with
    `multi_label=True` (each label counted separately).
    """
    dtype = backend.floatx()
    y_pred = ops.cast(y_pred, dtype)
    y_true = ops.cast(y_true, dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true = ops.take(y_true, class_id, axis=-1)
        y_pred = ops.take(y_pred, class_id, axis=-1)
    weights = ops.ones_like(y_pred)
    if sample_weight is not None:
        weights = broadcast_weights(ops.cast(sample_weight, dtype), y_pred)
    if label_weights is not None and not multi_label:
        weights = weights * ops.cast(label_weights, dtype)
    thresholds = ops.convert_to_tensor(np.asarray(thresholds, dtype=dtype))
    if multi_label:
        num_labels = ops.shape(y_pred)[-1]
        flat = (1, -1, num_labels)
        cut = ops.reshape(thresholds, (-1, 1, 1))
    else:
        flat = (1, -1)
        cut = ops.reshape(thresholds, (-1, 1))
    predicted = ops.greater(ops.reshape(y_pred, flat), cut)
    positive = ops.not_equal(ops.reshape(y_true, flat), 0.0)
    weights = ops.reshape(weights, flat)

    def count(pred_is, label_is):
        hits = ops.logical_and(pred_is, label_is)
        return ops.sum(ops.cast(hits, dtype) * weights, axis=1)

    not_predicted, negative = ops.logical_not(predicted), ops.logical_not(positive)
    return {
        "tp": count(predicted, positive),
        "fp": count(predicted, negative),
        "tn": count(not_predicted, negative),
        "fn": count(not_predicted, positive),
    }


class _ConfusionCount(Metric):
    """One confusion-matrix count per threshold (shared by TP/TN/FP/FN)."""

    _key = ""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = _parse_thresholds(thresholds, 0.5, type(self).__name__)
        self.accumulator = self.add_variable((len(self.thresholds),), name="accumulator")

    def update_state(self, y_true, y_pred, sample_weight=None):
        counts = confusion_counts(y_true, y_pred, self.thresholds, sample_weight)
        self.accumulator.assign_add(counts[self._key])

    def result(self):
        value = self.accumulator.value
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict:
        return {**super().get_config(), "thresholds": self.init_thresholds}


class TruePositives(_ConfusionCount):
    """The weighted count of true positives (`y_pred > threshold` where `y_true` is 1).

    Args:
        thresholds: a float or list of floats in `[0, 1]` (default 0.5); with a list
            the result has one count per threshold.
        name: the metric name.
        dtype: the dtype of the state.

    >>> float(TruePositives()([0, 1, 1, 1], [1, 0, 1, 1]))
    2.0
    """

    _key = "tp"

    def __init__(self, thresholds=None, name="true_positives", dtype=None):
        super().__init__(thresholds=thresholds, name=name, dtype=dtype)


class FalsePositives(_ConfusionCount):
    """The weighted count of false positives.

    >>> float(FalsePositives()([0, 1, 0, 0], [0, 0, 1, 1]))
    2.0
    """

    _key = "fp"

    def __init__(self, thresholds=None, name="false_positives", dtype=None):
        super().__init__(thresholds=thresholds, name=name, dtype=dtype)


class TrueNegatives(_ConfusionCount):
    """The weighted count of true negatives.

    >>> float(TrueNegatives()([0, 1, 0, 0], [1, 1, 0, 0]))
    2.0
    """

    _key = "tn"

    def __init__(self, thresholds=None, name="true_negatives", dtype=None):
        super().__init__(thresholds=thresholds, name=name, dtype=dtype)


class FalseNegatives(_ConfusionCount):
    """The weighted count of false negatives.

    >>> float(FalseNegatives()([0, 1, 1, 1], [0, 1, 0, 0]))
    2.0
    """

    _key = "fn"

    def __init__(self, thresholds=None, name="false_negatives", dtype=None):
        super().__init__(thresholds=thresholds, name=name, dtype=dtype)


class _PrecisionRecall(Metric):
    """Precision and Recall: two counts per threshold and their ratio."""

    _keys = ("tp", "fp")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default = 0.5 if top_k is None else NEG_INF
        self.thresholds = _parse_thresholds(thresholds, default, type(self).__name__)
        shape = (len(self.thresholds),)
        self.true_positives = self.add_variable(shape, name="true_positives")
        other = "false_positives" if self._keys[1] == "fp" else "false_negatives"
        self._other = self.add_variable(shape, name=other)

    def update_state(self, y_true, y_pred, sample_weight=None):
        counts = confusion_counts(
            y_true, y_pred, self.thresholds, sample_weight, self.top_k, self.class_id
        )
        self.true_positives.assign_add(counts["tp"])
        self._other.assign_add(counts[self._keys[1]])

    def result(self):
        tp = self.true_positives.value
        value = divide_no_nan(tp, tp + self._other.value)
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "thresholds": self.init_thresholds,
            "top_k": self.top_k,
            "class_id": self.class_id,
        }


class Precision(_PrecisionRecall):
    """The fraction of predicted positives that are positive: `tp / (tp + fp)`.

    Args:
        thresholds: a float or list of floats in `[0, 1]` (default 0.5; with `top_k`,
            every top-k prediction counts); a list gives one value per threshold.
        top_k: count only the `k` highest predictions of each sample as positive.
        class_id: compute the metric for this class (index of the last axis) only.
        name: the metric name.
        dtype: the dtype of the state.

    >>> float(Precision()([0, 1, 1, 1], [1, 0, 1, 1]))
    0.6666666865348816
    """

    _keys = ("tp", "fp")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="precision", dtype=None):
        super().__init__(thresholds, top_k, class_id, name=name, dtype=dtype)
        self.false_positives = self._other


class Recall(_PrecisionRecall):
    """The fraction of positives predicted positive: `tp / (tp + fn)`.

    Args: as for `Precision`.

    >>> float(Recall()([0, 1, 1, 1], [1, 0, 1, 1]))
    0.6666666865348816
    """

    _keys = ("tp", "fn")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="recall", dtype=None):
        super().__init__(thresholds, top_k, class_id, name=name, dtype=dtype)
        self.false_negatives = self._other


_CURVES = ("ROC", "PR")
_SUMMATIONS = ("interpolation", "minoring", "majoring")


class AUC(Metric):
    """Area under the ROC or precision-recall curve, from counts at fixed thresholds.

    The curve is sampled at `num_thresholds` thresholds spread evenly over `[0, 1]`
    (the first just below 0, the last just above 1), and the area summed with the
    trapezoidal rule (`"interpolation"`), or with the lower (`"minoring"`) or upper
    (`"majoring"`) rectangle. For PR curves `"interpolation"` uses the Davis & Goadrich
    interpolation of precision, as Keras does.

    Args:
        num_thresholds: how many thresholds sample the curve (more is more accurate).
        curve: `"ROC"` or `"PR"`.
        summation_method: `"interpolation"`, `"minoring"` or `"majoring"`.
        name: the metric name.
        dtype: the dtype of the state.
        thresholds: explicit thresholds in `[0, 1]` (overrides `num_thresholds`).
        multi_label: treat each label (last axis) as its own binary problem and average
            their AUCs, instead of pooling every entry into one curve.
        num_labels: the number of labels when `multi_label` (else found at `build`).
        label_weights: per-label weights: for pooled counts they weight each label's
            entries; with `multi_label` they weight the average of the label AUCs.
        from_logits: whether `y_pred` holds logits (a sigmoid is applied first).

    >>> m = AUC(num_thresholds=3)
    >>> float(m([0, 0, 1, 1], [0.0, 0.5, 0.3, 0.9]))
    0.75
    """

    def __init__(
        self,
        num_thresholds=200,
        curve="ROC",
        summation_method="interpolation",
        name="auc",
        dtype=None,
        thresholds=None,
        multi_label=False,
        num_labels=None,
        label_weights=None,
        from_logits=False,
    ):
        super().__init__(name=name, dtype=dtype)
        curve, summation_method = str(curve).upper(), str(summation_method).lower()
        if curve not in _CURVES:
            raise ValueError(f"AUC: invalid curve {curve!r}; expected one of {list(_CURVES)}.")
        if summation_method not in _SUMMATIONS:
            raise ValueError(
                f"AUC: invalid summation_method {summation_method!r}; expected one of "
                f"{list(_SUMMATIONS)}."
            )
        if thresholds is not None:
            middle = sorted(_parse_thresholds(thresholds, 0.5, "AUC"))
            num_thresholds = len(middle) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError(f"AUC: num_thresholds must be > 1, received {num_thresholds}.")
            middle = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        epsilon = backend.epsilon()
        self.thresholds = [0.0 - epsilon, *middle, 1.0 + epsilon]
        self._thresholds_given = thresholds is not None
        self.num_thresholds = num_thresholds
        self.curve = curve
        self.summation_method = summation_method
        self.multi_label = bool(multi_label)
        self.num_labels = num_labels
        if isinstance(label_weights, dict) and label_weights.get("class_name") == "__tensor__":
            # Keras's config writes the weights as a serialized tensor.
            label_weights = label_weights["config"]["value"]
        self.label_weights = None if label_weights is None else [float(w) for w in label_weights]
        self.from_logits = bool(from_logits)
        self.built = False
        if not self.multi_label:
            self._create_variables(())
        elif num_labels is not None:
            self._create_variables((int(num_labels),))

    def _create_variables(self, label_shape):
        shape = (self.num_thresholds, *label_shape)
        self.true_positives = self.add_variable(shape, name="true_positives")
        self.false_positives = self.add_variable(shape, name="false_positives")
        self.true_negatives = self.add_variable(shape, name="true_negatives")
        self.false_negatives = self.add_variable(shape, name="false_negatives")
        self.built = True

    def build(self, y_true_shape, y_pred_shape) -> None:
        if self.built:
            return
        num_labels = tuple(y_pred_shape)[-1] if len(tuple(y_pred_shape)) > 1 else 1
        # `num_labels` stays as given (Keras's config writes None for labels found here).
        self._create_variables((int(num_labels),))

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(ops.shape(y_true), ops.shape(y_pred))
        y_pred = ops.convert_to_tensor(y_pred)
        if self.from_logits:
            y_pred = ops.sigmoid(y_pred)
        if self.multi_label and len(ops.shape(y_pred)) < 2:
            y_pred = ops.expand_dims(y_pred, -1)
            y_true = ops.expand_dims(ops.convert_to_tensor(y_true), -1)
        counts = confusion_counts(
            y_true,
            y_pred,
            self.thresholds,
            sample_weight,
            multi_label=self.multi_label,
            label_weights=self.label_weights,
        )
        self.true_positives.assign_add(counts["tp"])
        self.false_positives.assign_add(counts["fp"])
        self.true_negatives.assign_add(counts["tn"])
        self.false_negatives.assign_add(counts["fn"])

    def _average_labels(self, by_label):
        if not self.multi_label:
            return by_label
        if self.label_weights is None:
            return ops.mean(by_label)
        weights = ops.convert_to_tensor(np.asarray(self.label_weights, dtype=self.dtype))
        return divide_no_nan(ops.sum(by_label * weights), ops.sum(weights))

    def _interpolate_pr_auc(self, tp, fp, fn):
        # Davis & Goadrich (2006): precision interpolated between thresholds.
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        slope = divide_no_nan(dtp, ops.maximum(dp, 0.0))
        intercept = tp[1:] - slope * p[1:]
        both_positive = ops.logical_and(p[:-1] > 0, p[1:] > 0)
        ratio = ops.where(
            both_positive, divide_no_nan(p[:-1], ops.maximum(p[1:], 0.0)), ops.ones_like(p[1:])
        )
        increment = divide_no_nan(
            slope * (dtp + intercept * ops.log(ratio)), ops.maximum(tp[1:] + fn[1:], 0.0)
        )
        return self._average_labels(ops.sum(increment, axis=0))

    def result(self):
        tp, fp = self.true_positives.value, self.false_positives.value
        tn, fn = self.true_negatives.value, self.false_negatives.value
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolate_pr_auc(tp, fp, fn)
        recall = divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, divide_no_nan(tp, tp + fp)
        if self.summation_method == "interpolation":
            heights = (y[:-1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = ops.minimum(y[:-1], y[1:])
        else:
            heights = ops.maximum(y[:-1], y[1:])
        return self._average_labels(ops.sum((x[:-1] - x[1:]) * heights, axis=0))

    def get_config(self) -> dict:
        config = {
            **super().get_config(),
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": self.label_weights,
            "from_logits": self.from_logits,
        }
        if self._thresholds_given:
            # As Keras: the evenly spaced default is said by num_thresholds alone.
            config["thresholds"] = self.thresholds[1:-1]
        return config


for _cls in (
    TruePositives,
    FalsePositives,
    TrueNegatives,
    FalseNegatives,
    Precision,
    Recall,
    AUC,
):
    serialization.register_builtin("metrics", _cls)
