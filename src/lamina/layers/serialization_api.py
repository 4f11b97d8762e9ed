"""`layers.serialize` / `layers.deserialize`: a layer to and from its Keras 3 config dict."""

from __future__ import annotations

from lamina.common import serialization
from lamina.layers.layer import Layer


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def serialize(layer) -> dict:
    """The layer's config dict as Keras 3 writes it (`module`, `class_name`, `config`,
    `registered_name`, and `build_config` once the layer is built).

    Args:
        layer: a `Layer` instance.

    Returns:
        A JSON-able dict that `deserialize` turns back into an equivalent layer.

    >>> from lamina.layers.core import Dense
    >>> config = serialize(Dense(3, name="out"))
    >>> config["class_name"], config["config"]["units"]
    ('Dense', 3)
    """
    if not isinstance(layer, Layer):
        raise TypeError(
            f"layers.serialize expects a `Layer` instance; received {layer!r} of type "
            f"{type(layer).__name__}."
        )
    config = serialization.serialize_keras_object(layer, "layers")
    build = layer.get_build_config() if layer.built else None
    if build is not None:
        config["build_config"] = _jsonable(build)
    return config


def deserialize(config, custom_objects=None) -> Layer:
    """A layer from a config dict written by `serialize` (or by Keras 3).

    Class names resolve only through lamina's registry (built-in layers, registered
    classes) and `custom_objects`; a `build_config` in the dict builds the new layer.

    Args:
        config: the dict (`{"class_name": ..., "config": {...}}`).
        custom_objects: optional dict of name to class for custom layers.

    Returns:
        A new `Layer` (without the original's weight values).

    >>> from lamina.layers.core import Dense
    >>> layer = deserialize({"class_name": "Dense", "config": {"units": 2}})
    >>> type(layer).__name__, layer.units
    ('Dense', 2)
    """
    layer = serialization.deserialize_keras_object(
        config, "layers", custom_objects=custom_objects, printable_module_name="layer"
    )
    if not isinstance(layer, Layer):
        raise ValueError(
            "layers.deserialize expects the config of a layer; the config given "
            f"({str(config)[:200]}) describes a {type(layer).__name__}."
        )
    build_config = config.get("build_config") if isinstance(config, dict) else None
    if build_config and not layer.built:
        layer.build_from_config(build_config)
    return layer
