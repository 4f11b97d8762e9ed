"""The CTC loss (connectionist temporal classification) for unaligned sequences.

Speech and handwriting models emit one class distribution per time step while their
labels are shorter and unaligned; CTC sums the probability of every alignment. Targets
are padded with 0, the blank class, which no real label may use.
"""

from __future__ import annotations

from lamina import ops
from lamina.common import serialization
from lamina.losses.loss import Loss, LossFunctionWrapper, graph_function


@graph_function
def ctc(y_true, y_pred):
    """CTC loss of each sample, with every time step of `y_pred` used.

    Args:
        y_true: `(batch, max_label_length)` integer labels, padded with 0 (the blank).
        y_pred: `(batch, time_steps, num_classes)` logits (not softmax-ed).

    Returns:
        `(batch,)` losses.

    >>> import numpy as np
    >>> round(float(ctc(np.array([[1]]), np.zeros((1, 2, 2), "float32"))[0]), 4)
    0.2877
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.convert_to_tensor(y_true)
    if len(ops.shape(y_true)) != 2:
        raise ValueError(
            "CTC expects `y_true` of shape (batch_size, max_label_length) holding integer "
            f"labels padded with 0; received shape {tuple(ops.shape(y_true))}."
        )
    if len(ops.shape(y_pred)) != 3:
        raise ValueError(
            "CTC expects `y_pred` of shape (batch_size, time_steps, num_classes) holding "
            f"logits; received shape {tuple(ops.shape(y_pred))}."
        )
    y_true = ops.cast(y_true, "int32")
    batch, time_steps = ops.shape(y_pred)[0], ops.shape(y_pred)[1]
    output_length = ops.full((batch,), time_steps, dtype="int32")
    target_length = ops.sum(ops.cast(ops.not_equal(y_true, 0), "int32"), axis=-1)
    return ops.ctc_loss(y_true, y_pred, target_length, output_length, mask_index=0)


class CTC(LossFunctionWrapper):
    """The CTC loss: targets `(batch, max_label_length)` padded with 0, logits
    `(batch, time_steps, num_classes)` with class 0 the blank.

    Args:
        reduction: see `Loss` (default `"sum_over_batch_size"`).
        name: the loss name (default `"ctc"`).
        dtype: the computation dtype (default `floatx()`).

    >>> CTC().get_config()
    {'name': 'ctc', 'reduction': 'sum_over_batch_size', 'dtype': None}
    """

    def __init__(self, reduction="sum_over_batch_size", name="ctc", dtype=None):
        super().__init__(ctc, reduction=reduction, name=name, dtype=dtype)

    def call(self, y_true, y_pred):
        # No rank matching: labels and logits legitimately differ by one axis.
        return ctc(y_true, y_pred)

    def get_config(self) -> dict:
        return Loss.get_config(self)


for _obj in (ctc, CTC):
    serialization.register_builtin("losses", _obj)
