"""Quantization configs: which quantizers a layer's `quantize(mode, config=...)` uses."""

from __future__ import annotations

from lamina.common import serialization
from lamina.quantizers.quantizers import AbsMaxQuantizer

_MODULE = "keras.quantizers"


def serialize(initializer):
    """The Keras 3 config dict of a quantizer or quantization config (None stays None).

    The argument has Keras's name, `initializer` (a quantizer, despite the name)."""
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
    """A quantizer or quantization config from its config dict (or its class name)."""
    obj = serialization.deserialize_keras_object(
        config, "quantizers", custom_objects=custom_objects, printable_module_name="quantizer"
    )
    return obj() if isinstance(obj, type) else obj


class QuantizationConfig:
    """The base class of quantization configs: a weight and an activation quantizer.

    Args:
        weight_quantizer: quantizes the layer's weights (None: the mode's default).
        activation_quantizer: quantizes the layer's inputs (None: inputs stay float).
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


def resolve(mode, config):
    """`(mode, config)` checked against each other: the mode follows from a config when
    only the config is given."""
    if config is None:
        return mode, None
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
