"""Probabilistic losses: cross-entropies (binary, categorical, sparse, focal), KL, Poisson.

Probabilities are clipped to `[epsilon, 1 - epsilon]` before the log, as Keras does;
`from_logits=True` works on logits through a stable log-sigmoid / log-softmax instead.
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.common import serialization
from lamina.losses.loss import LossFunctionWrapper, graph_function


def _check_axis(axis):
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be an integer, received axis={axis!r}.")


def _log_probabilities(y_pred, from_logits, axis):
    if from_logits:
        return ops.log_softmax(y_pred, axis=axis)
    y_pred = y_pred / ops.sum(y_pred, axis=axis, keepdims=True)
    return ops.log(ops.clip(y_pred, backend.epsilon(), 1.0 - backend.epsilon()))


def _binary_crossentropy(target, output, from_logits):
    if from_logits:
        return -target * ops.log_sigmoid(output) - (1.0 - target) * ops.log_sigmoid(-output)
    output = ops.clip(output, backend.epsilon(), 1.0 - backend.epsilon())
    return -(target * ops.log(output) + (1.0 - target) * ops.log(1.0 - output))


@graph_function
def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy, averaged over `axis`; labels smoothed toward 0.5.

    >>> round(float(binary_crossentropy([[1.0, 0.0]], [[0.9, 0.2]])[0]), 4)
    0.1643
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, ops.dtype(y_pred))
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return ops.mean(_binary_crossentropy(y_true, y_pred, from_logits), axis=axis)


@graph_function
def binary_focal_crossentropy(
    y_true,
    y_pred,
    apply_class_balancing=False,
    alpha=0.25,
    gamma=2.0,
    from_logits=False,
    label_smoothing=0.0,
    axis=-1,
):
    """Binary cross-entropy scaled by `(1 - p_t) ** gamma` to focus on hard examples.

    >>> round(float(binary_focal_crossentropy([[1.0, 0.0]], [[0.9, 0.2]])[0]), 5)
    0.00499
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, ops.dtype(y_pred))
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = ops.sigmoid(y_pred)
    bce = _binary_crossentropy(y_true, y_pred, from_logits=False)
    p_t = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
    focal = ops.power(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * focal
    return ops.mean(focal, axis=axis)


@graph_function
def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Cross-entropy between one-hot (or soft) targets and class probabilities.

    >>> round(float(categorical_crossentropy([[0.0, 1.0]], [[0.2, 0.8]])[0]), 4)
    0.2231
    """
    _check_axis(axis)
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, ops.dtype(y_pred))
    if label_smoothing:
        num_classes = ops.shape(y_true)[axis]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    return -ops.sum(y_true * _log_probabilities(y_pred, from_logits, axis), axis=axis)


@graph_function
def categorical_focal_crossentropy(
    y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1
):
    """Categorical cross-entropy scaled by `alpha * (1 - p) ** gamma` per class.

    >>> round(float(categorical_focal_crossentropy([[0.0, 1.0]], [[0.2, 0.8]])[0]), 5)
    0.00223
    """
    _check_axis(axis)
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, ops.dtype(y_pred))
    if label_smoothing:
        num_classes = ops.shape(y_true)[axis]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    if from_logits:
        y_pred = ops.softmax(y_pred, axis=axis)
    output = y_pred / ops.sum(y_pred, axis=axis, keepdims=True)
    output = ops.clip(output, backend.epsilon(), 1.0 - backend.epsilon())
    focal = alpha * ops.power(1.0 - output, gamma) * (-y_true * ops.log(output))
    return ops.sum(focal, axis=axis)


def _sparse_targets(y_true, y_pred, axis=-1):
    """Labels shaped like `y_pred` without its class `axis` (a unit class axis is dropped)."""
    y_true = ops.convert_to_tensor(y_true)
    pred_shape = tuple(ops.shape(y_pred))
    axis = axis % len(pred_shape) if pred_shape else axis
    expected = pred_shape[:axis] + pred_shape[axis + 1 :]
    true_shape = tuple(ops.shape(y_true))
    if len(true_shape) == len(pred_shape) and true_shape[axis] == 1:
        y_true = ops.squeeze(y_true, axis)
    elif len(true_shape) == len(pred_shape) and true_shape[-1] == 1:
        y_true = ops.squeeze(y_true, -1)
    if tuple(ops.shape(y_true)) != expected:
        raise ValueError(
            f"sparse_categorical_crossentropy expects integer labels of shape {expected} "
            f"(y_pred's shape without its class axis {axis}), received labels of shape "
            f"{true_shape} for predictions of shape {pred_shape}. For one-hot targets use "
            "categorical_crossentropy."
        )
    return y_true


@graph_function
def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """Cross-entropy between integer class labels and class probabilities.

    Labels outside `[0, num_classes)` give a loss of 0 here (as in Keras); the trainer
    rejects them beforehand with `check_targets`. Entries whose label equals
    `ignore_class` give 0 and are masked out of the `SparseCategoricalCrossentropy` mean.

    >>> round(float(sparse_categorical_crossentropy([1], [[0.2, 0.8]])[0]), 4)
    0.2231
    """
    _check_axis(axis)
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = _sparse_targets(y_true, y_pred, axis)
    # int64 labels (torch's data) are taken as they are: a cast would cost a kernel.
    labels = y_true if ops.dtype(y_true) in ("int32", "int64") else ops.cast(y_true, "int32")
    if ignore_class is not None:
        valid = ops.not_equal(labels, ignore_class)
        labels = ops.where(valid, labels, 0)
    losses = ops.sparse_categorical_crossentropy(labels, y_pred, from_logits, axis)
    if ignore_class is not None:
        losses = ops.where(valid, losses, 0.0)
    return losses


@graph_function
def kl_divergence(y_true, y_pred):
    """Kullback-Leibler divergence `sum(y_true * log(y_true / y_pred))`, inputs clipped.

    >>> round(float(kl_divergence([[0.5, 0.5]], [[0.25, 0.75]])[0]), 4)
    0.1438
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, ops.dtype(y_pred))
    y_true = ops.clip(y_true, backend.epsilon(), 1.0)
    y_pred = ops.clip(y_pred, backend.epsilon(), 1.0)
    return ops.sum(y_true * ops.log(y_true / y_pred), axis=-1)


@graph_function
def poisson(y_true, y_pred):
    """Poisson negative log-likelihood (up to a constant): `mean(y_pred - y_true * log(y_pred))`.

    >>> round(float(poisson([[1.0]], [[2.0]])[0]), 4)
    1.3069
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, ops.dtype(y_pred))
    return ops.mean(y_pred - y_true * ops.log(y_pred + backend.epsilon()), axis=-1)


@graph_function
def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """Generalized cross-entropy (Zhang & Sabuncu, 2018): `(1 - p ** q) / q`, with `p`
    the predicted probability of the true class.

    Robust to noisy labels: `q -> 0` tends to cross-entropy, `q = 1` is the mean
    absolute error.

    Args:
        y_true: integer class labels, `(batch,)` or `(batch, 1)`.
        y_pred: class probabilities, `(batch, num_classes)`.
        q: the noise parameter, in `(0, 1)`.

    Returns:
        `(batch,)` losses.

    >>> round(float(categorical_generalized_cross_entropy([1], [[0.75, 0.25]], 0.5)[0]), 4)
    1.0
    """
    y_pred = ops.convert_to_tensor(y_pred)
    labels = ops.cast(_sparse_targets(y_true, y_pred, -1), "int32")
    one_hot = ops.one_hot(labels, ops.shape(y_pred)[-1], dtype=ops.dtype(y_pred))
    p = ops.sum(y_pred * one_hot, axis=-1)
    return (1.0 - ops.power(p, q)) / q


class BinaryCrossentropy(LossFunctionWrapper):
    """Cross-entropy for binary (0/1) targets, one sigmoid output per label.

    Args:
        from_logits: whether `y_pred` holds logits rather than probabilities.
        label_smoothing: in `[0, 1]`; targets become `y * (1 - s) + 0.5 * s`.
        axis: the axis the per-sample mean is taken over.
        reduction: see `Loss`.
        name: the loss name.
        dtype: the compute dtype.

    >>> round(float(BinaryCrossentropy()([[1.0, 0.0]], [[0.9, 0.2]])), 4)
    0.1643
    """

    def __init__(
        self,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="binary_crossentropy",
        dtype=None,
    ):
        super().__init__(
            binary_crossentropy,
            reduction=reduction,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )


class BinaryFocalCrossentropy(LossFunctionWrapper):
    """Binary cross-entropy down-weighting easy examples by `(1 - p_t) ** gamma`.

    Args:
        apply_class_balancing: weight positives by `alpha`, negatives by `1 - alpha`.
        alpha: the class-balancing weight of the positive class.
        gamma: the focusing parameter; 0 gives binary cross-entropy.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in `[0, 1]`, as in `BinaryCrossentropy`.
        axis: the axis the per-sample mean is taken over.

    >>> round(float(BinaryFocalCrossentropy(gamma=0.0)([[1.0, 0.0]], [[0.9, 0.2]])), 4)
    0.1643
    """

    def __init__(
        self,
        apply_class_balancing=False,
        alpha=0.25,
        gamma=2.0,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="binary_focal_crossentropy",
        dtype=None,
    ):
        super().__init__(
            binary_focal_crossentropy,
            reduction=reduction,
            name=name,
            dtype=dtype,
            apply_class_balancing=apply_class_balancing,
            alpha=alpha,
            gamma=gamma,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )


class CategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy for one-hot (or soft) targets over a softmax output.

    For integer class labels use `SparseCategoricalCrossentropy`.

    Args:
        from_logits: whether `y_pred` holds logits rather than probabilities.
        label_smoothing: in `[0, 1]`; targets become `y * (1 - s) + s / num_classes`.
        axis: the class axis.

    >>> round(float(CategoricalCrossentropy()([[0.0, 1.0]], [[0.2, 0.8]])), 4)
    0.2231
    """

    def __init__(
        self,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="categorical_crossentropy",
        dtype=None,
    ):
        super().__init__(
            categorical_crossentropy,
            reduction=reduction,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    """Categorical cross-entropy focused on hard examples by `alpha * (1 - p) ** gamma`.

    >>> round(float(CategoricalFocalCrossentropy()([[0.0, 1.0]], [[0.2, 0.8]])), 5)
    0.00223
    """

    def __init__(
        self,
        alpha=0.25,
        gamma=2.0,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="categorical_focal_crossentropy",
        dtype=None,
    ):
        super().__init__(
            categorical_focal_crossentropy,
            reduction=reduction,
            name=name,
            dtype=dtype,
            alpha=alpha,
            gamma=gamma,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy for integer class labels (shape `(batch,)` or `(batch, 1)`).

    For one-hot targets use `CategoricalCrossentropy`.

    Args:
        from_logits: whether `y_pred` holds logits rather than probabilities.
        ignore_class: a label value (such as a padding label) whose entries are left out
            of the loss, sum and denominator both.
        axis: the class axis.

    >>> round(float(SparseCategoricalCrossentropy()([1, 0], [[0.2, 0.8], [0.5, 0.5]])), 4)
    0.4581
    >>> round(float(SparseCategoricalCrossentropy(ignore_class=0)([1, 0], [[0.2, 0.8], [0.5, 0.5]])), 4)
    0.2231
    """

    _integer_targets = True

    def __init__(
        self,
        from_logits=False,
        ignore_class=None,
        reduction="sum_over_batch_size",
        axis=-1,
        name="sparse_categorical_crossentropy",
        dtype=None,
    ):
        super().__init__(
            sparse_categorical_crossentropy,
            reduction=reduction,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            ignore_class=ignore_class,
            axis=axis,
        )

    def call(self, y_true, y_pred):
        # Labels (batch,) against predictions (batch, classes) must keep their rank.
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def compute_loss_mask(self, y_true, y_pred):
        ignore_class = self._fn_kwargs["ignore_class"]
        if ignore_class is None:
            return None
        labels = _sparse_targets(y_true, y_pred, self._fn_kwargs["axis"])
        return ops.not_equal(ops.cast(labels, "int32"), ignore_class)


class KLDivergence(LossFunctionWrapper):
    """Kullback-Leibler divergence between target and predicted distributions.

    >>> round(float(KLDivergence()([[0.5, 0.5]], [[0.25, 0.75]])), 4)
    0.1438
    """

    def __init__(self, reduction="sum_over_batch_size", name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, reduction=reduction, name=name, dtype=dtype)


class Poisson(LossFunctionWrapper):
    """Poisson loss `y_pred - y_true * log(y_pred)`: for count targets.

    >>> round(float(Poisson()([[1.0]], [[2.0]])), 4)
    1.3069
    """

    def __init__(self, reduction="sum_over_batch_size", name="poisson", dtype=None):
        super().__init__(poisson, reduction=reduction, name=name, dtype=dtype)


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    """Generalized cross-entropy between integer labels and class probabilities.

    `(1 - p ** q) / q` with `p` the probability given to the true class: between
    cross-entropy (`q -> 0`) and mean absolute error (`q = 1`), and more robust to
    noisy labels than cross-entropy.

    Args:
        q: the noise parameter, in `(0, 1)` (default 0.5).
        reduction: see `Loss`.
        name: the loss name (default `"categorical_generalized_cross_entropy"`).
        dtype: the computation dtype.

    >>> round(float(CategoricalGeneralizedCrossEntropy(q=0.5)([1], [[0.75, 0.25]])), 4)
    1.0
    """

    def __init__(
        self,
        q=0.5,
        reduction="sum_over_batch_size",
        name="categorical_generalized_cross_entropy",
        dtype=None,
    ):
        if not 0 < q < 1:
            raise ValueError(
                f"CategoricalGeneralizedCrossEntropy needs `q` in the open interval (0, 1); "
                f"received q={q!r}."
            )
        super().__init__(
            categorical_generalized_cross_entropy,
            reduction=reduction,
            name=name,
            dtype=dtype,
            q=q,
        )
        self.q = q

    def call(self, y_true, y_pred):
        # Integer labels: no rank matching against the class axis.
        return categorical_generalized_cross_entropy(y_true, y_pred, self.q)


for _obj in (
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    sparse_categorical_crossentropy,
    kl_divergence,
    poisson,
    categorical_generalized_cross_entropy,
    CategoricalGeneralizedCrossEntropy,
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CategoricalCrossentropy,
    CategoricalFocalCrossentropy,
    SparseCategoricalCrossentropy,
    KLDivergence,
    Poisson,
):
    serialization.register_builtin("losses", _obj)
