"""`lamina.optimizers`: Keras-style optimizers built on the pure rules of `rules.py`.

>>> from lamina import optimizers
>>> type(optimizers.get("adam")).__name__
'Adam'
"""

from __future__ import annotations

from lamina.optimizers import schedules
from lamina.optimizers.adam import Adam, Adamax, AdamW, Nadam
from lamina.optimizers.base import Optimizer
from lamina.optimizers.lion import Lion
from lamina.optimizers.rmsprop import Adadelta, Adagrad, RMSprop
from lamina.optimizers.sgd import SGD
from lamina.utils import serialization

_NAMES = ["adadelta", "adagrad", "adam", "adamax", "adamw", "lion", "nadam", "rmsprop", "sgd"]


def serialize(optimizer) -> dict:
    return serialization.serialize_keras_object(optimizer, "optimizers")


def deserialize(config, custom_objects=None):
    if isinstance(config, str):
        config = config.lower() if config.lower() in _NAMES else config
    obj = serialization.deserialize_keras_object(
        config, "optimizers", custom_objects=custom_objects, printable_module_name="optimizer"
    )
    return obj() if isinstance(obj, type) else obj


def get(identifier):
    """Resolve a name (`"adam"`), a config dict or an Optimizer instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    raise ValueError(
        f"Could not interpret optimizer {identifier!r}. Pass an Optimizer or one of {_NAMES}."
    )


__all__ = [
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Lion",
    "Nadam",
    "Optimizer",
    "RMSprop",
    "deserialize",
    "get",
    "schedules",
    "serialize",
]
