"""Quantized layers (Keras 3's `quantize`): what every mode shares, and int8.

Keras's modes and where lamina has them: int8 (Dense, EinsumDense, Embedding; here),
int4 (Dense, EinsumDense, Embedding) and float8 (Dense, EinsumDense) in
`quantized_modes.py`, GPTQ and AWQ (Dense) in `calibrated_quantization.py`. A mode a layer lacks raises
NotImplementedError naming the modes it has (`Model.quantize` warns and skips it).

`layer.quantize("int8")` (or `model.quantize("int8")`) replaces the float kernel of a
`Dense`, `EinsumDense` or `Embedding` with an int8 kernel `q` and a float scale `s`
(abs-max per output channel, `q = round(kernel * s)`), and sets the layer's policy to
`"int8_from_<its policy>"`. The layer then computes with the int8 kernel: the inputs
are quantized per row on each call too, the product is taken in integers and divided
by both scales (`Embedding` looks up rows and divides by the row's scale).

As in Keras, a quantized kernel is frozen: training still runs (gradients reach the
inputs through the dequantized kernel, so earlier layers and the bias train).

Files hold what Keras's hold (int8: `kernel` int8, `bias`, `kernel_scale`, filed as
"0", "1", "2" in that order, through the saving protocol's `_saved_variables` hook;
each layer's `_quantized_file_order` names each mode's), and a config names the
quantized policy, so a model quantized in Keras loads in lamina and the other way round.
"""

from __future__ import annotations

import re
import warnings

from lamina import dtype_policies, ops, quantizers
from lamina.backend.common.variables import bump_structure_version
from lamina.common import serialization
from lamina.dtype_policies.dtype_policy import check_quantization_mode


def _not_implemented(layer, what: str) -> NotImplementedError:
    return NotImplementedError(
        f"Layer {type(layer).__name__} does not have a `{what}` method implemented. "
        "lamina quantizes Dense, EinsumDense and Embedding (themselves, not subclasses: "
        "pass type_check=False to quantize a subclass that computes as its base)."
    )


# Keras's quantization methods of every layer, bound on `Layer` under their names: the
# base versions raise NotImplementedError (`Model.quantize` skips such layers);
# quantizable layers (Dense, EinsumDense, Embedding) have their own.
def quantization_mode(self):
    """The quantization mode (`"int8"`, `"int4"`, ...), None when the layer is not
    quantized."""
    return self._dtype_policy.quantization_mode


def quantize(self, mode=None, type_check=True, config=None):
    """Quantize the layer's weights in `mode` (only some layers can)."""
    raise _not_implemented(self, "quantize")


def quantized_build(self, input_shape, mode, config=None):
    """Create the quantized weights for `mode` (only some layers can)."""
    raise _not_implemented(self, "quantized_build")


def call_method(layer):
    """What a call of `layer` runs: its `call`, or `quantized_call` when it is quantized
    and its `call` is not lamina's own. Keras's base Layer sends every quantized layer's
    call to `quantized_call`, so a user's layer with an `_int8_call` runs it; lamina's
    layers dispatch inside their `call` (after their own input conversions)."""
    if layer._dtype_policy.quantization_mode is None:
        return layer.call
    if serialization.is_lamina_code(type(layer).call):
        return layer.call
    return layer.quantized_call


def quantized_call(self, *args, **kwargs):
    """The call of a quantized layer: `_<mode>_call` (`_int8_call` for "int8", ...)."""
    mode = self.quantization_mode
    check_quantization_mode(mode)
    return getattr(self, f"_{mode}_call")(*args, **kwargs)


def unsupported_mode(layer, mode) -> NotImplementedError:
    """The error of a layer asked for a mode it does not quantize in."""
    modes = tuple(layer._quantized_file_order)
    return NotImplementedError(
        f"Invalid quantization mode for {type(layer).__name__} {layer.name!r}: lamina "
        f"quantizes it in {modes}. Received: quantization_mode={mode!r}"
    )


def int8_call(self, *args, **kwargs):
    raise _not_implemented(self, "_int8_call")


# What Dense, EinsumDense and Embedding share for `quantize`: the argument checks,
# replacing the float weight by its quantized form, and Keras's file layout (each layer
# names its values per mode in `_quantized_file_order`).
def begin_quantize(layer, owner: type, mode, type_check, config):
    """Check the arguments of `layer.quantize`; returns `(mode, config)`."""
    if type_check and type(layer) is not owner:
        raise _not_implemented(layer, "quantize")
    mode, config = quantizers.quantization_config.resolve(mode, config)
    if mode not in layer._quantized_file_order:
        raise unsupported_mode(layer, mode)
    if not layer.built:
        raise ValueError(
            f"Cannot quantize a layer that isn't yet built. Layer {layer.name!r} (of type "
            f"{type(layer).__name__!r}) is not built yet: call it on data or call "
            "`build(input_shape)` first."
        )
    if layer.quantization_mode is not None:
        raise ValueError(
            f"Layer {layer.name!r} is already quantized with "
            f"dtype_policy={layer._dtype_policy.name!r}. Received: mode={mode!r}. A layer "
            "can be quantized only once."
        )
    check_quantization_mode(mode)
    if mode == "int8" and layer.compute_dtype == "float16":
        raise ValueError(
            f"Quantization mode='{mode}' doesn't work well with compute_dtype='float16' "
            f"(layer {layer.name!r}). Consider loading the model with another dtype policy "
            "such as 'mixed_bfloat16' or 'float32' before calling `quantize()`."
        )
    if getattr(layer, "lora_enabled", False):
        raise ValueError(
            f"Layer {layer.name!r} has LoRA enabled; lamina does not quantize LoRA layers. "
            "Merge the update first (save and reload the model without `lora_rank`), "
            "then quantize."
        )
    layer.quantization_config = config
    return mode, config


def policy_name(layer, mode, config) -> str:
    """The quantized policy's mode name Keras gives a layer quantized in `mode`:
    `"int4/<block size or -1>"` for int4, the config's string for GPTQ and AWQ."""
    if mode == "int4":
        block_size = quantizers.quantization_config.block_size_for_layer(layer, config)
        return f"int4/{-1 if block_size is None else block_size}"
    if mode in ("gptq", "awq"):
        return config.dtype_policy_string()
    return mode


def set_quantized_policy(layer, mode, config) -> None:
    source = layer._dtype_policy.name
    layer.__dict__["_quantizing"] = True  # the policy setter must not quantize again
    try:
        layer.dtype_policy = dtype_policies.get(f"{policy_name(layer, mode, config)}_from_{source}")
    finally:
        del layer.__dict__["_quantizing"]
    bump_structure_version()


def replace_weight(layer, attribute: str, quantize_weight, mode, config) -> None:
    """Quantize the float weight in `_<attribute>` with `quantize_weight(variable)` (which
    returns the integer values, the scale and, for int4 blocks, the zero point), build
    the quantized weights in its place and set the quantized policy."""
    old = layer.__dict__[f"_{attribute}"]
    values, scale, *zero = quantize_weight(old)
    shape = tuple(old.shape)
    del layer.__dict__[f"_{attribute}"]
    layer._own_variables = [v for v in layer._own_variables if v is not old]
    with layer._open_name_scope():
        layer.quantized_build(shape, mode, config)
    layer.__dict__[f"_{attribute}"].assign(values)
    getattr(layer, f"{attribute}_scale").assign(scale)
    if zero and zero[0] is not None:
        getattr(layer, f"{attribute}_zero").assign(zero[0])
    set_quantized_policy(layer, mode, config)


def add_weights_keeping_kernel(layer, mode, config) -> None:
    """float8 (the kernel stays float: add the scales and histories) and GPTQ/AWQ (the
    kernel stays until calibration replaces it): build the mode's weights beside the
    kernel and set the policy."""
    with layer._open_name_scope():
        layer.quantized_build(tuple(layer._kernel.shape), mode, config)
    set_quantized_policy(layer, mode, config)


def quantized_values(layer) -> list:
    """The values a weights file holds for a quantized layer, in Keras's order."""
    order = layer._quantized_file_order[layer.quantization_mode]
    values = []
    for name in order:
        value = layer.__dict__.get(f"_{name}", getattr(layer, name, None))
        if value is not None:
            values.append(value)
    return values


def int8_contract(
    inputs,
    kernel,
    kernel_scale,
    *,
    contract,
    dtype,
    inputs_quantizer,
    input_axes,
    input_scale_to_output,
    float_kernel,
    inputs_gradient,
):
    """`contract(inputs, kernel)` with an int8 kernel, descaled, with Keras's gradient.

    With an inputs quantizer, the inputs are quantized over the contracted `input_axes`,
    contracted with the int8 kernel in integers, and the result is divided by both
    scales; without one (weight-only) the inputs meet the dequantized kernel. The
    gradient reaches the inputs through the dequantized kernel (the int8 kernel and its
    scale are frozen).

    Args:
        contract: `(inputs, kernel) -> output`: a matmul, or the layer's einsum.
        dtype: the compute dtype of the output.
        inputs_quantizer: an `AbsMaxQuantizer`, or None.
        input_axes: the input axes the contraction sums over.
        input_scale_to_output: arranges the inputs' scale to divide the output.
        float_kernel: `(kernel, kernel_scale) -> kernel / scale` in the kernel's layout.
        inputs_gradient: `(upstream, float kernel) -> gradient of the inputs`.
    """

    @ops.custom_gradient
    def product(x):
        def grad(upstream):
            return inputs_gradient(upstream, float_kernel(kernel, kernel_scale))

        if inputs_quantizer is None:
            return contract(x, float_kernel(kernel, kernel_scale)), grad
        quantized, x_scale = inputs_quantizer(x, axis=input_axes)
        out = ops.cast(contract(quantized, kernel), dtype)
        return ops.divide(out, ops.multiply(input_scale_to_output(x_scale), kernel_scale)), grad

    return product(inputs)


# Model.quantize --------------------------------------------------------------------
def _should_quantize(layer, filters) -> bool:
    if filters is None:
        return True
    if isinstance(filters, str):
        return bool(re.search(filters, layer.name))
    if isinstance(filters, (list, tuple)):
        return any(re.search(pattern, layer.name) for pattern in filters)
    return bool(filters(layer))


def quantize_model(model, mode=None, config=None, filters=None, **kwargs) -> None:
    """`Model.quantize`: quantize every quantizable layer of `model` (see the module)."""
    type_check = kwargs.pop("type_check", True)
    if kwargs:
        raise ValueError(
            f"Unrecognized keyword arguments passed to {type(model).__name__}.quantize: "
            f"{kwargs}. It takes mode, config, filters and type_check."
        )
    mode, config = quantizers.quantization_config.resolve(mode, config)
    check_quantization_mode(mode)
    if (
        filters is not None
        and not isinstance(filters, (str, list, tuple))
        and not callable(filters)
    ):
        raise ValueError(
            "The `filters` argument must be a regex string, a list of regex strings, or a "
            f"callable. Received: {type(filters)}"
        )
    if not model.built:
        raise ValueError(
            f"Cannot quantize model {model.name!r}: it is not built yet. Build it first "
            "(call it on data, call `build(input_shape)`, or give it an Input), then call "
            "`quantize`."
        )
    changed = False
    for layer in model._flatten_layers():
        if not _should_quantize(layer, filters) or len(layer._flatten_layers()) != 1:
            continue
        if type(layer).quantize is quantize:
            continue  # a layer that cannot be quantized stays as it is
        try:
            layer.quantize(mode, type_check=type_check, config=config)
            changed = True
        except NotImplementedError as error:
            warnings.warn(str(error), stacklevel=2)
    if mode in ("gptq", "awq"):
        from lamina.layers import calibrated_quantization

        calibrated_quantization.calibrate(model, mode, config, filters, _should_quantize)
        changed = True
    if changed:
        bump_structure_version()
        # Compiled programs (fit/evaluate/predict, and `model(x)`'s) computed with the
        # float kernels: the model and the models inside it make new ones.
        for layer in model._flatten_layers():
            reset = getattr(layer, "_reset_functions", None)
            if reset is not None:
                reset(structure=True)
