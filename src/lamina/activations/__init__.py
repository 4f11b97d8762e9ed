"""`lamina.activations`: activation functions by name, as Keras names them.

`get` turns what a layer's `activation=` argument receives (None, a name, a config dict
or a callable) into a function; `serialize` turns a built-in back into its name.

>>> import numpy as np
>>> from lamina import activations
>>> np.asarray(activations.get("relu")(np.array([-1.0, 2.0]))).tolist()
[0.0, 2.0]
>>> activations.serialize(activations.relu)
'relu'
"""

from __future__ import annotations

from collections.abc import Callable

from lamina.activations.activations import (
    celu,
    elu,
    exponential,
    gelu,
    glu,
    hard_shrink,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    leaky_relu,
    linear,
    log_sigmoid,
    log_softmax,
    mish,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    soft_shrink,
    softmax,
    softplus,
    softsign,
    sparse_plus,
    sparse_sigmoid,
    sparsemax,
    squareplus,
    swish,
    tanh,
    tanh_shrink,
    threshold,
)
from lamina.common import serialization

_FUNCTIONS = (
    celu,
    elu,
    exponential,
    gelu,
    glu,
    hard_shrink,
    hard_sigmoid,
    hard_silu,
    hard_tanh,
    leaky_relu,
    linear,
    log_sigmoid,
    log_softmax,
    mish,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    soft_shrink,
    softmax,
    softplus,
    softsign,
    sparse_plus,
    sparse_sigmoid,
    sparsemax,
    squareplus,
    tanh,
    tanh_shrink,
    threshold,
)
# name -> function; the aliases resolve to the same function, which serializes under
# its own name ("swish" reads back as `silu` and is written "silu"), as in Keras 3.
_ALL = {fn.__name__: fn for fn in _FUNCTIONS}
_ALL.update({"swish": swish, "hard_swish": hard_swish})
for _name, _fn in _ALL.items():
    serialization.register_builtin("activations", _fn, name=_name)


def serialize(activation: Callable | None) -> str | dict | None:
    """The name of a built-in activation; a registered function's config dict.

    Args:
        activation: an activation function (or None).

    Returns:
        What Keras writes in a layer config: a built-in's own name, or for a function
        registered with `register_keras_serializable` a dict whose `config` is its
        registered name (`"package>name"`). None stays None.

    >>> serialize(swish)
    'silu'
    """
    if activation is None:
        return None
    for fn in _FUNCTIONS:
        if fn is activation:
            return fn.__name__
    # Keras 3 writes a custom function as a dict naming its registered name.
    return serialization.serialize_keras_object(activation, "activations")


def deserialize(config: str | dict, custom_objects: dict | None = None) -> Callable:
    """The activation function named by `config` (a name or a Keras config dict).

    Args:
        config: a name such as `"relu"`, or `{"class_name": "function", "config": name}`.
        custom_objects: extra `{name: function}` to resolve first.

    Raises:
        ValueError: the name is unknown; the message lists the valid names.

    >>> deserialize("tanh") is tanh
    True
    """
    return serialization.deserialize_keras_object(
        config,
        "activations",
        custom_objects=custom_objects,
        printable_module_name="activation function",
    )


def get(identifier: str | dict | Callable | None) -> Callable:
    """Resolve a layer's `activation=` argument to a function.

    `None` gives `linear`; a name or config dict is deserialized; a callable passes
    through unchanged.

    Raises:
        ValueError: an unknown name (the message lists the valid ones) or something that
            is neither a name, a dict, a callable nor None.

    >>> get(None) is linear, get("swish") is silu
    (True, True)
    """
    if identifier is None:
        return linear
    fn = deserialize(identifier) if isinstance(identifier, (str, dict)) else identifier
    if not callable(fn):
        raise ValueError(
            f"Could not interpret activation {identifier!r}: expected a name such as "
            f"'relu', a config dict, a callable, or None. Valid names: {sorted(_ALL)}."
        )
    return fn


__all__ = sorted(_ALL) + ["deserialize", "get", "serialize"]
