"""Array helpers for labels and vectors: `to_categorical` and `normalize`.

NumPy input gives NumPy output (these usually run on data before it reaches a model);
engine arrays go through `lamina.ops`, so they also work on symbolic tensors.
"""

from __future__ import annotations

import numpy as np

from lamina import backend, ops


def to_categorical(x, num_classes: int | None = None):
    """One-hot encode integer class labels.

    Args:
        x: integer labels, e.g. shape `(samples,)`; a trailing axis of size 1 is dropped.
        num_classes: the number of classes (default: the largest label + 1).

    Returns:
        A float32 array with a new last axis of size `num_classes`.

    >>> to_categorical([0, 2, 1], num_classes=3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    """
    if backend.is_tensor(x) and not backend.core.is_concrete(x):
        if num_classes is None:
            raise ValueError("to_categorical on a traced tensor needs `num_classes`.")
        return ops.one_hot(ops.cast(x, "int32"), num_classes)
    labels = backend.convert_to_numpy(x)
    if labels.dtype.kind == "f":
        if not np.all(np.mod(labels, 1) == 0):
            raise ValueError(
                "to_categorical expects integer class labels; received non-integer values "
                f"such as {labels[np.mod(labels, 1) != 0].ravel()[:3].tolist()}."
            )
    elif labels.dtype.kind not in "iub":
        raise TypeError(
            f"to_categorical expects integer class labels; received dtype {labels.dtype}."
        )
    labels = labels.astype("int64")
    if labels.ndim > 1 and labels.shape[-1] == 1:
        labels = labels[..., 0]
    if num_classes is None:
        num_classes = int(labels.max()) + 1 if labels.size else 0
    num_classes = int(num_classes)
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise ValueError(
            f"to_categorical: labels must lie in [0, {num_classes}) for num_classes="
            f"{num_classes}; received labels from {labels.min()} to {labels.max()}."
        )
    out = np.zeros(labels.shape + (num_classes,), dtype="float32")
    np.put_along_axis(out, labels[..., None], 1.0, axis=-1)
    if backend.is_tensor(x):
        return backend.convert_to_tensor(out)
    return out


def normalize(x, axis: int = -1, order: int = 2):
    """Scale `x` to unit norm along `axis` (an all-zero slice stays zero).

    Args:
        x: an array.
        axis: the axis to normalize along.
        order: the norm's order (2 for Euclidean, 1 for the sum of absolute values).

    >>> normalize([[3.0, 4.0], [0.0, 0.0]]).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    if backend.is_tensor(x) or hasattr(x, "_keras_history"):
        norm = ops.norm(x, ord=order, axis=axis, keepdims=True)
        return x / ops.maximum(norm, backend.epsilon())
    values = np.asarray(x)
    if values.dtype.kind not in "fc":
        values = values.astype("float32")
    norm = np.atleast_1d(np.linalg.norm(values, order, axis))
    norm[norm == 0] = 1
    return values / np.expand_dims(norm, axis)
