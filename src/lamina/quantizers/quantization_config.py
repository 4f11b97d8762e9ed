"""Quantization configs: which quantizers a layer's `quantize(mode, config=...)` uses."""

from __future__ import annotations

from lamina.common import serialization
from lamina.quantizers.quantizers import AbsMaxQuantizer

_MODULE = "keras.quantizers"
# Keras's quantization modes (as `lamina.dtype_policies.QUANTIZATION_MODES`, a layer up).
_MODES = ("int8", "float8", "int4", "gptq", "awq")


def serialize(initializer):
    """The Keras 3 config dict of a quantizer or quantization config (None stays None).

    The argument has Keras's name, `initializer` (a quantizer, despite the name).

    >>> from lamina import quantizers
    >>> config = quantizers.serialize(quantizers.AbsMaxQuantizer(axis=-1))
    >>> config["class_name"], config["config"]["axis"]
    ('AbsMaxQuantizer', [-1])
    """
    obj = initializer
    if obj is None:
        return None
    return {
        "module": _MODULE,
        "class_name": type(obj).__name__,
        "config": obj.get_config(),
        "registered_name": None,
    }


def deserialize(config, custom_objects=None):
    """A quantizer or quantization config from its config dict (or its class name).

    >>> from lamina import quantizers
    >>> q = quantizers.deserialize({"class_name": "AbsMaxQuantizer", "config": {"axis": 0}})
    >>> type(q).__name__, q.get_config()["axis"]
    ('AbsMaxQuantizer', [0])
    """
    obj = serialization.deserialize_keras_object(
        config, "quantizers", custom_objects=custom_objects, printable_module_name="quantizer"
    )
    return obj() if isinstance(obj, type) else obj


class QuantizationConfig:
    """The base class of quantization configs: a weight and an activation quantizer.

    Args:
        weight_quantizer: quantizes the layer's weights (None: the mode's default).
        activation_quantizer: quantizes the layer's inputs (None: inputs stay float).

    >>> from lamina import quantizers
    >>> config = quantizers.Int8QuantizationConfig(activation_quantizer=None)  # a subclass
    >>> isinstance(config, quantizers.QuantizationConfig), config.mode, config.activation_quantizer
    (True, 'int8', None)
    """

    def __init__(self, weight_quantizer=None, activation_quantizer=None):
        self.weight_quantizer = weight_quantizer
        self.activation_quantizer = activation_quantizer

    @property
    def mode(self):
        """The quantization mode this config is for (`"int8"`, ...)."""
        raise NotImplementedError(
            "Subclasses must implement this property. Do not instantiate "
            "QuantizationConfig directly."
        )

    def get_config(self):
        return {
            "weight_quantizer": serialize(self.weight_quantizer),
            "activation_quantizer": serialize(self.activation_quantizer),
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(
            weight_quantizer=deserialize(config.get("weight_quantizer"), custom_objects),
            activation_quantizer=deserialize(config.get("activation_quantizer"), custom_objects),
        )

    @staticmethod
    def weight_quantizer_or_default(config, default):
        """`config`'s weight quantizer, or `default` when there is none."""
        if config is not None and config.weight_quantizer is not None:
            return config.weight_quantizer
        return default

    @staticmethod
    def activation_quantizer_or_default(config, default):
        """`config`'s activation quantizer (None: weight-only), or `default` without a
        config."""
        if config is not None:
            return config.activation_quantizer
        return default


class Int8QuantizationConfig(QuantizationConfig):
    """The int8 config: abs-max weights, and inputs quantized per call by default.

    Args:
        weight_quantizer: quantizes the kernel (None: `AbsMaxQuantizer` over the
            contracted axes).
        activation_quantizer: quantizes each call's inputs; `"default"` is
            `AbsMaxQuantizer()`, None keeps the inputs float (weight-only int8).

    >>> import numpy as np
    >>> from lamina import layers, quantizers
    >>> layer = layers.Dense(4)
    >>> layer.build((None, 8))
    >>> layer.quantize("int8", config=quantizers.Int8QuantizationConfig(activation_quantizer=None))
    >>> layer.dtype_policy.name, layer(np.ones((2, 8))).shape
    ('int8_from_float32', (2, 4))
    """

    def __init__(self, weight_quantizer=None, activation_quantizer="default"):
        if activation_quantizer == "default":
            activation_quantizer = AbsMaxQuantizer()
        super().__init__(weight_quantizer, activation_quantizer)
        for name, quantizer in (("weight", weight_quantizer), ("activation", activation_quantizer)):
            if quantizer is not None and getattr(quantizer, "output_dtype", "int8") != "int8":
                raise ValueError(
                    f"Int8QuantizationConfig expects an int8 {name}_quantizer; received one "
                    f"with output_dtype={quantizer.output_dtype!r}. Pass a quantizer with "
                    "output_dtype='int8'."
                )

    @property
    def mode(self):
        return "int8"


class Int4QuantizationConfig(QuantizationConfig):
    """The int4 config: weight-only by default, in blocks of `block_size` inputs.

    Args:
        weight_quantizer: quantizes the kernel per output channel (an `AbsMaxQuantizer`
            with `value_range=(-8, 7)`); only with per-channel quantization.
        activation_quantizer: quantizes each call's inputs; `"default"` is None (the
            inputs stay float); only with per-channel quantization.
        block_size: inputs per group: a positive number gives each group of each output
            channel its own scale and zero point; None or -1 gives one symmetric scale
            per output channel.

    >>> Int4QuantizationConfig().block_size, Int4QuantizationConfig(block_size=-1).mode
    (128, 'int4')
    """

    def __init__(self, weight_quantizer=None, activation_quantizer="default", block_size=128):
        if activation_quantizer == "default":
            activation_quantizer = None
        super().__init__(weight_quantizer, activation_quantizer)
        if block_size is not None and (
            isinstance(block_size, bool)
            or not isinstance(block_size, int)
            or (block_size != -1 and block_size <= 0)
        ):
            raise ValueError(
                "block_size must be None, -1, or a positive integer. "
                f"Received: block_size={block_size!r}"
            )
        self.block_size = block_size
        if (
            block_size is not None
            and block_size > 0
            and (weight_quantizer is not None or activation_quantizer is not None)
        ):
            raise ValueError(
                "Int4 sub-channel quantization (block_size > 0) does not support custom "
                "quantizers. Either set block_size to None or -1 for per-channel "
                "quantization, or remove the custom quantizer arguments. Received: "
                f"block_size={block_size}"
            )
        if weight_quantizer is not None:
            if tuple(getattr(weight_quantizer, "value_range", ())) != (-8, 7):
                raise ValueError(
                    "Int4QuantizationConfig requires a weight_quantizer with "
                    "value_range=(-8, 7). Received: "
                    f"value_range={getattr(weight_quantizer, 'value_range', None)}"
                )
            if getattr(weight_quantizer, "output_dtype", None) != "int8":
                raise ValueError(
                    "Int4QuantizationConfig requires a weight_quantizer with "
                    f"output_dtype='int8'. Received: output_dtype="
                    f"{getattr(weight_quantizer, 'output_dtype', None)}"
                )

    @property
    def mode(self):
        return "int4"

    def get_config(self):
        return {**super().get_config(), "block_size": self.block_size}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(
            weight_quantizer=deserialize(config.get("weight_quantizer"), custom_objects),
            activation_quantizer=deserialize(config.get("activation_quantizer"), custom_objects),
            # Files written before block sizes existed were per-channel.
            block_size=config.get("block_size"),
        )


class Float8QuantizationConfig(QuantizationConfig):
    """The float8 config: float8 training (it takes no quantizers).

    >>> Float8QuantizationConfig().mode
    'float8'
    """

    def __init__(self):
        super().__init__(None, None)

    @property
    def mode(self):
        return "float8"

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls()


def block_size_for_layer(layer, config):
    """The int4 block size of `layer`: its config's, else its policy's (None: per
    channel)."""
    if isinstance(config, Int4QuantizationConfig):
        return config.block_size
    block_size = getattr(layer._dtype_policy, "block_size", None)
    return None if block_size == -1 else block_size


def resolve(mode, config):
    """`(mode, config)` checked against each other, as Keras does on each `quantize`:
    the mode follows from a config; a mode alone gets its default config (GPTQ and AWQ
    need theirs, with the calibration data)."""
    if isinstance(config, str):
        mode, config = config, None
    if config is None:
        if mode is None:
            raise ValueError("You must provide either `mode` or `config` to `quantize`.")
        if mode not in _MODES:
            raise ValueError(
                f"Invalid quantization mode. Expected one of {_MODES}. Received: mode={mode!r}"
            )
        if mode in ("gptq", "awq"):
            raise ValueError(
                f"For {mode.upper()}, you must pass a `{mode.upper()}Config` object in the "
                "`config` argument (it holds the calibration dataset)."
            )
        defaults = {
            "int8": Int8QuantizationConfig,
            "int4": Int4QuantizationConfig,
            "float8": Float8QuantizationConfig,
        }
        return mode, defaults[mode]()
    if not isinstance(config, QuantizationConfig):
        raise ValueError(
            "`config` must be a lamina.quantizers.QuantizationConfig such as "
            f"Int8QuantizationConfig; received {type(config).__name__} {config!r:.100}."
        )
    if mode is not None and mode != config.mode:
        raise ValueError(
            f"Contradictory arguments: mode={mode!r} but config={type(config).__name__} is "
            f"for mode {config.mode!r}. Pass only the config, or a matching mode."
        )
    return config.mode, config
