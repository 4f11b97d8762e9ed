"""`lamina.regularizers`: penalties on weights (or activations) added to the loss.

>>> import numpy as np
>>> from lamina import regularizers
>>> float(regularizers.L2(0.5)(np.array([1.0, 2.0])))
2.5
"""

from __future__ import annotations

from lamina import ops
from lamina.utils import serialization


class Regularizer:
    """Base class: `regularizer(x)` returns a scalar penalty."""

    def __call__(self, x):
        return 0.0

    def get_config(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} must implement get_config.")

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


def _check(value, name):
    value = float(value)
    if value < 0 or value != value:
        raise ValueError(
            f"Regularization factor {name} must be a non-negative number; received {value}."
        )
    return value


class L1(Regularizer):
    """`l1 * sum(abs(x))`."""

    def __init__(self, l1=0.01):
        self.l1 = _check(l1, "l1")

    def __call__(self, x):
        return self.l1 * ops.sum(ops.abs(x))

    def get_config(self):
        return {"l1": self.l1}


class L2(Regularizer):
    """`l2 * sum(square(x))`."""

    def __init__(self, l2=0.01):
        self.l2 = _check(l2, "l2")

    def __call__(self, x):
        return self.l2 * ops.sum(ops.square(x))

    def get_config(self):
        return {"l2": self.l2}


class L1L2(Regularizer):
    """`l1 * sum(abs(x)) + l2 * sum(square(x))`."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = _check(l1, "l1")
        self.l2 = _check(l2, "l2")

    def __call__(self, x):
        total = 0.0
        if self.l1:
            total = total + self.l1 * ops.sum(ops.abs(x))
        if self.l2:
            total = total + self.l2 * ops.sum(ops.square(x))
        return total

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Pushes the rows (`mode="rows"`) or columns of a 2D weight to be orthonormal."""

    def __init__(self, factor=0.01, mode="rows"):
        if mode not in ("rows", "columns"):
            raise ValueError(
                f"OrthogonalRegularizer mode must be 'rows' or 'columns'; received {mode!r}."
            )
        self.factor = _check(factor, "factor")
        self.mode = mode

    def __call__(self, x):
        if len(x.shape) != 2:
            raise ValueError(
                f"OrthogonalRegularizer needs a 2D weight; received shape {tuple(x.shape)}."
            )
        if self.mode == "columns":
            x = ops.transpose(x)
        x = x / ops.maximum(ops.sqrt(ops.sum(ops.square(x), axis=1, keepdims=True)), 1e-12)
        product = ops.matmul(x, ops.transpose(x))
        n = x.shape[0]
        off_diagonal = product * (1.0 - ops.eye(n))
        return self.factor * ops.sum(ops.abs(off_diagonal)) / (n * (n - 1) if n > 1 else 1)

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


def l1(l1=0.01):  # noqa: D103 - Keras's lowercase alias
    return L1(l1)


def l2(l2=0.01):  # noqa: D103
    return L2(l2)


def l1_l2(l1=0.01, l2=0.01):
    """L1 and L2 together (Keras's `l1_l2` helper; defaults 0.01 each)."""
    return L1L2(l1, l2)


_CLASSES = {"L1": L1, "L2": L2, "L1L2": L1L2, "OrthogonalRegularizer": OrthogonalRegularizer}
_ALIASES = {"l1": L1, "l2": L2, "l1_l2": L1L2, "orthogonal_regularizer": OrthogonalRegularizer}
for _name, _cls in {**_CLASSES, **_ALIASES}.items():
    serialization.register_builtin("regularizers", _cls, name=_name)


serialize, deserialize, get = serialization.object_accessors(
    "regularizers", "regularizer", Regularizer
)


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
    "serialize",
]
