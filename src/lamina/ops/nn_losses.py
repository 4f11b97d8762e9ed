"""Cross-entropies and the targets and scores around them: `binary_crossentropy`,
`categorical_crossentropy`, `multi_hot`, `psnr`.

Written once from contract ops (`sparse_categorical_crossentropy` and `one_hot` are the
engine's, declared in `lamina.backend.declarations.nn`).

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.multi_hot(np.array([[0, 2]]), 3)).tolist()
[[1.0, 0.0, 1.0]]
"""

from __future__ import annotations

import math

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, convert_to_tensor, declared_op, shape
from lamina.ops.nn_activations import _float_tensor

_log_softmax = declared_op("nn", "log_softmax")
_log_sigmoid = declared_op("nn", "log_sigmoid")
_one_hot = declared_op("nn", "one_hot")


@composite
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy of `target` against probabilities (or logits).

    `-(target * log(p) + (1 - target) * log(1 - p))`, with `p` clipped to
    `[epsilon, 1 - epsilon]` (`keras.config.epsilon()`); with `from_logits`, `p` is
    `sigmoid(output)` and the loss is computed stably from the logits. Nothing is
    averaged: reduce the result yourself (or use `keras.losses.BinaryCrossentropy`).

    Args:
        target: Labels in `[0, 1]`, the shape of `output`.
        output: Predicted probabilities, or logits when `from_logits`.
        from_logits: Whether `output` holds logits (default False).

    Returns:
        A float tensor of the shape of `output`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.binary_crossentropy(np.array([1.0, 0.0]), np.array([0.8, 0.4]))
    >>> print(np.round(ops.convert_to_numpy(y), 4))
    [0.2231 0.5108]
    >>> logits = np.array([0.0, 0.0])
    >>> y = ops.binary_crossentropy(np.array([1.0, 0.0]), logits, from_logits=True)
    >>> print(np.round(ops.convert_to_numpy(y), 4))
    [0.6931 0.6931]
    """
    output = _float_tensor(output)
    target = cast(convert_to_tensor(target), dtype(output))
    if from_logits:
        # max(z, 0) - z t + log(1 + exp(-|z|)): -t log(sigmoid(z)) - (1 - t) log(1 - sigmoid(z)).
        relu_part = lnp.subtract(lnp.maximum(output, 0.0), output * target)
        return lnp.subtract(relu_part, _log_sigmoid(lnp.abs(output)))
    eps = backend.epsilon()
    output = lnp.clip(output, eps, 1.0 - eps)
    return -(target * lnp.log(output) + (1.0 - target) * lnp.log(1.0 - output))


@composite
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy of one-hot (or soft) `target` against class scores on `axis`.

    `-sum(target * log(p), axis)`: probabilities (`from_logits=False`) are divided by
    their sum along `axis` and clipped to `[epsilon, 1 - epsilon]`; logits go through a
    stable log-softmax.

    Args:
        target: Class probabilities (usually one-hot), the shape of `output`.
        output: Class scores: probabilities, or logits when `from_logits`.
        from_logits: Whether `output` holds logits (default False).
        axis: The class axis (default -1, the last).

    Returns:
        The per-sample losses: a float tensor of the shape of `output` without `axis`.

    Raises:
        ValueError: If `target` and `output` differ in shape.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> target = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> output = np.array([[0.25, 0.75], [0.5, 0.5]])
    >>> print(np.round(ops.convert_to_numpy(ops.categorical_crossentropy(target, output)), 4))
    [0.2877 0.6931]
    """
    output = _float_tensor(output)
    target = cast(convert_to_tensor(target), dtype(output))
    if len(shape(target)) < 1 or shape(target) != shape(output):
        raise ValueError(
            "categorical_crossentropy: `target` and `output` must have the same shape, "
            f"received {shape(target)} and {shape(output)}."
        )
    if from_logits:
        log_probs = _log_softmax(output, axis=axis)
    else:
        output = output / lnp.sum(output, axis=axis, keepdims=True)
        eps = backend.epsilon()
        log_probs = lnp.log(lnp.clip(output, eps, 1.0 - eps))
    return -lnp.sum(target * log_probs, axis=axis)


@composite
def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """Multi-hot encoding: 1 for each class present in a row of integer `inputs`.

    Each row (for 2-D input; the whole vector for 1-D input) becomes one vector of
    `num_classes` values, 1 where its class appears at least once.

    Args:
        inputs: Integer tensor of class indices, rank 1 or 2 (`(batch, labels)`).
        num_classes: The number of classes (the length of the encoding).
        axis: Where the class axis goes (default -1, the last).
        dtype: The result's dtype (default: `keras.config.floatx()`).
        sparse: Accepted for Keras compatibility: lamina has no sparse tensors, so
            `True` raises a `ValueError`.
        **kwargs: Keras's older name `num_tokens=` for `num_classes`; any other keyword
            is a `TypeError`.

    Returns:
        A tensor `(batch, num_classes)` (or `(num_classes,)` for 1-D input).

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.multi_hot(np.array([[0, 2], [1, 1]]), 4)).tolist()
    [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
    """
    if num_classes is None:
        num_classes = kwargs.pop("num_tokens", None)
    if kwargs:
        raise TypeError(f"multi_hot: unexpected keyword arguments {sorted(kwargs)}.")
    if num_classes is None:
        raise ValueError("multi_hot: pass `num_classes` (the number of classes).")
    inputs = cast(convert_to_tensor(inputs), "int32")
    reduce_axis = 1 if len(shape(inputs)) > 1 else 0
    encoded = _one_hot(inputs, num_classes, axis=axis, dtype=dtype, sparse=sparse)
    return lnp.max(encoded, axis=reduce_axis)


@composite
def psnr(x1, x2, max_val):
    """Peak signal-to-noise ratio of two images, in decibels.

    `20 * log10(max_val) - 10 * log10(mean(square(x1 - x2)))`, the mean taken over
    every element (the whole batch gives one number); identical inputs give `inf`.

    Args:
        x1: The first image or batch of images.
        x2: The second, of the shape of `x1`.
        max_val: The largest possible pixel value (e.g. 1.0 or 255).

    Returns:
        A float scalar tensor.

    Raises:
        ValueError: If `x1` and `x2` differ in shape.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.psnr(np.zeros((2, 2)), np.full((2, 2), 0.1), max_val=1.0)
    >>> print(np.round(ops.convert_to_numpy(y), 4))
    20.0
    """
    x1, x2 = _float_tensor(x1), _float_tensor(x2)
    if shape(x1) != shape(x2):
        raise ValueError(
            f"psnr: `x1` and `x2` must have the same shape, received {shape(x1)} and {shape(x2)}."
        )
    mse = lnp.mean(lnp.square(lnp.subtract(x1, x2)))
    return 20.0 * math.log10(max_val) - 10.0 * lnp.log10(mse)


__all__ = [
    "binary_crossentropy",
    "categorical_crossentropy",
    "multi_hot",
    "psnr",
]
