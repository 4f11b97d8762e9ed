"""`lamina.saving`: `.keras` model files, `.weights.h5` weights files, and the registry
of serializable objects (as `keras.saving`)."""

from lamina.common.object_registration import get_custom_objects
from lamina.common.serialization import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    register_serializable,
    serialize_keras_object,
)
from lamina.saving import keras_ops  # noqa: F401  (registers Keras op nodes)
from lamina.saving.file_editor import KerasFileEditor
from lamina.saving.keras_file import load_model, save_model
from lamina.saving.weights_h5 import load_weights, save_weights

__all__ = [
    "CustomObjectScope",
    "KerasFileEditor",
    "custom_object_scope",
    "deserialize_keras_object",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "load_model",
    "load_weights",
    "register_keras_serializable",
    "register_serializable",
    "save_model",
    "save_weights",
    "serialize_keras_object",
]
