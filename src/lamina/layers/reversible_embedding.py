"""ReversibleEmbedding: an embedding that can also project hidden states back to logits.

Language models often share ("tie") the input embedding table with the output
projection (Press and Wolf, 2016): `reverse=True` multiplies hidden states by the
transposed table, giving one logit per vocabulary entry.
"""

from __future__ import annotations

from lamina import ops
from lamina.common import serialization
from lamina.graph.keras_tensor import KerasTensor
from lamina.layers.core import Embedding


class ReversibleEmbedding(Embedding):
    """An `Embedding` that, called with `reverse=True`, projects vectors back to logits.

    A normal call maps integer ids `(batch, ...)` to vectors `(batch, ..., output_dim)`.
    A reverse call maps vectors `(batch, ..., output_dim)` to logits
    `(batch, ..., input_dim)`: `inputs @ embeddings.T` when the weights are tied (the
    default), else `inputs @ reverse_embeddings`, a separate trainable
    `(output_dim, input_dim)` matrix. There is no bias.

    Args:
        input_dim: vocabulary size (largest index + 1).
        output_dim: size of each embedding vector.
        tie_weights: whether the reverse projection uses the transposed embedding table
            (True) or its own `reverse_embeddings` weight (False).
        embeddings_initializer, embeddings_regularizer, embeddings_constraint: for the
            `(input_dim, output_dim)` table (the initializer also makes
            `reverse_embeddings`).
        mask_zero: treat id 0 as padding: a normal call emits a mask; a reverse call
            emits none.
        reverse_dtype: dtype for the reverse projection's inputs and kernel (and so its
            logits); default the layer's compute dtype.
        logit_soft_cap: if set, reverse logits become
            `tanh(logits / logit_soft_cap) * logit_soft_cap`, bounding them to
            `(-logit_soft_cap, logit_soft_cap)`.
        **kwargs: the remaining `Embedding` and base layer arguments (`name`, `dtype`).

    Call arguments:
        inputs: integer ids, or (with `reverse=True`) vectors of size `output_dim`.
        reverse: whether to project back to logits.

    >>> import numpy as np
    >>> embedding = ReversibleEmbedding(10, 4)
    >>> hidden = embedding(np.array([[1, 2, 3]]))
    >>> hidden.shape, embedding(hidden, reverse=True).shape
    ((1, 3, 4), (1, 3, 10))
    """

    def __init__(
        self,
        input_dim,
        output_dim,
        tie_weights=True,
        embeddings_initializer="uniform",
        embeddings_regularizer=None,
        embeddings_constraint=None,
        mask_zero=False,
        reverse_dtype=None,
        logit_soft_cap=None,
        **kwargs,
    ):
        super().__init__(
            input_dim,
            output_dim,
            embeddings_initializer=embeddings_initializer,
            embeddings_regularizer=embeddings_regularizer,
            embeddings_constraint=embeddings_constraint,
            mask_zero=mask_zero,
            **kwargs,
        )
        if logit_soft_cap is not None and not (
            isinstance(logit_soft_cap, (int, float))
            and not isinstance(logit_soft_cap, bool)
            and logit_soft_cap > 0
        ):
            raise ValueError(
                "ReversibleEmbedding expects `logit_soft_cap` to be None or a positive "
                f"number; received {logit_soft_cap!r}."
            )
        self.tie_weights = bool(tie_weights)
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = logit_soft_cap
        # True only while a reverse call is recorded in a graph: its output has no mask.
        self._recording_reverse = False

    def build(self, input_shape=None):
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                shape=(self.output_dim, self.input_dim),
                initializer=self.embeddings_initializer,
                name="reverse_embeddings",
                trainable=True,
            )
        self.built = True

    def call(self, inputs, reverse=False):
        if not reverse:
            return super().call(inputs)
        last = tuple(inputs.shape)[-1] if len(inputs.shape) else None
        if last != self.output_dim:
            raise ValueError(
                f"ReversibleEmbedding {self.name!r} called with reverse=True expects vectors "
                f"of size output_dim={self.output_dim} on the last axis; received shape "
                f"{tuple(inputs.shape)}. Pass hidden states, not token ids."
            )
        if self.tie_weights:
            kernel = ops.transpose(self.embeddings)
        else:
            kernel = self.reverse_embeddings
        dtype = self.reverse_dtype or self.compute_dtype
        logits = ops.matmul(ops.cast(inputs, dtype), ops.cast(kernel, dtype))
        if self.logit_soft_cap is not None:
            cap = self.logit_soft_cap
            logits = ops.multiply(ops.tanh(ops.divide(logits, cap)), cap)
        return logits

    def compute_mask(self, inputs, previous_mask=None):
        if self._recording_reverse:
            return None
        return super().compute_mask(inputs, previous_mask)

    def _symbolic_layer_call(self, args, user_kwargs):
        self._recording_reverse = bool(user_kwargs.get("reverse", False))
        try:
            return super()._symbolic_layer_call(args, user_kwargs)
        finally:
            self._recording_reverse = False

    def compute_output_shape(self, input_shape, reverse=False):
        input_shape = tuple(input_shape)
        if reverse:
            return input_shape[:-1] + (self.input_dim,)
        return input_shape + (self.output_dim,)

    def compute_output_spec(self, inputs, reverse=False):
        shape = self.compute_output_shape(inputs.shape, reverse=reverse)
        dtype = (self.reverse_dtype or self.compute_dtype) if reverse else self.compute_dtype
        return KerasTensor(shape, dtype)

    def get_config(self):
        return {
            **super().get_config(),
            "tie_weights": self.tie_weights,
            "reverse_dtype": self.reverse_dtype,
            "logit_soft_cap": self.logit_soft_cap,
        }


serialization.register_builtin("layers", ReversibleEmbedding)
