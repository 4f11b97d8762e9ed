"""ReversibleEmbedding: an embedding that can also project hidden states back to logits.

Language models often share ("tie") the input embedding table with the output
projection (Press and Wolf, 2016): `reverse=True` multiplies hidden states by the
transposed table, giving one logit per vocabulary entry.
"""

from __future__ import annotations

import math

from lamina import ops, quantizers
from lamina.common import serialization
from lamina.graph.keras_tensor import KerasTensor
from lamina.layers import quantization
from lamina.layers.core import Embedding
from lamina.quantizers.grouped import dequantize_grouped
from lamina.quantizers.quantization_config import QuantizationConfig, block_size_for_layer

_QUANTIZED_MODES = ("int8", "int4")


def _read(value):
    return value.value if hasattr(value, "value") else value


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
        # Quantized, `quantized_build` made the reverse weights already.
        if not self.tie_weights and self.quantization_mode not in _QUANTIZED_MODES:
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
        if self.quantization_mode in _QUANTIZED_MODES:
            return self._soft_cap(self._quantized_reverse(inputs))
        if self.tie_weights:
            kernel = ops.transpose(self.embeddings)
        else:
            kernel = self.reverse_embeddings
        dtype = self.reverse_dtype or self.compute_dtype
        return self._soft_cap(ops.matmul(ops.cast(inputs, dtype), ops.cast(kernel, dtype)))

    def _soft_cap(self, logits):
        if self.logit_soft_cap is None:
            return logits
        cap = self.logit_soft_cap
        return ops.multiply(ops.tanh(ops.divide(logits, cap)), cap)

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

    # Quantization: Embedding's for the table; the reverse projection (its own matrix
    # when untied) quantized per vocabulary entry, or in blocks of `output_dim`. ------
    @property
    def _float_file_order(self):
        # Keras's spec: the table, and the reverse projection when it has its own.
        if getattr(self, "tie_weights", True):
            return ("embeddings",)
        return ("embeddings", "reverse_embeddings")

    @property
    def _quantized_file_order(self):
        order = Embedding._quantized_file_order
        # Asked before `__init__` has set `tie_weights` (checking a quantized `dtype`).
        if getattr(self, "tie_weights", True):
            return order
        reverse = ("reverse_embeddings", "reverse_embeddings_scale")
        return {
            "int8": (*order["int8"], *reverse),
            "int4": (*order["int4"], *reverse, "reverse_embeddings_zero"),
        }

    def quantize(self, mode=None, type_check=True, config=None):
        """Quantize the table as `Embedding.quantize` does and, when the weights are not
        tied, `reverse_embeddings` too: int8 with one scale per vocabulary entry, int4
        per entry or in blocks of `block_size` along `output_dim` (with zero points).
        A reverse call quantizes its inputs per row, as Keras does.

        Args:
            mode: `"int8"` or `"int4"`; optional with a `config`.
            type_check: refuse subclasses of ReversibleEmbedding.
            config: an `Int8QuantizationConfig` or `Int4QuantizationConfig`.

        >>> import numpy as np
        >>> layer = ReversibleEmbedding(10, 4, tie_weights=False)
        >>> layer.build()
        >>> layer.quantize("int8")
        >>> str(layer.reverse_embeddings.dtype), tuple(layer.reverse_embeddings_scale.shape)
        ('int8', (10,))
        >>> layer(np.ones((1, 4), "float32"), reverse=True).shape
        (1, 10)
        """
        mode, config = quantization.begin_quantize(
            self, ReversibleEmbedding, mode, type_check, config
        )
        reverse = None
        if not self.tie_weights:
            old = self.reverse_embeddings
            reverse = _quantize_reverse(old, mode, block_size_for_layer(self, config), config)
            del self.__dict__["reverse_embeddings"]
            self._own_variables = [v for v in self._own_variables if v is not old]
        Embedding.quantize(self, mode, type_check=False, config=config)
        if reverse is not None:
            values, scale, zero = reverse
            self.reverse_embeddings.assign(values)
            self.reverse_embeddings_scale.assign(scale)
            if zero is not None:
                self.reverse_embeddings_zero.assign(zero)

    def quantized_build(self, embeddings_shape, mode, config=None):
        """Embedding's quantized table, the reverse call's inputs quantizer and, untied,
        the quantized `reverse_embeddings` with its scale (and int4 blocks' zeros)."""
        super().quantized_build(embeddings_shape, mode, config)
        config = config if config is not None else self.quantization_config
        self.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=-1)
        )
        if self.tie_weights:
            return
        block_size = block_size_for_layer(self, config) if mode == "int4" else None
        rows = (self.output_dim + 1) // 2 if mode == "int4" else self.output_dim
        self.reverse_embeddings = self.add_weight(
            shape=(rows, self.input_dim),
            initializer="zeros",
            dtype="int8",
            trainable=False,
            name="reverse_embeddings",
        )
        grouped = block_size not in (None, -1)
        shape = (
            (math.ceil(self.output_dim / block_size), self.input_dim)
            if grouped
            else (self.input_dim,)
        )
        self.reverse_embeddings_scale = self.add_weight(
            shape=shape, initializer="ones", trainable=False, name="reverse_embeddings_scale"
        )
        if grouped:
            self.reverse_embeddings_zero = self.add_weight(
                shape=shape, initializer="zeros", trainable=False, name="reverse_embeddings_zero"
            )

    def _quantized_reverse(self, inputs):
        """`inputs @ table^T` (or `@ reverse_embeddings`) with the quantized weights."""
        mode = self.quantization_mode
        dtype = self.compute_dtype
        block_size = getattr(self, "_int4_block_size", None) if mode == "int4" else None
        grouped = block_size not in (None, -1)
        if self.tie_weights:
            kernel = ops.transpose(_read(self._embeddings))
            scale = _read(self.embeddings_scale)
            zero = _read(self.embeddings_zero) if grouped else None
            if grouped:  # (input_dim, groups) -> (groups, input_dim), as the kernel
                scale, zero = ops.transpose(scale), ops.transpose(zero)
        else:
            kernel = _read(self.reverse_embeddings)
            scale = _read(self.reverse_embeddings_scale)
            zero = _read(self.reverse_embeddings_zero) if grouped else None
        if mode == "int4":
            kernel = quantizers.unpack_int4(kernel, self.output_dim, axis=0)
        if self.inputs_quantizer:
            inputs, inputs_scale = self.inputs_quantizer(inputs)
        else:
            inputs_scale = ops.ones((1,), dtype=dtype)
        if not grouped:
            logits = ops.cast(ops.matmul(inputs, kernel), dtype)
            return ops.divide(logits, ops.multiply(inputs_scale, scale))
        weights = dequantize_grouped(
            ops.cast(kernel, dtype), scale, zero, _read(self.g_idx), group_axis=0
        )
        return ops.divide(ops.matmul(inputs, weights), inputs_scale)


def _quantize_reverse(variable, mode, block_size, config):
    """`(values, scale, zero or None)` of a float `(output_dim, input_dim)` reverse
    matrix: one scale per vocabulary entry (column), or int4 blocks along `output_dim`."""
    if mode == "int8":
        quantizer = QuantizationConfig.weight_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=0)
        )
        values, scale = quantizer(variable, to_numpy=True)
        return values, ops.squeeze(scale, axis=0), None
    if block_size in (None, -1):
        quantizer = QuantizationConfig.weight_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=0, value_range=(-8, 7), output_dtype="int8")
        )
        values, scale = quantizer(variable, to_numpy=True)
        scale, zero = ops.squeeze(scale, axis=0), None
    else:
        values, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
            _read(variable), block_size=block_size, value_range=(-8, 7), dtype="int8", to_numpy=True
        )
    packed, _, _ = quantizers.pack_int4(values, axis=0)
    return packed, scale, zero


serialization.register_builtin("layers", ReversibleEmbedding)
