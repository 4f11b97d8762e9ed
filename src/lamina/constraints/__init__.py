"""`lamina.constraints`: projections applied to a weight after each optimizer update.

>>> import numpy as np
>>> from lamina import constraints
>>> np.asarray(constraints.NonNeg()(np.array([-1.0, 2.0]))).tolist()
[0.0, 2.0]
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.utils import serialization


class Constraint:
    """Base class: `constraint(w)` returns the projected weight."""

    def __call__(self, w):
        return w

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


def _norms(w, axis):
    return ops.sqrt(ops.sum(ops.square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Rescales each weight vector along `axis` to norm at most `max_value`."""

    def __init__(self, max_value=2, axis=0):
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = ops.clip(norms, 0, self.max_value)
        return w * (desired / (backend.epsilon() + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Sets negative weights to zero."""

    def __call__(self, w):
        return ops.where(ops.greater_equal(w, 0.0), w, 0.0)


class UnitNorm(Constraint):
    """Rescales each weight vector along `axis` to unit norm."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return w / (backend.epsilon() + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Keeps norms along `axis` in `[min_value, max_value]`, moving `rate` of the way."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = (
            self.rate * ops.clip(norms, self.min_value, self.max_value) + (1 - self.rate) * norms
        )
        return w * (desired / (backend.epsilon() + norms))

    def get_config(self):
        return {
            "min_value": self.min_value,
            "max_value": self.max_value,
            "rate": self.rate,
            "axis": self.axis,
        }


_CLASSES = {"MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm, "MinMaxNorm": MinMaxNorm}
_ALIASES = {
    "max_norm": MaxNorm,
    "non_neg": NonNeg,
    "unit_norm": UnitNorm,
    "min_max_norm": MinMaxNorm,
}
for _name, _cls in {**_CLASSES, **_ALIASES}.items():
    serialization.register_builtin("constraints", _cls, name=_name)


serialize, deserialize, get = serialization.object_accessors(
    "constraints", "constraint", Constraint
)


__all__ = [
    "Constraint",
    "MaxNorm",
    "MinMaxNorm",
    "NonNeg",
    "UnitNorm",
    "deserialize",
    "get",
    "serialize",
]
