"""Circle loss (Sun et al., 2020): metric learning on L2-normalized embeddings.

Within a batch each embedding is compared with every reference embedding (by default
the batch itself): pairs with the same label are pulled together, others pushed
apart, each pair weighted by how far it is from its optimum.
"""

from __future__ import annotations

from lamina import ops
from lamina.common import serialization
from lamina.losses.loss import Loss, LossFunctionWrapper, graph_function


def _pair_masks(labels, ref_labels, remove_diagonal):
    labels = ops.reshape(labels, (-1, 1))
    ref_labels = ops.reshape(ref_labels, (-1, 1))
    positive = ops.equal(labels, ops.transpose(ref_labels))
    negative = ops.logical_not(positive)
    if remove_diagonal:
        n, m = ops.shape(labels)[0], ops.shape(ref_labels)[0]
        positive = ops.logical_and(positive, ops.logical_not(ops.eye(n, m, dtype="bool")))
    return positive, negative


@graph_function
def circle(
    y_true,
    y_pred,
    ref_labels=None,
    ref_embeddings=None,
    remove_diagonal=True,
    gamma=80,
    margin=0.4,
):
    """Circle loss of each embedding in the batch.

    Args:
        y_true: `(batch,)` or `(batch, 1)` integer labels.
        y_pred: `(batch, dim)` L2-normalized embeddings.
        ref_labels: labels of the reference embeddings (default `y_true`).
        ref_embeddings: L2-normalized reference embeddings (default `y_pred`).
        remove_diagonal: leave each embedding's pair with itself out of the positives.
        gamma: the scale of the similarity scores.
        margin: the relaxation margin.

    Returns:
        `(batch,)` losses; a sample with no positive pair gets 0.

    >>> import numpy as np
    >>> e = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], "float32")
    >>> [round(v, 4) for v in circle(np.array([0, 0, 1]), e).tolist()]
    [0.0, 0.0, 0.0]
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, "int32")
    ref_embeddings = y_pred if ref_embeddings is None else ops.convert_to_tensor(ref_embeddings)
    ref_labels = y_true if ref_labels is None else ops.cast(ref_labels, "int32")
    distance = ops.maximum(1.0 - ops.matmul(y_pred, ops.transpose(ref_embeddings)), 0.0)
    positive, negative = _pair_masks(y_true, ref_labels, remove_diagonal)
    dtype = ops.dtype(distance)
    # Pair weights (alpha_p, alpha_n in the paper), zero outside their mask.
    weight_pos = ops.maximum((margin + distance) * ops.cast(positive, dtype), 0.0)
    weight_neg = ops.maximum((1.0 + margin - distance) * ops.cast(negative, dtype), 0.0)
    logits_pos = -gamma * weight_pos * (margin - distance)
    logits_neg = gamma * weight_neg * (1.0 - margin - distance)
    loss_pos = ops.logsumexp(ops.where(positive, logits_pos, float("-inf")), axis=1)
    loss_neg = ops.logsumexp(ops.where(negative, logits_neg, float("-inf")), axis=1)
    return ops.softplus(loss_pos + loss_neg)


class Circle(LossFunctionWrapper):
    """Circle loss between integer labels and L2-normalized embeddings.

    End the model with a linear `Dense` and a `UnitNormalization` layer. Samples
    without a positive pair in the batch give 0 and do not count in the mean.

    Args:
        gamma: the scale of the similarity scores (default 80).
        margin: the relaxation margin (default 0.4).
        remove_diagonal: leave each embedding's pair with itself out of the positives.
        reduction: see `Loss`.
        name: the loss name (default `"circle"`).
        dtype: the computation dtype.

    >>> Circle().get_config()["gamma"]
    80.0
    """

    def __init__(
        self,
        gamma=80.0,
        margin=0.4,
        remove_diagonal=True,
        reduction="sum_over_batch_size",
        name="circle",
        dtype=None,
    ):
        super().__init__(
            circle,
            reduction=reduction,
            name=name,
            dtype=dtype,
            gamma=gamma,
            margin=margin,
            remove_diagonal=remove_diagonal,
        )
        self.gamma, self.margin, self.remove_diagonal = gamma, margin, remove_diagonal

    def compute_loss_mask(self, y_true, y_pred):
        # Keras masks the samples whose loss is 0 (no positive pair) out of the mean.
        return ops.greater(self.call(y_true, y_pred), 0.0)

    def get_config(self) -> dict:
        config = Loss.get_config(self)
        config.update(gamma=self.gamma, margin=self.margin, remove_diagonal=self.remove_diagonal)
        return config


for _obj in (circle, Circle):
    serialization.register_builtin("losses", _obj)
