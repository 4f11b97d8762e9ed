"""Host-side checks of targets against a loss, run once on concrete arrays before training.

Compiled losses cannot raise on values: an out-of-range sparse label silently turns
into a zero loss (its one-hot row is empty), and one-hot targets fed to a sparse loss
fail with an opaque shape error deep inside a traced step. `check_targets` looks at the
NumPy data first and says what is wrong and which loss to use instead.
"""

from __future__ import annotations

import numpy as np

from lamina import backend
from lamina.losses import probabilistic
from lamina.losses.loss import LossFunctionWrapper

_SPARSE = (probabilistic.sparse_categorical_crossentropy,)
_CATEGORICAL = (
    probabilistic.categorical_crossentropy,
    probabilistic.categorical_focal_crossentropy,
)


def _describe(loss, fn) -> str:
    if isinstance(loss, LossFunctionWrapper):
        return f"{type(loss).__name__} (loss {loss.name!r})"
    return f"loss function {getattr(fn, '__name__', repr(fn))!r}"


def _shape_of(x) -> tuple:
    shape = getattr(x, "shape", None)
    return tuple(np.shape(x) if shape is None else shape)


def _same_prefix(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def check_targets(loss, y_true, y_pred) -> None:
    """Raise a ValueError when `y_true` cannot be the targets of `loss` for `y_pred`.

    Checks sparse cross-entropy labels (integers in `[0, num_classes)`, not one-hot)
    and categorical cross-entropy targets (one-hot, not integer labels). Other losses
    pass. Call it on the host with concrete arrays before training.

    Args:
        loss: a loss object, loss function, or loss name.
        y_true: the targets (array-like).
        y_pred: the predictions, or anything with a `.shape` (such as a model output
            KerasTensor); only its shape is used.

    >>> import numpy as np
    >>> check_targets("sparse_categorical_crossentropy", np.array([0, 3]), np.zeros((2, 3)))
    Traceback (most recent call last):
    ...
    ValueError: loss function 'sparse_categorical_crossentropy' received class labels out of range: label 3 (at index 1), with labels spanning [0, 3]. Expected integers in [0, 3) because y_pred has 3 classes along its last axis. Make the output layer have as many units as there are classes, or renumber the labels to start at 0.
    """
    if isinstance(loss, (str, dict)):
        from lamina.losses import get

        loss = get(loss)
    if isinstance(loss, LossFunctionWrapper):
        fn, options = loss.fn, loss._fn_kwargs
    else:
        fn, options = loss, {}
    if fn not in _SPARSE and fn not in _CATEGORICAL:
        return
    name = _describe(loss, fn)
    y_true = backend.convert_to_numpy(y_true)
    pred_shape = _shape_of(y_pred)
    if not pred_shape:
        return
    axis = options.get("axis", -1) % len(pred_shape)
    num_classes = pred_shape[axis]
    if fn in _SPARSE:
        _check_sparse(name, y_true, pred_shape, axis, options.get("ignore_class"))
    else:
        _check_categorical(name, y_true, pred_shape, num_classes)


def _check_sparse(name, y_true, pred_shape, axis, ignore_class) -> None:
    true_shape = tuple(y_true.shape)
    num_classes = pred_shape[axis]
    # Labels have y_pred's shape without the class axis (or with it of size 1).
    rest = pred_shape[:axis] + pred_shape[axis + 1 :]
    with_unit = pred_shape[:axis] + (1,) + pred_shape[axis + 1 :]
    if (
        num_classes is not None
        and num_classes > 1
        and _same_prefix(true_shape, pred_shape)
        and true_shape[axis] == num_classes
    ):
        raise ValueError(
            f"{name} expects integer class labels of shape {rest} or {with_unit}, but "
            f"received y_true of shape {true_shape}, the same shape as y_pred: these look "
            f"like one-hot targets. Use CategoricalCrossentropy "
            "(loss='categorical_crossentropy') for one-hot targets, or convert them to "
            f"labels with y_true.argmax(axis={axis})."
        )
    if len(true_shape) == len(pred_shape) and true_shape[axis] == 1:
        label_shape = true_shape[:axis] + true_shape[axis + 1 :]
    elif len(true_shape) == len(pred_shape) and true_shape[-1:] == (1,):
        label_shape = true_shape[:-1]
    else:
        label_shape = true_shape
    if not _same_prefix(label_shape, rest):
        raise ValueError(
            f"{name} expects integer class labels of shape {rest} or {with_unit} for "
            f"predictions of shape {pred_shape} (class axis {axis}), but received y_true of "
            f"shape {true_shape}."
        )
    labels = y_true.reshape(-1)
    if labels.size == 0:
        return
    if labels.dtype.kind not in "iub":
        bad = ~np.isfinite(labels) | (labels != np.round(labels))
        if bad.any():
            index = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{name} expects integer class labels, but y_true holds {labels[index].item()!r} "
                f"(at flat index {index}). Expected whole numbers in [0, {num_classes}); "
                "for soft or one-hot targets use CategoricalCrossentropy."
            )
    if num_classes is None:
        return
    valid = labels != ignore_class if ignore_class is not None else np.ones(labels.shape, bool)
    out_of_range = valid & ((labels < 0) | (labels >= num_classes))
    if out_of_range.any():
        where = "its last axis" if axis == len(pred_shape) - 1 else f"axis {axis}"
        index = int(np.flatnonzero(out_of_range)[0])
        kept = labels[valid]
        ignored = f" (ignoring ignore_class={ignore_class})" if ignore_class is not None else ""
        raise ValueError(
            f"{name} received class labels out of range: label {_label(labels[index])} "
            f"(at index {index}), with labels spanning [{_label(kept.min())}, "
            f"{_label(kept.max())}]{ignored}. Expected integers in [0, {num_classes}) because "
            f"y_pred has {num_classes} classes along {where}. Make the output layer "
            "have as many units as there are classes, or renumber the labels to start at 0."
        )


def _check_categorical(name, y_true, pred_shape, num_classes) -> None:
    true_shape = tuple(y_true.shape)
    if num_classes is None or num_classes <= 1:
        return
    labels_like = _same_prefix(true_shape, pred_shape[:-1]) or (
        _same_prefix(true_shape[:-1], pred_shape[:-1]) and true_shape[-1:] == (1,)
    )
    if labels_like:
        raise ValueError(
            f"{name} expects one-hot targets of shape {pred_shape} (one column per class), "
            f"but received y_true of shape {true_shape}: these look like integer class "
            "labels. Use SparseCategoricalCrossentropy "
            "(loss='sparse_categorical_crossentropy') for integer labels, or one-hot encode "
            "them first."
        )
    if not _same_prefix(true_shape, pred_shape):
        raise ValueError(
            f"{name} expects targets with the same shape as the predictions {pred_shape}, "
            f"but received y_true of shape {true_shape}."
        )


def _label(value):
    value = value.item() if hasattr(value, "item") else value
    return int(value) if float(value).is_integer() else value
