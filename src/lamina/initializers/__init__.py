"""`lamina.initializers`: how weights get their first values.

Every initializer is called as `initializer(shape, dtype=None)` and returns a tensor.
`get` resolves what a layer's `kernel_initializer=` receives: a Keras name
(`"glorot_uniform"`, `"GlorotUniform"`, `"zeros"`, ...), a config dict, a class, an
instance, a function `fn(shape, dtype=None)`, or an array to copy.

>>> from lamina import initializers
>>> init = initializers.get("glorot_uniform")
>>> tuple(init((3, 4)).shape)
(3, 4)
>>> initializers.serialize(initializers.Constant(2.0))["class_name"]
'Constant'
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lamina import backend, ops
from lamina.backend.common.initializer_lookup import register_initializer_lookup
from lamina.common import serialization
from lamina.initializers.constant_initializers import (
    Constant,
    Identity,
    IdentityInitializer,
    Ones,
    Zeros,
)
from lamina.initializers.initializer import Initializer
from lamina.initializers.random_initializers import (
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    LecunNormal,
    LecunUniform,
    Orthogonal,
    RandomInitializer,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
    compute_fans,
)
from lamina.initializers.stft import STFT, STFTInitializer

_CLASSES = (
    Initializer,
    Constant,
    Identity,
    Ones,
    Zeros,
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    LecunNormal,
    LecunUniform,
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
)


def _snake_case(name: str) -> str:
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


# The names Keras 3 resolves: class names, their snake_case forms, and its aliases.
_NAMES = {cls.__name__: cls for cls in _CLASSES}
_NAMES.update({_snake_case(cls.__name__): cls for cls in _CLASSES})
_NAMES.update(
    {
        "IdentityInitializer": Identity,
        "OrthogonalInitializer": Orthogonal,
        "normal": RandomNormal,
        "uniform": RandomUniform,
        "one": Ones,
        "zero": Zeros,
    }
)
_NAMES.update({"STFT": STFT, "STFTInitializer": STFT, "stft": STFT})
for _name, _cls in _NAMES.items():
    serialization.register_builtin("initializers", _cls, name=_name)

# Keras 3 exposes the snake_case names as aliases of the classes, too.
constant, identity, ones, zeros, orthogonal = Constant, Identity, Ones, Zeros, Orthogonal
glorot_normal, glorot_uniform = GlorotNormal, GlorotUniform
he_normal, he_uniform, lecun_normal, lecun_uniform = HeNormal, HeUniform, LecunNormal, LecunUniform
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
variance_scaling, OrthogonalInitializer = VarianceScaling, Orthogonal
stft = STFT


def serialize(initializer: Initializer | None) -> dict | None:
    """The Keras 3 config dict of an initializer (None stays None).

    >>> serialize(Zeros())
    {'module': 'keras.initializers', 'class_name': 'Zeros', 'config': {}, 'registered_name': None}
    """
    if initializer is None:
        return None
    return serialization.serialize_keras_object(initializer, "initializers")


def deserialize(config: str | dict, custom_objects: dict | None = None) -> Initializer:
    """An initializer from its name or Keras config dict.

    Args:
        config: a name such as `"he_normal"`, or a dict from `serialize`.
        custom_objects: extra `{name: class}` to resolve first.

    Raises:
        ValueError: the name is unknown; the message lists the valid names.

    >>> deserialize({"class_name": "RandomNormal", "config": {"stddev": 2.0}}).stddev
    2.0
    """
    obj = serialization.deserialize_keras_object(
        config, "initializers", custom_objects=custom_objects, printable_module_name="initializer"
    )
    return obj() if isinstance(obj, type) else obj


def _from_array(array) -> Callable:
    def initialize_fn(shape, dtype=None):
        if tuple(shape) != tuple(array.shape):
            raise ValueError(
                f"An array used as an initializer has shape {tuple(array.shape)}, but the "
                f"weight asks for shape {tuple(shape)}; they must be equal."
            )
        dtype = backend.standardize_dtype(dtype) if dtype is not None else backend.floatx()
        return ops.cast(array, dtype)

    return initialize_fn


def get(identifier) -> Initializer | Callable | None:
    """Resolve a layer's `*_initializer=` argument to an initializer.

    None stays None; a name or config dict is deserialized; a class is instantiated;
    an instance or function passes through; an array becomes an initializer returning
    a copy of it (the weight's shape must match).

    Raises:
        ValueError: an unknown name (the message lists the valid ones) or an object
            that is none of the above.

    >>> type(get("he_uniform")).__name__
    'HeUniform'
    """
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    if hasattr(identifier, "shape") and hasattr(identifier, "dtype"):
        return _from_array(identifier)
    raise ValueError(
        f"Could not interpret initializer {identifier!r}: expected a name, a config dict, "
        f"an Initializer, a function (shape, dtype=None) or an array. Valid names: "
        f"{sorted(_NAMES)}."
    )


# `lamina.Variable(shape=..., initializer="uniform")` resolves the name with `get`.
register_initializer_lookup(get)

__all__ = [
    "Constant",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "IdentityInitializer",
    "Initializer",
    "LecunNormal",
    "LecunUniform",
    "Ones",
    "Orthogonal",
    "OrthogonalInitializer",
    "RandomInitializer",
    "RandomNormal",
    "RandomUniform",
    "STFT",
    "STFTInitializer",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "compute_fans",
    "constant",
    "deserialize",
    "get",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "identity",
    "lecun_normal",
    "lecun_uniform",
    "ones",
    "orthogonal",
    "random_normal",
    "random_uniform",
    "serialize",
    "stft",
    "truncated_normal",
    "variance_scaling",
    "zeros",
]
