"""`lamina.regularizers`: penalties on weights (or activations) added to the loss.

`get` resolves what a layer's `*_regularizer=` receives: a name (`"l1"`, `"l2"`,
`"l1_l2"`, `"L2"`, ...), a config dict, a class, an instance or a function.

>>> import numpy as np
>>> from lamina import regularizers
>>> float(regularizers.get("l2")(np.array([10.0])))
1.0
"""

from __future__ import annotations

from collections.abc import Callable

from lamina.common import serialization
from lamina.regularizers.regularizers import (
    L1,
    L1L2,
    L2,
    OrthogonalRegularizer,
    Regularizer,
    validate_float_arg,
)

# Keras 3's lowercase names are aliases of the classes (`l1_l2()` has factors 0, 0).
l1, l2, l1_l2, orthogonal_regularizer = L1, L2, L1L2, OrthogonalRegularizer

_NAMES = {
    "Regularizer": Regularizer,
    "L1": L1,
    "L2": L2,
    "L1L2": L1L2,
    "OrthogonalRegularizer": OrthogonalRegularizer,
    "regularizer": Regularizer,
    "l1": L1,
    "l2": L2,
    "l1l2": L1L2,
    "l1_l2": L1L2,
    "orthogonal_regularizer": OrthogonalRegularizer,
}
for _name, _cls in _NAMES.items():
    serialization.register_builtin("regularizers", _cls, name=_name)

_serialize, _deserialize, _get = serialization.object_accessors(
    "regularizers", "regularizer", Regularizer
)


def serialize(regularizer: Regularizer | None) -> dict | None:
    """The Keras 3 config dict of a regularizer (None stays None).

    >>> serialize(L2(0.5))["config"]
    {'l2': 0.5}
    """
    return _serialize(regularizer)


def deserialize(config: str | dict, custom_objects: dict | None = None) -> Regularizer:
    """A regularizer from its name or Keras config dict.

    Raises:
        ValueError: the name is unknown; the message lists the valid names.

    >>> deserialize({"class_name": "L1", "config": {"l1": 0.1}}).l1
    0.1
    """
    return _deserialize(config, custom_objects)


def get(identifier) -> Regularizer | Callable | None:
    """Resolve None, a name, a config dict, a class, an instance or a function.

    >>> type(get("l1_l2")).__name__, get(None)
    ('L1L2', None)
    """
    return _get(identifier)


__all__ = [
    "L1",
    "L1L2",
    "L2",
    "OrthogonalRegularizer",
    "Regularizer",
    "deserialize",
    "get",
    "l1",
    "l1_l2",
    "l2",
    "orthogonal_regularizer",
    "serialize",
    "validate_float_arg",
]
