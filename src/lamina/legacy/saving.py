"""`keras.legacy.saving`: Keras 2's object configs (`{"class_name", "config"}`), for code
of that era; see `lamina.common.legacy_serialization`."""

from lamina.common.legacy_serialization import deserialize_keras_object, serialize_keras_object

__all__ = ["deserialize_keras_object", "serialize_keras_object"]
