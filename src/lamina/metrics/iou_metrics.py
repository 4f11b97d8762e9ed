"""Intersection-over-union metrics for segmentation: IoU, MeanIoU, BinaryIoU and the
one-hot forms.

Each keeps one running `(num_classes, num_classes)` confusion matrix (rows: true class,
columns: predicted class), weighted by `sample_weight`; a class's IoU is
`tp / (tp + fp + fn)` read from it, and the result averages the IoUs of the target
classes that occurred at all. As in Keras the matrix is an int32 count by default
(fractional weights are truncated, with a warning); pass `dtype="float32"` for them.
"""

from __future__ import annotations

import warnings

from lamina import backend, ops
from lamina.common import serialization
from lamina.metrics.metric import Metric


def confusion_matrix(y_true, y_pred, num_classes, weights=None, dtype="float32"):
    """The weighted `(num_classes, num_classes)` confusion matrix of two label vectors.

    Entry `[i, j]` sums the weights of the samples of true class `i` predicted as `j`.

    >>> confusion_matrix([0, 1, 1], [0, 1, 0], 2).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    true_one_hot = ops.one_hot(ops.cast(y_true, "int32"), num_classes, dtype="float32")
    pred_one_hot = ops.one_hot(ops.cast(y_pred, "int32"), num_classes, dtype="float32")
    if weights is not None:
        pred_one_hot = pred_one_hot * ops.expand_dims(ops.cast(weights, "float32"), -1)
    return ops.cast(ops.matmul(ops.transpose(true_one_hot), pred_one_hot), dtype)


class _IoUBase(Metric):
    """The confusion-matrix state and its update, shared by the IoU metrics."""

    def __init__(
        self,
        num_classes,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_true=True,
        sparse_y_pred=True,
        axis=-1,
    ):
        super().__init__(name=name, dtype=dtype or "int32")
        self.num_classes = int(num_classes)
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_variable(
            (self.num_classes, self.num_classes), name="total_confusion_matrix"
        )

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add the batch's (weighted) confusion matrix; labels outside
        `[0, num_classes)` and `ignore_class` entries are left out."""
        y_true, y_pred = ops.convert_to_tensor(y_true), ops.convert_to_tensor(y_pred)
        if not self.sparse_y_true:
            y_true = ops.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = ops.argmax(y_pred, axis=self.axis)
        y_true = ops.reshape(ops.cast(y_true, "int32"), (-1,))
        y_pred = ops.reshape(ops.cast(y_pred, "int32"), (-1,))
        dtype = self.dtype
        if sample_weight is None:
            weights = ops.ones(ops.shape(y_true), dtype="float32")
        else:
            if "int" in dtype and "float" in backend.standardize_dtype(
                ops.dtype(ops.convert_to_tensor(sample_weight))
            ):
                warnings.warn(
                    f"{type(self).__name__} {self.name!r} keeps integer counts (dtype "
                    f"{dtype!r}) and received float `sample_weight`: fractional weights are "
                    "truncated. Pass integer weights, or create the metric with "
                    "dtype='float32'.",
                    stacklevel=2,
                )
            weights = ops.reshape(ops.cast(ops.cast(sample_weight, dtype), "float32"), (-1,))
            weights = ops.broadcast_to(weights, ops.shape(y_true))
        valid = (y_true >= 0) & (y_true < self.num_classes)
        valid = valid & (y_pred >= 0) & (y_pred < self.num_classes)
        if self.ignore_class is not None:
            valid = valid & ops.not_equal(y_true, self.ignore_class)
        y_true = ops.where(valid, y_true, 0)
        y_pred = ops.where(valid, y_pred, 0)
        weights = ops.where(valid, weights, 0.0)
        batch = confusion_matrix(y_true, y_pred, self.num_classes, weights, dtype)
        self.total_cm.assign(self.total_cm.value + batch)

    def _iou_of(self, class_ids):
        matrix = ops.cast(self.total_cm.value, "float32")
        true_positives = ops.diagonal(matrix)
        denominator = ops.sum(matrix, axis=0) + ops.sum(matrix, axis=1) - true_positives
        ids = ops.convert_to_tensor(list(class_ids), dtype="int32")
        true_positives = ops.take(true_positives, ids)
        denominator = ops.take(denominator, ids)
        # Classes that never occurred (in labels or predictions) are left out.
        present = denominator > 1e-9
        iou = ops.where(present, true_positives / (denominator + backend.epsilon()), 0.0)
        return ops.sum(iou) / (ops.sum(ops.cast(present, "float32")) + backend.epsilon())


def _check_targets(target_class_ids, num_classes, who):
    ids = [int(i) for i in target_class_ids]
    if not ids or max(ids) >= num_classes or min(ids) < 0:
        raise ValueError(
            f"{who}: target_class_ids must be class indices in [0, {num_classes}); received "
            f"{list(target_class_ids)!r}."
        )
    return ids


class IoU(_IoUBase):
    """Intersection-over-union of chosen classes, averaged: `tp / (tp + fp + fn)`.

    Args:
        num_classes: the number of classes (the confusion matrix is that square).
        target_class_ids: the classes whose IoUs are averaged.
        name: the metric name.
        dtype: the dtype of the counts (default int32, as Keras).
        ignore_class: a label whose entries are not counted (e.g. a "void" class).
        sparse_y_true: labels are class indices (else one-hot: argmax over `axis`).
        sparse_y_pred: predictions are class indices (else scores: argmax over `axis`).
        axis: the class axis for the argmax.

    >>> m = IoU(num_classes=2, target_class_ids=[0])
    >>> round(float(m([0, 0, 1, 1], [0, 1, 0, 1])), 4)  # class 0: 1 / (1 + 1 + 1)
    0.3333
    """

    def __init__(
        self,
        num_classes,
        target_class_ids,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_true=True,
        sparse_y_pred=True,
        axis=-1,
    ):
        super().__init__(
            num_classes,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=sparse_y_true,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )
        self.target_class_ids = _check_targets(target_class_ids, self.num_classes, "IoU")

    def result(self):
        return self._iou_of(self.target_class_ids)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "num_classes": self.num_classes,
            "target_class_ids": self.target_class_ids,
            "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true,
            "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
        }


class BinaryIoU(IoU):
    """IoU of a binary task: predictions `>= threshold` are class 1, others class 0.

    Args:
        target_class_ids: `[0]`, `[1]` or `[0, 1]` (default): the classes averaged.
        threshold: the cut applied to the predictions (default 0.5).
        name: the metric name.
        dtype: the dtype of the counts.

    >>> round(float(BinaryIoU()([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.3])), 4)
    0.3333
    """

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(2, target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        predicted = ops.cast(ops.cast(y_pred, "float32") >= self.threshold, "int32")
        super().update_state(y_true, predicted, sample_weight)

    def get_config(self) -> dict:
        return {
            "target_class_ids": self.target_class_ids,
            "threshold": self.threshold,
            "name": self.name,
            "dtype": self._dtype,
        }


class MeanIoU(IoU):
    """The IoU averaged over every class that occurs: the standard segmentation score.

    Args:
        num_classes: the number of classes.
        name: the metric name.
        dtype: the dtype of the counts.
        ignore_class: a label whose entries are not counted.
        sparse_y_true: labels are class indices (else one-hot).
        sparse_y_pred: predictions are class indices (else scores).
        axis: the class axis for the argmax.

    >>> round(float(MeanIoU(num_classes=2)([0, 0, 1, 1], [0, 1, 0, 1])), 4)
    0.3333
    """

    def __init__(
        self,
        num_classes,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_true=True,
        sparse_y_pred=True,
        axis=-1,
    ):
        super().__init__(
            num_classes,
            list(range(int(num_classes))),
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=sparse_y_true,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict:
        return {
            "num_classes": self.num_classes,
            "name": self.name,
            "dtype": self._dtype,
            "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true,
            "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
        }


class OneHotIoU(IoU):
    """`IoU` for one-hot labels and class scores (both argmax-ed over `axis`).

    Args:
        num_classes: the number of classes.
        target_class_ids: the classes whose IoUs are averaged.
        name: the metric name.
        dtype: the dtype of the counts.
        ignore_class: a class whose entries are not counted.
        sparse_y_pred: predictions are already class indices.
        axis: the class axis.

    >>> m = OneHotIoU(num_classes=2, target_class_ids=[1])
    >>> round(float(m([[1, 0], [0, 1]], [[0.8, 0.2], [0.3, 0.7]])), 4)
    1.0
    """

    def __init__(
        self,
        num_classes,
        target_class_ids,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_pred=False,
        axis=-1,
    ):
        super().__init__(
            num_classes,
            target_class_ids,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=False,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict:
        return {
            "num_classes": self.num_classes,
            "target_class_ids": self.target_class_ids,
            "name": self.name,
            "dtype": self._dtype,
            "ignore_class": self.ignore_class,
            "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
        }


class OneHotMeanIoU(MeanIoU):
    """`MeanIoU` for one-hot labels and class scores (both argmax-ed over `axis`).

    Args:
        num_classes: the number of classes.
        name: the metric name.
        dtype: the dtype of the counts.
        ignore_class: a class whose entries are not counted.
        sparse_y_pred: predictions are already class indices.
        axis: the class axis.

    >>> m = OneHotMeanIoU(num_classes=2)
    >>> round(float(m([[1, 0], [0, 1]], [[0.8, 0.2], [0.3, 0.7]])), 4)
    1.0
    """

    def __init__(
        self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_pred=False, axis=-1
    ):
        super().__init__(
            num_classes,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=False,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict:
        return {
            "num_classes": self.num_classes,
            "name": self.name,
            "dtype": self._dtype,
            "ignore_class": self.ignore_class,
            "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
        }


for _cls in (IoU, BinaryIoU, MeanIoU, OneHotIoU, OneHotMeanIoU):
    serialization.register_builtin("metrics", _cls)
