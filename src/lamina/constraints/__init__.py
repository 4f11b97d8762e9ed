"""`lamina.constraints`: projections applied to a weight after each optimizer update.

`get` resolves what a layer's `*_constraint=` receives: a name (`"non_neg"`,
`"max_norm"`, `"MaxNorm"`, ...), a config dict, a class, an instance or a function.

>>> import numpy as np
>>> from lamina import constraints
>>> np.asarray(constraints.get("non_neg")(np.array([-1.0, 2.0]))).tolist()
[0.0, 2.0]
"""

from __future__ import annotations

from collections.abc import Callable

from lamina.common import serialization
from lamina.constraints.constraints import Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm

# Keras 3's lowercase names are aliases of the classes.
max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm

_NAMES = {
    "Constraint": Constraint,
    "MaxNorm": MaxNorm,
    "NonNeg": NonNeg,
    "UnitNorm": UnitNorm,
    "MinMaxNorm": MinMaxNorm,
    "constraint": Constraint,
    "max_norm": MaxNorm,
    "non_neg": NonNeg,
    "unit_norm": UnitNorm,
    "min_max_norm": MinMaxNorm,
}
for _name, _cls in _NAMES.items():
    serialization.register_builtin("constraints", _cls, name=_name)

_serialize, _deserialize, _get = serialization.object_accessors(
    "constraints", "constraint", Constraint
)


def serialize(constraint: Constraint | None) -> dict | None:
    """The Keras 3 config dict of a constraint (None stays None).

    >>> serialize(MaxNorm(3.0))["config"]
    {'max_value': 3.0, 'axis': 0}
    """
    return _serialize(constraint)


def deserialize(config: str | dict, custom_objects: dict | None = None) -> Constraint:
    """A constraint from its name or Keras config dict.

    Raises:
        ValueError: the name is unknown; the message lists the valid names.

    >>> deserialize({"class_name": "UnitNorm", "config": {"axis": 1}}).axis
    1
    """
    return _deserialize(config, custom_objects)


def get(identifier) -> Constraint | Callable | None:
    """Resolve None, a name, a config dict, a class, an instance or a function.

    >>> type(get("max_norm")).__name__, get(None)
    ('MaxNorm', None)
    """
    return _get(identifier)


__all__ = [
    "Constraint",
    "MaxNorm",
    "MinMaxNorm",
    "NonNeg",
    "UnitNorm",
    "deserialize",
    "get",
    "max_norm",
    "min_max_norm",
    "non_neg",
    "serialize",
    "unit_norm",
]
