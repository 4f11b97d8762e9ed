"""The classic backend's neural-network functions: activations, normalization,
convolutions and pooling, the target-first losses and CTC (`K.relu`, `K.conv2d`,
`K.categorical_crossentropy`, `K.ctc_batch_cost`, ...).

Public through `lamina.legacy.backend_ops` (and `lamina.backend`).

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(hard_sigmoid(np.array([-5.0, 0.0, 1.0]))).tolist()
[0.0, 0.5, 0.699999988079071]
"""

from __future__ import annotations

import builtins
import itertools
import math

from lamina import backend, ops
from lamina.legacy._backend_util import (
    _composite,
    _data_format,
    _padding,
    _tensor,
    _tuple,
    dtype,
    int_shape,
    ndim,
)
from lamina.ops.ctc import ctc_decode as _ctc_decode_op
from lamina.ops.ctc import ctc_loss as _ctc_loss_op


# Neural-network functions ---------------------------------------------------------------
def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """Rectified linear unit with Keras 2's options.

    `x` above `threshold` passes (capped at `max_value`); below, the output is
    `alpha * (x - threshold)`.

    >>> from lamina import backend as K
    >>> K.eval(K.relu(K.constant([-2.0, 1.0, 8.0]), alpha=0.1, max_value=6.0)).round(3)
    array([-0.2,  1. ,  6. ], dtype=float32)
    """
    if alpha != 0.0 and max_value is None and threshold == 0:
        return ops.leaky_relu(x, negative_slope=alpha)
    x = _tensor(x)
    negative_part = ops.relu(threshold - x) if alpha != 0.0 else None
    if threshold != 0:
        x = x * ops.cast(ops.greater(x, threshold), dtype(x))
    else:
        x = ops.relu(x)
    if max_value is not None:
        x = ops.clip(x, 0.0, max_value)
    if negative_part is not None:
        x = x - alpha * negative_part
    return x


def elu(x, alpha=1.0):
    """Exponential linear unit: `x` if `x > 0` else `alpha * (exp(x) - 1)`.

    >>> from lamina import backend as K
    >>> K.eval(K.elu(K.constant([-1.0, 2.0]))).round(3)
    array([-0.632,  2.   ], dtype=float32)
    """
    return ops.elu(x, alpha=alpha)


def softmax(x, axis=-1):
    """Softmax over `axis` (an int or a tuple). 1-D inputs are refused, as in Keras 2.

    >>> from lamina import backend as K
    >>> K.eval(K.softmax(K.constant([[1.0, 1.0, 2.0]]))).round(3)
    array([[0.212, 0.212, 0.576]], dtype=float32)
    """
    if ndim(x) <= 1:
        raise ValueError(
            f"K.softmax cannot be applied to a 1-D tensor (shape {int_shape(x)}); "
            "add a batch axis with K.expand_dims(x, 0)."
        )
    if isinstance(axis, int):
        return ops.softmax(x, axis=axis)
    x = _tensor(x)
    e = ops.exp(x - ops.max(x, axis=axis, keepdims=True))
    return e / ops.sum(e, axis=axis, keepdims=True)


def softplus(x):
    """`log(1 + exp(x))`.

    >>> from lamina import backend as K
    >>> K.eval(K.softplus(K.constant([0.0, 10.0]))).round(3)
    array([ 0.693, 10.   ], dtype=float32)
    """
    return ops.softplus(x)


def softsign(x):
    """`x / (1 + |x|)`.

    >>> from lamina import backend as K
    >>> K.eval(K.softsign(K.constant([-3.0, 1.0]))).tolist()
    [-0.75, 0.5]
    """
    return ops.softsign(x)


def sigmoid(x):
    """`1 / (1 + exp(-x))`.

    >>> from lamina import backend as K
    >>> K.eval(K.sigmoid(K.constant([0.0]))).tolist()
    [0.5]
    """
    return ops.sigmoid(x)


def hard_sigmoid(x):
    """Keras 2's piecewise-linear sigmoid: `clip(0.2 * x + 0.5, 0, 1)`.

    >>> from lamina import backend as K
    >>> K.eval(K.hard_sigmoid([-5.0, 0.0, 1.0])).round(3)
    array([0. , 0.5, 0.7], dtype=float32)
    """
    return ops.clip(_tensor(x) * 0.2 + 0.5, 0.0, 1.0)


@_composite
def dropout(x, level, noise_shape=None, seed=None):
    """Zero each entry with probability `level`, scaling the rest by `1 / (1 - level)`.

    `seed` is an int, a `lamina.random.SeedGenerator` or `None` (lamina's global seed
    generator; inside a compiled step pass a `SeedGenerator` held by a layer).

    >>> from lamina import backend as K
    >>> y = K.eval(K.dropout(K.ones((1000,)), 0.5, seed=1))
    >>> sorted(set(y.tolist())), bool(400 < (y == 0).sum() < 600)
    ([0.0, 2.0], True)
    """
    return ops.random.dropout(x, level, noise_shape=noise_shape, seed=seed)


def l2_normalize(x, axis=None):
    """`x / sqrt(max(sum(x ** 2, axis), 1e-12))`.

    >>> from lamina import backend as K
    >>> K.eval(K.l2_normalize([[3.0, 4.0]], axis=-1)).round(3)
    array([[0.6, 0.8]], dtype=float32)
    """
    x = _tensor(x)
    squares = ops.sum(ops.square(x), axis=axis, keepdims=True)
    return x * ops.rsqrt(ops.maximum(squares, 1e-12))


def bias_add(x, bias, data_format=None):
    """Add `bias` to `x` along the channel axis (1-D bias) or as a whole (N-D bias).

    Args:
        x: `(batch, ..., channels)` or, channels first, `(batch, channels, ...)`.
        bias: `(channels,)`, or `(*spatial, channels)`; with channels first, such an
            N-D bias is reshaped (not transposed) to `(channels, *spatial)`, as Keras 2
            did.
        data_format: `"channels_last"` or `"channels_first"` (default: the global one).

    >>> from lamina import backend as K
    >>> K.eval(K.bias_add(K.zeros((2, 3)), K.constant([1.0, 2.0, 3.0]))).tolist()
    [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    """
    data_format = _data_format(data_format)
    x, bias = _tensor(x), _tensor(bias)
    bias_shape, x_ndim = int_shape(bias), ndim(x)
    if len(bias_shape) not in (1, x_ndim - 1):
        raise ValueError(
            f"K.bias_add: bias of rank {len(bias_shape)} (shape {bias_shape}) cannot be added "
            f"to x of shape {int_shape(x)}; expected rank 1 or {x_ndim - 1}."
        )
    if data_format == "channels_first":
        if len(bias_shape) == 1:
            shape = (1, bias_shape[0]) + (1,) * (x_ndim - 2)
        else:
            shape = (1, bias_shape[-1]) + bias_shape[:-1]
        return x + ops.reshape(bias, shape)
    return x + ops.reshape(bias, (1,) * (x_ndim - len(bias_shape)) + bias_shape)


def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=1e-3):
    """`(x - mean) / sqrt(var + epsilon) * gamma + beta` (`beta`, `gamma` may be None).

    1-D statistics apply along `axis` (`axis=1` for channels-first features); others
    broadcast against `x` as they are.

    >>> from lamina import backend as K
    >>> x = K.constant([[1.0, 5.0]])
    >>> y = K.batch_normalization(x, [1.0, 3.0], [1.0, 4.0], beta=None, gamma=None, epsilon=0.0)
    >>> K.eval(y).tolist()
    [[0.0, 1.0]]
    """
    x = _tensor(x)
    rank = ndim(x)
    along = axis % rank if rank else 0

    def shaped(v):
        v = _tensor(v)
        if v is not None and ndim(v) == 1 and rank > 1 and along != rank - 1:
            v = ops.reshape(v, tuple(-1 if i == along else 1 for i in range(rank)))
        return v

    mean, var, beta, gamma = (shaped(v) for v in (mean, var, beta, gamma))
    y = (x - mean) * ops.rsqrt(var + epsilon)
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    return y


@_composite
def normalize_batch_in_training(x, gamma, beta, reduction_axes, epsilon=1e-3):
    """Normalize `x` by its own mean and variance over `reduction_axes`.

    Returns:
        `(normalized, mean, variance)`; the statistics have the axes that were not
        reduced. `gamma` and `beta` (or None) hold one value per kept entry.

    >>> from lamina import backend as K
    >>> y, mean, var = K.normalize_batch_in_training(K.constant([[1.0], [3.0]]), None, None, [0])
    >>> K.eval(y).round(3).ravel(), K.eval(mean).tolist(), K.eval(var).tolist()
    (array([-1.,  1.], dtype=float32), [2.0], [1.0])
    """
    x = _tensor(x)
    axes = sorted(a % ndim(x) for a in reduction_axes)
    mean, variance = ops.moments(x, axes, keepdims=True)
    kept = tuple(d for i, d in enumerate(int_shape(x)) if i not in axes)
    broadcast = tuple(1 if i in axes else d for i, d in enumerate(int_shape(x)))

    def shaped(v):
        return None if v is None else ops.reshape(_tensor(v), broadcast)

    normed = batch_normalization(x, mean, variance, shaped(beta), shaped(gamma), epsilon=epsilon)
    return normed, ops.reshape(mean, kept), ops.reshape(variance, kept)


def in_top_k(predictions, targets, k):
    """Whether each `targets[i]` is among the `k` largest `predictions[i]` (note the order).

    >>> from lamina import backend as K
    >>> predictions = K.constant([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2]])
    >>> K.eval(K.in_top_k(predictions, K.constant([2, 1], dtype="int32"), k=2)).tolist()
    [True, True]
    """
    return ops.in_top_k(ops.cast(targets, "int32"), predictions, k)


def conv1d(x, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """1-D convolution; `kernel` is `(width, in_channels, out_channels)`.

    `padding` is `"valid"`, `"same"` or `"causal"` (left padding only).

    >>> from lamina import backend as K
    >>> K.eval(K.conv1d(K.ones((1, 4, 1)), K.ones((3, 1, 1)))).ravel().tolist()
    [3.0, 3.0]
    """
    data_format = _data_format(data_format)
    if padding == "causal":
        dilation = dilation_rate if isinstance(dilation_rate, int) else dilation_rate[0]
        left = dilation * (int_shape(kernel)[0] - 1)
        if data_format == "channels_first":
            x = ops.pad(x, [(0, 0), (0, 0), (left, 0)])
        else:
            x = ops.pad(x, [(0, 0), (left, 0), (0, 0)])
        padding = "valid"
    return ops.conv(x, kernel, strides, _padding(padding), data_format, dilation_rate)


def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    """2-D convolution; `kernel` is `(rows, cols, in_channels, out_channels)`.

    >>> from lamina import backend as K
    >>> K.int_shape(K.conv2d(K.ones((1, 5, 5, 3)), K.ones((3, 3, 3, 8)), padding="same"))
    (1, 5, 5, 8)
    """
    return ops.conv(x, kernel, strides, _padding(padding), _data_format(data_format), dilation_rate)


def conv3d(
    x, kernel, strides=(1, 1, 1), padding="valid", data_format=None, dilation_rate=(1, 1, 1)
):
    """3-D convolution; `kernel` is `(depth, rows, cols, in_channels, out_channels)`.

    >>> from lamina import backend as K
    >>> K.int_shape(K.conv3d(K.ones((1, 4, 4, 4, 1)), K.ones((2, 2, 2, 1, 2))))
    (1, 3, 3, 3, 2)
    """
    return ops.conv(x, kernel, strides, _padding(padding), _data_format(data_format), dilation_rate)


def _conv_transpose(x, kernel, output_shape, strides, padding, data_format, dilation, n, name):
    data_format = _data_format(data_format)
    padding = _padding(padding)
    strides = _tuple(strides, n, "strides")
    dilation = _tuple(dilation, n, "dilation_rate")
    first = 1 if data_format == "channels_last" else 2
    # The full ("valid") transposed convolution, then TF's window of it: cropped by the
    # padding a forward convolution of the output would have used, or zero-extended.
    full = ops.conv_transpose(x, kernel, strides, "valid", 0, data_format, dilation)
    index = [builtins.slice(None)] * ndim(x)
    pads = [(0, 0)] * ndim(x)
    for i in range(n):
        axis = first + i
        length, wanted, size = x.shape[axis], int(output_shape[axis]), full.shape[axis]
        stride = strides[i]
        if padding == "same":
            low, high = (length - 1) * stride + 1, length * stride
        else:
            low, high = size, size + stride - 1
        if not low <= wanted <= high:
            raise ValueError(
                f"K.{name} with padding={padding!r} and strides {strides} cannot give "
                f"output length {wanted} on axis {axis} from input length {length} "
                f"(kernel {int_shape(kernel)}); possible lengths are {low} to {high}."
            )
        before = builtins.max(size - wanted, 0) // 2 if padding == "same" else 0
        index[axis] = builtins.slice(before, builtins.min(before + wanted, size))
        pads[axis] = (0, builtins.max(before + wanted - size, 0))
    out = full[tuple(index)]
    if builtins.any(p != (0, 0) for p in pads):
        out = ops.pad(out, pads)
    return out


@_composite
def conv2d_transpose(
    x,
    kernel,
    output_shape,
    strides=(1, 1),
    padding="valid",
    data_format=None,
    dilation_rate=(1, 1),
):
    """Transposed 2-D convolution to the given `output_shape`, as TensorFlow computes it.

    Args:
        kernel: `(rows, cols, out_channels, in_channels)`, as TF's.
        output_shape: the full output shape, e.g. `(batch, rows, cols, channels)`; its
            batch entry may be `None`. With `"same"` padding each spatial length `n`
            needs `ceil(n / stride)` equal to the input's; with `"valid"`, `n` is
            `(input - 1) * stride + kernel` plus at most `stride - 1`.

    >>> from lamina import backend as K
    >>> x, kernel = K.ones((1, 2, 2, 1)), K.ones((2, 2, 1, 1))
    >>> y = K.conv2d_transpose(x, kernel, (1, 4, 4, 1), strides=(2, 2))
    >>> K.eval(y)[0, :, :, 0].tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    """
    return _conv_transpose(
        x,
        kernel,
        output_shape,
        strides,
        padding,
        data_format,
        dilation_rate,
        2,
        "conv2d_transpose",
    )


@_composite
def conv3d_transpose(x, kernel, output_shape, strides=(1, 1, 1), padding="valid", data_format=None):
    """Transposed 3-D convolution to the given `output_shape` (see `conv2d_transpose`).

    `kernel` is `(depth, rows, cols, out_channels, in_channels)`.

    >>> from lamina import backend as K
    >>> x, kernel = K.ones((1, 2, 2, 2, 1)), K.ones((2, 2, 2, 3, 1))
    >>> K.int_shape(K.conv3d_transpose(x, kernel, (1, 4, 4, 4, 3), strides=(2, 2, 2)))
    (1, 4, 4, 4, 3)
    """
    return _conv_transpose(
        x, kernel, output_shape, strides, padding, data_format, 1, 3, "conv3d_transpose"
    )


def depthwise_conv2d(
    x, depthwise_kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)
):
    """Depthwise 2-D convolution; kernel `(rows, cols, in_channels, multiplier)`.

    >>> from lamina import backend as K
    >>> K.int_shape(K.depthwise_conv2d(K.ones((1, 4, 4, 3)), K.ones((3, 3, 3, 2))))
    (1, 2, 2, 6)
    """
    return ops.depthwise_conv(
        x, depthwise_kernel, strides, _padding(padding), _data_format(data_format), dilation_rate
    )


def separable_conv1d(
    x,
    depthwise_kernel,
    pointwise_kernel,
    strides=1,
    padding="valid",
    data_format=None,
    dilation_rate=1,
):
    """Depthwise then pointwise 1-D convolution.

    >>> from lamina import backend as K
    >>> K.int_shape(K.separable_conv1d(K.ones((1, 5, 3)), K.ones((3, 3, 1)), K.ones((1, 3, 4))))
    (1, 3, 4)
    """
    return ops.separable_conv(
        x,
        depthwise_kernel,
        pointwise_kernel,
        strides,
        _padding(padding),
        _data_format(data_format),
        dilation_rate,
    )


def separable_conv2d(
    x,
    depthwise_kernel,
    pointwise_kernel,
    strides=(1, 1),
    padding="valid",
    data_format=None,
    dilation_rate=(1, 1),
):
    """Depthwise then pointwise 2-D convolution.

    >>> from lamina import backend as K
    >>> depthwise, pointwise = K.ones((3, 3, 3, 1)), K.ones((1, 1, 3, 4))
    >>> K.int_shape(K.separable_conv2d(K.ones((1, 5, 5, 3)), depthwise, pointwise))
    (1, 3, 3, 4)
    """
    return ops.separable_conv(
        x,
        depthwise_kernel,
        pointwise_kernel,
        strides,
        _padding(padding),
        _data_format(data_format),
        dilation_rate,
    )


def _pool(x, pool_size, strides, padding, data_format, pool_mode, n):
    pool_size = _tuple(pool_size, n, "pool_size")
    strides = _tuple(strides, n, "strides")
    padding, data_format = _padding(padding), _data_format(data_format)
    if pool_mode == "max":
        return ops.max_pool(x, pool_size, strides, padding, data_format)
    if pool_mode == "avg":
        return ops.average_pool(x, pool_size, strides, padding, data_format)
    raise ValueError(f"`pool_mode` must be 'max' or 'avg'; received {pool_mode!r}.")


def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    """2-D max or average pooling (`pool_mode` `"max"` or `"avg"`; strides default 1).

    >>> import numpy as np
    >>> from lamina import backend as K
    >>> x = K.constant(np.arange(16.0).reshape(1, 4, 4, 1))
    >>> K.eval(K.pool2d(x, (2, 2), strides=(2, 2)))[0, :, :, 0].tolist()
    [[5.0, 7.0], [13.0, 15.0]]
    """
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 2)


def pool3d(x, pool_size, strides=(1, 1, 1), padding="valid", data_format=None, pool_mode="max"):
    """3-D max or average pooling (`pool_mode` `"max"` or `"avg"`; strides default 1).

    >>> from lamina import backend as K
    >>> y = K.pool3d(K.ones((1, 4, 4, 4, 2)), (2, 2, 2), strides=(2, 2, 2), pool_mode="avg")
    >>> K.int_shape(y)
    (1, 2, 2, 2, 2)
    """
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 3)


def _local_windows(x, kernel_size, strides, out_sizes, data_format):
    """`(batch, positions, window size)`: each output position's input window, flattened
    in the input's own axis order (channels last: `(rows..., channels)`; channels
    first: `(channels, rows...)`), as Keras 2 laid out locally-connected kernels."""
    lead = (builtins.slice(None),) * (2 if data_format == "channels_first" else 1)
    windows = []
    for position in itertools.product(*[range(n) for n in out_sizes]):
        index = tuple(
            builtins.slice(p * s, p * s + k)
            for p, s, k in zip(position, strides, kernel_size, strict=True)
        )
        window = x[lead + index]
        windows.append(ops.reshape(window, (-1, math.prod(window.shape[1:]))))
    return ops.stack(windows, axis=1)


def _local_conv(inputs, kernel, kernel_size, strides, out_sizes, data_format):
    data_format = _data_format(data_format)
    windows = _local_windows(inputs, kernel_size, strides, out_sizes, data_format)
    out = ops.einsum("bpk,pkf->bpf", windows, kernel)
    out = ops.reshape(out, (-1, *out_sizes, int_shape(kernel)[-1]))
    return ops.moveaxis(out, -1, 1) if data_format == "channels_first" else out


@_composite
def local_conv1d(inputs, kernel, kernel_size, strides, data_format=None):
    """Unshared-weight 1-D convolution (the op of `LocallyConnected1D`).

    Args:
        inputs: `(batch, steps, channels)` (or channels first).
        kernel: `(output_length, kernel_size * channels, filters)`: one kernel per output
            step.
        kernel_size, strides: 1-tuples (or ints).

    >>> from lamina import backend as K
    >>> K.int_shape(K.local_conv1d(K.ones((2, 5, 3)), K.ones((2, 2 * 3, 4)), (2,), (2,)))
    (2, 2, 4)
    """
    kernel_size, strides = _tuple(kernel_size, 1, "kernel_size"), _tuple(strides, 1, "strides")
    out_sizes = (int_shape(kernel)[0],)
    return _local_conv(inputs, kernel, kernel_size, strides, out_sizes, data_format)


@_composite
def local_conv2d(inputs, kernel, kernel_size, strides, output_shape, data_format=None):
    """Unshared-weight 2-D convolution (the op of `LocallyConnected2D`).

    Args:
        inputs: `(batch, rows, cols, channels)` (or channels first).
        kernel: `(out_rows * out_cols, kernel_rows * kernel_cols * channels, filters)`.
        kernel_size, strides: 2-tuples.
        output_shape: `(out_rows, out_cols)`.

    >>> from lamina import backend as K
    >>> kernel = K.ones((2 * 2, 2 * 2 * 3, 5))  # (output positions, window * channels, filters)
    >>> K.int_shape(K.local_conv2d(K.ones((2, 4, 4, 3)), kernel, (2, 2), (2, 2), (2, 2)))
    (2, 2, 2, 5)
    """
    kernel_size, strides = _tuple(kernel_size, 2, "kernel_size"), _tuple(strides, 2, "strides")
    out_sizes = tuple(int(n) for n in output_shape)
    return _local_conv(inputs, kernel, kernel_size, strides, out_sizes, data_format)


# Losses (Keras 2's argument order: target first) ----------------------------------------
def _clip_probabilities(output):
    eps = backend.epsilon()
    return ops.clip(output, eps, 1.0 - eps)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Crossentropy of one-hot (or soft) `target` and class probabilities `output`.

    Probabilities are rescaled to sum to 1 over `axis` and clipped to
    `[epsilon, 1 - epsilon]`; with `from_logits=True`, `output` holds logits.

    >>> from lamina import backend as K
    >>> target, output = K.constant([[0.0, 1.0]]), K.constant([[0.2, 0.8]])
    >>> K.eval(K.categorical_crossentropy(target, output)).round(3)
    array([0.223], dtype=float32)
    """
    target, output = _tensor(target), _tensor(output)
    if from_logits:
        return -ops.sum(target * ops.log_softmax(output, axis=axis), axis=axis)
    output = output / ops.sum(output, axis=axis, keepdims=True)
    return -ops.sum(target * ops.log(_clip_probabilities(output)), axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1, ignore_class=None):
    """Crossentropy of integer class `target` and class probabilities (or logits) `output`.

    Probabilities are clipped to `[epsilon, 1 - epsilon]`. With `ignore_class`, entries
    whose target is that class contribute 0.

    >>> from lamina import backend as K
    >>> target, output = K.constant([1]), K.constant([[0.2, 0.8]])
    >>> K.eval(K.sparse_categorical_crossentropy(target, output)).round(3)
    array([0.223], dtype=float32)
    """
    if not from_logits:
        output = ops.log(_clip_probabilities(output))
    if axis != -1 and axis != ndim(output) - 1:
        output = ops.moveaxis(output, axis, -1)
    target = ops.cast(target, "int32")
    if ndim(target) == ndim(output):  # a trailing size-1 class axis
        target = ops.squeeze(target, -1)
    valid = None
    if ignore_class is not None:
        valid = ops.not_equal(target, ignore_class)
        target = ops.where(valid, target, ops.zeros_like(target))
    losses = -ops.sum(
        ops.one_hot(target, int_shape(output)[-1], dtype=dtype(output))
        * ops.log_softmax(output, axis=-1),
        axis=-1,
    )
    if valid is not None:
        losses = ops.where(valid, losses, ops.zeros_like(losses))
    return losses


def binary_crossentropy(target, output, from_logits=False):
    """Element-wise binary crossentropy; probabilities are clipped to `[eps, 1 - eps]`.

    >>> from lamina import backend as K
    >>> K.eval(K.binary_crossentropy(K.constant([1.0, 0.0]), K.constant([0.9, 0.2]))).round(3)
    array([0.105, 0.223], dtype=float32)
    """
    target, output = _tensor(target), _tensor(output)
    if from_logits:
        # max(z, 0) - z * t + log(1 + exp(-|z|)): stable for large |z|.
        return ops.relu(output) - output * target + ops.log1p(ops.exp(-ops.absolute(output)))
    eps = backend.epsilon()
    output = _clip_probabilities(output)
    return -(target * ops.log(output + eps) + (1.0 - target) * ops.log(1.0 - output + eps))


def binary_focal_crossentropy(
    target, output, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False
):
    """Binary crossentropy scaled by `(1 - p_t) ** gamma` (optionally class-balanced).

    >>> from lamina import backend as K
    >>> K.eval(K.binary_focal_crossentropy(K.constant([1.0, 0.0]), K.constant([0.9, 0.2]))).round(3)
    array([0.001, 0.009], dtype=float32)
    """
    target, output = _tensor(target), _tensor(output)
    probs = ops.sigmoid(output) if from_logits else output
    p_t = target * probs + (1.0 - target) * (1.0 - probs)
    loss = ops.power(1.0 - p_t, gamma) * binary_crossentropy(target, output, from_logits)
    if apply_class_balancing:
        loss = (target * alpha + (1.0 - target) * (1.0 - alpha)) * loss
    return loss


def categorical_focal_crossentropy(
    target, output, alpha=0.25, gamma=2.0, from_logits=False, axis=-1
):
    """Categorical crossentropy weighted by `alpha * (1 - p) ** gamma` per class.

    >>> from lamina import backend as K
    >>> target, output = K.constant([[0.0, 1.0]]), K.constant([[0.2, 0.8]])
    >>> K.eval(K.categorical_focal_crossentropy(target, output)).round(3)
    array([0.002], dtype=float32)
    """
    target, output = _tensor(target), _tensor(output)
    if from_logits:
        output = ops.softmax(output, axis=axis)
    output = _clip_probabilities(output / ops.sum(output, axis=axis, keepdims=True))
    weight = alpha * ops.power(1.0 - output, gamma)
    return ops.sum(-weight * target * ops.log(output), axis=axis)


def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """CTC loss of each sample, `(batch, 1)`, from softmax outputs (blank = last class).

    Args:
        y_true: `(batch, max_label_length)` integer labels.
        y_pred: `(batch, time, num_classes)` probabilities (a softmax output).
        input_length: `(batch, 1)` valid time steps of each sample of `y_pred`.
        label_length: `(batch, 1)` valid labels of each sample of `y_true`.

    >>> import numpy as np
    >>> from lamina import backend as K
    >>> y_pred = K.constant(np.full((1, 4, 3), 1 / 3))
    >>> labels = K.constant([[0, 1]], dtype="int32")
    >>> loss = K.ctc_batch_cost(labels, y_pred, K.constant([[4]]), K.constant([[2]]))
    >>> K.int_shape(loss), K.eval(loss).round(3)
    ((1, 1), array([[1.686]], dtype=float32))
    """
    num_classes = int_shape(y_pred)[-1]
    loss = _ctc_loss_op(
        y_true,
        ops.log(y_pred + backend.epsilon()),
        ops.squeeze(ops.cast(label_length, "int32"), -1),
        ops.squeeze(ops.cast(input_length, "int32"), -1),
        mask_index=num_classes - 1,
    )
    return ops.expand_dims(loss, 1)


def ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """Decode softmax outputs `(batch, time, classes)`; blank is the last class.

    Beam search keeps Keras 2's (TensorFlow 1's) `merge_repeated` behaviour: equal
    labels next to each other in a decoded path are merged even when a blank separated
    them in the alignment (`[1, 1]` decodes as `[1]`); greedy decoding keeps them.

    Returns:
        `(decoded, log_prob)`: a list of `top_paths` int tensors `(batch, time)` padded
        with -1 (the best first), and `(batch, top_paths)` scores (greedy: the negative
        sum of the best log probability of each step; beam search: log probabilities).

    >>> import numpy as np
    >>> from lamina import backend as K
    >>> probs = np.array([[[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]])
    >>> decoded, log_prob = K.ctc_decode(probs, input_length=np.array([3]))
    >>> K.eval(decoded[0]).tolist()
    [[0, 1, -1]]
    """
    num_classes = int_shape(y_pred)[-1]
    decoded, log_prob = _ctc_decode_op(
        ops.log(_tensor(y_pred) + backend.epsilon()),
        ops.cast(ops.reshape(input_length, (-1,)), "int32"),
        strategy="greedy" if greedy else "beam_search",
        beam_width=beam_width,
        top_paths=1 if greedy else top_paths,
        mask_index=num_classes - 1,
    )
    paths = [decoded[i] for i in range(int_shape(decoded)[0])]
    if not greedy:
        paths = [_merge_repeated_labels(p) for p in paths]
    return paths, log_prob


def _merge_repeated_labels(paths):
    """`(batch, time)` labels padded with -1, equal neighbours merged, kept at the front."""
    steps = int_shape(paths)[1]
    previous = ops.pad(paths[:, :-1], [(0, 0), (1, 0)], constant_values=-1)
    keep = ops.logical_and(ops.not_equal(paths, previous), ops.not_equal(paths, -1))
    labels = ops.where(keep, paths, -1)
    position = ops.expand_dims(ops.arange(steps, dtype="int32"), 0)
    order = ops.argsort(ops.where(keep, position, position + steps), axis=-1)
    return ops.take_along_axis(labels, order, axis=-1)


def ctc_label_dense_to_sparse(labels, label_lengths):
    """Not available: lamina has no sparse tensors.

    Raises:
        NotImplementedError: always; pass dense labels and lengths to `K.ctc_batch_cost`
            or `lamina.ops.ctc_loss` instead.

    >>> from lamina import backend as K
    >>> K.ctc_label_dense_to_sparse([[1, 2]], [2])
    Traceback (most recent call last):
        ...
    NotImplementedError: K.ctc_label_dense_to_sparse makes a TensorFlow ...
    """
    raise NotImplementedError(
        "K.ctc_label_dense_to_sparse makes a TensorFlow SparseTensor; lamina's engines have "
        "no sparse tensors. K.ctc_batch_cost and lamina.ops.ctc_loss take the dense labels "
        "and their lengths directly."
    )


__all__ = [
    name
    for name, value in sorted(globals().items())
    if not name.startswith("_")
    and callable(value)
    and getattr(value, "__module__", None) == __name__
]
