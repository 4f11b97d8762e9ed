"""Activations Keras 3 has beyond the engine's: `celu`, `glu`, `hard_tanh`, `sparsemax`, ...

Each is written once from contract ops, so it runs (and differentiates) on every engine
and is one graph node on KerasTensors; `swish` and `hard_swish` are Keras's other names
for `silu` and `hard_silu`.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.hard_tanh(np.array([-2.0, 0.5, 3.0]))).tolist()
[-1.0, 0.5, 1.0]
"""

from __future__ import annotations

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, convert_to_tensor, declared_op, shape

_sigmoid = declared_op("nn", "sigmoid")


def _float_tensor(x):
    x = convert_to_tensor(x)
    return x if "float" in dtype(x) else cast(x, backend.floatx())


swish = declared_op("nn", "silu")
swish.__name__ = swish.__qualname__ = "swish"
swish.__doc__ = """Swish (the same as SiLU): `x * sigmoid(x)`, elementwise.

Keras's other name for `silu`.

Args:
    x: Input tensor of any shape.

Returns:
    A tensor of the shape of `x`.

Example:

>>> import numpy as np
>>> from lamina import ops
>>> print(np.round(ops.convert_to_numpy(ops.swish(np.array([-1.0, 0.0, 1.0]))), 4))
[-0.2689  0.      0.7311]
"""


hard_swish = declared_op("nn", "hard_silu")
hard_swish.__name__ = hard_swish.__qualname__ = "hard_swish"
hard_swish.__doc__ = """Hard swish (the same as hard SiLU): `x * relu6(x + 3) / 6`, elementwise.

Keras's other name for `hard_silu`: 0 below -3, `x` above 3.

Args:
    x: Input tensor of any shape.

Returns:
    A tensor of the shape of `x`.

Example:

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.hard_swish(np.array([-4.0, 0.0, 3.0, 5.0]))).tolist()
[-0.0, 0.0, 3.0, 5.0]
"""


@composite
def celu(x, alpha=1.0):
    """Continuously differentiable exponential linear unit, elementwise.

    `x` where positive, else `alpha * (exp(x / alpha) - 1)`; unlike `elu`, its slope
    is continuous at 0 for every `alpha` (Barron, 2017).

    Args:
        x: Input tensor of any shape.
        alpha: The scale of the negative part, which tends to `-alpha` (default 1.0).

    Returns:
        A float tensor of the shape of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.celu(np.array([-1.0, 0.0, 2.0]), alpha=2.0)
    >>> print(np.round(ops.convert_to_numpy(y), 4))
    [-0.7869  0.      2.    ]
    """
    x = _float_tensor(x)
    return lnp.where(lnp.greater(x, 0), x, alpha * lnp.expm1(lnp.minimum(x, 0.0) / alpha))


@composite
def glu(x, axis=-1):
    """Gated linear unit: `a * sigmoid(b)`, `a` and `b` the halves of `x` on `axis`.

    Args:
        x: Float tensor whose length on `axis` is even.
        axis: The axis to split in halves (default -1, the last).

    Returns:
        A tensor of the shape of `x` with `axis` halved.

    Raises:
        ValueError: If `x` has odd length on `axis`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.glu(np.array([1.0, 2.0, 0.0, 100.0]))).tolist()
    [0.5, 2.0]
    """
    x = convert_to_tensor(x)
    size = shape(x)[axis]
    if size % 2:
        raise ValueError(
            f"glu: axis {axis} of `x` must have even length to split in halves; received "
            f"shape {shape(x)}."
        )
    a, b = lnp.split(x, 2, axis=axis)
    return lnp.multiply(a, _sigmoid(b))


@composite
def hard_tanh(x):
    """Hard tanh: `x` clipped to `[-1, 1]`, elementwise.

    Args:
        x: Input tensor of any shape.

    Returns:
        A tensor of the shape and dtype of `x` with values in `[-1, 1]` (an integer
        input stays integer, as in Keras).

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.hard_tanh(np.array([-2.0, 0.5, 3.0]))).tolist()
    [-1.0, 0.5, 1.0]
    """
    x = convert_to_tensor(x)
    if "float" in dtype(x):
        return lnp.clip(x, -1.0, 1.0)
    return lnp.clip(x, -1, 1)


@composite
def hard_shrink(x, threshold=0.5):
    """Hard shrinkage: `x` where `abs(x) > threshold`, else 0.

    Args:
        x: Input tensor of any shape.
        threshold: The half-width of the band around 0 set to zero (default 0.5).

    Returns:
        A float tensor of the shape of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.hard_shrink(np.array([-1.0, 0.25, 2.0]))).tolist()
    [-1.0, 0.0, 2.0]
    """
    x = _float_tensor(x)
    return lnp.where(lnp.greater(lnp.abs(x), threshold), x, lnp.zeros_like(x))


@composite
def soft_shrink(x, threshold=0.5):
    """Soft shrinkage: `x` moved toward 0 by `threshold` (0 inside the band).

    `x - threshold` above `threshold`, `x + threshold` below `-threshold`, else 0.

    Args:
        x: Input tensor of any shape.
        threshold: The amount of shrinkage (default 0.5).

    Returns:
        A float tensor of the shape of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.soft_shrink(np.array([-1.0, 0.25, 0.75]))).tolist()
    [-0.5, 0.0, 0.25]
    """
    x = _float_tensor(x)
    return lnp.where(
        lnp.greater(x, threshold),
        x - threshold,
        lnp.where(lnp.less(x, -threshold), x + threshold, lnp.zeros_like(x)),
    )


@composite
def tanh_shrink(x):
    """Tanh shrinkage: `x - tanh(x)`, elementwise.

    Args:
        x: Input tensor of any shape.

    Returns:
        A float tensor of the shape of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> print(np.round(ops.convert_to_numpy(ops.tanh_shrink(np.array([-1.0, 0.0, 1.0]))), 4))
    [-0.2384  0.      0.2384]
    """
    x = _float_tensor(x)
    return lnp.subtract(x, lnp.tanh(x))


@composite
def threshold(x, threshold, default_value):
    """Threshold: `x` where `x > threshold`, else `default_value`.

    Args:
        x: Input tensor of any shape.
        threshold: The value `x` must exceed to be kept.
        default_value: The value put where `x <= threshold`.

    Returns:
        A tensor of the shape and dtype of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.threshold(np.array([-1.0, 0.5, 2.0]), 0.5, 9.0)).tolist()
    [9.0, 9.0, 2.0]
    """
    x = convert_to_tensor(x)
    return lnp.where(lnp.greater(x, threshold), x, lnp.full_like(x, default_value))


@composite
def squareplus(x, b=4):
    """Squareplus, a smooth ReLU: `(x + sqrt(x ** 2 + b)) / 2`, elementwise.

    Args:
        x: Input tensor of any shape.
        b: The smoothness, `b >= 0` (default 4); `b = 0` gives `relu`.

    Returns:
        A float tensor of the shape of `x` with positive values (for `b > 0`).

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.squareplus(np.array([-2.0, 0.0, 2.0]), b=0)).tolist()
    [0.0, 0.0, 2.0]
    >>> ops.convert_to_numpy(ops.squareplus(np.array([0.0]))).tolist()
    [1.0]
    """
    x = _float_tensor(x)
    return lnp.divide(lnp.add(x, lnp.sqrt(lnp.add(lnp.square(x), b))), 2.0)


@composite
def sparse_plus(x):
    """SparsePlus: 0 below -1, `(x + 1) ** 2 / 4` on `[-1, 1]`, `x` above 1.

    A softplus-like activation that is exactly zero for `x <= -1`.

    Args:
        x: Input tensor of any shape.

    Returns:
        A float tensor of the shape of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.sparse_plus(np.array([-2.0, 0.0, 1.0, 3.0]))).tolist()
    [0.0, 0.25, 1.0, 3.0]
    """
    x = _float_tensor(x)
    middle = lnp.square(x + 1.0) / 4.0
    return lnp.where(
        lnp.less_equal(x, -1.0), lnp.zeros_like(x), lnp.where(lnp.greater_equal(x, 1.0), x, middle)
    )


@composite
def sparse_sigmoid(x):
    """Sparse sigmoid: 0 below -1, `(x + 1) / 2` on `[-1, 1]`, 1 above.

    A sigmoid-like activation that reaches exactly 0 and 1 (the derivative of
    `sparse_plus`, scaled).

    Args:
        x: Input tensor of any shape.

    Returns:
        A float tensor of the shape of `x` with values in `[0, 1]`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.sparse_sigmoid(np.array([-2.0, 0.0, 0.5, 3.0]))).tolist()
    [0.0, 0.5, 0.75, 1.0]
    """
    return lnp.clip((_float_tensor(x) + 1.0) / 2.0, 0.0, 1.0)


@composite
def sparsemax(x, axis=-1):
    """Sparsemax: the Euclidean projection of `x` onto the probability simplex.

    Like `softmax` it gives non-negative values summing to 1 along `axis`, but low
    scores get exactly 0 (Martins and Astudillo, 2016).

    Args:
        x: Float tensor of scores.
        axis: The axis to normalize over (default -1, the last).

    Returns:
        A tensor of the shape of `x`, non-negative and summing to 1 along `axis`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.sparsemax(np.array([[1.0, 0.0, -1.0], [0.5, 0.5, 0.0]]))
    >>> ops.convert_to_numpy(y).tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]]
    """
    x = _float_tensor(x)
    n = shape(x)[axis]
    # Sorted descending: the support is the k largest values with 1 + k z_k > cumsum_k.
    z = lnp.flip(lnp.sort(x, axis=axis), axis=axis)
    ks_shape = [1] * len(shape(x))
    ks_shape[axis] = n
    ks = lnp.reshape(lnp.arange(1, n + 1, dtype=dtype(x)), ks_shape)
    cumulative = lnp.cumsum(z, axis=axis)
    in_support = lnp.greater(1.0 + ks * z, cumulative)
    k = lnp.sum(cast(in_support, dtype(x)), axis=axis, keepdims=True)
    tau = (lnp.sum(lnp.where(in_support, z, 0.0), axis=axis, keepdims=True) - 1.0) / k
    return lnp.maximum(lnp.subtract(x, tau), 0.0)


__all__ = [
    "celu",
    "glu",
    "hard_shrink",
    "hard_swish",
    "hard_tanh",
    "soft_shrink",
    "sparse_plus",
    "sparse_sigmoid",
    "sparsemax",
    "squareplus",
    "swish",
    "tanh_shrink",
    "threshold",
]
