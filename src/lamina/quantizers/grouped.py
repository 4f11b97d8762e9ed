"""Grouped (sub-channel) quantization with a zero point: int4 kernels in blocks.

A 2-D kernel `(input_dim, output_dim)` is cut along its input axis into groups of
`block_size` rows; each group of each column gets a scale and an integer zero point
mapping its `[min, max]` onto the integer range (asymmetric quantization):

    scale = (max - min + epsilon) / (qmax - qmin)
    zero = clip(round(-min / scale) + qmin, qmin, qmax)
    q = clip(round(x / scale) + zero, qmin, qmax)        x ~ (q - zero) * scale
"""

from __future__ import annotations

import math

import numpy as np

from lamina import backend, ops

_EPSILON = backend.epsilon()


def _check_2d(inputs, block_size):
    if len(inputs.shape) != 2:
        raise ValueError(
            "abs_max_quantize_grouped_with_zero_point expects a 2-D tensor "
            f"(input_dim, output_dim); received shape {tuple(inputs.shape)}."
        )
    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size <= 0:
        raise ValueError(
            f"block_size must be a positive integer (rows per group); received {block_size!r}."
        )


def abs_max_quantize_grouped_with_zero_point(
    inputs,
    block_size,
    value_range=(-8, 7),
    dtype="int8",
    epsilon=_EPSILON,
    to_numpy=False,
):
    """Quantize a 2-D tensor per group of `block_size` rows with a scale and zero point.

    Args:
        inputs: the tensor, of shape `(input_dim, output_dim)`; groups run along axis 0.
        block_size: rows per group; the last group is zero-padded when it is short.
        value_range: `(qmin, qmax)` of the quantized values.
        dtype: the dtype of the quantized values.
        epsilon: added to each group's range, so a constant group does not divide by 0.
        to_numpy: compute on the host with NumPy (saves device memory).

    Returns:
        `(quantized, scale, zero_point)`: `quantized` has the shape of `inputs`; `scale`
        (in the dtype of `inputs`) and `zero_point` (int8) have shape
        `(ceil(input_dim / block_size), output_dim)`.

    >>> import numpy as np
    >>> q, scale, zero = abs_max_quantize_grouped_with_zero_point(
    ...     np.array([[0.0, -1.0], [1.5, 1.0], [3.0, 0.5]], "float32"), block_size=2)
    >>> np.asarray(q).tolist(), np.asarray(zero).tolist()
    ([[-8, -8], [7, 6], [7, 7]], [[-8, -1], [-8, -8]])
    """
    _check_2d(inputs, block_size)
    qmin, qmax = value_range
    input_dim, output_dim = (int(d) for d in inputs.shape)
    n_groups = math.ceil(input_dim / block_size)
    padded = n_groups * block_size
    if to_numpy:
        original_dtype = backend.standardize_dtype(inputs.dtype)
        values = ops.convert_to_numpy(inputs)
        if padded > input_dim:
            pad = np.zeros((padded - input_dim, output_dim), values.dtype)
            values = np.concatenate([values, pad], axis=0)
        groups = values.reshape(n_groups, block_size, output_dim)
        low = groups.min(axis=1, keepdims=True)
        high = groups.max(axis=1, keepdims=True)
        scale = (high - low + epsilon) / (qmax - qmin)
        zero = np.clip(np.round(-low / scale) + qmin, qmin, qmax)
        q = np.clip(np.round(groups / scale) + zero, qmin, qmax).astype(dtype)
        return (
            ops.convert_to_tensor(q.reshape(padded, output_dim)[:input_dim]),
            ops.convert_to_tensor(scale[:, 0], dtype=original_dtype),
            ops.convert_to_tensor(zero[:, 0].astype("int8")),
        )
    values = ops.convert_to_tensor(inputs)
    if padded > input_dim:
        values = ops.concatenate(
            [values, ops.zeros((padded - input_dim, output_dim), values.dtype)], axis=0
        )
    groups = ops.reshape(values, (n_groups, block_size, output_dim))
    low = ops.min(groups, axis=1)
    high = ops.max(groups, axis=1)
    # A constant group gets the range [v - 1, v + 1] (Keras's tensor path does this).
    flat = ops.equal(low, high)
    low = ops.where(flat, ops.subtract(low, 1), low)
    high = ops.where(flat, ops.add(high, 1), high)
    scale = ops.divide(ops.add(ops.subtract(high, low), epsilon), qmax - qmin)
    zero = ops.clip(ops.add(ops.round(ops.divide(ops.negative(low), scale)), qmin), qmin, qmax)
    q = ops.add(ops.round(ops.divide(groups, scale[:, None])), zero[:, None])
    q = ops.cast(ops.clip(q, qmin, qmax), dtype)
    q = ops.reshape(q, (padded, output_dim))[:input_dim]
    return q, scale, ops.cast(zero, "int8")


def dequantize_grouped(quantized, scale, zero, g_idx, group_axis=-1):
    """`(quantized - zero) * scale` with each position along the grouped axis reading
    its group's `scale` and `zero` (`g_idx[i]` is the group of position `i`); `scale`
    and `zero` hold the groups on `group_axis`."""
    groups = ops.cast(g_idx, "int32")
    scales = ops.take(scale, groups, axis=group_axis)
    zeros = ops.cast(ops.take(zero, groups, axis=group_axis), scales.dtype)
    return ops.multiply(ops.subtract(ops.cast(quantized, scales.dtype), zeros), scales)
