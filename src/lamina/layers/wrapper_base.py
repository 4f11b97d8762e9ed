"""`Wrapper`: the base of layers that hold one other layer and change how it runs.

The wrapped layer is the attribute `layer`, so its weights are saved under `layer/`
in a `.keras` file, as Keras 3 saves them, and its config is nested under `"layer"`.
"""

from __future__ import annotations

from lamina.common import serialization
from lamina.layers.layer import Layer


class Wrapper(Layer):
    """Base class of the layers that wrap another layer (e.g. `SpectralNormalization`).

    A `Wrapper` builds its inner layer from its own input shape when that layer is not
    built yet, and serializes it under the `"layer"` config key. Subclass it and
    implement `call`; it is not a usable layer by itself.

    Args:
        layer: the `Layer` instance to wrap.
        **kwargs: the base layer arguments (`name`, `trainable`, `dtype`, ...).

    >>> from lamina.layers.core import Dense
    >>> class Doubled(Wrapper):
    ...     def call(self, inputs):
    ...         return 2 * self.layer(inputs)
    >>> wrapper = Doubled(Dense(3))
    >>> wrapper.build((None, 4))
    >>> wrapper.layer.built, sorted(wrapper.get_config())[:3]
    (True, ['dtype', 'layer', 'name'])
    """

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(
                f"{type(self).__name__} wraps a layer: pass a `lamina.layers.Layer` "
                f"instance; received {layer!r} of type {type(layer).__name__}."
            )
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            self.layer._build_shapes = input_shape
            self.layer.build(input_shape)
            self.layer.built = True
        self.built = True

    def get_config(self):
        return {
            **super().get_config(),
            "layer": _serialize_with_build(self.layer),
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if "layer" not in config:
            raise ValueError(
                f"A {cls.__name__} config needs the wrapped layer's config under 'layer'; "
                f"received keys {sorted(config)}."
            )
        layer_config = config.pop("layer")
        layer = serialization.deserialize_keras_object(
            layer_config, "layers", custom_objects=custom_objects
        )
        build_config = layer_config.get("build_config") if isinstance(layer_config, dict) else None
        if build_config and not layer.built:
            layer.build_from_config(build_config)
        config["layer"] = layer
        return super().from_config(config)


def _serialize_with_build(layer) -> dict:
    """The layer's config with its `build_config` beside it, as Keras nests them."""
    config = serialization.serialize_keras_object(layer, "layers")
    build = layer.get_build_config() if layer.built else None
    if build is not None:
        config["build_config"] = build
    return config


serialization.register_builtin("layers", Wrapper)
