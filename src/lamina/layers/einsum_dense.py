"""EinsumDense: a dense layer whose contraction is any `einsum` equation."""

from __future__ import annotations

import copy
import math
import re
import string

from lamina import (
    activations,
    backend,
    constraints,
    initializers,
    ops,
    quantizers,
    regularizers,
)
from lamina.backend.common import einsum_plans
from lamina.common import serialization
from lamina.dtype_policies.dtype_policy import check_quantization_mode
from lamina.graph.keras_tensor import KerasTensor
from lamina.initializers.random_initializers import VarianceScaling
from lamina.layers import calibrated_quantization, lora, quantization, quantized_modes
from lamina.layers.argument_validation import as_int, is_integer
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer
from lamina.layers.quantization import int8_contract

_EQUATION_FORMS = (
    "Equations must be one of 'X,Y->Z', '...X,Y->...Z' or 'X...,Y->Z...', where X, Y and "
    "Z are letters naming the axes of the input, the kernel and the output, e.g. "
    "'ab,bc->ac' (a Dense layer) or '...x,xy->...y'."
)
# Keras's three forms. The ellipsis stands for input axes carried to the output unchanged.
_PLAIN = re.compile(r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)")
_LEFT = re.compile(r"\.\.\.([a-zA-Z]+),([a-zA-Z]+)->\.\.\.([a-zA-Z]+)")
_RIGHT = re.compile(r"([a-zA-Z]{2,})\.\.\.,([a-zA-Z]+)->([a-zA-Z]+)\.\.\.")


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _parse_equation(equation):
    """`(input_spec, kernel_spec, output_spec, ellipsis)`; `ellipsis` is None, "left"
    or "right". Raises a ValueError naming the equation when it is not one of Keras's
    forms or its letters do not fit together."""
    if not isinstance(equation, str):
        raise TypeError(
            f"EinsumDense expects `equation` to be a string such as 'ab,bc->ac'; received "
            f"{type(equation).__name__} {equation!r}."
        )
    forms = ((_PLAIN, None), (_LEFT, "left"), (_RIGHT, "right"))
    found = [(p.fullmatch(equation), kind) for p, kind in forms]
    found = [(m, kind) for m, kind in found if m]
    if not found:
        raise ValueError(
            f"EinsumDense received an invalid equation {equation!r}. {_EQUATION_FORMS}"
        )
    match, ellipsis = found[0]
    input_spec, kernel_spec, output_spec = match.groups()
    for name, spec in (("input", input_spec), ("kernel", kernel_spec), ("output", output_spec)):
        repeated = sorted({c for c in spec if spec.count(c) > 1})
        if repeated:
            raise ValueError(
                f"EinsumDense equation {equation!r}: the {name} part {spec!r} repeats "
                f"{repeated}; each letter may name only one axis of a tensor."
            )
    for c in output_spec:
        if c not in input_spec and c not in kernel_spec:
            raise ValueError(
                f"EinsumDense equation {equation!r}: output axis {c!r} appears in neither "
                f"the input part {input_spec!r} nor the kernel part {kernel_spec!r}."
            )
    for c in kernel_spec:
        if c not in input_spec and c not in output_spec:
            raise ValueError(
                f"EinsumDense equation {equation!r}: kernel axis {c!r} appears in neither "
                f"the input part {input_spec!r} nor the output part {output_spec!r}, so its "
                "size cannot be known; every kernel axis must be an input or output axis."
            )
    return input_spec, kernel_spec, output_spec, ellipsis


def _normalize_output_shape(output_shape):
    if is_integer(output_shape):
        output_shape = (output_shape,)
    if not isinstance(output_shape, (list, tuple)) or not all(
        d is None or (is_integer(d) and d > 0) for d in output_shape
    ):
        raise ValueError(
            "EinsumDense expects `output_shape` to be a positive int or a tuple of positive "
            f"ints and None (the output's shape without its batch and ellipsis axes); "
            f"received {output_shape!r}."
        )
    return tuple(None if d is None else as_int(d) for d in output_shape)


class _Analysis:
    """The shapes an equation gives for one input shape, worked out as Keras does.

    `output_shape` (the layer argument) lists the output's sizes without the first
    output axis (the batch) and without the axes the ellipsis stands for; with a left
    ellipsis it lists every lettered output axis. A size left `None` is taken from the
    input axis of the same letter.
    """

    def __init__(self, layer, input_shape):
        input_spec, kernel_spec, output_spec, ellipsis = layer._parsed
        input_shape = tuple(input_shape)
        rank, n_in = len(input_shape), len(input_spec)
        equation = layer.equation
        if (ellipsis is None and rank != n_in) or rank < n_in:
            expected = f"exactly {n_in}" if ellipsis is None else f"at least {n_in}"
            raise ValueError(
                f"EinsumDense {layer.name!r} with equation {equation!r} expects an input of "
                f"rank {expected} (one axis per letter of {input_spec!r}"
                f"{'' if ellipsis is None else ' plus the ellipsis axes'}); received shape "
                f"{input_shape}."
            )
        elided = rank - n_in
        if ellipsis == "left":
            lettered_input = input_shape[elided:]
            n_given = len(output_spec)
        else:
            lettered_input = input_shape[:n_in]
            n_given = len(output_spec) - 1
        partial = layer.partial_output_shape
        if len(partial) != n_given:
            what = (
                "every output letter"
                if ellipsis == "left"
                else "the output letters after the first (the batch)"
            )
            raise ValueError(
                f"EinsumDense {layer.name!r}: `output_shape` must give {n_given} size(s), one "
                f"for {what} of {output_spec!r} (use None for a size taken from the input); "
                f"received output_shape={partial}."
            )
        sizes = dict(zip(input_spec, lettered_input, strict=True))
        given = dict(zip(output_spec[len(output_spec) - n_given :], partial, strict=True))
        for c, size in given.items():
            known = sizes.get(c)
            if size is not None and known is not None and size != known:
                raise ValueError(
                    f"EinsumDense {layer.name!r}: axis {c!r} of equation {equation!r} has size "
                    f"{known} in the input (shape {input_shape}) but {size} in "
                    f"output_shape={partial}; make them agree (or give None)."
                )
            if size is not None:
                sizes[c] = size
        self.sizes = sizes
        lettered_output = [sizes.get(c) for c in output_spec]
        if ellipsis == "left":
            self.output_shape = input_shape[:elided] + tuple(lettered_output)
        elif ellipsis == "right":
            self.output_shape = tuple(lettered_output) + input_shape[n_in:]
        else:
            self.output_shape = tuple(lettered_output)
        self.input_spec, self.kernel_spec, self.output_spec = input_spec, kernel_spec, output_spec
        self.ellipsis, self.elided = ellipsis, elided
        self.layer, self.input_shape = layer, input_shape

    def _size(self, c, role):
        size = self.sizes.get(c)
        if size is None:
            raise ValueError(
                f"EinsumDense {self.layer.name!r}: the size of {role} axis {c!r} in equation "
                f"{self.layer.equation!r} is unknown: it is None in the input shape "
                f"{self.input_shape} and in output_shape={self.layer.partial_output_shape}. "
                "Give it in `output_shape` or call the layer on an input whose size is known."
            )
        return size

    def kernel(self):
        """`(kernel_shape, input_axes, output_axes)`: kernel axes shared with the output
        count as its fan-out axes, the others as its fan-in axes (Keras's rule)."""
        shape, input_axes, output_axes = [], [], []
        for i, c in enumerate(self.kernel_spec):
            shape.append(self._size(c, "kernel"))
            (output_axes if c in self.output_spec else input_axes).append(i)
        return tuple(shape), input_axes, output_axes

    def bias(self, bias_axes):
        """The bias shape: the output axes from the first bias letter on, size 1 where
        the letter is not in `bias_axes`, plus a 1 per right-ellipsis axis."""
        if bias_axes is None:
            return None
        first = min(self.output_spec.index(c) for c in bias_axes)
        shape = [self._size(c, "bias") if c in bias_axes else 1 for c in self.output_spec[first:]]
        if self.ellipsis == "right":
            shape += [1] * self.elided
        return tuple(shape)


def _flat_plan(parsed, bias_axes):
    """`(batch rank, contracted rank)` when the equation is one product of runs of axes,
    `BC,CO->BO` (`backend.common.einsum_plans`), and the bias, if any, spans `O` exactly;
    None otherwise."""
    input_spec, kernel_spec, output_spec, ellipsis = parsed
    if ellipsis is not None:
        return None
    plan = einsum_plans.flat_product(input_spec, kernel_spec, output_spec)
    if plan is None or bias_axes not in (None, output_spec[plan[0] :]):
        return None
    return plan


@_register
class EinsumDense(Layer):
    """A dense layer computing `activation(einsum(equation, inputs, kernel) + bias)`.

    Use it where a `Dense` is too narrow: projecting to several output axes at once
    (attention heads), contracting several input axes, or applying one weight across
    sequence axes. The kernel and bias shapes are worked out from the equation and
    `output_shape` exactly as Keras does, so weights and `.keras` files move between
    the two.

    Args:
        equation: `'X,Y->Z'`, `'...X,Y->...Z'` or `'X...,Y->Z...'`: letters name the
            axes of the input (X), the kernel (Y) and the output (Z); the ellipsis
            stands for input axes carried to the output unchanged.
        output_shape: the output's sizes without the batch axis (the first output
            letter) and without the ellipsis axes; an int for one axis. With a leading
            ellipsis every output letter is listed. `None` takes a size from the input.
        activation: activation function or its name (default: none).
        bias_axes: output letters that get a bias (default: no bias), e.g. `"c"`.
        kernel_initializer, bias_initializer: initializers (objects or names). A
            fan-scaled kernel initializer (Glorot, He, ...) counts the kernel axes that
            are output axes as fan-out and the others as fan-in, as in Keras.
        kernel_regularizer, bias_regularizer, activity_regularizer: regularizers.
        kernel_constraint, bias_constraint: constraints applied after each update.
        lora_rank: if set, LoRA is enabled when the layer is built: the kernel is frozen
            and a trainable low-rank update of this rank is learned instead (see
            `enable_lora`).
        lora_alpha: scales the LoRA update by `lora_alpha / lora_rank` (default: the rank).
        quantization_config: an `Int8QuantizationConfig` used when the layer is quantized
            (see `quantize`); None: the defaults.
        gptq_unpacked_column_size: the number of output columns of a GPTQ-quantized
            kernel read as a matrix (set by `quantize("gptq")` and kept in the config,
            as Keras keeps it; not for users to pass).

    Input shape: one axis per input letter (plus any number for the ellipsis).
    Output shape: the output letters' sizes, with the ellipsis axes in place.

    >>> import numpy as np
    >>> layer = EinsumDense("abc,cde->abde", output_shape=(None, 2, 4), bias_axes="de")
    >>> layer(np.ones((3, 5, 6))).shape
    (3, 5, 2, 4)
    >>> [tuple(w.shape) for w in layer.weights]
    [(6, 2, 4), (2, 4)]
    """

    def __init__(
        self,
        equation: str,
        output_shape,
        activation=None,
        bias_axes: str | None = None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        lora_rank=None,
        lora_alpha=None,
        gptq_unpacked_column_size=None,
        quantization_config=None,
        **kwargs,
    ):
        lora.init_lora(self, lora_rank, lora_alpha, quantization_config, kwargs.get("dtype"))
        self.gptq_unpacked_column_size = gptq_unpacked_column_size
        # `activity_regularizer` comes by keyword, as in Keras's signature.
        super().__init__(**kwargs)
        self._parsed = _parse_equation(equation)
        self.equation = equation
        self.partial_output_shape = _normalize_output_shape(output_shape)
        if bias_axes is not None:
            output_spec = self._parsed[2]
            if not isinstance(bias_axes, str) or not bias_axes:
                raise ValueError(
                    "EinsumDense expects `bias_axes` to be None or a string of output "
                    f"letters from {output_spec!r}; received {bias_axes!r}."
                )
            unknown = [c for c in bias_axes if c not in output_spec]
            if unknown or len(set(bias_axes)) != len(bias_axes):
                raise ValueError(
                    f"EinsumDense `bias_axes` must name distinct letters of the output part "
                    f"{output_spec!r} of equation {equation!r}; received bias_axes="
                    f"{bias_axes!r}."
                )
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        analysis = _Analysis(self, input_shape)
        kernel_shape, input_axes, output_axes = analysis.kernel()
        kernel_initializer = self.kernel_initializer
        if isinstance(kernel_initializer, VarianceScaling) and (
            kernel_initializer.input_axes is None or kernel_initializer.output_axes is None
        ):
            # A shallow copy keeps the seed generator, so draws continue its stream.
            kernel_initializer = copy.copy(kernel_initializer)
            kernel_initializer.input_axes = input_axes
            kernel_initializer.output_axes = output_axes
        mode = self.quantization_mode
        if mode is not None:
            self._input_ndim = len(analysis.input_shape)
            self.quantized_build(tuple(kernel_shape), mode)
        if mode in (None, "float8"):  # float8 computes with a float kernel
            self._kernel = self.add_weight(
                shape=kernel_shape,
                initializer=kernel_initializer,
                regularizer=self.kernel_regularizer,
                constraint=self.kernel_constraint,
                name="kernel",
            )
        bias_shape = analysis.bias(self.bias_axes)
        self.bias = None
        if bias_shape is not None:
            self.bias = self.add_weight(
                shape=bias_shape,
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
        # Fix the rank and the contracted sizes, so a wrong input names this layer.
        offset = -len(analysis.input_spec) if analysis.ellipsis == "left" else 0
        axes = {
            offset + i: analysis.sizes[c]
            for i, c in enumerate(analysis.input_spec)
            if c in analysis.kernel_spec and analysis.sizes.get(c) is not None
        }
        self.input_spec = InputSpec(ndim=len(analysis.input_shape), axes=axes)
        self.built = True
        lora.build_lora(self)

    # LoRA and int8 quantization, written once for the layers that have them
    # (`lora.py`, `quantization.py`).
    _lora_weight = "kernel"
    _lora_supported = True
    lora_rank = lora_alpha = None
    lora_enabled = False
    kernel = lora.lora_weight_property("kernel")
    enable_lora = lora.enable_lora
    from_config = classmethod(lora.from_config)
    _own_weights = lora.own_weights
    _saved_variables = lora.saved_variables
    _float_file_order = ("kernel", "bias")

    def call(self, inputs):
        if self.quantization_mode is not None:
            return self.quantized_call(inputs)
        plan = _flat_plan(self._parsed, self.bias_axes)
        if plan is not None and not isinstance(inputs, KerasTensor):
            x = self._flat_call(inputs, *plan)
        else:
            x = ops.einsum(self.equation, inputs, self.kernel)
            if self.bias is not None:
                x = ops.add(x, self.bias)
        return self.activation(x) if self.activation is not None else x

    def _flat_call(self, inputs, batch_rank, contracted_rank):
        """The equation `BC,CO->BO` with a bias over `O` (or none) as a `Dense` product:
        the contracted axes `C` merged into one, the kernel a `(C, O)` matrix, the bias
        a vector. The same sums; on JAX's CPU the product, the bias and their gradients
        run on flattened rows (`backend.layer.dense`): attention's query projection
        (64x200x256 to 8x32 heads) trains in 38 ms a call against 47 for the einsum and
        its bias."""
        kernel = self.kernel
        lead = tuple(ops.shape(inputs)[:batch_rank])
        out_axes = tuple(kernel.shape[contracted_rank:])
        rows = ops.reshape(inputs, lead + (-1,))
        matrix = ops.reshape(kernel, (-1, math.prod(int(d) for d in out_axes)))
        bias = None if self.bias is None else ops.reshape(self.bias, (-1,))
        return ops.reshape(backend.layer.dense(rows, matrix, bias), lead + out_axes)

    def compute_output_shape(self, input_shape):
        return _Analysis(self, input_shape).output_shape

    def get_config(self):
        return {
            **super().get_config(),
            "output_shape": self.partial_output_shape,
            "equation": self.equation,
            "activation": activations.serialize(self.activation),
            "bias_axes": self.bias_axes,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "quantization_config": quantizers.serialize(self.quantization_config),
            **lora.lora_config(self),
            **(
                {"gptq_unpacked_column_size": self.gptq_unpacked_column_size}
                if self.gptq_unpacked_column_size
                else {}
            ),
        }

    # int8 quantization (see `lamina.layers.quantization`) ------------------------------
    # The kernel is quantized with one scale per output channel: the abs-max over the
    # kernel axes the equation sums over. The scale is stored arranged to divide the
    # output (one axis per output letter, 1 where the kernel has no such axis), as
    # Keras stores it; the inputs' per-call scale is arranged the same way.
    _quantized_file_order = {
        "int8": ("kernel", "bias", "kernel_scale"),
        "int4": ("kernel", "bias", "kernel_scale", "kernel_zero", "g_idx"),
        "float8": quantized_modes.FLOAT8_FILE_ORDER,
        "gptq": calibrated_quantization.GPTQ_FILE_ORDER,
        "awq": calibrated_quantization.AWQ_FILE_ORDER,
    }

    def _int8_specs(self):
        """The input, kernel and output letters with the ellipsis spelled out."""
        input_spec, kernel_spec, output_spec, ellipsis = self._parsed
        extra = self._input_ndim - len(input_spec)
        if ellipsis is not None and extra > 0:
            used = set(input_spec + kernel_spec + output_spec)
            free = "".join(c for c in string.ascii_letters if c not in used)[:extra]
            if ellipsis == "left":
                input_spec, output_spec = free + input_spec, free + output_spec
            else:
                input_spec, output_spec = input_spec + free, output_spec + free
        return input_spec, kernel_spec, output_spec

    def quantize(self, mode=None, type_check=True, config=None):
        """Replace the float kernel by an int8 kernel and a per-output-channel scale, or
        by packed int4 values (see `quantized_modes`), or add float8's scales, or add
        the GPTQ/AWQ weights that `Model.quantize` fills when it calibrates (see
        `calibrated_quantization`).

        Args:
            mode: `"int8"`, `"int4"`, `"float8"`, `"gptq"` or `"awq"`; optional with a
                `config` (GPTQ and AWQ need theirs).
            type_check: refuse subclasses of EinsumDense (they may compute otherwise).
            config: an `Int8QuantizationConfig` (default: abs-max weights, and inputs
                quantized on each call).
        """
        mode, config = quantization.begin_quantize(self, EinsumDense, mode, type_check, config)
        if mode in ("float8", "gptq", "awq"):
            quantization.add_weights_keeping_kernel(self, mode, config)
            return
        if mode == "int4":
            quantization.replace_weight(
                self,
                "kernel",
                lambda _: quantized_modes.einsum_int4_quantize(self, config),
                mode,
                config,
            )
            return
        self._input_ndim = self.input_spec.ndim
        _, kernel_spec, output_spec = self._int8_specs()
        summed = tuple(i for i, c in enumerate(kernel_spec) if c not in output_spec)
        quantizer = quantizers.QuantizationConfig.weight_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=summed)
        )

        def quantize_kernel(kernel):
            values, scale = quantizer(kernel, to_numpy=True)
            return values, _to_output_layout(scale, kernel_spec, output_spec)

        quantization.replace_weight(self, "kernel", quantize_kernel, mode, config)

    def quantized_build(self, kernel_shape, mode, config=None):
        """Create the int8 `kernel` and its float `kernel_scale` (output layout), or
        float8's scales and histories."""
        check_quantization_mode(mode)
        config = config if config is not None else self.quantization_config
        if mode == "float8":
            return quantized_modes.float8_build(self)
        if mode == "int4":
            return quantized_modes.einsum_int4_build(self, kernel_shape, config)
        if mode in ("gptq", "awq"):
            calibrated_quantization.build_weights(
                self, kernel_shape, mode, config, zero_name="zero_point"
            )
            if mode == "gptq":
                self.gptq_unpacked_column_size = calibrated_quantization.matrix_shape(kernel_shape)[
                    1
                ]
            return None
        if mode != "int8":
            raise quantization.unsupported_mode(self, mode)
        self.inputs_quantizer = quantizers.QuantizationConfig.activation_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer()
        )
        _, kernel_spec, output_spec = self._int8_specs()
        sizes = dict(zip(kernel_spec, kernel_shape, strict=True))
        self._kernel = self.add_weight(
            shape=kernel_shape, initializer="zeros", dtype="int8", trainable=False, name="kernel"
        )
        self.kernel_scale = self.add_weight(
            shape=tuple(sizes.get(c, 1) if c in kernel_spec else 1 for c in output_spec),
            initializer="ones",
            trainable=False,
            name="kernel_scale",
        )

    def _int8_call(self, inputs, training=None):
        input_spec, kernel_spec, output_spec = self._int8_specs()
        equation = f"{input_spec},{kernel_spec}->{output_spec}"
        dtype = self.compute_dtype
        summed = tuple(i for i, c in enumerate(input_spec) if c not in output_spec)

        def float_kernel(kernel, scale):
            return ops.divide(
                ops.cast(kernel, dtype), _from_output_layout(scale, kernel_spec, output_spec)
            )

        x = int8_contract(
            inputs,
            _read(self._kernel),
            _read(self.kernel_scale),
            contract=lambda a, b: ops.einsum(equation, a, b),
            dtype=dtype,
            inputs_quantizer=self.inputs_quantizer,
            input_axes=summed,
            input_scale_to_output=lambda s: _to_output_layout(s, input_spec, output_spec),
            float_kernel=float_kernel,
            inputs_gradient=lambda upstream, kernel: ops.einsum(
                f"{output_spec},{kernel_spec}->{input_spec}", upstream, kernel
            ),
        )
        if self.bias is not None:
            x = ops.add(x, _read(self.bias))
        return self.activation(x) if self.activation is not None else x

    def _int4_call(self, inputs, training=None):
        x = quantized_modes.einsum_int4_call(self, inputs)
        if self.bias is not None:
            x = ops.add(x, _read(self.bias))
        return self.activation(x) if self.activation is not None else x

    def _float8_call(self, inputs, training=None):
        return quantized_modes.float8_call(
            self, inputs, lambda a, b: ops.einsum(self.equation, a, b)
        )

    def _gptq_call(self, inputs, training=None):
        x = calibrated_quantization.calibrated_call(
            self, inputs, lambda a, b: ops.einsum(self.equation, a, b)
        )
        if self.bias is not None:
            x = ops.add(x, _read(self.bias))
        return self.activation(x) if self.activation is not None else x

    _awq_call = _gptq_call


def _read(value):
    return value.value if hasattr(value, "value") else value


def _to_output_layout(scale, spec, output_spec):
    """A keepdims scale over the letters `spec`, arranged to divide the output: the
    summed axes dropped, the rest in output order, 1 for output letters not in `spec`."""
    kept = [c for c in spec if c in output_spec]
    scale = ops.reshape(scale, [scale.shape[i] for i, c in enumerate(spec) if c in output_spec])
    order = sorted(range(len(kept)), key=lambda i: output_spec.index(kept[i]))
    scale = ops.transpose(scale, order)
    sizes = dict(zip([kept[i] for i in order], scale.shape, strict=True))
    return ops.reshape(scale, [sizes.get(c, 1) for c in output_spec])


def _from_output_layout(scale, kernel_spec, output_spec):
    """The inverse of `_to_output_layout` for the kernel: the scale in the kernel's
    layout, 1 on the summed axes."""
    kept_in_output_order = [c for c in output_spec if c in kernel_spec]
    squeezed = ops.reshape(
        scale, [scale.shape[i] for i, c in enumerate(output_spec) if c in kernel_spec]
    )
    kept_in_kernel_order = [c for c in kernel_spec if c in output_spec]
    order = [kept_in_output_order.index(c) for c in kept_in_kernel_order]
    squeezed = ops.transpose(squeezed, order)
    shape, position = [], 0
    for c in kernel_spec:
        if c in output_spec:
            shape.append(squeezed.shape[position])
            position += 1
        else:
            shape.append(1)
    return ops.reshape(squeezed, shape)
