"""Accuracy metrics: exact match, binary, categorical, sparse categorical, top-k.

Each is a per-sample function (1.0 for a hit, 0.0 for a miss) and a
`MeanMetricWrapper` class averaging it over batches.
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.common import serialization
from lamina.losses.loss import graph_function, squeeze_or_expand_to_same_rank
from lamina.metrics.reduction_metrics import MeanMetricWrapper


@graph_function
def accuracy(y_true, y_pred):
    """1.0 where `y_pred` equals `y_true` exactly.

    >>> accuracy([[1.0], [2.0]], [[1.0], [3.0]]).tolist()
    [[1.0], [0.0]]
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, ops.dtype(y_pred))
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return ops.cast(ops.equal(y_true, y_pred), backend.floatx())


@graph_function
def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 for each label where `y_pred > threshold` matches `y_true`, else 0.0.

    One value per element, as in Keras 3 (which no longer averages the last axis):
    `BinaryAccuracy` averages them, so a `sample_weight` may weigh each label.

    >>> binary_accuracy([[1.0, 0.0], [0.0, 0.0]], [[0.7, 0.6], [0.2, 0.1]]).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, ops.dtype(y_pred))
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    predicted = ops.cast(ops.greater(y_pred, threshold), ops.dtype(y_true))
    return ops.cast(ops.equal(y_true, predicted), backend.floatx())


def _match_labels(labels, y_pred):
    """Compare integer `labels` with `argmax(y_pred)`; hits keep the labels' shape."""
    predicted = ops.cast(ops.argmax(y_pred, axis=-1), "int32")
    if ops.dtype(labels) not in ("int32", "int64"):  # int64: torch's data, compared as is
        labels = ops.cast(labels, "int32")
    return ops.cast(ops.equal(labels, predicted), backend.floatx())


@graph_function
def categorical_accuracy(y_true, y_pred):
    """1.0 where the one-hot target's class is the predicted (argmax) class.

    >>> categorical_accuracy([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0.0]]).tolist()
    [0.0, 1.0]
    """
    y_pred = ops.convert_to_tensor(y_pred)
    return _match_labels(ops.argmax(ops.convert_to_tensor(y_true), axis=-1), y_pred)


@graph_function
def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label is the predicted (argmax) class.

    >>> sparse_categorical_accuracy([[2], [1]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0.0]]).tolist()
    [0.0, 1.0]
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.convert_to_tensor(y_true)
    if len(ops.shape(y_true)) == len(ops.shape(y_pred)) and ops.shape(y_true)[-1] == 1:
        y_true = ops.squeeze(y_true, -1)
    return _match_labels(y_true, y_pred)


def _in_top_k(labels, y_pred, k, from_sorted_ids=False):
    class_count = ops.shape(y_pred)[-1]
    labels_shape = tuple(ops.shape(labels))
    flat_pred = ops.reshape(y_pred, (-1, class_count))
    if from_sorted_ids:
        # `y_pred` holds class ids, best first: a hit is the label among the first k
        # (counted once, should an id repeat).
        flat_labels = ops.reshape(ops.cast(labels, ops.dtype(y_pred)), (-1, 1))
        hits = ops.any(ops.equal(flat_labels, flat_pred[:, :k]), axis=1)
    else:
        flat_labels = ops.reshape(ops.cast(labels, "int32"), (-1,))
        hits = ops.in_top_k(flat_labels, flat_pred, k)
    return ops.reshape(ops.cast(hits, backend.floatx()), labels_shape)


@graph_function
def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot target's class is among the `k` highest predictions.

    >>> top_k_categorical_accuracy([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0.0]], k=1).tolist()
    [0.0, 1.0]
    """
    y_pred = ops.convert_to_tensor(y_pred)
    return _in_top_k(ops.argmax(ops.convert_to_tensor(y_true), axis=-1), y_pred, k)


@graph_function
def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """1.0 where the integer label is among the `k` highest predictions.

    With `from_sorted_ids=True`, `y_pred` holds class ids sorted from the highest score
    down, shape `(batch, N)`, and a hit is the label among its first `k`.

    >>> sparse_top_k_categorical_accuracy([2, 1], [[0.1, 0.9, 0.8], [0.05, 0.95, 0.0]], k=2).tolist()
    [1.0, 1.0]
    >>> sparse_top_k_categorical_accuracy([2, 1], [[1, 2], [2, 0]], k=1, from_sorted_ids=True).tolist()
    [0.0, 0.0]
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.convert_to_tensor(y_true)
    if len(ops.shape(y_true)) == len(ops.shape(y_pred)) and ops.shape(y_true)[-1] == 1:
        y_true = ops.squeeze(y_true, -1)
    return _in_top_k(y_true, y_pred, k, from_sorted_ids)


class Accuracy(MeanMetricWrapper):
    """How often predictions equal targets exactly.

    Args:
        name: the metric name.
        dtype: the dtype of the state.

    >>> m = Accuracy()
    >>> float(m([[1], [2], [3], [4]], [[0], [2], [3], [4]]))
    0.75
    """

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name=name, dtype=dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often `y_pred > threshold` matches binary targets.

    Args:
        threshold: the probability above which a prediction counts as 1.

    >>> m = BinaryAccuracy()
    >>> float(m([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]]))
    0.75
    """

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the predicted class (argmax) is the one-hot target's class.

    >>> m = CategoricalAccuracy()
    >>> float(m([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]))
    0.5
    """

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the predicted class (argmax) is the integer label.

    >>> m = SparseCategoricalAccuracy()
    >>> float(m([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]]))
    0.5
    """

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot target's class is among the top `k` predictions.

    Args:
        k: how many of the highest predictions count as a hit.

    >>> m = TopKCategoricalAccuracy(k=1)
    >>> float(m([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]))
    0.5
    """

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the top `k` predictions.

    Args:
        k: how many of the highest predictions count as a hit.
        from_sorted_ids: whether `y_pred` holds class ids sorted from the highest score
            down (shape `(batch, N)`) rather than one score per class.

    >>> m = SparseTopKCategoricalAccuracy(k=1)
    >>> float(m([2, 1], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]))
    0.5
    """

    def __init__(
        self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None, from_sorted_ids=False
    ):
        super().__init__(
            sparse_top_k_categorical_accuracy,
            name=name,
            dtype=dtype,
            k=k,
            from_sorted_ids=from_sorted_ids,
        )


for _obj in (
    accuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    top_k_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    TopKCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
):
    serialization.register_builtin("metrics", _obj)
