"""Keras 2's object configs: `{"class_name": ..., "config": {...}}`, with no `module` or
`registered_name` (Keras 3's format, `lamina.saving.serialize_keras_object`, has them).

These are the functions Keras 3 keeps at `keras.legacy.saving` and `keras.utils.legacy`
for code of the Keras 2 era (`lamina.legacy.saving`, `lamina.utils.legacy`). As there,
deserializing looks names up only in the custom objects (given, scoped or registered)
and in `module_objects`, the dict of names a caller resolves from (often a module's
`globals()`), never in lamina's built-ins: a library implementing its own `deserialize`
passes its own table.

>>> from lamina import layers
>>> config = serialize_keras_object(layers.Dense(2, name="d"))
>>> config["class_name"], config["config"]["units"]
('Dense', 2)
>>> deserialize_keras_object(config, module_objects={"Dense": layers.Dense}).units
2
"""

from __future__ import annotations

import inspect

from lamina.common import serialization

# A category no built-in is filed under: the lookups below skip lamina's built-ins.
_NO_BUILTINS = "legacy (no built-ins)"
_PASSIVE = "__passive_serialization__"


def serialize_keras_object(instance):
    """The Keras 2 config of `instance`: `{"class_name", "config"}` for an object with
    `get_config` (its config's non-string items serialized in turn where they can be),
    the registered name for a function or class, None for None."""
    instance = inspect.unwrap(instance) if callable(instance) else instance
    if instance is None:
        return None
    if hasattr(instance, "get_config") and not inspect.isclass(instance):
        config = {}
        for key, item in instance.get_config().items():
            if isinstance(item, str):
                config[key] = item
                continue
            try:
                serialized = serialize_keras_object(item)
            except ValueError:
                config[key] = item
                continue
            if isinstance(serialized, dict) and not isinstance(item, dict):
                # Marks an object (not a plain dict) for `deserialize_keras_object`.
                serialized[_PASSIVE] = True
            config[key] = serialized
        return {
            "class_name": serialization.get_registered_name(type(instance)),
            "config": config,
        }
    if hasattr(instance, "__name__"):
        return serialization.get_registered_name(instance)
    raise ValueError(
        f"Cannot serialize {instance!r:.100}: it has no `get_config()` (and is not a "
        "function or class, serialized by name)."
    )


def _lookup(name, module_objects, custom_objects):
    return serialization.get_registered_object(
        name, custom_objects, module_objects or {}, category=_NO_BUILTINS
    )


def _unknown(printable_module_name: str, name) -> ValueError:
    return ValueError(
        f"Unknown {printable_module_name}: {name!r}. Pass it in `custom_objects` (or "
        "`module_objects`), use `lamina.utils.custom_object_scope`, or register it with "
        "`lamina.saving.register_keras_serializable`."
    )


def deserialize_keras_object(
    identifier, module_objects=None, custom_objects=None, printable_module_name="object"
):
    """The object a Keras 2 config (or a name) describes.

    Args:
        identifier: a `{"class_name", "config"}` dict, a name, a function, or None.
        module_objects: names to look classes and functions up in.
        custom_objects: names the user adds (looked up first).
        printable_module_name: what the object is, for error messages.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        if "class_name" not in identifier or "config" not in identifier:
            raise ValueError(
                f"Improper config format for {identifier!r:.200}: expected a dict with "
                "'class_name' and 'config'."
            )
        cls = _lookup(identifier["class_name"], module_objects, custom_objects)
        if cls is None:
            raise _unknown(printable_module_name, identifier["class_name"])
        config = identifier["config"]
        if isinstance(config, dict):
            config = dict(config)
            for key, item in config.items():
                if key == "name":
                    continue
                if isinstance(item, dict) and _PASSIVE in item:
                    item = {k: v for k, v in item.items() if k != _PASSIVE}
                    config[key] = deserialize_keras_object(
                        item, module_objects, custom_objects, "config_item"
                    )
                elif isinstance(item, str):
                    found = _lookup(item, module_objects, custom_objects)
                    if inspect.isfunction(found):
                        config[key] = found
        custom_objects = custom_objects or {}
        if hasattr(cls, "from_config"):
            if "custom_objects" in inspect.signature(cls.from_config).parameters:
                return cls.from_config(config, custom_objects=custom_objects)
            with serialization.custom_object_scope(custom_objects):
                return cls.from_config(config)
        with serialization.custom_object_scope(custom_objects):
            return cls(**config)
    if isinstance(identifier, str):
        found = _lookup(identifier, module_objects, custom_objects)
        if found is None:
            raise _unknown(printable_module_name, identifier)
        return found() if inspect.isclass(found) else found
    if inspect.isfunction(identifier):
        return identifier
    raise ValueError(f"Could not interpret serialized {printable_module_name}: {identifier!r}")


__all__ = ["deserialize_keras_object", "serialize_keras_object"]
