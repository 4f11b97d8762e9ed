"""Weight constraints: projections applied to a weight after each optimizer update."""

from __future__ import annotations

from typing import Any

from lamina import backend, ops

TensorLike = Any  # an engine array, a NumPy array or a Variable


def _norms(w: TensorLike, axis: int | tuple[int, ...]) -> TensorLike:
    return ops.sqrt(ops.sum(ops.square(w), axis=axis, keepdims=True))


class Constraint:
    """Base class: `constraint(w)` returns the projected weight.

    Pass one as a layer's `kernel_constraint=` or `bias_constraint=`; the trainer
    applies it to the variable after every optimizer step.

    >>> from lamina import ops
    >>> class Clip(Constraint):
    ...     def __call__(self, w):
    ...         return ops.clip(w, -1.0, 1.0)
    >>> ops.convert_to_numpy(Clip()(ops.convert_to_tensor([-3.0, 0.5]))).tolist()
    [-1.0, 0.5]
    """

    def __call__(self, w: TensorLike) -> TensorLike:
        """The projected weight; the base class returns `w` unchanged."""
        return w

    def get_config(self) -> dict:
        """The constructor arguments as a JSON-able dict.

        >>> NonNeg().get_config()
        {}
        """
        return {}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Constraint:
        """Rebuild a constraint from `get_config()` output.

        >>> MaxNorm.from_config({"max_value": 3, "axis": 1}).max_value
        3
        """
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class MaxNorm(Constraint):
    """Rescales each weight vector along `axis` whose L2 norm exceeds `max_value`.

    `w * clip(norm, 0, max_value) / (epsilon + norm)`, norms taken over `axis`: for a
    `Dense` kernel `(input_dim, units)`, `axis=0` constrains each unit's incoming
    weights; for a `Conv2D` kernel `(rows, cols, in, out)` use `axis=[0, 1, 2]`.

    Args:
        max_value: the largest norm allowed.
        axis: the axis (or axes) the norms are computed over.

    >>> import numpy as np
    >>> np.asarray(MaxNorm(1.0)(np.array([[3.0], [4.0]])), float).round(3).tolist()
    [[0.6], [0.8]]
    """

    def __init__(self, max_value: float = 2, axis: int | list[int] = 0):
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w: TensorLike) -> TensorLike:
        axis = tuple(self.axis) if isinstance(self.axis, list) else self.axis
        norms = _norms(w, axis)
        desired = ops.clip(norms, 0, self.max_value)
        return ops.multiply(w, desired / (backend.epsilon() + norms))

    def get_config(self) -> dict:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Sets negative weights to zero.

    >>> import numpy as np
    >>> np.asarray(NonNeg()(np.array([-1.0, 2.0]))).tolist()
    [0.0, 2.0]
    """

    def __call__(self, w: TensorLike) -> TensorLike:
        return ops.where(ops.greater_equal(w, 0.0), w, 0.0)


class UnitNorm(Constraint):
    """Rescales each weight vector along `axis` to unit L2 norm: `w / (epsilon + norm)`.

    Args:
        axis: the axis (or axes) the norms are computed over.

    >>> import numpy as np
    >>> np.asarray(UnitNorm()(np.array([[3.0], [4.0]])), float).round(3).tolist()
    [[0.6], [0.8]]
    """

    def __init__(self, axis: int | list[int] = 0):
        self.axis = axis

    def __call__(self, w: TensorLike) -> TensorLike:
        axis = tuple(self.axis) if isinstance(self.axis, list) else self.axis
        return ops.divide(w, backend.epsilon() + _norms(w, axis))

    def get_config(self) -> dict:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Keeps the L2 norm of each weight vector along `axis` in `[min_value, max_value]`.

    The new norm is `rate * clip(norm, min_value, max_value) + (1 - rate) * norm`:
    `rate=1.0` enforces the bounds at once, a smaller rate moves towards them gradually.

    Args:
        min_value: the smallest norm allowed.
        max_value: the largest norm allowed.
        rate: how far to move towards the bounds at each application, in `[0, 1]`.
        axis: the axis (or axes) the norms are computed over.

    >>> import numpy as np
    >>> np.asarray(MinMaxNorm(2.0, 3.0)(np.array([[0.6], [0.8]])), float).round(3).tolist()
    [[1.2], [1.6]]
    """

    def __init__(
        self,
        min_value: float = 0.0,
        max_value: float = 1.0,
        rate: float = 1.0,
        axis: int | list[int] = 0,
    ):
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w: TensorLike) -> TensorLike:
        axis = tuple(self.axis) if isinstance(self.axis, list) else self.axis
        norms = _norms(w, axis)
        desired = (
            self.rate * ops.clip(norms, self.min_value, self.max_value) + (1 - self.rate) * norms
        )
        return ops.multiply(w, desired / (backend.epsilon() + norms))

    def get_config(self) -> dict:
        return {
            "min_value": self.min_value,
            "max_value": self.max_value,
            "rate": self.rate,
            "axis": self.axis,
        }
