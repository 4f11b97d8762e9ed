"""Utilities: seeding, serialization, and (later) data helpers."""

from lamina.utils.py_dataset import PyDataset
from lamina.utils.random import set_random_seed
from lamina.utils.serialization import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)

__all__ = [
    "PyDataset",
    "CustomObjectScope",
    "custom_object_scope",
    "deserialize_keras_object",
    "get_registered_name",
    "get_registered_object",
    "register_keras_serializable",
    "serialize_keras_object",
    "set_random_seed",
]
