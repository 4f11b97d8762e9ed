"""Hinge losses for maximum-margin classifiers: hinge, squared hinge, categorical hinge.

Binary targets may be given as 0/1 or as -1/1: 0/1 labels are mapped to -1/1 first.
"""

from __future__ import annotations

from lamina import ops
from lamina.common import serialization
from lamina.losses.loss import (
    LossFunctionWrapper,
    graph_function,
    squeeze_or_expand_to_same_rank,
)


def _signed_labels(y_true, y_pred):
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, ops.dtype(y_pred))
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    # Decided on values, so it stays traceable: a tensor-level select, not a Python if.
    is_binary = ops.all(ops.logical_or(ops.equal(y_true, 0.0), ops.equal(y_true, 1.0)))
    return ops.where(is_binary, 2.0 * y_true - 1.0, y_true), y_pred


@graph_function
def hinge(y_true, y_pred):
    """Mean of `max(1 - y_true * y_pred, 0)` over the last axis.

    >>> float(hinge([[1.0, 0.0]], [[0.5, -2.0]])[0])
    0.25
    """
    y_true, y_pred = _signed_labels(y_true, y_pred)
    return ops.mean(ops.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


@graph_function
def squared_hinge(y_true, y_pred):
    """Mean of `max(1 - y_true * y_pred, 0) ** 2` over the last axis.

    >>> float(squared_hinge([[1.0, 0.0]], [[0.5, -2.0]])[0])
    0.125
    """
    y_true, y_pred = _signed_labels(y_true, y_pred)
    return ops.mean(ops.square(ops.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


@graph_function
def categorical_hinge(y_true, y_pred):
    """`max(max_wrong - correct + 1, 0)` for one-hot targets.

    >>> float(categorical_hinge([[0.0, 1.0]], [[0.3, 0.8]])[0])
    0.5
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, ops.dtype(y_pred))
    positive = ops.sum(y_true * y_pred, axis=-1)
    negative = ops.max((1.0 - y_true) * y_pred, axis=-1)
    return ops.maximum(negative - positive + 1.0, 0.0)


class Hinge(LossFunctionWrapper):
    """Hinge loss for binary targets in {-1, 1} (or {0, 1}).

    Args:
        reduction: see `Loss`.
        name: the loss name.
        dtype: the compute dtype.

    >>> float(Hinge()([[1.0, 0.0]], [[0.5, -2.0]]))
    0.25
    """

    def __init__(self, reduction="sum_over_batch_size", name="hinge", dtype=None):
        super().__init__(hinge, reduction=reduction, name=name, dtype=dtype)


class SquaredHinge(LossFunctionWrapper):
    """Squared hinge loss for binary targets in {-1, 1} (or {0, 1}).

    >>> float(SquaredHinge()([[1.0, 0.0]], [[0.5, -2.0]]))
    0.125
    """

    def __init__(self, reduction="sum_over_batch_size", name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, reduction=reduction, name=name, dtype=dtype)


class CategoricalHinge(LossFunctionWrapper):
    """Hinge loss for one-hot multi-class targets.

    >>> float(CategoricalHinge()([[0.0, 1.0]], [[0.3, 0.8]]))
    0.5
    """

    def __init__(self, reduction="sum_over_batch_size", name="categorical_hinge", dtype=None):
        super().__init__(categorical_hinge, reduction=reduction, name=name, dtype=dtype)


for _obj in (hinge, squared_hinge, categorical_hinge, Hinge, SquaredHinge, CategoricalHinge):
    serialization.register_builtin("losses", _obj)
