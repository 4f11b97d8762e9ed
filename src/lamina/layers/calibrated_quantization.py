"""GPTQ and AWQ for Dense and EinsumDense layers: calibration on sample data, block by
block.

`model.quantize("gptq", config=GPTQConfig(...))` (or AWQ's) first gives each Dense (or
EinsumDense) layer its quantized weights beside the float kernel (the layer still computes with the float
kernel: it is "uncalibrated"). Then, as Keras does, it cuts the calibration data into
`num_samples` windows of `sequence_length` token ids, runs them through the structure's
`pre_block_layers`, and quantizes the `sequential_blocks` one after another: each
block's Dense layers record their inputs while the block runs on the data (GPTQ: the
inputs' Hessian; AWQ: each input's largest magnitude), are quantized from them
(`lamina.quantizers.calibrated`), and the block's outputs (with its quantized layers)
become the next block's inputs. A calibrated layer drops its float kernel and computes
with the dequantized one: `x @ (scale * (q - zero))^T` (AWQ divides each input row by
its scale too).

Both layers quantize their kernel as a matrix `(rows, columns)` = `(in, out)`. An
EinsumDense kernel of rank 3 is read as Keras reads it: when its first axis is the
largest, `(in, heads, head_dim)` (a query/key/value projection) is `(in, heads *
head_dim)`; otherwise `(heads, head_dim, out)` (an attention output) is `(heads *
head_dim, out)`. Files hold Keras's layout (`kernel` uint8 `(columns, rows)`, or
`(ceil(columns / 2), rows)` packed for 4 bits; `kernel_scale` and `kernel_zero`
`(columns, groups)`; AWQ's `awq_scales`; `g_idx`).
"""

from __future__ import annotations

import math

import numpy as np

from lamina import ops, quantizers
from lamina.backend.common.variables import bump_structure_version
from lamina.graph.operation import CallContext
from lamina.quantizers import calibrated
from lamina.quantizers.grouped import dequantize_grouped

GPTQ_FILE_ORDER = ("bias", "quantized_kernel", "kernel_scale", "kernel_zero", "g_idx")
AWQ_FILE_ORDER = ("bias", "quantized_kernel", "kernel_scale", "kernel_zero", "awq_scales", "g_idx")


def _read(value):
    return value.value if hasattr(value, "value") else value


def _setting(layer, config, name):
    """`weight_bits` or `group_size`: the config's, else the layer's policy's."""
    if config is not None and hasattr(config, name):
        return getattr(config, name)
    value = getattr(layer._dtype_policy, name, None)
    if value is None:
        raise ValueError(
            f"For {layer.quantization_mode} quantization, {name} must come from a "
            f"{layer.quantization_mode.upper()}Config or the layer's quantized dtype policy "
            f"(such as 'gptq/4/128_from_float32'); layer {layer.name!r} has "
            f"dtype_policy={layer._dtype_policy.name!r}."
        )
    return value


def matrix_shape(kernel_shape) -> tuple[int, int]:
    """`(rows, columns)`: the matrix GPTQ and AWQ quantize a kernel as (see above)."""
    shape = tuple(int(d) for d in kernel_shape)
    if len(shape) == 2:
        return shape
    if len(shape) == 3:
        if shape.index(max(shape)) == 0:
            return shape[0], shape[1] * shape[2]
        return shape[0] * shape[1], shape[2]
    raise ValueError(
        f"GPTQ and AWQ quantize kernels of rank 2 or 3 (a Dense layer's, or an "
        f"EinsumDense projection's such as 'abc,cde->abde'); received a kernel of shape "
        f"{shape}."
    )


def build_weights(layer, kernel_shape, mode, config, zero_name="kernel_zero") -> None:
    """Add GPTQ's (or AWQ's) weights to a layer whose float kernel has `kernel_shape`
    (`zero_name`: the zero points' variable name, "zero_point" in Keras's EinsumDense)."""
    layer._calibrated_kernel_shape = tuple(int(d) for d in kernel_shape)
    input_dim, units = matrix_shape(kernel_shape)
    bits = _setting(layer, config, "weight_bits")
    group_size = _setting(layer, config, "group_size")
    rows = (units + 1) // 2 if bits == 4 else units
    groups = 1 if group_size == -1 else math.ceil(input_dim / group_size)
    layer.quantized_kernel = layer.add_weight(
        shape=(rows, input_dim), initializer="zeros", dtype="uint8", trainable=False, name="kernel"
    )
    layer.kernel_scale = layer.add_weight(
        shape=(units, groups), initializer="ones", trainable=False, name="kernel_scale"
    )
    layer.kernel_zero = layer.add_weight(
        shape=(units, groups),
        initializer="zeros",
        dtype="uint8",
        trainable=False,
        name=zero_name,
    )
    if mode == "awq":
        layer.awq_scales = layer.add_weight(
            shape=(input_dim,), initializer="ones", trainable=False, name="awq_scales"
        )
    layer.g_idx = layer.add_weight(
        shape=(input_dim,), initializer="zeros", dtype="float32", trainable=False, name="g_idx"
    )


def dequantized_kernel(layer):
    """The kernel a calibrated GPTQ/AWQ layer computes with, in its float kernel's shape."""
    shape = layer._calibrated_kernel_shape
    _, columns = matrix_shape(shape)
    q = _read(layer.quantized_kernel)
    if _setting(layer, None, "weight_bits") == 4:
        q = quantizers.unpack_int4(q, columns, axis=0, dtype="uint8")
    kernel = ops.transpose(
        dequantize_grouped(
            q, _read(layer.kernel_scale), _read(layer.kernel_zero), _read(layer.g_idx)
        )
    )
    if layer.quantization_mode == "awq":
        kernel = ops.divide(kernel, ops.expand_dims(_read(layer.awq_scales), -1))
    if len(shape) != 2:
        kernel = ops.reshape(kernel, shape)
    return ops.cast(kernel, layer.compute_dtype)


def calibrated_call(layer, inputs, contract=ops.matmul):
    """The product of a GPTQ/AWQ layer (no bias yet): with the float kernel until it is
    calibrated (telling the calibration its inputs), then the dequantized one."""
    float_kernel = layer.__dict__.get("_kernel")
    if float_kernel is None:
        return contract(inputs, dequantized_kernel(layer))
    hook = layer.__dict__.get("_calibration_hook")
    if hook is not None:
        hook(inputs)
    return contract(inputs, _read(float_kernel))


# Calibration --------------------------------------------------------------------------
def calibration_windows(tokenizer, sequence_length, dataset, num_samples, seed=42):
    """Keras's calibration data: the dataset's tokens (strings tokenized) joined, repeated
    when short, and `num_samples` windows of `sequence_length` taken at a stride from an
    offset set by `seed` (Python's `hash`, as Keras's: fixed within one process).

    Returns:
        int32 array `(num_samples, 1, sequence_length)`.
    """
    if not hasattr(dataset, "__iter__") or isinstance(dataset, (str, bytes)):
        raise TypeError(
            "The `dataset` argument must be an iterable (e.g., a list of strings, a "
            f"generator, or a NumPy array). Got type: {type(dataset).__name__}. Please pass "
            "the loaded dataset directly."
        )
    items = list(dataset)
    if not items:
        raise ValueError("Provided dataset is empty.")
    if isinstance(items[0], str):
        pieces = [
            np.asarray(ops.convert_to_numpy(tokenizer.tokenize(s))).reshape(-1) for s in items
        ]
    else:
        pieces = [np.asarray(ops.convert_to_numpy(s)).reshape(-1) for s in items]
    tokens = np.concatenate([p.astype(np.int32) for p in pieces])
    needed = num_samples * sequence_length
    if tokens.size < needed:
        tokens = np.tile(tokens, math.ceil(needed / max(1, tokens.size)))
    max_start = tokens.size - sequence_length
    if max_start < 0:
        raise ValueError(
            f"Not enough tokens to form one sample of length {sequence_length} "
            f"(have {tokens.size})."
        )
    stride = max(1, (max_start + 1) // num_samples)
    offset = abs(hash(("gptq-calib", seed))) % (max_start + 1) if max_start > 0 else 0
    starts = (offset + np.arange(num_samples, dtype=np.int64) * stride) % (max_start + 1)
    windows = np.lib.stride_tricks.sliding_window_view(tokens, sequence_length)
    return windows[starts].astype(np.int32)[:, None, :]


def _dense_layers(block, mode, filters, should_quantize):
    found = []
    for layer in block._flatten_layers():
        if len(layer._flatten_layers()) != 1 or layer.quantization_mode != mode:
            continue
        if "_kernel" in layer.__dict__ and should_quantize(layer, filters):
            found.append(layer)
    return found


def _quantize_layer(layer, mode, config, statistic) -> None:
    kernel = ops.convert_to_numpy(_read(layer._kernel))
    kernel = kernel.reshape(matrix_shape(kernel.shape))
    if mode == "gptq":
        q, scale, zero, g_idx = calibrated.gptq_quantize_kernel(
            kernel,
            statistic.hessian,
            bits=config.weight_bits,
            group_size=config.group_size,
            symmetric=config.symmetric,
            per_channel=config.per_channel,
            activation_order=config.activation_order,
            damping=config.hessian_damping,
        )
    else:
        q, scale, zero, awq_scales, g_idx = calibrated.awq_quantize_kernel(
            kernel, statistic, group_size=config.group_size, num_grid_points=config.num_grid_points
        )
        layer.awq_scales.assign(awq_scales)
    if config.weight_bits == 4:
        q, _, _ = quantizers.pack_int4(q, axis=0, dtype="uint8")
    old = layer.__dict__.pop("_kernel")
    layer._own_variables = [v for v in layer._own_variables if v is not old]
    layer.quantized_kernel.assign(q)
    layer.kernel_scale.assign(scale)
    layer.kernel_zero.assign(zero)
    layer.g_idx.assign(g_idx)


def calibrate(model, mode, config, filters, should_quantize) -> None:
    """Quantize the GPTQ/AWQ layers of `model` on `config`'s calibration data."""
    structure = config.quantization_layer_structure
    if structure is None:
        structure = model.get_quantization_layer_structure(mode)
    if structure is None:
        raise ValueError(
            f"For mode={mode!r}, a valid quantization structure must be provided either via "
            "`config.quantization_layer_structure` or by overriding "
            "`model.get_quantization_layer_structure(mode)`. The structure should be a "
            "dictionary with keys 'pre_block_layers' and 'sequential_blocks'."
        )
    if config.dataset is None or config.tokenizer is None:
        raise ValueError(
            f"{mode.upper()} quantization requires a dataset and a tokenizer. Please provide "
            f"them in the `{mode.upper()}Config`."
        )
    blocks = structure.get("sequential_blocks", [])
    if not blocks:
        raise ValueError("No sequential blocks found in the provided structure to quantize.")
    windows = calibration_windows(
        config.tokenizer, config.sequence_length, config.dataset, config.num_samples
    )[: config.num_samples]
    inputs = []
    for batch in windows:
        batch = ops.convert_to_tensor(batch, dtype="int32")
        for layer in structure.get("pre_block_layers", []):
            batch = layer(batch)
        inputs.append(batch)

    def batches():
        for x in inputs:
            yield ops.expand_dims(x, 0) if len(x.shape) == 2 else x

    for index, block in enumerate(blocks):
        targets = _dense_layers(block, mode, filters, should_quantize)
        statistics = {}
        for layer in targets:
            features = matrix_shape(layer._kernel.shape)[0]
            if mode == "gptq":
                statistics[id(layer)] = calibrated.HessianAccumulator(features)
            else:
                statistics[id(layer)] = np.zeros(features, np.float32)
            layer.__dict__["_calibration_hook"] = _recorder(layer, mode, statistics)
        try:
            # Layer by layer, as Keras runs it: the recording hooks read each layer's
            # inputs as values, which a block model's compiled `model(x)` would not have.
            with CallContext(training=False):
                for x in batches():
                    block(x)
        finally:
            for layer in targets:
                layer.__dict__.pop("_calibration_hook", None)
        for layer in targets:
            _quantize_layer(layer, mode, config, statistics[id(layer)])
        if targets:
            bump_structure_version()
        if index < len(blocks) - 1:
            inputs = [block(x)[0] for x in batches()]


def _recorder(layer, mode, statistics):
    # An attention output's inputs `(..., heads, head_dim)` are read as rows of
    # `heads * head_dim` features, as its kernel is.
    features = matrix_shape(layer._kernel.shape)[0]

    def record(inputs):
        x = np.asarray(ops.convert_to_numpy(inputs), np.float32).reshape(-1, features)
        if mode == "gptq":
            statistics[id(layer)].update(x)
        else:
            statistics[id(layer)] = np.maximum(statistics[id(layer)], np.abs(x).max(axis=0))

    return record
