"""Quantizers: turn float tensors into low-precision integers plus a scale (Keras 3's).

Abs-max quantization maps a tensor `x` to integers in `value_range` with one scale per
slice along `axis`: `scale = value_range[1] / (max(|x|) + epsilon)` and
`q = clip(round(x * scale), *value_range)`; `q / scale` recovers `x` to within half a
step. Layers quantized to int8 keep `q` as their kernel and `scale` beside it.
"""

from __future__ import annotations

import numpy as np

from lamina import backend, ops

_INT8_RANGE = (-128, 127)
# Keras's default epsilon, fixed when the module is imported (as Keras's defaults are).
_EPSILON = backend.epsilon()
# The largest finite value of each float8 type (ml_dtypes' finfo), for clipping.
_FLOAT8_MAX = {"float8_e4m3fn": 448.0, "float8_e5m2": 57344.0}


class Quantizer:
    """The base class of quantizers: `quantizer(x)` returns a quantized form of `x`.

    Args:
        output_dtype: the dtype of the quantized values (default `"int8"`).

    >>> import numpy as np
    >>> from lamina import quantizers
    >>> class Halve(quantizers.Quantizer):
    ...     def __call__(self, x):
    ...         return x / 2
    ...     def get_config(self):
    ...         return {"output_dtype": self.output_dtype}
    >>> np.asarray(Halve()(np.array([4.0]))).tolist()
    [2.0]
    >>> Halve.from_config({"output_dtype": "int8"}).output_dtype
    'int8'
    """

    def __init__(self, output_dtype="int8"):
        self.output_dtype = output_dtype

    def __call__(self, x):
        """The quantized form of `x` (the base quantizer returns `x` unchanged)."""
        return x

    @classmethod
    def from_config(cls, config):
        """A quantizer from its `get_config()` output."""
        return cls(**config)

    def get_config(self):
        """The arguments that recreate this quantizer."""
        raise NotImplementedError(f"{self} does not implement get_config()")


def _numpy_axis(axis):
    return tuple(axis) if isinstance(axis, (list, tuple)) else axis


def abs_max_quantize(
    inputs,
    axis,
    value_range=(-127, 127),
    dtype="int8",
    epsilon=_EPSILON,
    to_numpy=False,
):
    """Quantize `inputs` with one abs-max scale per slice along `axis`.

    Args:
        inputs: the float tensor to quantize.
        axis: the axis (or axes) the maximum is taken over; the scale keeps them as 1s.
        value_range: `(low, high)` of the quantized values.
        dtype: the dtype of the quantized values.
        epsilon: added to the maximum, so an all-zero slice does not divide by zero.
        to_numpy: compute on the host with NumPy (saves device memory for big kernels).

    Returns:
        `(quantized, scale)`: `quantized / scale` approximates `inputs`.

    >>> import numpy as np
    >>> q, scale = abs_max_quantize(np.array([[1.0, -0.5], [0.25, 2.0]], "float32"), axis=0)
    >>> np.asarray(q).tolist(), np.asarray(scale).shape
    ([[127, -32], [32, 127]], (1, 2))
    """
    if to_numpy:
        original_dtype = backend.standardize_dtype(inputs.dtype)
        values = ops.convert_to_numpy(inputs)
        scale = np.divide(
            value_range[1],
            np.add(np.max(np.abs(values), axis=_numpy_axis(axis), keepdims=True), epsilon),
        )
        outputs = np.clip(np.round(np.multiply(values, scale)), value_range[0], value_range[1])
        return (
            ops.convert_to_tensor(outputs.astype(dtype)),
            ops.convert_to_tensor(scale, dtype=original_dtype),
        )
    inputs = ops.convert_to_tensor(inputs)
    amax = ops.max(ops.abs(inputs), axis=axis, keepdims=True)
    scale = ops.divide(value_range[1], ops.add(amax, epsilon))
    scale = ops.cast(scale, backend.standardize_dtype(inputs.dtype))
    outputs = ops.clip(ops.round(ops.multiply(inputs, scale)), value_range[0], value_range[1])
    return ops.cast(outputs, dtype), scale


class AbsMaxQuantizer(Quantizer):
    """Abs-max quantization (see `abs_max_quantize`) with fixed options.

    Args:
        axis: deprecated default axis; pass `axis` to the call instead (default -1).
        value_range: `(low, high)` of the quantized values; within [-128, 127] for int8.
        epsilon: added to the maximum before dividing.
        output_dtype: the dtype of the quantized values.

    >>> import numpy as np
    >>> q, scale = AbsMaxQuantizer()(np.array([[0.5, -1.0]], "float32"))
    >>> np.asarray(q).tolist()
    [[63, -127]]
    """

    def __init__(
        self,
        axis=None,
        value_range=(-127, 127),
        epsilon=_EPSILON,
        output_dtype="int8",
    ):
        Quantizer.__init__(self, output_dtype=output_dtype)
        if axis is not None:
            axis = (axis,) if isinstance(axis, int) else tuple(axis)
        self.axis = axis
        self.value_range = tuple(value_range)
        self.epsilon = epsilon
        if output_dtype == "int8" and (
            value_range[0] < _INT8_RANGE[0] or value_range[1] > _INT8_RANGE[1]
        ):
            raise ValueError(
                "Quantizer with output_dtype='int8' requires value_range to be within the "
                f"interval [-128, 127]. Received: value_range={value_range}"
            )

    def __call__(self, x, axis=None, to_numpy=False):
        """`(quantized, scale)` of `x` over `axis` (default: the constructor's, else -1)."""
        if axis is None:
            axis = self.axis if self.axis is not None else -1
        return abs_max_quantize(
            x, axis, self.value_range, self.output_dtype, self.epsilon, to_numpy
        )

    def get_config(self):
        config = {
            "value_range": list(self.value_range),
            "epsilon": self.epsilon,
            "output_dtype": self.output_dtype,
        }
        if self.axis is not None:
            config["axis"] = list(self.axis)
        return config


def _adjust_and_nudge(min_range, max_range, num_bits, narrow_range):
    """TF's nudged range: the zero point moved to an integer, so 0.0 is exact."""
    compute_dtype = backend.result_type(min_range.dtype, "float32")
    min_range = ops.cast(min_range, compute_dtype)
    max_range = ops.cast(max_range, compute_dtype)
    quant_max = (1 << num_bits) - 1
    quant_min = 1 if narrow_range else 0
    span = ops.subtract(max_range, min_range)
    scale = ops.divide(span, quant_max - quant_min)
    inv_scale = ops.divide(quant_max - quant_min, span)
    zero_point = ops.clip(
        ops.subtract(quant_min, ops.divide(min_range, scale)), quant_min, quant_max
    )
    zero_point = ops.round(zero_point)
    nudged_min = ops.multiply(ops.subtract(quant_min, zero_point), scale)
    nudged_max = ops.multiply(ops.subtract(quant_max, zero_point), scale)
    return nudged_min, nudged_max, scale, inv_scale


def fake_quant_with_min_max_vars(
    inputs,
    min_vals,
    max_vals,
    num_bits=8,
    narrow_range=False,
    axis=None,
):
    """Quantize `inputs` into `[min_vals, max_vals]` with `num_bits` and back (TF's op).

    The range is nudged so that 0.0 is exactly representable. Gradients: `inputs`
    gets the upstream gradient where it lies inside the range, `min_vals` and
    `max_vals` get the sum of it where the input is clipped to them.

    Args:
        inputs: a float tensor.
        min_vals, max_vals: the range: scalars, or one value per channel along `axis`.
        num_bits: the bit width (8: 256 levels).
        narrow_range: use levels `[1, 2**num_bits - 1]` instead of `[0, ...]`.
        axis: the channel axis for per-channel ranges (None: one range).

    >>> import numpy as np
    >>> out = fake_quant_with_min_max_vars(np.array([-0.1, 0.3, 2.0], "float32"), -1.0, 1.0)
    >>> np.round(np.asarray(out, dtype='float64'), 4).tolist()
    [-0.102, 0.298, 1.0039]
    """
    inputs = ops.convert_to_tensor(inputs)
    min_vals = ops.convert_to_tensor(min_vals)
    max_vals = ops.convert_to_tensor(max_vals)
    num_bits = int(num_bits)
    ndim = len(inputs.shape)
    if axis is not None and axis < 0:
        axis += ndim

    @ops.custom_gradient
    def fake_quant(x, min_val, max_val):
        dtype = backend.standardize_dtype(x.dtype)
        nudged_min, nudged_max, scale, inv_scale = _adjust_and_nudge(
            min_val, max_val, num_bits, narrow_range
        )
        quant_zero = ops.floor(ops.add(ops.multiply(ops.negative(nudged_min), inv_scale), 0.5))
        clamped = ops.clip(ops.cast(x, nudged_min.dtype), nudged_min, nudged_max)
        shifted = ops.subtract(clamped, nudged_min)
        levels = ops.floor(ops.add(ops.subtract(ops.multiply(shifted, inv_scale), quant_zero), 0.5))
        result = ops.cast(ops.multiply(levels, scale), dtype)
        inside = ops.logical_and(ops.greater_equal(x, nudged_min), ops.less_equal(x, nudged_max))
        reduce_axes = [i for i in range(ndim) if i != axis]

        def grad(upstream):
            zero = ops.zeros_like(upstream)
            grad_x = ops.where(inside, upstream, zero)
            grad_min = ops.where(ops.less_equal(x, nudged_min), upstream, zero)
            grad_max = ops.where(ops.greater_equal(x, nudged_max), upstream, zero)
            if axis is None:
                grad_min, grad_max = ops.sum(grad_min), ops.sum(grad_max)
            else:
                grad_min = ops.sum(grad_min, axis=reduce_axes)
                grad_max = ops.sum(grad_max, axis=reduce_axes)
            return (
                grad_x,
                ops.reshape(grad_min, ops.shape(min_val)),
                ops.reshape(grad_max, ops.shape(max_val)),
            )

        return result, grad

    return fake_quant(inputs, min_vals, max_vals)


def compute_float8_scale(amax, scale, dtype_max, margin=0):
    """The next float8 scaling factor from the recent abs-max (Transformer Engine's rule).

    `scale` is kept where `amax` is zero or not finite; otherwise the new scale maps
    `amax` to `dtype_max / 2**margin`.

    >>> import numpy as np
    >>> from lamina import quantizers
    >>> scale = quantizers.compute_float8_scale(np.float32(2.0), np.float32(1.0), dtype_max=448.0)
    >>> round(float(scale), 6)  # 2.0 / scale is 448, the float8 maximum
    0.004464
    """
    previous = ops.reciprocal(scale)
    factor = ops.divide(ops.divide(dtype_max, amax), 2**margin)
    factor = ops.where(ops.greater(amax, 0.0), factor, previous)
    factor = ops.where(ops.isfinite(amax), factor, previous)
    return ops.reciprocal(factor)


def compute_float8_amax_history(x, amax_history):
    """`amax_history` rolled one step left, with `max(|x|)` written at position 0.

    >>> import numpy as np
    >>> from lamina import quantizers
    >>> history = np.array([5.0, 6.0, 7.0], "float32")
    >>> np.asarray(quantizers.compute_float8_amax_history(np.array([-3.0, 1.0]), history)).tolist()
    [3.0, 7.0, 5.0]
    """
    amax = ops.cast(ops.max(ops.abs(x)), amax_history.dtype)
    rolled = ops.roll(amax_history, shift=-1)
    return ops.scatter_update(rolled, [[0]], ops.reshape(amax, [1]))


def quantize_and_dequantize(inputs, scale, quantized_dtype, compute_dtype):
    """`inputs / scale` clipped and cast to `quantized_dtype` (float8), then back times
    `scale` in `compute_dtype`: the rounding error a float8 round trip adds.

    >>> import numpy as np
    >>> from lamina import quantizers
    >>> x = np.array([0.1, 1.0, 1000.0], "float32")
    >>> out = quantizers.quantize_and_dequantize(x, np.float32(1.0), "float8_e4m3fn", "float32")
    >>> np.asarray(out).tolist()  # float8 rounding; 1000 clipped to 448
    [0.1015625, 1.0, 448.0]
    """
    if quantized_dtype not in _FLOAT8_MAX:
        raise ValueError(
            f"quantize_and_dequantize expects quantized_dtype in {sorted(_FLOAT8_MAX)}; "
            f"received {quantized_dtype!r}."
        )
    limit = ops.cast(_FLOAT8_MAX[quantized_dtype], compute_dtype)
    x = ops.divide(inputs, ops.cast(scale, compute_dtype))
    x = ops.cast(ops.clip(x, ops.negative(limit), limit), quantized_dtype)
    return ops.multiply(ops.cast(x, compute_dtype), ops.cast(scale, compute_dtype))


def _check_int4_dtype(dtype):
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Expected dtype to be 'int8' or 'uint8', but got '{dtype}'.")


def pack_int4(arr, axis=0, dtype="int8"):
    """Pack int4 values (held in an int8 tensor, in [-8, 7]) two per byte along `axis`.

    Of two consecutive entries along `axis`, the first goes in the low nibble and the
    second in the high one; an odd length is padded with a zero.

    Returns:
        `(packed, packed_shape, orig_len)`; `unpack_int4(packed, orig_len, axis)` undoes it.

    >>> import numpy as np
    >>> packed, shape, n = pack_int4(np.array([[-3, 7], [2, -8], [1, 0]], "int8"))
    >>> np.asarray(packed).tolist(), shape, n
    ([[45, -121], [1, 0]], (2, 2), 3)
    """
    _check_int4_dtype(dtype)
    given = backend.standardize_dtype(arr.dtype)
    if given != dtype:
        raise TypeError(f"Expected {dtype} tensor for packing, got {given}.")
    values = np.moveaxis(ops.convert_to_numpy(arr), axis, 0)
    length = values.shape[0]
    if length % 2:
        values = np.concatenate([values, np.zeros((1,) + values.shape[1:], values.dtype)])
    np_dtype = np.dtype(dtype)
    mask = np.array(0x0F, np_dtype)
    low = np.bitwise_and(values[::2].astype(np_dtype), mask)
    high = np.bitwise_and(values[1::2].astype(np_dtype), mask)
    packed = np.bitwise_or(low, np.left_shift(high, np.array(4, np_dtype))).astype(np_dtype)
    packed = np.moveaxis(packed, 0, axis)
    return ops.convert_to_tensor(packed), tuple(packed.shape), length


def unpack_int4(packed, orig_len, axis=0, dtype="int8"):
    """Undo `pack_int4`: the int4 values along `axis`, in [-8, 7] (or [0, 15] for uint8).

    >>> import numpy as np
    >>> packed, _, n = pack_int4(np.array([[-3, 7], [2, -8], [1, 0]], "int8"))
    >>> np.asarray(unpack_int4(packed, n)).tolist()
    [[-3, 7], [2, -8], [1, 0]]
    """
    _check_int4_dtype(dtype)
    given = backend.standardize_dtype(packed.dtype)
    if given not in ("int8", "uint8"):
        raise TypeError(f"Expected int8 or uint8 tensor for unpacking, got {given}")
    packed = ops.convert_to_tensor(packed)
    rank = len(packed.shape)
    if axis < 0:
        axis += rank
    perm = [axis] + [i for i in range(rank) if i != axis]
    moved = ops.transpose(packed, perm)
    mask = ops.cast(0x0F, given)
    low = ops.bitwise_and(moved, mask)
    high = ops.bitwise_and(ops.right_shift(moved, 4), mask)
    if dtype == "int8":
        # A nibble n in [0, 15] is the int4 value (n ^ 8) - 8.
        eight = ops.cast(8, given)
        low = ops.subtract(ops.bitwise_xor(low, eight), eight)
        high = ops.subtract(ops.bitwise_xor(high, eight), eight)
    interleaved = ops.stack([ops.cast(low, dtype), ops.cast(high, dtype)], axis=1)
    unpacked = ops.reshape(interleaved, (-1,) + tuple(moved.shape[1:]))[:orig_len]
    inverse = [perm.index(i) for i in range(rank)]
    return ops.transpose(unpacked, inverse)
