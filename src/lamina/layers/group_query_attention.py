"""GroupQueryAttention (Ainslie et al., 2023): attention whose query heads share fewer
key/value heads."""

from __future__ import annotations

import math

from lamina import constraints, initializers, ops, regularizers
from lamina.common import serialization
from lamina.graph.operation import output_spec
from lamina.layers.attention import (
    _check_positive_ints,
    _flash_setting,
    _is_int,
    _QueryValueAttention,
)
from lamina.layers.einsum_dense import EinsumDense
from lamina.layers.input_spec import shapes_differ
from lamina.ops import random as ops_random

# Keras's class is `GroupedQueryAttention`, exported and written to files as
# `GroupQueryAttention`; its default layer name and weights-file key follow the former.
_KERAS_NAME = "GroupQueryAttention"


class GroupedQueryAttention(_QueryValueAttention):
    """Grouped-query attention, as in Keras's `GroupQueryAttention`.

    The query is projected to `num_query_heads` heads and the key and value to
    `num_key_value_heads` heads (fewer, to save memory and compute); each key/value
    head serves `num_query_heads // num_key_value_heads` consecutive query heads.
    `num_key_value_heads=1` is multi-query attention; `num_key_value_heads ==
    num_query_heads` is multi-head attention. The output is projected back to the
    query's feature size. The projections are `EinsumDense` sublayers named `query`,
    `key`, `value` and `attention_output` (and `gate`), kept as Keras keeps them, so
    weights and `.keras` files move between lamina and Keras.

    Args:
        head_dim: size of each head.
        num_query_heads: number of query heads.
        num_key_value_heads: number of key/value heads; must divide `num_query_heads`.
        dropout: dropout rate on the attention probabilities (training only).
        use_bias: whether the projections have biases.
        sliding_window: optional positive int; query position `i` attends only to key
            positions `j` with `|i - j| < sliding_window` (with `use_causal_mask`, the
            causal sliding window).
        flash_attention: as in Keras, `None` (or `False`) takes the global switch
            (`lamina.config.enable/disable_flash_attention`). lamina has no flash
            kernel and computes the attention explicitly (the result is the same);
            `True` is a RuntimeError when called, as in Keras where no kernel is
            available (e.g. on a CPU), and cannot be combined with `dropout > 0` or
            `return_attention_scores=True`.
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
        kernel_constraint, bias_constraint: for the projections.
        activity_regularizer: as in Keras, applied to the layer's output and to each
            projection's output.
        use_gate: gate the attention output with `sigmoid(query @ W_gate + b)` per head
            before the output projection.
        seed: seed of the dropout.

    Call arguments:
        query: `(batch, target_len, dim)`. A list `[query, value(, key)]` is also taken.
        value: `(batch, source_len, value_dim)`.
        key: optional `(batch, source_len, key_dim)`; defaults to `value`.
        query_mask, value_mask, key_mask: optional `(batch, len)` padding masks; in a
            functional model they come from the inputs' propagated masks, and the
            output carries the query's mask.
        attention_mask: optional boolean mask broadcastable to
            `(batch, target_len, source_len)`; False positions get no attention.
        return_attention_scores: also return the `(batch, num_query_heads, target_len,
            source_len)` attention probabilities.
        training: enables dropout.
        use_causal_mask: each query position attends only to positions at or before it.

    Output shape: `(batch, target_len, dim)`.

    >>> import numpy as np
    >>> gqa = GroupQueryAttention(head_dim=3, num_query_heads=4, num_key_value_heads=2)
    >>> out, scores = gqa(np.ones((1, 5, 8)), np.ones((1, 6, 8)), return_attention_scores=True)
    >>> out.shape, scores.shape
    ((1, 5, 8), (1, 4, 5, 6))
    >>> [tuple(w.shape) for w in gqa.key_dense.weights]
    [(8, 2, 3), (2, 3)]
    """

    _display_name = _KERAS_NAME  # in error messages
    _call_name = "gqa"
    _key_mask_needs_key = False  # the key's mask applies to the value when there is no key

    def __init__(
        self,
        head_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        dropout: float = 0.0,
        use_bias: bool = True,
        sliding_window: int | None = None,
        flash_attention: bool | None = None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        use_gate: bool = False,
        seed: int | None = None,
        **kwargs,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.supports_masking = True
        _check_positive_ints(
            _KERAS_NAME,
            [
                ("head_dim", head_dim, False),
                ("num_query_heads", num_query_heads, False),
                ("num_key_value_heads", num_key_value_heads, False),
                ("sliding_window", sliding_window, True),
            ],
        )
        if num_query_heads % num_key_value_heads:
            raise ValueError(
                "GroupQueryAttention expects `num_query_heads` to be a multiple of "
                f"`num_key_value_heads` (each key/value head serves a group of query "
                f"heads); received num_query_heads={num_query_heads}, "
                f"num_key_value_heads={num_key_value_heads}."
            )
        if not 0 <= dropout < 1:
            raise ValueError(
                f"GroupQueryAttention expects `dropout` in [0, 1); received {dropout!r}."
            )
        if flash_attention and dropout > 0:
            raise ValueError(
                "GroupQueryAttention: dropout is not supported with flash_attention=True "
                f"(received dropout={dropout!r}); set dropout=0.0 or flash_attention=None."
            )
        self.head_dim = int(head_dim)
        self.num_query_heads = int(num_query_heads)
        self.num_key_value_heads = int(num_key_value_heads)
        self.num_repeats = self.num_query_heads // self.num_key_value_heads
        self.dropout = float(dropout)
        self.use_bias = bool(use_bias)
        self.use_gate = bool(use_gate)
        self.sliding_window = int(sliding_window) if sliding_window is not None else None
        self._flash_attention = _flash_setting(flash_attention)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)

    # Keras keeps the projections private (`_query_dense`: its weights path); these
    # read-only views give them the names MultiHeadAttention uses.
    query_dense = property(lambda self: self._query_dense)
    key_dense = property(lambda self: self._key_dense)
    value_dense = property(lambda self: self._value_dense)
    output_dense = property(lambda self: self._output_dense)

    def _projection(self, equation, output_shape, bias_axes, name, activation=None):
        return EinsumDense(
            equation,
            output_shape=output_shape,
            bias_axes=bias_axes if self.use_bias else None,
            activation=activation,
            kernel_initializer=self.kernel_initializer,
            bias_initializer=self.bias_initializer,
            kernel_regularizer=self.kernel_regularizer,
            bias_regularizer=self.bias_regularizer,
            activity_regularizer=self.activity_regularizer,
            kernel_constraint=self.kernel_constraint,
            bias_constraint=self.bias_constraint,
            name=name,
            dtype=self.dtype,
        )

    def build(self, query_shape, value_shape=None, key_shape=None):
        if isinstance(query_shape, list) and query_shape and not _is_int(query_shape[0]):
            shapes = [None if s is None else tuple(s) for s in query_shape]
            query_shape = shapes[0]
            value_shape = shapes[1] if len(shapes) > 1 else None
            key_shape = shapes[2] if len(shapes) > 2 else None
        query_shape = tuple(query_shape)
        value_shape = tuple(value_shape) if value_shape is not None else query_shape
        given_key = key_shape is not None
        key_shape = tuple(key_shape) if given_key else value_shape
        for name, shape in (("query", query_shape), ("value", value_shape), ("key", key_shape)):
            if len(shape) != 3 or shape[-1] is None:
                raise ValueError(
                    f"GroupQueryAttention {self.name!r} expects `{name}` of shape (batch, "
                    f"sequence, features) with the features known; received shape {shape}."
                )
        if shapes_differ(value_shape[1:-1], key_shape[1:-1]):
            raise ValueError(
                f"GroupQueryAttention {self.name!r}: `value` and `key` must have the same "
                f"sequence length; received value shape {value_shape} and key shape "
                f"{key_shape}."
            )
        # Keras's einsum letters: b batch, q/k query/key length, m features, u query
        # heads, v key/value heads, h head size. Created in Keras's order (query, key,
        # gate, value, output) so the weights lists match.
        q_heads, kv_heads, size = self.num_query_heads, self.num_key_value_heads, self.head_dim
        self._query_dense = self._projection("bqm,muh->bquh", (None, q_heads, size), "uh", "query")
        self._query_dense.build(query_shape)
        self._key_dense = self._projection("bkm,mvh->bkvh", (None, kv_heads, size), "vh", "key")
        self._key_dense.build(key_shape)
        if self.use_gate:
            self._gate_dense = self._projection(
                "bqm,muh->bquh", (None, q_heads, size), "uh", "gate", activation="sigmoid"
            )
            self._gate_dense.build(query_shape)
        self._value_dense = self._projection("bkm,mvh->bkvh", (None, kv_heads, size), "vh", "value")
        self._value_dense.build(value_shape)
        self._output_dense = self._projection(
            "bquh,uhm->bqm", (None, query_shape[-1]), "m", "attention_output"
        )
        self._output_dense.build((None, None, q_heads, size))
        self._build_shapes = [query_shape, value_shape, key_shape if given_key else None]
        self.built = True

    def _attention_mask(
        self, query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask
    ):
        mask = self._input_masks(
            query, value, query_mask, value_mask, key_mask, use_causal_mask, self.sliding_window
        )
        if attention_mask is None:
            return mask
        mask_shape = tuple(attention_mask.shape)
        target = (query.shape[0], query.shape[1], value.shape[1])
        if len(mask_shape) > 3 or any(
            m not in (1, None) and t is not None and m != t
            for m, t in zip(mask_shape[::-1], target[::-1], strict=False)
        ):
            raise ValueError(
                f"GroupQueryAttention {self.name!r}: `attention_mask` must broadcast to "
                f"(batch, target_len, source_len) = {target}; received shape {mask_shape}."
            )
        attention_mask = ops.cast(attention_mask, "bool")
        return attention_mask if mask is None else ops.logical_and(mask, attention_mask)

    def call(
        self,
        query,
        value,
        key=None,
        query_mask=None,
        value_mask=None,
        key_mask=None,
        attention_mask=None,
        return_attention_scores=False,
        training=None,
        use_causal_mask=False,
    ):
        value, key, query_mask, value_mask, key_mask = self._inputs(
            query, value, key, query_mask, value_mask, key_mask, return_attention_scores
        )
        mask = self._attention_mask(
            query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask
        )
        gate = self._gate_dense(query) if self.use_gate else None
        q = self._query_dense(query)  # (batch, target, query heads, head_dim)
        # Key/value head j serves query heads j * num_repeats ... (j + 1) * num_repeats - 1.
        k = ops.repeat(self._key_dense(key), self.num_repeats, axis=2)
        v = ops.repeat(self._value_dense(value), self.num_repeats, axis=2)
        q = ops.multiply(q, ops.cast(1.0 / math.sqrt(float(self.head_dim)), q.dtype))
        scores = ops.einsum("bquh,bkuh->buqk", q, k)
        if mask is not None:
            while len(mask.shape) < 4:  # insert the head axis (and a missing batch axis)
                mask = ops.expand_dims(mask, -3)
        return self._weigh_values(
            scores,
            mask,
            -1,
            "buqk,bkuh->bquh",
            v,
            gate,
            self._output_dense,
            self.dropout,
            training,
            return_attention_scores,
        )

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        """The output has the query's shape (the scores, when asked for, are
        `(batch, num_query_heads, target_len, source_len)`)."""
        if isinstance(query_shape, list) and query_shape and not _is_int(query_shape[0]):
            query_shape = query_shape[0]
        return tuple(query_shape)

    def compute_output_spec(self, *args, **kwargs):
        # Traced, not from compute_output_shape: the call may also return the scores.
        return output_spec(self.call, args, kwargs)

    def _keras_serialized_names(self):
        name = _KERAS_NAME if type(self) is GroupedQueryAttention else type(self).__name__
        return "keras.layers", name, None

    def get_config(self):
        return {
            **super().get_config(),
            "head_dim": self.head_dim,
            "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "use_bias": self.use_bias,
            "use_gate": self.use_gate,
            "sliding_window": self.sliding_window,
            "dropout": self.dropout,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "seed": self.seed,
        }


GroupQueryAttention = GroupedQueryAttention
serialization.register_builtin("layers", GroupedQueryAttention)
serialization.register_builtin("layers", GroupedQueryAttention, _KERAS_NAME)
