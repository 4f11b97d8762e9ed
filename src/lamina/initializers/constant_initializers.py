"""Initializers without randomness: zeros, ones, a constant, the identity matrix."""

from __future__ import annotations

from lamina import ops
from lamina.initializers.initializer import (
    Initializer,
    TensorLike,
    resolve_dtype,
    seedless_deferred,
)


class Zeros(Initializer):
    """Fills the tensor with zeros. The usual bias initializer.

    >>> ops.convert_to_numpy(Zeros()((2, 2))).tolist()
    [[0.0, 0.0], [0.0, 0.0]]
    """

    def __call__(self, shape: tuple[int, ...], dtype: str | None = None) -> TensorLike:
        return ops.zeros(shape, dtype=resolve_dtype(dtype))

    def _deferred(self, shape, dtype):
        return seedless_deferred(self, Zeros, shape, dtype)


class Ones(Initializer):
    """Fills the tensor with ones (e.g. a normalization layer's scale).

    >>> ops.convert_to_numpy(Ones()((3,), dtype="int32")).tolist()
    [1, 1, 1]
    """

    def __call__(self, shape: tuple[int, ...], dtype: str | None = None) -> TensorLike:
        return ops.ones(shape, dtype=resolve_dtype(dtype))

    def _deferred(self, shape, dtype):
        return seedless_deferred(self, Ones, shape, dtype)


class Constant(Initializer):
    """Fills the tensor with `value`.

    Args:
        value: a Python scalar (or an array that broadcasts to the shape).

    >>> ops.convert_to_numpy(Constant(0.5)((2,))).tolist()
    [0.5, 0.5]
    """

    def __init__(self, value: float = 0.0):
        self.value = value

    def __call__(self, shape: tuple[int, ...], dtype: str | None = None) -> TensorLike:
        dtype = resolve_dtype(dtype)
        return ops.cast(self.value, dtype) * ops.ones(shape, dtype=dtype)

    def _deferred(self, shape, dtype):
        if not isinstance(self.value, (int, float)):
            return None  # an array is checked against the shape when the weight is made
        return seedless_deferred(self, Constant, shape, dtype)

    def get_config(self) -> dict:
        value = self.value.tolist() if hasattr(self.value, "tolist") else self.value
        return {"value": value}


class Identity(Initializer):
    """`gain` times the identity matrix; 2D shapes only (rectangular is fine).

    Also reachable as `IdentityInitializer`, Keras's older name.

    Args:
        gain: the multiplicative factor applied to the identity matrix.

    >>> ops.convert_to_numpy(Identity(gain=2.0)((2, 3))).tolist()
    [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    """

    def __init__(self, gain: float = 1.0):
        self.gain = gain

    def __call__(self, shape: tuple[int, ...], dtype: str | None = None) -> TensorLike:
        _check_2d(shape)
        dtype = resolve_dtype(dtype)
        return ops.cast(self.gain * ops.eye(shape[0], shape[1], dtype=dtype), dtype)

    def _deferred(self, shape, dtype):
        _check_2d(shape)  # a wrong shape is refused when the weight is made, loaded or not
        return seedless_deferred(self, Identity, shape, dtype)

    def get_config(self) -> dict:
        return {"gain": self.gain}


def _check_2d(shape) -> None:
    if len(shape) != 2:
        raise ValueError(
            f"Identity initializer needs a 2D shape; received shape={tuple(shape)} of "
            f"rank {len(shape)}. Use Orthogonal for higher-rank kernels."
        )


IdentityInitializer = Identity
