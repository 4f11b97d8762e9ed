"""Overlap losses for segmentation: Dice and Tversky.

Both compare a soft prediction with a target mask through sums over `axis` (all axes
by default, giving one value for the whole batch; `axis=(1, 2, 3)` gives one per
image) and are `1 - overlap`, so a perfect prediction scores 0.
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.common import serialization
from lamina.losses.loss import LossFunctionWrapper, graph_function


def _prepare(y_true, y_pred):
    y_pred = ops.convert_to_tensor(y_pred)
    return ops.cast(y_true, ops.dtype(y_pred)), y_pred


def _axis(axis):
    # Configs read back from JSON hold lists; the engines want tuples.
    return tuple(axis) if isinstance(axis, list) else axis


@graph_function
def dice(y_true, y_pred, axis=None):
    """Dice loss: `1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + epsilon)`.

    Args:
        y_true: the target mask.
        y_pred: the predicted probabilities, same shape.
        axis: the axes summed over (`None`: all, one value for the batch).

    Returns:
        The loss, reduced over `axis`.

    >>> round(float(dice([[1.0, 0.0]], [[1.0, 1.0]])), 4)  # 1 - 2 * 1 / 3
    0.3333
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    axis = _axis(axis)
    intersection = ops.sum(y_true * y_pred, axis=axis)
    total = ops.sum(y_true, axis=axis) + ops.sum(y_pred, axis=axis)
    return 1.0 - 2.0 * intersection / (total + backend.epsilon())


@graph_function
def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """Tversky loss: `1 - TP / (TP + alpha * FP + beta * FN + epsilon)` on soft counts.

    Here `TP = sum(y_true * y_pred)`, `FP = sum(y_true * (1 - y_pred))` and
    `FN = sum((1 - y_true) * y_pred)`, the weighting Keras uses. `alpha = beta = 0.5`
    is the Dice loss.

    Args:
        y_true: the target mask.
        y_pred: the predicted probabilities, same shape.
        alpha: weight of the first mismatch term.
        beta: weight of the second mismatch term.
        axis: the axes summed over (`None`: all).

    Returns:
        The loss, reduced over `axis`.

    >>> round(float(tversky([[1.0, 0.0]], [[1.0, 1.0]], alpha=0.0, beta=1.0)), 4)
    0.5
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    axis = _axis(axis)
    true_positive = ops.sum(y_true * y_pred, axis=axis)
    first = ops.sum(y_true * (1.0 - y_pred), axis=axis)
    second = ops.sum((1.0 - y_true) * y_pred, axis=axis)
    denominator = true_positive + alpha * first + beta * second + backend.epsilon()
    return 1.0 - true_positive / denominator


class Dice(LossFunctionWrapper):
    """The Dice loss between a target mask and predicted probabilities.

    Use it for segmentation with imbalanced classes, where a per-pixel cross-entropy
    is dominated by the background.

    Args:
        reduction: see `Loss` (default `"sum_over_batch_size"`).
        name: the loss name (default `"dice"`).
        axis: the axes summed over; `None` (default) sums everything.
        dtype: the computation dtype (default `floatx()`).

    >>> from lamina import ops
    >>> loss = Dice(axis=(1,), reduction=None)
    >>> values = loss([[1.0, 0.0], [1.0, 1.0]], [[1.0, 1.0], [1.0, 1.0]])
    >>> [round(v, 4) for v in ops.convert_to_numpy(values).tolist()]
    [0.3333, 0.0]
    """

    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(dice, reduction=reduction, name=name, dtype=dtype, axis=axis)
        self.axis = axis


class Tversky(LossFunctionWrapper):
    """The Tversky loss: Dice with separate weights on the two kinds of mismatch.

    Args:
        alpha: weight of `sum(y_true * (1 - y_pred))` (default 0.5).
        beta: weight of `sum((1 - y_true) * y_pred)` (default 0.5).
        reduction: see `Loss`.
        name: the loss name (default `"tversky"`).
        axis: the axes summed over; `None` (default) sums everything.
        dtype: the computation dtype.

    >>> round(float(Tversky()([[1.0, 0.0]], [[1.0, 1.0]])), 4)
    0.3333
    """

    def __init__(
        self,
        alpha=0.5,
        beta=0.5,
        reduction="sum_over_batch_size",
        name="tversky",
        axis=None,
        dtype=None,
    ):
        super().__init__(
            tversky,
            reduction=reduction,
            name=name,
            dtype=dtype,
            alpha=alpha,
            beta=beta,
            axis=axis,
        )
        self.alpha, self.beta, self.axis = alpha, beta, axis


for _obj in (dice, tversky, Dice, Tversky):
    serialization.register_builtin("losses", _obj)
