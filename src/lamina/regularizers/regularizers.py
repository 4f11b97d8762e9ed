"""Weight penalties: `regularizer(x)` returns a scalar that is added to the loss."""

from __future__ import annotations

import math
from typing import Any

from lamina import backend, ops

TensorLike = Any  # an engine array, a NumPy array, a Variable or a KerasTensor


def validate_float_arg(value: Any, name: str) -> float:
    """`value` as a float, or a ValueError unless it is a finite non-negative number.

    >>> validate_float_arg(1, "l2")
    1.0
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or math.isinf(value)
        or math.isnan(value)
        or value < 0
    ):
        raise ValueError(
            f"Invalid value for argument {name}: expected a non-negative float. "
            f"Received: {name}={value!r}"
        )
    return float(value)


class Regularizer:
    """Base class: `regularizer(x)` returns a scalar penalty on the tensor `x`.

    Pass one as a layer's `kernel_regularizer=`, `bias_regularizer=` or
    `activity_regularizer=`; the penalties are collected in `layer.losses` and added to
    the training loss. Any function `x -> scalar` works in their place, too.

    >>> from lamina import ops
    >>> class Sum(Regularizer):
    ...     def __call__(self, x):
    ...         return ops.sum(x)
    ...     def get_config(self):
    ...         return {}
    >>> float(Sum()(ops.ones((2, 2))))
    4.0
    """

    def __call__(self, x: TensorLike) -> TensorLike:
        """The penalty on `x`; the base class applies none."""
        return 0.0

    def get_config(self) -> dict:
        """The constructor arguments as a JSON-able dict (subclasses must provide it)."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_config().")

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Regularizer:
        """Rebuild a regularizer from `get_config()` output.

        >>> L2.from_config({"l2": 0.5}).l2
        0.5
        """
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class L1L2(Regularizer):
    """L1 and L2 penalties together: `l1 * sum(abs(x)) + l2 * sum(square(x))`.

    Both factors default to 0, so `L1L2(l2=0.1)` applies only the L2 term.

    Args:
        l1: L1 regularization factor (non-negative; None means 0).
        l2: L2 regularization factor (non-negative; None means 0).

    >>> import numpy as np
    >>> float(L1L2(l1=0.5, l2=0.25)(np.array([1.0, -2.0])))
    2.75
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0):
        self.l1 = validate_float_arg(0.0 if l1 is None else l1, "l1")
        self.l2 = validate_float_arg(0.0 if l2 is None else l2, "l2")

    def __call__(self, x: TensorLike) -> TensorLike:
        # The tensor's dtype, not a NumPy input's own (float64 is not JAX's without x64).
        x = ops.convert_to_tensor(x)
        dtype = ops.dtype(x)
        total = ops.zeros((), dtype=dtype)
        if self.l1:
            total = total + ops.cast(self.l1, dtype) * ops.sum(ops.abs(x))
        if self.l2:
            total = total + ops.cast(self.l2, dtype) * ops.sum(ops.square(x))
        return total

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """L1 penalty: `l1 * sum(abs(x))`. Pushes weights to exactly zero (sparsity).

    Args:
        l1: L1 regularization factor (non-negative; None means 0.01).

    >>> import numpy as np
    >>> float(L1(0.5)(np.array([1.0, -2.0])))
    1.5
    """

    def __init__(self, l1: float = 0.01):
        self.l1 = validate_float_arg(0.01 if l1 is None else l1, "l1")

    def __call__(self, x: TensorLike) -> TensorLike:
        return ops.cast(self.l1, ops.dtype(x)) * ops.sum(ops.abs(x))

    def get_config(self) -> dict:
        return {"l1": self.l1}


class L2(Regularizer):
    """L2 penalty (weight decay): `l2 * sum(square(x))`.

    Args:
        l2: L2 regularization factor (non-negative; None means 0.01).

    >>> import numpy as np
    >>> float(L2(0.5)(np.array([1.0, 2.0])))
    2.5
    """

    def __init__(self, l2: float = 0.01):
        self.l2 = validate_float_arg(0.01 if l2 is None else l2, "l2")

    def __call__(self, x: TensorLike) -> TensorLike:
        return ops.cast(self.l2, ops.dtype(x)) * ops.sum(ops.square(x))

    def get_config(self) -> dict:
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Pushes the rows (or columns) of a 2D weight towards being mutually orthogonal.

    The penalty is `factor` times the mean absolute cosine similarity between distinct
    L2-normalized rows (`mode="rows"`) or columns (`mode="columns"`).

    Args:
        factor: the regularization factor (non-negative).
        mode: `"rows"` or `"columns"`.

    >>> import numpy as np
    >>> float(OrthogonalRegularizer(factor=1.0)(np.eye(3)))
    0.0
    """

    def __init__(self, factor: float = 0.01, mode: str = "rows"):
        self.factor = validate_float_arg(factor, "factor")
        if mode not in ("rows", "columns"):
            raise ValueError(
                f"OrthogonalRegularizer mode must be 'rows' or 'columns'; received mode={mode!r}."
            )
        self.mode = mode

    def __call__(self, inputs: TensorLike) -> TensorLike:
        x = inputs  # Keras names the argument `inputs` here (`x` on the others)
        shape = ops.shape(x)
        if len(shape) != 2:
            raise ValueError(
                f"OrthogonalRegularizer needs a rank-2 weight; received shape {tuple(shape)}."
            )
        if self.mode == "columns":
            x = ops.transpose(x)
        inverse_norm = ops.rsqrt(ops.sum(ops.square(x), axis=1, keepdims=True))
        x = ops.multiply(x, ops.minimum(inverse_norm, 1.0 / backend.epsilon()))
        size = ops.shape(x)[0]
        product = ops.matmul(x, ops.transpose(x)) * (1.0 - ops.eye(size, dtype=ops.dtype(x)))
        num_pairs = size * (size - 1.0) / 2.0
        return self.factor * 0.5 * ops.sum(ops.abs(product)) / num_pairs

    def get_config(self) -> dict:
        return {"factor": self.factor, "mode": self.mode}
