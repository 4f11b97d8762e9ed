"""Core layers: Dense, Activation, Dropout, Identity, Lambda, Embedding, Masking."""

from __future__ import annotations

import base64
import marshal
import types

from lamina import (
    activations,
    backend,
    constraints,
    initializers,
    ops,
    quantizers,
    regularizers,
    tree,
)
from lamina.backend.common.variables import Variable
from lamina.common import serialization
from lamina.dtype_policies.dtype_policy import check_quantization_mode
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.operation import output_spec
from lamina.layers import calibrated_quantization, lora, quantization, quantized_modes
from lamina.layers.argument_validation import integer
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer, _shapes_to_specs, _tuplify
from lamina.layers.quantization import int8_contract

# Classic Keras kept these in `keras.layers.core` (`from keras.layers.core import
# Flatten`); they are defined with their families and found here too.
from lamina.layers.regularization import (  # noqa: F401
    ActivityRegularization,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from lamina.layers.reshaping import Flatten, Permute, RepeatVector, Reshape  # noqa: F401
from lamina.ops import random as ops_random

_UNSAFE = {"enabled": False}


def enable_unsafe_deserialization() -> None:
    """Allow loading Python bytecode (Lambda layers) from configs you trust.

    >>> import numpy as np
    >>> import lamina
    >>> config = lamina.layers.serialize(lamina.layers.Lambda(lambda x: x + 1))
    >>> lamina.layers.deserialize(config)
    Traceback (most recent call last):
        ...
    ValueError: layer 'lambda' (Lambda): This config contains a Lambda ...
    >>> from unittest import mock
    >>> from lamina.layers import core
    >>> with mock.patch.dict(core._UNSAFE):  # (only so this example leaves the switch off)
    ...     lamina.config.enable_unsafe_deserialization()
    ...     restored = lamina.layers.deserialize(config)
    >>> restored(np.ones((1, 2))).tolist()
    [[2.0, 2.0]]
    """
    _UNSAFE["enabled"] = True


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _read(value):
    return value.value if isinstance(value, Variable) else value


@_register
class Dense(Layer):
    """A densely connected layer: `activation(inputs @ kernel + bias)`.

    Args:
        units: size of the output's last dimension.
        activation: activation function or its name (default: none).
        use_bias: whether to add a bias vector.
        kernel_initializer, bias_initializer: initializers (objects or names).
        kernel_regularizer, bias_regularizer, activity_regularizer: regularizers.
        kernel_constraint, bias_constraint: constraints applied after each update.
        lora_rank: if set, LoRA is enabled when the layer is built: the kernel is frozen
            and a trainable low-rank update of this rank is learned instead (see
            `enable_lora`).
        lora_alpha: scales the LoRA update by `lora_alpha / lora_rank` (default: the rank).
        quantization_config: an `Int8QuantizationConfig` used when the layer is quantized
            (see `quantize`); None: the defaults.

    Input shape: `(batch, ..., input_dim)`. Output shape: `(batch, ..., units)`.

    >>> import numpy as np
    >>> layer = Dense(4)
    >>> layer(np.ones((2, 3))).shape
    (2, 4)
    >>> [tuple(w.shape) for w in layer.weights]
    [(3, 4), (4,)]
    """

    def __init__(
        self,
        units: int,
        activation=None,
        use_bias: bool = True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        lora_rank=None,
        lora_alpha=None,
        quantization_config=None,
        **kwargs,
    ):
        lora.init_lora(self, lora_rank, lora_alpha, quantization_config, kwargs.get("dtype"))
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = integer(units, "units", "Dense")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

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

    def build(self, input_shape):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(
                f"Dense {self.name!r} needs the last dimension of its input to be known; "
                f"received shape {tuple(input_shape)}."
            )
        mode = self.quantization_mode
        if mode is not None:
            self.quantized_build((input_dim, self.units), mode)
        if mode in (None, "float8"):  # float8 computes with a float kernel
            self.kernel = self.add_weight(
                shape=(input_dim, self.units),
                initializer=self.kernel_initializer,
                regularizer=self.kernel_regularizer,
                constraint=self.kernel_constraint,
                name="kernel",
            )
            self.kernel._store_for("matmul")
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(self.units,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})
        self.built = True
        lora.build_lora(self)

    def call(self, inputs):
        if self.quantization_mode is not None:
            return self.quantized_call(inputs)
        if isinstance(inputs, KerasTensor):
            x = ops.matmul(inputs, self.kernel)
            if self.bias is not None:
                x = ops.add(x, self.bias)
        else:
            # `matmul` then `add`, fused where the engine can (one GEMM on torch).
            x = backend.layer.dense(inputs, _read(self.kernel), _read(self.bias))
        return self.activation(x) if self.activation is not None else x

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self):
        return {
            **super().get_config(),
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "quantization_config": quantizers.serialize(self.quantization_config),
            **lora.lora_config(self),
        }

    # Quantization (see `lamina.layers.quantization` and `quantized_modes`) -----------
    _quantized_file_order = {
        "int8": ("kernel", "bias", "kernel_scale"),
        "int4": ("kernel", "bias", "kernel_scale", "kernel_zero", "g_idx"),
        "float8": quantized_modes.FLOAT8_FILE_ORDER,
        "gptq": calibrated_quantization.GPTQ_FILE_ORDER,
        "awq": calibrated_quantization.AWQ_FILE_ORDER,
    }

    def quantize(self, mode=None, type_check=True, config=None):
        """Quantize the kernel: `"int8"` (int8 values and a per-unit scale), `"int4"`
        (packed int4 values, per unit or per block of inputs), `"float8"` (float8
        training: the kernel stays float), `"gptq"`/`"awq"` (the weights to fill when
        `Model.quantize` calibrates; see `calibrated_quantization`).

        Args:
            mode: `"int8"`, `"int4"`, `"float8"`, `"gptq"` or `"awq"`; optional with a
                `config` (GPTQ and AWQ need theirs).
            type_check: refuse subclasses of Dense (they may compute otherwise).
            config: a `QuantizationConfig` of the mode (default: the mode's defaults:
                int8 quantizes the inputs on each call too, int4 blocks of 128 inputs).

        >>> import numpy as np
        >>> layer = Dense(2, name="d")
        >>> layer.build((None, 3))
        >>> layer.quantize("int8")
        >>> layer.dtype_policy.name, str(layer.kernel.dtype), tuple(layer.kernel_scale.shape)
        ('int8_from_float32', 'int8', (2,))
        """
        mode, config = quantization.begin_quantize(self, Dense, mode, type_check, config)
        if mode in ("float8", "gptq", "awq"):
            quantization.add_weights_keeping_kernel(self, mode, config)
            return
        if mode == "int4":
            quantization.replace_weight(
                self,
                "kernel",
                lambda _: quantized_modes.dense_int4_quantize(self, config),
                mode,
                config,
            )
            return
        quantizer = quantizers.QuantizationConfig.weight_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=0)
        )

        def quantize_kernel(kernel):
            values, scale = quantizer(kernel, to_numpy=True)
            return values, ops.squeeze(scale, axis=0)

        quantization.replace_weight(self, "kernel", quantize_kernel, mode, config)

    def quantized_build(self, kernel_shape, mode, config=None):
        """Create the quantized weights of `mode` for a float kernel of `kernel_shape`."""
        check_quantization_mode(mode)
        config = config if config is not None else self.quantization_config
        if mode == "int4":
            return quantized_modes.dense_int4_build(self, kernel_shape, config)
        if mode == "float8":
            return quantized_modes.float8_build(self)
        if mode in ("gptq", "awq"):
            return calibrated_quantization.build_weights(self, kernel_shape, mode, config)
        if mode != "int8":
            raise quantization.unsupported_mode(self, mode)
        self.inputs_quantizer = quantizers.QuantizationConfig.activation_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer()
        )
        self._kernel = self.add_weight(
            shape=kernel_shape, initializer="zeros", dtype="int8", trainable=False, name="kernel"
        )
        self.kernel_scale = self.add_weight(
            shape=(self.units,), initializer="ones", trainable=False, name="kernel_scale"
        )

    def _int8_call(self, inputs, training=None):
        dtype = self.compute_dtype
        x = int8_contract(
            inputs,
            _read(self._kernel),
            _read(self.kernel_scale),
            contract=ops.matmul,
            dtype=dtype,
            inputs_quantizer=self.inputs_quantizer,
            input_axes=-1,
            input_scale_to_output=lambda scale: scale,
            float_kernel=lambda kernel, scale: ops.divide(ops.cast(kernel, dtype), scale),
            inputs_gradient=lambda upstream, kernel: ops.matmul(upstream, ops.transpose(kernel)),
        )
        return self._finish_quantized(x)

    def _int4_call(self, inputs, training=None):
        return self._finish_quantized(quantized_modes.dense_int4_call(self, inputs))

    def _float8_call(self, inputs, training=None):
        return quantized_modes.float8_call(self, inputs, ops.matmul)

    def _gptq_call(self, inputs, training=None):
        return self._finish_quantized(calibrated_quantization.calibrated_call(self, inputs))

    _awq_call = _gptq_call

    def _finish_quantized(self, x):
        if self.bias is not None:
            x = ops.add(x, _read(self.bias))
        return self.activation(x) if self.activation is not None else x


@_register
class Activation(Layer):
    """Applies an activation function to its input.

    Args:
        activation: a function or a name such as `"relu"`.

    >>> import numpy as np
    >>> np.asarray(Activation("relu")(np.array([-1.0, 2.0]))).tolist()
    [0.0, 2.0]
    """

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def compute_output_spec(self, inputs, **kwargs):
        if "float" not in str(getattr(inputs, "dtype", "float")):
            # The function decides a non-float input's output dtype (relu keeps an int,
            # sigmoid makes a float), as the call on data does: evaluated abstractly.
            return output_spec(self.call, (inputs,), {})
        return super().compute_output_spec(inputs, **kwargs)

    def get_config(self):
        return {**super().get_config(), "activation": activations.serialize(self.activation)}


@_register
class Identity(Layer):
    """Returns its input unchanged (a placeholder, e.g. when pruning a model).

    >>> import numpy as np
    >>> Identity()(np.array([[1.0, 2.0]])).tolist()
    [[1.0, 2.0]]
    """

    _keeps_integer_dtype = True  # an int input gives an int output

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape


@_register
class Dropout(Layer):
    """Sets a random fraction `rate` of inputs to 0 during training, scaling the rest.

    Active only when called with `training=True` (as `fit` does); identity otherwise.

    Args:
        rate: fraction of the inputs to drop, in `[0, 1)`.
        noise_shape: shape of the keep mask, `None` entries taking the input's size.
        seed: an int for reproducible masks.

    Call arguments:
        inputs: a tensor. training: whether to drop.

    >>> import numpy as np
    >>> layer = Dropout(0.5, seed=0)
    >>> layer(np.ones((2, 4))).tolist()  # inference: unchanged
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    >>> out = np.asarray(layer(np.ones((2, 4)), training=True))
    >>> sorted(set(out.ravel().tolist())) in ([0.0, 2.0], [2.0], [0.0])  # kept values scaled
    True
    """

    def __init__(self, rate: float, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate < 1:
            raise ValueError(f"Dropout expects `rate` in [0, 1); received {rate!r}.")
        self.rate = float(rate)
        self.noise_shape = tuple(noise_shape) if noise_shape is not None else None
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)
        self.supports_masking = True
        self.built = True

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            return ops_random.dropout(inputs, self.rate, self.noise_shape, seed=self.seed_generator)
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "rate": self.rate,
            "noise_shape": self.noise_shape,
            "seed": self.seed,
        }


@_register
class Embedding(Layer):
    """Turns non-negative integer indices into dense vectors of size `output_dim`.

    Args:
        input_dim: vocabulary size (largest index + 1).
        output_dim: size of each vector.
        embeddings_initializer, embeddings_regularizer, embeddings_constraint: for the
            `(input_dim, output_dim)` table.
        mask_zero: treat index 0 as padding and emit a mask that later layers respect.
        weights: optional initial table (an `(input_dim, output_dim)` array, or a list
            holding it); the layer is built at once with it.
        lora_rank: if set, LoRA is enabled when the layer is built: the table is frozen
            and a trainable low-rank update of this rank is learned instead (see
            `enable_lora`; its weights are `lora_embeddings_a` and `lora_embeddings_b`).
        lora_alpha: scales the LoRA update by `lora_alpha / lora_rank` (default: the rank).
        quantization_config: an `Int8QuantizationConfig` used when the layer is quantized
            (see `quantize`); None: the defaults.

    Input shape: `(batch, ...)` integers. Output shape: `(batch, ..., output_dim)`.

    >>> import numpy as np
    >>> emb = Embedding(10, 3, mask_zero=True)
    >>> emb(np.array([[1, 0]])).shape
    (1, 2, 3)
    >>> np.asarray(emb.compute_mask(np.array([[1, 0]]))).tolist()
    [[True, False]]
    """

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer="uniform",
        embeddings_regularizer=None,
        embeddings_constraint=None,
        mask_zero: bool = False,
        weights=None,
        lora_rank=None,
        lora_alpha=None,
        quantization_config=None,
        **kwargs,
    ):
        kwargs.pop("input_length", None)
        lora.init_lora(self, lora_rank, lora_alpha, quantization_config, kwargs.get("dtype"))
        super().__init__(**kwargs)
        self.input_dim = integer(input_dim, "input_dim", "Embedding")
        self.output_dim = integer(output_dim, "output_dim", "Embedding")
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.autocast = False
        if weights is not None:
            self.build()
            if not (isinstance(weights, list) and len(weights) == 1):
                weights = [weights]
            self.set_weights(weights)

    # LoRA and int8 quantization, written once for the layers that have them
    # (`lora.py`, `quantization.py`).
    _lora_weight = "embeddings"
    _lora_supported = True
    lora_rank = lora_alpha = None
    lora_enabled = False
    embeddings = lora.lora_weight_property("embeddings")
    enable_lora = lora.enable_lora
    from_config = classmethod(lora.from_config)
    _own_weights = lora.own_weights
    _saved_variables = lora.saved_variables
    _float_file_order = ("embeddings",)

    def build(self, input_shape=None):
        if self.quantization_mode is not None:
            self.quantized_build((self.input_dim, self.output_dim), self.quantization_mode)
        else:
            self.embeddings = self.add_weight(
                shape=(self.input_dim, self.output_dim),
                initializer=self.embeddings_initializer,
                regularizer=self.embeddings_regularizer,
                constraint=self.embeddings_constraint,
                name="embeddings",
            )
        self.built = True
        lora.build_lora(self)

    def call(self, inputs):
        if "int" not in str(inputs.dtype):
            inputs = ops.cast(inputs, "int32")
        if self.quantization_mode is not None:
            return self.quantized_call(inputs)
        return ops.take(self.embeddings, inputs, axis=0)

    def compute_mask(self, inputs, previous_mask=None):
        if not self.mask_zero:
            return None
        return ops.not_equal(inputs, 0)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self):
        return {
            **super().get_config(),
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
            "embeddings_regularizer": regularizers.serialize(self.embeddings_regularizer),
            "embeddings_constraint": constraints.serialize(self.embeddings_constraint),
            "mask_zero": self.mask_zero,
            "quantization_config": quantizers.serialize(self.quantization_config),
            **lora.lora_config(self),
        }

    # int8 quantization (see `lamina.layers.quantization`) ------------------------------
    _quantized_file_order = {
        "int8": ("embeddings", "embeddings_scale"),
        "int4": ("embeddings", "embeddings_scale", "embeddings_zero", "g_idx"),
    }

    def quantize(self, mode=None, type_check=True, config=None):
        """Replace the float table by an int8 table and one scale per row (per index), or
        by a packed int4 table (per row, or per block of features of each row).

        Args:
            mode: `"int8"` or `"int4"`; optional with a `config`.
            type_check: refuse subclasses of Embedding (they may compute otherwise).
            config: an `Int8QuantizationConfig` or `Int4QuantizationConfig` (default:
                the mode's defaults; int4 blocks of 128 features).
        """
        mode, config = quantization.begin_quantize(self, Embedding, mode, type_check, config)
        if mode == "int4":
            quantization.replace_weight(
                self,
                "embeddings",
                lambda _: quantized_modes.embedding_int4_quantize(self, config),
                mode,
                config,
            )
            return
        # One scale per row: rows are looked up whole, and there are usually more rows
        # than columns, so this loses the least.
        quantizer = quantizers.QuantizationConfig.weight_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=-1)
        )

        def quantize_table(table):
            values, scale = quantizer(table, to_numpy=True)
            return values, ops.squeeze(scale, axis=-1)

        quantization.replace_weight(self, "embeddings", quantize_table, mode, config)

    def quantized_build(self, embeddings_shape, mode, config=None):
        """Create the quantized `embeddings` and its float `embeddings_scale` (int4 in
        blocks: `embeddings_zero` and `g_idx` too)."""
        check_quantization_mode(mode)
        config = config if config is not None else self.quantization_config
        if mode == "int4":
            return quantized_modes.embedding_int4_build(self, embeddings_shape, config)
        if mode != "int8":
            raise quantization.unsupported_mode(self, mode)
        self._embeddings = self.add_weight(
            shape=embeddings_shape,
            initializer="zeros",
            dtype="int8",
            trainable=False,
            name="embeddings",
        )
        self.embeddings_scale = self.add_weight(
            shape=(self.input_dim,), initializer="ones", trainable=False, name="embeddings_scale"
        )

    def _int8_call(self, inputs, training=None):
        # The table is frozen, so the lookup needs no gradient of its own.
        scale = ops.take(_read(self.embeddings_scale), inputs, axis=0)
        rows = ops.take(_read(self._embeddings), inputs, axis=0)
        return ops.divide(ops.cast(rows, self.compute_dtype), ops.expand_dims(scale, -1))

    def _int4_call(self, inputs, training=None):
        return quantized_modes.embedding_int4_call(self, inputs)


@_register
class Masking(Layer):
    """Masks timesteps whose features all equal `mask_value` (and zeroes them).

    Input shape: `(batch, timesteps, features)`; the mask has shape `(batch, timesteps)`.

    >>> import numpy as np
    >>> x = np.array([[[1.0, 2.0], [0.0, 0.0], [3.0, 4.0]]])
    >>> masking = Masking(mask_value=0.0)
    >>> np.asarray(masking.compute_mask(x)).tolist()  # the all-zero step is masked
    [[True, False, True]]
    """

    def __init__(self, mask_value: float = 0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True

    def compute_mask(self, inputs, previous_mask=None):
        return ops.any(ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = ops.any(ops.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return ops.multiply(inputs, ops.cast(keep, inputs.dtype))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}


@_register
class Lambda(Layer):
    """Wraps a function as a layer: `Lambda(lambda x: x ** 2)`.

    Prefer subclassing `Layer` for anything with weights. A Lambda's config stores its
    function's name (for registered functions) or its Python bytecode; bytecode loads
    only with `safe_mode=False`, because loading it runs code from the file.

    Args:
        function: the function of the input(s).
        output_shape: optional output shape (or a function of the input shape).
        mask: optional mask (or a function `(inputs, mask) -> mask`).
        arguments: optional dict of extra keyword arguments for `function`.

    >>> import numpy as np
    >>> from lamina import Input, Model, ops
    >>> inputs = Input((3,))
    >>> model = Model(inputs, Lambda(lambda x: ops.square(x) + 1)(inputs))
    >>> model.predict(np.array([[1.0, 2.0, 3.0]]), verbose=0).tolist()
    [[2.0, 5.0, 10.0]]
    """

    _pure_call = False  # the function is the user's: predict runs it on every call

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f"Lambda expects a callable; received {type(function).__name__}.")
        self.function = function
        self._output_shape = output_shape
        self.mask = mask
        self.arguments = dict(arguments or {})
        self.supports_masking = mask is not None
        self.built = True

    def call(self, inputs, mask=None):
        return self.function(inputs, **self.arguments)

    def compute_mask(self, inputs, previous_mask=None):
        if callable(self.mask):
            return self.mask(inputs, previous_mask)
        return self.mask

    def compute_output_spec(self, *args, **kwargs):
        if self._output_shape is None:
            return super().compute_output_spec(*args, **kwargs)
        # The input may be a list or dict of tensors (e.g. a siamese distance).
        input_shape = tree.map_structure(lambda x: x.shape, args[0])
        shape = self._output_shape
        if callable(shape):
            shape = shape(input_shape)
        else:
            # A tuple leaves out the batch: it is the first input's (Keras).
            batch = tree.flatten(input_shape)[0]
            shape = tree.map_shape_structure(lambda s: (batch, *s), _tuplify(shape))
        return _shapes_to_specs(_tuplify(shape), self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config["function"] = _serialize_function(self.function)
        config["arguments"] = self.arguments
        if callable(self._output_shape):
            config["output_shape"] = _serialize_function(self._output_shape)
        elif self._output_shape is not None:
            config["output_shape"] = self._output_shape
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        config = dict(config)
        config["function"] = _deserialize_function(config["function"], custom_objects, safe_mode)
        output_shape = config.get("output_shape")
        if isinstance(output_shape, dict) and "class_name" in output_shape:
            config["output_shape"] = _deserialize_function(output_shape, custom_objects, safe_mode)
        elif output_shape is not None:
            config["output_shape"] = _tuplify(output_shape)
        config.pop("output_shape_type", None)
        return super().from_config(config)


def _serialize_function(fn):
    name = getattr(fn, "__name__", None)
    registered = serialization.get_registered_object(serialization.get_registered_name(fn))
    if registered is fn and name != "<lambda>":
        return serialization.serialize_keras_object(fn)
    code = base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii")
    defaults = list(fn.__defaults__) if fn.__defaults__ else None
    return {
        "class_name": "__lambda__",
        "config": {"code": code, "defaults": defaults, "closure": None},
    }


def _deserialize_function(config, custom_objects=None, safe_mode=None):
    if isinstance(config, dict) and config.get("class_name") == "__lambda__":
        if safe_mode is None:
            safe_mode = serialization.current_safe_mode()
        if safe_mode is None:
            safe_mode = not _UNSAFE["enabled"]
        if safe_mode:
            raise ValueError(
                "This config contains a Lambda layer whose function is Python bytecode. "
                "Loading it would run code from the file, so it is refused in safe mode. "
                "If you trust the source, pass `safe_mode=False` (or call "
                "`lamina.config.enable_unsafe_deserialization()`)."
            )
        inner = config["config"]
        code = marshal.loads(base64.b64decode(inner["code"]))  # noqa: S302 - unsafe mode only
        defaults = tuple(inner["defaults"]) if inner.get("defaults") else None
        return types.FunctionType(code, globals(), argdefs=defaults)
    return serialization.deserialize_keras_object(
        config,
        category="activations",
        custom_objects=custom_objects,
        printable_module_name="function",
    )
