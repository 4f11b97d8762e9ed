"""`lamina.optimizers`: Keras-style optimizers built on the pure rules of `rules.py`.

>>> from lamina import optimizers
>>> type(optimizers.get("adam")).__name__
'Adam'
>>> optimizers.get({"class_name": "SGD", "config": {"learning_rate": 0.1}}).get_config()[
...     "learning_rate"]
0.1
"""

from __future__ import annotations

from lamina.common import serialization
from lamina.optimizers import classic, legacy, rules, schedules
from lamina.optimizers.adafactor import Adafactor
from lamina.optimizers.adam import Adam, Adamax, AdamW, Nadam
from lamina.optimizers.base import Optimizer
from lamina.optimizers.ftrl import Ftrl
from lamina.optimizers.lamb import Lamb
from lamina.optimizers.lion import Lion
from lamina.optimizers.loss_scale_optimizer import LossScaleOptimizer
from lamina.optimizers.multi_optimizer import MultiOptimizer, OptimizerMap
from lamina.optimizers.muon import Muon
from lamina.optimizers.rmsprop import Adadelta, Adagrad, RMSprop
from lamina.optimizers.schedule_free_adamw import ScheduleFreeAdamW
from lamina.optimizers.sgd import SGD

# Keras 2's lower-case names: functions with Keras 2's defaults. Bound after every
# import, so that `sgd`, `adam` and `rmsprop` name these functions here rather than the
# submodules of the same names (which stay importable by their paths).
sgd = classic.sgd
rmsprop = classic.rmsprop
adagrad = classic.adagrad
adadelta = classic.adadelta
adam = classic.adam
adamax = classic.adamax
nadam = classic.nadam

# Lower-case names accepted by `get` ("adam", "rmsprop", ...).
_NAMES = {
    cls.__name__.lower(): cls.__name__
    for cls in (Adadelta, Adagrad, Adam, Adamax, AdamW, Lion, Nadam, RMSprop, SGD)
}
_NAMES.update(
    {
        cls.__name__.lower(): cls.__name__
        for cls in (
            Adafactor,
            Ftrl,
            Lamb,
            LossScaleOptimizer,
            MultiOptimizer,
            Muon,
            ScheduleFreeAdamW,
        )
    }
)


def serialize(optimizer) -> dict:
    """The Keras 3 config dict of an optimizer.

    >>> config = serialize(Adam(learning_rate=0.01))
    >>> config["class_name"], config["config"]["learning_rate"]
    ('Adam', 0.01)
    """
    return serialization.serialize_keras_object(optimizer, "optimizers")


def deserialize(config, custom_objects=None) -> Optimizer:
    """An optimizer from its config dict or name (`"adam"`, `"Adam"`).

    >>> type(deserialize("adam")).__name__
    'Adam'
    >>> deserialize(serialize(SGD(momentum=0.9))).momentum
    0.9
    """
    if isinstance(config, str):
        config = _NAMES.get(config.lower(), config)
    obj = serialization.deserialize_keras_object(
        config, "optimizers", custom_objects=custom_objects, printable_module_name="optimizer"
    )
    if isinstance(obj, type) and issubclass(obj, Optimizer):
        return obj()
    if not isinstance(obj, Optimizer):
        raise ValueError(f"{config!r} does not name an optimizer; it resolved to {obj!r}.")
    return obj


def get(identifier) -> Optimizer:
    """Resolve an Optimizer instance, a name (`"adam"`) or a config dict to an optimizer.

    >>> type(get("rmsprop")).__name__
    'RMSprop'
    >>> optimizer = SGD()
    >>> get(optimizer) is optimizer
    True
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    raise ValueError(
        f"Could not interpret optimizer {identifier!r}: pass an Optimizer, a config dict or "
        f"one of {sorted(_NAMES)}."
    )


__all__ = [
    "SGD",
    "adadelta",
    "adagrad",
    "adam",
    "adamax",
    "nadam",
    "rmsprop",
    "sgd",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Ftrl",
    "Lamb",
    "Lion",
    "LossScaleOptimizer",
    "MultiOptimizer",
    "Muon",
    "Nadam",
    "Optimizer",
    "OptimizerMap",
    "RMSprop",
    "ScheduleFreeAdamW",
    "deserialize",
    "get",
    "legacy",
    "rules",
    "schedules",
    "serialize",
]
