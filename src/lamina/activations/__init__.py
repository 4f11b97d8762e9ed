"""`lamina.activations`: activation functions by name, as Keras names them.

>>> import numpy as np
>>> from lamina import activations
>>> np.asarray(activations.get("relu")(np.array([-1.0, 2.0]))).tolist()
[0.0, 2.0]
>>> activations.serialize(activations.relu)
'relu'
"""

from __future__ import annotations

from lamina import ops
from lamina.utils import serialization


def linear(x):
    """Identity: returns `x` unchanged."""
    return x


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Rectified linear unit: `max(x, 0)` by default.

    Args:
        negative_slope: slope for values below `threshold` (leaky when > 0).
        max_value: saturation cap (None for none).
        threshold: values below it are zeroed (or scaled by `negative_slope`).
    """
    x = ops.convert_to_tensor(x) if not hasattr(x, "shape") else x
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return ops.relu(x)
    below = ops.less(x, threshold)
    out = ops.where(below, negative_slope * (x - threshold) if negative_slope else 0.0, x)
    if max_value is not None:
        out = ops.minimum(out, max_value)
    return out


def relu6(x):
    """ReLU capped at 6."""
    return ops.relu6(x)


def leaky_relu(x, negative_slope=0.2):
    """`x` if `x >= 0` else `negative_slope * x`."""
    return ops.leaky_relu(x, negative_slope=negative_slope)


def sigmoid(x):
    """`1 / (1 + exp(-x))`."""
    return ops.sigmoid(x)


def hard_sigmoid(x):
    """Piecewise-linear sigmoid: `clip(x / 6 + 0.5, 0, 1)` (Keras 3's definition)."""
    return ops.hard_sigmoid(x)


def hard_silu(x):
    """`x * hard_sigmoid(x)`."""
    return ops.hard_silu(x)


hard_swish = hard_silu


def tanh(x):
    """Hyperbolic tangent."""
    return ops.tanh(x)


def softmax(x, axis=-1):
    """Softmax over `axis`: exponentials normalized to sum to 1."""
    return ops.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    """Logarithm of the softmax over `axis`."""
    return ops.log_softmax(x, axis=axis)


def softplus(x):
    """`log(exp(x) + 1)`."""
    return ops.softplus(x)


def softsign(x):
    """`x / (abs(x) + 1)`."""
    return ops.softsign(x)


def elu(x, alpha=1.0):
    """`x` if `x > 0` else `alpha * (exp(x) - 1)`."""
    return ops.elu(x, alpha=alpha)


def selu(x):
    """Scaled ELU with the self-normalizing constants of Klambauer et al. (2017)."""
    return ops.selu(x)


def gelu(x, approximate=False):
    """Gaussian error linear unit; `approximate=True` uses the tanh form."""
    return ops.gelu(x, approximate=approximate)


def silu(x):
    """`x * sigmoid(x)` (also called swish)."""
    return ops.silu(x)


swish = silu


def exponential(x):
    """`exp(x)`."""
    return ops.exp(x)


def mish(x):
    """`x * tanh(softplus(x))`."""
    return ops.mish(x)


_ALL = {
    "linear": linear,
    "relu": relu,
    "relu6": relu6,
    "leaky_relu": leaky_relu,
    "sigmoid": sigmoid,
    "hard_sigmoid": hard_sigmoid,
    "hard_silu": hard_silu,
    "hard_swish": hard_swish,
    "tanh": tanh,
    "softmax": softmax,
    "log_softmax": log_softmax,
    "softplus": softplus,
    "softsign": softsign,
    "elu": elu,
    "selu": selu,
    "gelu": gelu,
    "silu": silu,
    "swish": swish,
    "exponential": exponential,
    "mish": mish,
}
for _name, _fn in _ALL.items():
    serialization.register_builtin("activations", _fn, name=_name)


def serialize(activation) -> str | dict | None:
    """The name of a built-in activation (or a registered function's config)."""
    if activation is None:
        return None
    for name, fn in _ALL.items():
        if fn is activation:
            return "silu" if name == "swish" else ("hard_silu" if name == "hard_swish" else name)
    return serialization.serialize_keras_object(activation, "activations")


def deserialize(config, custom_objects=None):
    """An activation function from its name or config."""
    return serialization.deserialize_keras_object(
        config,
        "activations",
        custom_objects=custom_objects,
        printable_module_name="activation function",
    )


def get(identifier):
    """Resolve `identifier` (None, a name, a config dict or a callable) to a function.

    `None` gives `linear`. Unknown names raise a ValueError listing the valid ones.
    """
    if identifier is None:
        return linear
    if isinstance(identifier, (str, dict)):
        fn = deserialize(identifier)
    else:
        fn = identifier
    if not callable(fn):
        raise ValueError(
            f"Could not interpret activation {identifier!r}: expected a name such as "
            f"'relu', a callable, or None. Valid names: {sorted(_ALL)}."
        )
    return fn


__all__ = sorted(_ALL) + ["deserialize", "get", "serialize"]
