"""The int4 and float8 quantization modes of Dense, EinsumDense and Embedding.

int4 keeps the kernel as int4 values packed two per int8 byte along the output axis
(`quantizers.pack_int4`), with either one symmetric scale per output channel
(`block_size` None or -1: `q = round(kernel * scale)` in [-8, 7], as int8's) or, per
block of `block_size` inputs, a scale and a zero point (`kernel ~ (q - zero) * scale`,
`quantizers.abs_max_quantize_grouped_with_zero_point`) and `g_idx`, the block of each
input row. Calls unpack the kernel and contract with it (per-channel with an optional
inputs quantizer, as int8; blocks with the dequantized kernel).

float8 keeps the float kernel and adds, for the inputs, the kernel and the gradient of
the outputs, a scale and an abs-max history. Each call rounds the inputs and the kernel
to float8_e4m3fn (`x / scale`, clipped, cast, times `scale`) and, going back, the
gradient of the outputs to float8_e5m2. The "gradients" of the scales and histories are
their next values (delayed scaling: the history is rolled and the newest abs-max
written first; the scale maps the history's maximum onto the float8 maximum), and the
optimizer writes them in place of an update (`overwrite_with_gradient`).
"""

from __future__ import annotations

import math

from lamina import ops, quantizers
from lamina.backend.common.variables import Variable
from lamina.dtype_policies.dtype_policy import QuantizedFloat8DTypePolicy
from lamina.quantizers.grouped import dequantize_grouped
from lamina.quantizers.quantization_config import QuantizationConfig, block_size_for_layer

_E4M3_MAX = 448.0
_E5M2_MAX = 57344.0


def _read(value):
    return value.value if isinstance(value, Variable) else value


def _per_channel(block_size) -> bool:
    return block_size is None or block_size == -1


def _g_idx_initializer(length: int, block_size: int):
    def initializer(shape, dtype=None):
        return ops.floor_divide(ops.arange(length, dtype="float32"), block_size)

    return initializer


# int4: Dense ------------------------------------------------------------------------
def _add_int4_scales(layer, weight, scale_shape, length, block_size) -> None:
    """Add `<weight>_scale` and, in blocks, `<weight>_zero` and `g_idx` (the block of
    each of the `length` positions along the blocked axis), as Keras adds them."""
    setattr(
        layer,
        f"{weight}_scale",
        layer.add_weight(
            shape=scale_shape, initializer="ones", trainable=False, name=f"{weight}_scale"
        ),
    )
    if _per_channel(block_size):
        return
    setattr(
        layer,
        f"{weight}_zero",
        layer.add_weight(
            shape=scale_shape,
            initializer="zeros",
            dtype="int8",
            trainable=False,
            name=f"{weight}_zero",
        ),
    )
    layer.g_idx = layer.add_weight(
        shape=(length,),
        initializer=_g_idx_initializer(length, block_size),
        dtype="float32",
        trainable=False,
        name="g_idx",
    )


def dense_int4_quantize(layer, config):
    """`(packed kernel, scale, zero or None)` of a Dense layer's float kernel."""
    block_size = block_size_for_layer(layer, config)
    kernel = layer._kernel
    zero = None
    if _per_channel(block_size):
        quantizer = QuantizationConfig.weight_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=0, value_range=(-8, 7))
        )
        values, scale = quantizer(kernel, to_numpy=True)
        scale = ops.squeeze(scale, axis=0)
    else:
        values, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
            kernel, block_size=block_size, to_numpy=True
        )
    packed, _, _ = quantizers.pack_int4(values, axis=-1)
    return packed, scale, zero


def dense_int4_build(layer, kernel_shape, config):
    input_dim, units = kernel_shape
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(config, None)
    block_size = block_size_for_layer(layer, config)
    layer._int4_block_size = block_size
    layer._orig_output_dim = units
    layer._kernel = layer.add_weight(
        shape=(input_dim, (units + 1) // 2),
        initializer="zeros",
        dtype="int8",
        trainable=False,
        name="kernel",
    )
    if _per_channel(block_size):
        scale_shape = (units,)
    else:
        scale_shape = (math.ceil(input_dim / block_size), units)
    _add_int4_scales(layer, "kernel", scale_shape, input_dim, block_size)


def dense_int4_call(layer, inputs):
    """The product of a Dense layer's int4 kernel with `inputs` (no bias yet)."""
    from lamina.layers.quantization import int8_contract

    dtype = layer.compute_dtype
    kernel = quantizers.unpack_int4(_read(layer._kernel), layer._orig_output_dim, axis=-1)
    if _per_channel(layer._int4_block_size):
        return int8_contract(
            inputs,
            kernel,
            _read(layer.kernel_scale),
            contract=ops.matmul,
            dtype=dtype,
            inputs_quantizer=layer.inputs_quantizer,
            input_axes=-1,
            input_scale_to_output=lambda scale: scale,
            float_kernel=lambda k, scale: ops.divide(ops.cast(k, dtype), scale),
            inputs_gradient=lambda upstream, k: ops.matmul(upstream, ops.transpose(k)),
        )
    float_kernel = dequantize_grouped(
        kernel, _read(layer.kernel_scale), _read(layer.kernel_zero), _read(layer.g_idx), 0
    )
    return ops.matmul(inputs, ops.cast(float_kernel, dtype))


# int4: EinsumDense ----------------------------------------------------------------------
# As Keras does, the kernel is read as a matrix by a plain reshape to (product of the
# summed axes' sizes, product of the others), quantized per column or per block of rows,
# and reshaped back to the kernel's shape to compute.
def _einsum_int4_dims(layer, kernel_shape):
    kernel_spec = layer._parsed[1]
    output_spec = layer._parsed[2]
    rows = math.prod(
        d for c, d in zip(kernel_spec, kernel_shape, strict=True) if c not in output_spec
    )
    return rows, math.prod(kernel_shape) // max(rows, 1)


def einsum_int4_quantize(layer, config):
    block_size = block_size_for_layer(layer, config)
    shape = tuple(layer._kernel.shape)
    flat = ops.reshape(_read(layer._kernel), _einsum_int4_dims(layer, shape))
    zero = None
    if _per_channel(block_size):
        values, scale = quantizers.abs_max_quantize(
            flat, axis=0, value_range=(-8, 7), dtype="int8", to_numpy=True
        )
        scale = ops.squeeze(scale, axis=0)
    else:
        values, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
            flat, block_size=block_size, to_numpy=True
        )
    packed, _, _ = quantizers.pack_int4(values, axis=-1)
    return packed, scale, zero


def einsum_int4_build(layer, kernel_shape, config):
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(config, None)
    if layer.inputs_quantizer is not None:
        raise NotImplementedError(
            f"EinsumDense {layer.name!r}: lamina quantizes EinsumDense to int4 weight-only "
            "(Keras's default); an Int4QuantizationConfig with an activation_quantizer is "
            "not supported here. Pass activation_quantizer=None, or use int8."
        )
    rows, columns = _einsum_int4_dims(layer, kernel_shape)
    block_size = block_size_for_layer(layer, config)
    layer._int4_block_size = None if _per_channel(block_size) else block_size
    layer._int4_kernel_shape = tuple(kernel_shape)
    layer._orig_output_dim = columns
    layer._kernel = layer.add_weight(
        shape=(rows, (columns + 1) // 2),
        initializer="zeros",
        dtype="int8",
        trainable=False,
        name="kernel",
    )
    per_channel = _per_channel(block_size)
    scale_shape = (columns,) if per_channel else (math.ceil(rows / block_size), columns)
    _add_int4_scales(layer, "kernel", scale_shape, rows, block_size)


def einsum_int4_call(layer, inputs):
    dtype = layer.compute_dtype
    kernel = quantizers.unpack_int4(_read(layer._kernel), layer._orig_output_dim, axis=-1)
    if layer._int4_block_size is None:
        kernel = ops.divide(ops.cast(kernel, dtype), _read(layer.kernel_scale))
    else:
        kernel = dequantize_grouped(
            kernel, _read(layer.kernel_scale), _read(layer.kernel_zero), _read(layer.g_idx), 0
        )
    kernel = ops.reshape(ops.cast(kernel, dtype), layer._int4_kernel_shape)
    return ops.einsum(layer.equation, inputs, kernel)


# int4: Embedding ----------------------------------------------------------------------
def embedding_int4_quantize(layer, config):
    """`(packed table, scale, zero or None)` of an Embedding's float table: per row, or
    per block of `block_size` output features of each row."""
    block_size = block_size_for_layer(layer, config)
    table = layer._embeddings
    zero = None
    if _per_channel(block_size):
        quantizer = QuantizationConfig.weight_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=-1, value_range=(-8, 7))
        )
        values, scale = quantizer(table, to_numpy=True)
        scale = ops.squeeze(scale, axis=-1)
    else:
        values, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
            ops.transpose(_read(table)), block_size=block_size, to_numpy=True
        )
        values, scale, zero = (ops.transpose(v) for v in (values, scale, zero))
    packed, _, _ = quantizers.pack_int4(values, axis=-1)
    return packed, scale, zero


def embedding_int4_build(layer, shape, config):
    input_dim, output_dim = shape
    block_size = block_size_for_layer(layer, config)
    layer._int4_block_size = block_size
    layer._orig_output_dim = output_dim
    layer._embeddings = layer.add_weight(
        shape=(input_dim, (output_dim + 1) // 2),
        initializer="zeros",
        dtype="int8",
        trainable=False,
        name="embeddings",
    )
    if _per_channel(block_size):
        scale_shape = (input_dim,)
    else:
        scale_shape = (input_dim, math.ceil(output_dim / block_size))
    _add_int4_scales(layer, "embeddings", scale_shape, output_dim, block_size)


def embedding_int4_call(layer, ids):
    dtype = layer.compute_dtype
    table = quantizers.unpack_int4(_read(layer._embeddings), layer._orig_output_dim, axis=-1)
    rows = ops.take(table, ids, axis=0)
    scale = ops.take(_read(layer.embeddings_scale), ids, axis=0)
    if _per_channel(layer._int4_block_size):
        return ops.divide(ops.cast(rows, dtype), ops.expand_dims(scale, -1))
    zero = ops.take(_read(layer.embeddings_zero), ids, axis=0)
    return ops.cast(dequantize_grouped(rows, scale, zero, _read(layer.g_idx), -1), dtype)


# float8 -------------------------------------------------------------------------------
_FLOAT8_NAMES = ("inputs", "kernel", "outputs_grad")
FLOAT8_FILE_ORDER = ("kernel", "bias") + tuple(
    f"{name}_{part}" for name in _FLOAT8_NAMES for part in ("scale", "amax_history")
)


def float8_build(layer):
    """Add the scales and abs-max histories of float8 training to `layer`."""
    length = getattr(
        layer._dtype_policy,
        "amax_history_length",
        QuantizedFloat8DTypePolicy.default_amax_history_length,
    )
    # Trainable so that their "gradients" (their next values) reach the optimizer,
    # which writes them in place (`overwrite_with_gradient`); always float32.
    common = {"dtype": "float32", "trainable": True, "autocast": False}
    for name in _FLOAT8_NAMES:
        scale = layer.add_weight(
            shape=(),
            initializer="ones",
            name=f"{name}_scale",
            overwrite_with_gradient=True,
            **common,
        )
        history = layer.add_weight(
            shape=(length,),
            initializer="zeros",
            name=f"{name}_amax_history",
            overwrite_with_gradient=True,
            **common,
        )
        setattr(layer, f"{name}_scale", scale)
        setattr(layer, f"{name}_amax_history", history)


def _qdq_forward(dtype):
    @ops.custom_gradient
    def qdq(x, scale, history):
        def grad(upstream):
            new_scale = quantizers.compute_float8_scale(ops.max(history, axis=0), scale, _E4M3_MAX)
            return upstream, new_scale, quantizers.compute_float8_amax_history(x, history)

        return quantizers.quantize_and_dequantize(x, scale, "float8_e4m3fn", dtype), grad

    return qdq


def _qdq_backward(dtype):
    @ops.custom_gradient
    def qdq(outputs, scale, history):
        def grad(upstream):
            new_scale = quantizers.compute_float8_scale(ops.max(history, axis=0), scale, _E5M2_MAX)
            rounded = quantizers.quantize_and_dequantize(upstream, scale, "float8_e5m2", dtype)
            return rounded, new_scale, quantizers.compute_float8_amax_history(upstream, history)

        return outputs, grad

    return qdq


def float8_call(layer, inputs, contract):
    """`contract(inputs, kernel)` of float8 training, plus the bias and activation."""
    dtype = layer.compute_dtype
    forward = _qdq_forward(dtype)
    x = contract(
        forward(inputs, _read(layer.inputs_scale), _read(layer.inputs_amax_history)),
        forward(
            ops.cast(_read(layer._kernel), dtype),
            _read(layer.kernel_scale),
            _read(layer.kernel_amax_history),
        ),
    )
    x = _qdq_backward(dtype)(
        x, _read(layer.outputs_grad_scale), _read(layer.outputs_grad_amax_history)
    )
    if layer.bias is not None:
        bias = _read(layer.bias)
        if dtype == "float32":
            # Keras rounds a float32 bias through bfloat16 here (for XLA's fused
            # bias-add); lamina does too, so outputs match.
            bias = ops.cast(ops.cast(bias, "bfloat16"), bias.dtype)
        x = ops.add(x, bias)
    return layer.activation(x) if layer.activation is not None else x
