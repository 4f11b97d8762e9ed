"""Attention layers: MultiHeadAttention, Attention (Luong) and AdditiveAttention (Bahdanau)."""

from __future__ import annotations

import math
import string

from lamina import activations, constraints, initializers, ops, regularizers
from lamina.common import serialization
from lamina.common.flash_attention import is_flash_attention_enabled
from lamina.graph.operation import output_spec
from lamina.layers.activations import large_negative_number
from lamina.layers.argument_validation import int_or_ints, is_integer
from lamina.layers.input_spec import shapes_differ
from lamina.layers.layer import Layer
from lamina.ops import random as ops_random
from lamina.ops.nn_attention import NO_FLASH_KERNEL


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _masked_softmax(scores, mask, axes, zero_masked):
    """Softmax over `axes` where `mask` (broadcastable bool) is False contributes zero.

    The masked scores become `large_negative_number`, so a row whose every position is masked
    is spread evenly over all of them; with `zero_masked` its probabilities are then 0,
    as Keras's `Softmax` layer makes them. Keras's attention layers go through that layer
    when they drop out or return the scores, or for inputs other than `(batch, sequence,
    features)`, and through `dot_product_attention` (rows spread evenly) otherwise.
    One axis: the engine's softmax, one kernel on torch where five passes took 2.5x as
    long over a transformer's scores (JAX fuses either)."""
    if mask is not None:
        mask = ops.cast(mask, "bool")
        scores = ops.where(
            mask, scores, ops.cast(large_negative_number(scores.dtype), scores.dtype)
        )
    if len(axes) == 1:
        probs = ops.softmax(scores, axis=axes[0])
    else:
        probs = ops.exp(ops.subtract(scores, ops.logsumexp(scores, axis=axes, keepdims=True)))
    if mask is not None and zero_masked:
        probs = ops.where(mask, probs, ops.cast(0.0, probs.dtype))
    return probs


_is_int = is_integer


def _shape(shape):
    return None if shape is None else tuple(shape)


def _causal_mask(q_len, v_len):
    """`(1, q_len, v_len)` lower-triangular boolean mask (query i sees keys <= i)."""
    row = ops.expand_dims(ops.arange(q_len), -1)
    col = ops.expand_dims(ops.arange(v_len), 0)
    return ops.expand_dims(ops.greater_equal(row, col), 0)


class _Projection(Layer):
    """The `EinsumDense` of Keras's MultiHeadAttention: contracts the `in_dims` last
    input axes with a kernel of shape `in_shape + out_shape`, plus an optional bias."""

    def __init__(
        self,
        in_shape,
        out_shape,
        use_bias,
        kernel_initializer,
        bias_initializer,
        kernel_regularizer,
        bias_regularizer,
        kernel_constraint,
        bias_constraint,
        activation=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)
        self.kernel = self.add_weight(
            shape=tuple(in_shape) + tuple(out_shape),
            initializer=kernel_initializer,
            regularizer=kernel_regularizer,
            constraint=kernel_constraint,
            name="kernel",
        )
        self.bias = None
        if use_bias:
            self.bias = self.add_weight(
                shape=tuple(out_shape),
                initializer=bias_initializer,
                regularizer=bias_regularizer,
                constraint=bias_constraint,
                name="bias",
            )
        self._in_dims = len(in_shape)
        self.built = True

    def call(self, inputs):
        n = self._in_dims
        axes = [list(range(-n, 0)), list(range(n))]
        out = ops.tensordot(inputs, self.kernel, axes=axes)
        if self.bias is not None:
            out = ops.add(out, self.bias)
        return self.activation(out) if self.activation is not None else out


class _QueryValueAttention(Layer):
    """What MultiHeadAttention and GroupQueryAttention share: the `(query, value, key)`
    call and build, the build config Keras writes, and the masks from the inputs."""

    _call_name = "layer"  # in the error for a missing value: `mha(query, value)`

    def get_build_config(self):
        if self._build_shapes is None:
            return None
        query_shape, value_shape, key_shape = self._build_shapes
        shapes = {"query_shape": list(query_shape), "value_shape": list(value_shape)}
        if key_shape is not None:
            shapes["key_shape"] = list(key_shape)
        return {"shapes_dict": shapes}

    def build_from_config(self, config):
        if not config or self.built:
            return
        if "shapes_dict" in config:
            shapes = config["shapes_dict"]
            self.build(
                _shape(shapes["query_shape"]),
                _shape(shapes["value_shape"]),
                _shape(shapes.get("key_shape")),
            )
        else:  # lamina's generic form: {"input_shape": [query, value, key]}
            self.build(list(config["input_shape"]))

    def __call__(self, query=None, value=None, key=None, **kwargs):
        if query is None and "inputs" in kwargs:
            query = kwargs.pop("inputs")
        if isinstance(query, (list, tuple)):
            parts = list(query)
            query = parts[0]
            value = parts[1] if len(parts) > 1 else value
            key = parts[2] if len(parts) > 2 else key
        if value is None:
            raise ValueError(
                f"{self._display_name} {self.name!r} needs a `value` tensor as well as "
                f"`query`: call it as `{self._call_name}(query, value)` (self-attention: "
                f"`{self._call_name}(x, x)`)."
            )
        if not self.built:
            self.build(
                tuple(query.shape),
                tuple(value.shape),
                tuple(key.shape) if key is not None else None,
            )
        return super().__call__(query, value, key, **kwargs)

    @property
    def _display_name(self):
        return type(self).__name__

    def _check_mask(self, mask, name, tensor, tensor_name):
        if mask is None:
            return None
        mask_shape = tuple(mask.shape)
        expected = tuple(tensor.shape[:-1])
        if shapes_differ(mask_shape, expected):
            raise ValueError(
                f"{self._display_name} {self.name!r}: `{name}` must have the shape of "
                f"`{tensor_name}` without its last axis, {expected}; received shape "
                f"{mask_shape}."
            )
        return ops.cast(mask, "bool")

    # Keras's MultiHeadAttention ignores the key's mask when there is no separate key.
    _key_mask_needs_key = True

    def _inputs(self, query, value, key, query_mask, value_mask, key_mask, return_scores):
        """Value and key in the compute dtype (the key defaults to the value) and the
        three input masks checked and made boolean."""
        if self._flash_attention and return_scores:
            raise ValueError(
                f"{self._display_name} {self.name!r}: return_attention_scores=True is not "
                "supported with flash_attention=True; set flash_attention=None."
            )
        # Keras sends (batch, sequence, features) queries to `dot_product_attention`,
        # which raises where no flash kernel exists; other ranks ignore the flag there.
        if self._flash_attention and len(ops.shape(query)) == 3:
            raise RuntimeError(f"{self._display_name} {self.name!r}: {NO_FLASH_KERNEL}")
        dtype = self.compute_dtype
        value = ops.cast(ops.convert_to_tensor(value), dtype)
        key_given = key is not None
        key = value if key is None else ops.cast(ops.convert_to_tensor(key), dtype)
        if self._key_mask_needs_key and not key_given:
            key_mask = None
        return (
            value,
            key,
            self._check_mask(query_mask, "query_mask", query, "query"),
            self._check_mask(value_mask, "value_mask", value, "value"),
            self._check_mask(key_mask, "key_mask", key, "key"),
        )

    def _input_masks(self, query, value, query_mask, value_mask, key_mask, causal, window):
        """Keras's rule: query mask `[B, T, 1]`, value and key masks `[B, 1, S]`, the
        causal and sliding-window masks `[1, T, S]`, all ANDed (None if there are none);
        `attention_mask` is ANDed on by the caller."""
        masks = []
        if query_mask is not None:
            masks.append(ops.expand_dims(query_mask, -1))
        masks += [ops.expand_dims(m, -2) for m in (value_mask, key_mask) if m is not None]
        q_len, v_len = query.shape[1], value.shape[1]
        if causal:
            masks.append(_causal_mask(q_len, v_len))
        if window is not None:
            rows = ops.expand_dims(ops.arange(q_len), -1)
            cols = ops.expand_dims(ops.arange(v_len), 0)
            band = ops.less(ops.abs(ops.subtract(rows, cols)), window)
            masks.append(ops.expand_dims(band, 0))
        if not masks:
            return None
        combined = masks[0]
        for m in masks[1:]:
            combined = ops.logical_and(combined, m)
        return combined

    def _weigh_values(
        self, scores, mask, axes, combine_eq, v, gate, output_dense, rate, training, scores_too
    ):
        """Softmax the scores over `axes` (masked), drop out while training, weigh the
        values, gate, project back; with `scores_too` also return the probabilities."""
        # Keras's choice between its `Softmax` layer and `dot_product_attention` (whose
        # fully masked rows differ: see `_masked_softmax`).
        zero_masked = rate > 0 or scores_too or len(scores.shape) != 4
        axes = (axes,) if isinstance(axes, int) else tuple(axes)
        probs = _masked_softmax(scores, mask, axes, zero_masked)
        dropped = probs
        if training and rate > 0:
            dropped = ops_random.dropout(probs, rate, seed=self.seed_generator)
        out = ops.einsum(combine_eq, dropped, v)
        if gate is not None:
            out = ops.multiply(out, gate)
        out = output_dense(out)
        return (out, probs) if scores_too else out

    def compute_mask(self, inputs, previous_mask=None):
        if isinstance(previous_mask, (list, tuple)):
            return previous_mask[0] if previous_mask else None
        return previous_mask


def _flash_setting(flash_attention):
    """The layer's flash-attention flag, Keras's way: the argument, or when it is falsy
    the global switch (`lamina.config.enable/disable_flash_attention`)."""
    return flash_attention or is_flash_attention_enabled()


def _check_positive_ints(who: str, checks) -> None:
    """Each `(argument, value, optional)` must be a positive int (or None if optional)."""
    for arg, value, optional in checks:
        if optional and value is None:
            continue
        if not is_integer(value) or value <= 0:
            raise ValueError(
                f"{who} expects `{arg}` to be a positive integer"
                f"{' or None' if optional else ''}; received {arg}={value!r}."
            )


@_register
class MultiHeadAttention(_QueryValueAttention):
    """Multi-head attention (Vaswani et al., 2017), as in Keras.

    Query, key and value are each projected to `num_heads` heads (kernels of shape
    `(dim, num_heads, key_dim)`, `value_dim` for the value), the scaled dot products
    `softmax(q k^T / sqrt(key_dim))` weight the values, and the heads are projected back
    with a kernel of shape `(num_heads, value_dim, output_dim)`. The projections are the
    public sublayers `query_dense`, `key_dense`, `value_dense` and `output_dense`, as
    in Keras (weights files use these names).

    Args:
        num_heads: number of heads.
        key_dim: size of each head for query and key.
        value_dim: size of each head for value (default `key_dim`).
        dropout: dropout rate on the attention probabilities (training only).
        use_bias: whether the projections have biases.
        output_shape: last dimension(s) of the output (default: the query's last dim).
        attention_axes: the axes attention runs over (default: all axes except batch,
            heads and features).
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
        activity_regularizer, kernel_constraint, bias_constraint: for the projections.
        use_gate: gate the attention output with `sigmoid(query @ W_gate + b)` per head
            before the output projection (Keras's gated attention).
        seed: seed of the dropout.

    Call arguments:
        query: `(batch, target_len, dim)`. A list `[query, value(, key)]` is also taken.
        value: `(batch, source_len, dim)`.
        key: optional `(batch, source_len, dim)`; defaults to `value`.
        attention_mask: optional boolean `(batch, target_len, source_len)`; False
            positions get no attention.
        query_mask, value_mask, key_mask: optional `(batch, len)` padding masks. In a
            functional model they come from the inputs' propagated masks (e.g. an
            `Embedding(mask_zero=True)`), as in Keras; the output carries the query mask.
        return_attention_scores: also return the `(batch, heads, target, source)`
            attention probabilities.
        training: enables dropout.
        use_causal_mask: each query position attends only to positions at or before it.

    A query row whose every key is masked (a padded query position) attends evenly to
    all keys, as in Keras.

    >>> import numpy as np
    >>> mha = MultiHeadAttention(num_heads=2, key_dim=3)
    >>> out, scores = mha(np.ones((1, 4, 5)), np.ones((1, 6, 5)), return_attention_scores=True)
    >>> out.shape, scores.shape
    ((1, 4, 5), (1, 2, 4, 6))
    """

    _call_name = "mha"

    def __init__(
        self,
        num_heads,
        key_dim,
        value_dim=None,
        dropout=0.0,
        use_bias=True,
        output_shape=None,
        attention_axes=None,
        sliding_window=None,
        flash_attention=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        use_gate=False,
        seed=None,
        **kwargs,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.supports_masking = True
        _check_positive_ints(
            "MultiHeadAttention",
            [
                ("num_heads", num_heads, False),
                ("key_dim", key_dim, False),
                ("value_dim", value_dim, True),
                ("sliding_window", sliding_window, True),
            ],
        )
        self._num_heads = int(num_heads)
        self._key_dim = int(key_dim)
        self._value_dim = int(value_dim) if value_dim is not None else int(key_dim)
        if not 0 <= dropout < 1:
            raise ValueError(
                f"MultiHeadAttention expects `dropout` in [0, 1); received {dropout!r}."
            )
        self._dropout = float(dropout)
        self._use_bias = bool(use_bias)
        self._use_gate = bool(use_gate)
        self._sliding_window = int(sliding_window) if sliding_window is not None else None
        self._flash_attention = _flash_setting(flash_attention)
        if self._flash_attention and self._dropout > 0:
            raise ValueError(
                "MultiHeadAttention: dropout is not supported with flash_attention=True "
                f"(received dropout={dropout!r}); set dropout=0.0 or flash_attention=None."
            )
        if is_integer(output_shape):
            output_shape = (output_shape,)
        self._output_shape = (
            tuple(int_or_ints(output_shape, "output_shape", "MultiHeadAttention"))
            if output_shape
            else None
        )
        if is_integer(attention_axes):
            attention_axes = (attention_axes,)
        elif attention_axes is not None and not isinstance(attention_axes, (list, tuple)):
            raise ValueError(
                "MultiHeadAttention expects `attention_axes` to be an int, list or tuple; "
                f"received {attention_axes!r}."
            )
        self._attention_axes = tuple(attention_axes) if attention_axes is not None else None
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)

    num_heads = property(lambda self: self._num_heads)
    key_dim = property(lambda self: self._key_dim)
    value_dim = property(lambda self: self._value_dim)
    dropout = property(lambda self: self._dropout)
    use_bias = property(lambda self: self._use_bias)
    attention_axes = property(lambda self: self._attention_axes)

    def _proj(self, in_shape, out_shape, name, activation=None):
        return _Projection(
            in_shape,
            out_shape,
            self._use_bias,
            self.kernel_initializer,
            self.bias_initializer,
            self.kernel_regularizer,
            self.bias_regularizer,
            self.kernel_constraint,
            self.bias_constraint,
            activation=activation,
            name=name,
            dtype=self.dtype,
        )

    def build(self, query_shape, value_shape=None, key_shape=None):
        if isinstance(query_shape, list) and query_shape and not _is_int(query_shape[0]):
            shapes = [tuple(s) for s in query_shape]
            query_shape = shapes[0]
            value_shape = shapes[1] if len(shapes) > 1 else None
            key_shape = shapes[2] if len(shapes) > 2 else None
        query_shape = tuple(query_shape)
        value_shape = tuple(value_shape) if value_shape is not None else query_shape
        given_key = key_shape is not None
        key_shape = tuple(key_shape) if given_key else value_shape
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(
                f"MultiHeadAttention {self.name!r}: all dimensions of `value` and `key` "
                f"except the last must be equal; received value shape {value_shape} and "
                f"key shape {key_shape}."
            )
        heads = self._num_heads
        # Created in Keras's order (query, key, gate, value, output): weights lists match.
        self.query_dense = self._proj((query_shape[-1],), (heads, self._key_dim), "query")
        self.key_dense = self._proj((key_shape[-1],), (heads, self._key_dim), "key")
        if self._use_gate:
            # Keras keeps the gate private (`_gate_dense`): its weights path uses that name.
            self._gate_dense = self._proj(
                (query_shape[-1],), (heads, self._value_dim), "gate", activation="sigmoid"
            )
        self.value_dense = self._proj((value_shape[-1],), (heads, self._value_dim), "value")
        out = self._output_shape or (query_shape[-1],)
        self.output_dense = self._proj((heads, self._value_dim), out, "attention_output")
        self._build_shapes = [query_shape, value_shape, key_shape if given_key else None]
        self.built = True

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        """The query's shape, its last dim replaced by `output_shape` when given (Keras's
        signature: the value and key shapes are checked, not used)."""
        if isinstance(query_shape, list) and query_shape and not _is_int(query_shape[0]):
            query_shape, value_shape, key_shape = (list(query_shape) + [None, None])[:3]
        query_shape = tuple(query_shape)
        if value_shape is not None and key_shape is not None:
            if tuple(value_shape)[1:-1] != tuple(key_shape)[1:-1]:
                raise ValueError(
                    f"MultiHeadAttention {self.name!r}: all dimensions of `value` and `key` "
                    f"except the last must be equal; received value shape "
                    f"{tuple(value_shape)} and key shape {tuple(key_shape)}."
                )
        if self._output_shape:
            return query_shape[:-1] + self._output_shape
        return query_shape

    def compute_output_spec(self, *args, **kwargs):
        # Traced, not from compute_output_shape: the call may also return the scores.
        return output_spec(self.call, args, kwargs)

    def _equations(self, rank):
        """Einsum equations for projected tensors of rank `rank` (batch, ..., heads, dim)."""
        if self._attention_axes is None:
            attn_axes = tuple(range(1, rank - 2))
        else:
            attn_axes = tuple(a % (rank - 1) for a in self._attention_axes)
        letters = string.ascii_lowercase
        source = letters[:rank]
        target = ""
        extra = rank
        for i in range(rank):
            if i in attn_axes:
                target += letters[extra]
                extra += 1
            else:
                target += source[i]
        batch_dims = [i for i in range(rank) if i not in attn_axes and i != rank - 1]
        product = (
            "".join(source[i] for i in batch_dims)
            + "".join(target[i] for i in attn_axes)
            + "".join(source[i] for i in attn_axes)
        )
        dot_eq = f"{source},{target}->{product}"
        combine_eq = f"{product},{source}->{target}"
        norm_axes = tuple(range(len(product) - len(attn_axes), len(product)))
        return dot_eq, combine_eq, norm_axes, len(attn_axes)

    def _compute_attention_mask(
        self, query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask
    ):
        auto = self._input_masks(
            query, value, query_mask, value_mask, key_mask, use_causal_mask, self._sliding_window
        )
        if attention_mask is not None:
            attention_mask = ops.cast(attention_mask, "bool")
            return attention_mask if auto is None else ops.logical_and(attention_mask, auto)
        return auto

    def _check_attention_mask(self, attention_mask, scores_shape, n_attn):
        """The mask must broadcast to the scores once the head axis is inserted."""
        if attention_mask is None:
            return None
        mask_shape = tuple(attention_mask.shape)
        # Scores: (batch dims..., heads, target attention dims..., source attention dims...)
        without_heads = scores_shape[: -2 * n_attn - 1] + scores_shape[-2 * n_attn :]
        ok = len(mask_shape) <= len(without_heads) and all(
            m is None or s is None or m in (1, s)
            for m, s in zip(mask_shape[::-1], without_heads[::-1], strict=False)
        )
        if not ok:
            raise ValueError(
                f"MultiHeadAttention {self.name!r}: `attention_mask` must broadcast to "
                f"(batch, target_len, source_len) = {without_heads}; received shape "
                f"{mask_shape}."
            )
        return attention_mask

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
        attention_mask = self._compute_attention_mask(
            query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask
        )
        gate = self._gate_dense(query) if self._use_gate else None
        q = self.query_dense(query)
        k = self.key_dense(key)
        v = self.value_dense(value)
        dot_eq, combine_eq, norm_axes, n_attn = self._equations(len(q.shape))
        q = ops.multiply(q, ops.cast(1.0 / math.sqrt(float(self._key_dim)), q.dtype))
        scores = ops.einsum(dot_eq, k, q)
        attention_mask = self._check_attention_mask(attention_mask, tuple(scores.shape), n_attn)
        if attention_mask is not None:
            for _ in range(len(scores.shape) - len(attention_mask.shape)):
                attention_mask = ops.expand_dims(attention_mask, -n_attn * 2 - 1)
        return self._weigh_values(
            scores,
            attention_mask,
            norm_axes,
            combine_eq,
            v,
            gate,
            self.output_dense,
            self._dropout,
            training,
            return_attention_scores,
        )

    def get_config(self):
        return {
            **super().get_config(),
            "num_heads": self._num_heads,
            "key_dim": self._key_dim,
            "value_dim": self._value_dim,
            "dropout": self._dropout,
            "use_bias": self._use_bias,
            "use_gate": self._use_gate,
            "output_shape": list(self._output_shape) if self._output_shape else None,
            "attention_axes": list(self._attention_axes) if self._attention_axes else None,
            "sliding_window": self._sliding_window,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "seed": self.seed,
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        for key in ("query_shape", "key_shape", "value_shape"):
            config.pop(key, None)
        return super().from_config(config)


def _unpack(inputs, who):
    if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
        raise ValueError(
            f"{who} expects `inputs` to be a list [query, value] or [query, value, key]; "
            f"received {type(inputs).__name__}."
        )
    q, v = inputs[0], inputs[1]
    k = inputs[2] if len(inputs) == 3 else v
    return q, v, k


@_register
class Attention(Layer):
    """Dot-product attention (Luong-style): `softmax(query @ key^T) @ value`.

    Args:
        use_scale: learn a scalar `scale` multiplying the scores.
        score_mode: `"dot"` (`q . k`) or `"concat"` (`sum(tanh(q + k))`, times a learned
            scalar `concat_score_weight`).
        dropout: dropout rate on the attention weights (training only).
        seed: seed of the dropout.

    Call arguments:
        inputs: `[query, value]` or `[query, value, key]`, shapes `(batch, Tq, dim)` and
            `(batch, Tv, dim)`; key defaults to value.
        mask: optional `[query_mask, value_mask]` of shapes `(batch, Tq)`, `(batch, Tv)`;
            masked values get no attention, masked query positions output zeros.
        return_attention_scores: also return the `(batch, Tq, Tv)` attention weights.
        training: enables dropout.
        use_causal_mask: query position i attends only to value positions <= i.

    >>> import numpy as np
    >>> Attention()([np.ones((2, 3, 4)), np.ones((2, 5, 4))]).shape
    (2, 3, 4)
    """

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(
                f"Invalid score_mode {score_mode!r}; expected one of ['dot', 'concat']."
            )
        if not 0 <= dropout < 1:
            raise ValueError(f"`dropout` must be in [0, 1); received {dropout!r}.")
        self.use_scale = use_scale
        self.score_mode = score_mode
        self.dropout = float(dropout)
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)
        self.supports_masking = True

    def build(self, input_shape):
        self.scale = None
        self.concat_score_weight = None
        if self.use_scale:
            self.scale = self.add_weight(shape=(), initializer="ones", name="scale")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(
                shape=(), initializer="ones", name="concat_score_weight"
            )
        self.built = True

    def _calculate_scores(self, query, key):
        if self.score_mode == "dot":
            scores = ops.matmul(query, ops.swapaxes(key, -1, -2))
            if self.scale is not None:
                scores = ops.multiply(scores, self.scale)
            return scores
        q = ops.expand_dims(query, -2)
        k = ops.expand_dims(key, -3)
        s = ops.add(q, k)
        if self.scale is not None:
            s = ops.multiply(self.scale, s)
        return ops.multiply(self.concat_score_weight, ops.sum(ops.tanh(s), axis=-1))

    def call(
        self,
        inputs,
        mask=None,
        training=False,
        return_attention_scores=False,
        use_causal_mask=False,
    ):
        q, v, k = _unpack(inputs, type(self).__name__)
        q_mask = v_mask = None
        if mask is not None:
            mask = list(mask)
            q_mask = mask[0]
            v_mask = mask[1] if len(mask) > 1 else None
        for name, m, x in (("query", q_mask, q), ("value", v_mask, v)):
            if m is not None and shapes_differ(m.shape, x.shape[:-1]):
                raise ValueError(
                    f"{type(self).__name__} {self.name!r}: the {name} mask must have shape "
                    f"{tuple(x.shape[:-1])} (the {name}'s shape {tuple(x.shape)} without its "
                    f"last axis); received mask shape {tuple(m.shape)}."
                )
        scores = self._calculate_scores(q, k)
        scores_mask = None
        if v_mask is not None:
            scores_mask = ops.expand_dims(ops.cast(v_mask, "bool"), -2)
        if use_causal_mask:
            causal = _causal_mask(scores.shape[-2], scores.shape[-1])
            scores_mask = causal if scores_mask is None else ops.logical_and(scores_mask, causal)
        if scores_mask is not None:
            pad = ops.cast(ops.logical_not(scores_mask), scores.dtype)
            scores = ops.subtract(scores, ops.multiply(1e9, pad))
        weights = ops.softmax(scores, axis=-1)
        dropped = weights
        if training and self.dropout > 0:
            dropped = ops_random.dropout(weights, self.dropout, seed=self.seed_generator)
        result = ops.matmul(dropped, v)
        if q_mask is not None:
            result = ops.multiply(result, ops.cast(ops.expand_dims(q_mask, -1), result.dtype))
        if return_attention_scores:
            return result, weights
        return result

    def compute_mask(self, inputs, previous_mask=None):
        if previous_mask is None:
            return None
        if isinstance(previous_mask, (list, tuple)):
            return previous_mask[0]
        return previous_mask

    def get_config(self):
        return {
            **super().get_config(),
            "use_scale": self.use_scale,
            "score_mode": self.score_mode,
            "dropout": self.dropout,
            "seed": self.seed,
        }


@_register
class AdditiveAttention(Attention):
    """Additive attention (Bahdanau-style): scores `sum(scale * tanh(query + key), -1)`.

    Args:
        use_scale: learn a per-feature `scale` vector of shape `(dim,)` (default True).
        dropout: dropout rate on the attention weights (training only).
        seed: seed of the dropout.

    Call arguments: as for `Attention`.

    >>> import numpy as np
    >>> AdditiveAttention()([np.ones((2, 3, 4)), np.ones((2, 5, 4))]).shape
    (2, 3, 4)
    """

    def __init__(self, use_scale=True, dropout=0.0, seed=None, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, seed=seed, **kwargs)

    def build(self, input_shape):
        shapes = [tuple(s) for s in input_shape]
        dim = shapes[2][-1] if len(shapes) > 2 else shapes[1][-1]
        self.scale = None
        self.concat_score_weight = None
        if self.use_scale:
            self.scale = self.add_weight(shape=(dim,), initializer="glorot_uniform", name="scale")
        self.built = True

    def _calculate_scores(self, query, key):
        q = ops.expand_dims(query, -2)
        k = ops.expand_dims(key, -3)
        t = ops.tanh(ops.add(q, k))
        if self.scale is not None:
            t = ops.multiply(self.scale, t)
        return ops.sum(t, axis=-1)

    def get_config(self):
        config = super().get_config()
        config.pop("score_mode")
        return config
