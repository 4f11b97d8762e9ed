"""Neural-network functions on JAX arrays: activations, softmax, one-hot."""

from __future__ import annotations

import functools
import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np

from lamina.backend import config
from lamina.backend.common.shapes import conv_transpose_output_length
from lamina.backend.common.variables import standardize_dtype
from lamina.backend.jax import conv_in_loops, numpy_products
from lamina.backend.jax.core import convert_to_tensor


def relu(x):
    x = convert_to_tensor(x)
    return jax.nn.relu(x)


def relu6(x):
    x = convert_to_tensor(x)
    return jax.nn.relu6(x)


def sigmoid(x):
    x = convert_to_tensor(x)
    return jax.nn.sigmoid(x)


def hard_sigmoid(x):
    x = convert_to_tensor(x)
    # Keras's piecewise-linear form: clip(x / 6 + 0.5, 0, 1).
    return jnp.clip(x / 6.0 + 0.5, 0.0, 1.0)


def hard_silu(x):
    x = convert_to_tensor(x)
    return x * hard_sigmoid(x)


def softplus(x):
    x = convert_to_tensor(x)
    return jax.nn.softplus(x)


def softsign(x):
    x = convert_to_tensor(x)
    return jax.nn.soft_sign(x)


def silu(x):
    x = convert_to_tensor(x)
    return jax.nn.silu(x)


def log_sigmoid(x):
    x = convert_to_tensor(x)
    return jax.nn.log_sigmoid(x)


def leaky_relu(x, negative_slope=0.2):
    x = convert_to_tensor(x)
    return jax.nn.leaky_relu(x, negative_slope=negative_slope)


def elu(x, alpha=1.0):
    x = convert_to_tensor(x)
    return jax.nn.elu(x, alpha=alpha)


def selu(x):
    x = convert_to_tensor(x)
    return jax.nn.selu(x)


def gelu(x, approximate=True):
    x = convert_to_tensor(x)
    return jax.nn.gelu(x, approximate=approximate)


def mish(x):
    x = convert_to_tensor(x)
    return x * jnp.tanh(jax.nn.softplus(x))


def softmax(x, axis=-1):
    x = convert_to_tensor(x)
    return jax.nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    x = convert_to_tensor(x)
    return jax.nn.log_softmax(x, axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    output = jnp.asarray(output)
    target = jnp.asarray(target).astype("int32")
    if from_logits:
        log_probs = jax.nn.log_softmax(output, axis=axis)
    else:
        eps = config.epsilon()
        output = output / jnp.sum(output, axis=axis, keepdims=True)
        log_probs = jnp.log(jnp.clip(output, eps, 1.0 - eps))
    valid = (target >= 0) & (target < output.shape[axis])
    index = jnp.expand_dims(jnp.where(valid, target, 0), axis)
    picked = jnp.squeeze(jnp.take_along_axis(log_probs, index, axis=axis), axis)
    return jnp.where(valid, -picked, jnp.zeros_like(picked))


def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    if sparse:
        raise ValueError("one_hot(sparse=True): the JAX backend has no sparse tensors.")
    dtype = standardize_dtype(dtype) if dtype is not None else config.floatx()
    return jax.nn.one_hot(x, num_classes, axis=axis, dtype=dtype)


def fused_conv(inputs, kernel, bias, strides=1, padding="valid", data_format=None, dilation_rate=1):
    # No kernel of its own: XLA fuses the bias into the convolution's output itself.
    return None


def fused_batch_norm(x, axis, scale, offset, epsilon, mean=None, variance=None):
    # No kernel of its own: XLA fuses the composite the layer computes from `moments`.
    return None


def moments(x, axes, keepdims=False, synchronized=False):
    # `synchronized` (Keras: average across replicas) changes nothing on one device, and
    # under a distribution the compiled program computes the global mean already.
    mean = jnp.mean(x, axis=axes, keepdims=True)
    variance = jnp.mean(jnp.square(x - jax.lax.stop_gradient(mean)), axis=axes, keepdims=True)
    if not keepdims:
        mean = jnp.squeeze(mean, axes)
        variance = jnp.squeeze(variance, axes)
    return mean, variance


# Convolution and pooling -------------------------------------------------------------
# Kernels use the Keras layout: `(*spatial, in_channels / groups, out_channels)`, and
# `(*spatial, out_channels, in_channels)` for transposed convolutions.


def _data_format(data_format):
    return config.standardize_data_format(data_format)


def _tuple(value, n, name):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"`{name}` must have {n} value(s); received {value}.")
    return value


def _dimension_numbers(n, data_format):
    spatial = "DHW"[3 - n :] if n <= 3 else "".join(chr(ord("a") + i) for i in range(n))
    lhs = "NC" + spatial if data_format == "channels_first" else "N" + spatial + "C"
    return jax.lax.conv_dimension_numbers(
        (1,) * (n + 2), (1,) * (n + 2), (lhs, spatial + "IO", lhs)
    )


def _operands(inputs, kernel=None):
    # NumPy and Python operands become JAX arrays as every op converts them (float64
    # to floatx, int64 to int32) before their dtype sizes the kernel, the init value of
    # a reduction or a constant: `jnp.array(.., float64)` would warn that it truncates,
    # and a NumPy int64 init value would wrap when JAX narrows it to int32.
    inputs = convert_to_tensor(inputs)
    if kernel is None:
        return inputs
    return inputs, convert_to_tensor(kernel)


def _conv_padding(padding, kernel_spatial, dilation):
    padding = str(padding).lower()
    if padding == "valid":
        return "VALID"
    if padding == "same":
        return "SAME"
    if padding == "causal":
        if len(kernel_spatial) != 1:
            raise ValueError("`padding='causal'` is only supported for 1-D convolutions.")
        return [(dilation[0] * (kernel_spatial[0] - 1), 0)]
    raise ValueError(f"`padding` must be 'valid', 'same' or 'causal'; received {padding!r}.")


# Grouped convolutions of up to this many groups run group by group on the CPU (`conv`);
# more groups (a depthwise convolution written as a grouped one) keep XLA's.
_MOST_GROUPS_SPLIT = 64


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """N-D convolution (cross-correlation) with a `(*spatial, in/groups, out)` kernel."""
    inputs, kernel = _operands(inputs, kernel)
    data_format = _data_format(data_format)
    n = inputs.ndim - 2
    strides = _tuple(strides, n, "strides")
    dilation = _tuple(dilation_rate, n, "dilation_rate")
    in_channels = inputs.shape[-1 if data_format == "channels_last" else 1]
    groups = in_channels // kernel.shape[-2]
    if (
        1 < groups <= _MOST_GROUPS_SPLIT
        and in_channels == groups * kernel.shape[-2]
        and kernel.shape[-1] % groups == 0
        and jax.default_backend() == "cpu"
    ):
        # XLA's CPU runs a grouped convolution 7-12x slower forward and 12-100x slower
        # with its gradients than one convolution per group: 32x28x28x64 -> 64 in 4
        # groups, 36.7 against 2.9 ms, 541 against 16.8 ms with gradients. The same
        # sums of the same products, group by group, concatenated.
        axis = 1 if data_format == "channels_first" else -1
        outputs = [
            conv(part, weights, strides, padding, data_format, dilation_rate)
            for part, weights in zip(
                jnp.split(inputs, groups, axis=axis), jnp.split(kernel, groups, axis=-1)
            )
        ]
        return jnp.concatenate(outputs, axis=axis)
    padding = _conv_padding(padding, kernel.shape[:-2], dilation)
    if groups == 1 and _pointwise_on_cpu(inputs, kernel):
        return _pointwise_by_product(inputs, kernel, strides, data_format)
    if groups == 1 and conv_in_loops.in_loop_body() and jax.default_backend() == "cpu":
        # In a loop's body XLA's CPU runs the gradients 20-45x slower (see the module).
        spatial = inputs.shape[2:] if data_format == "channels_first" else inputs.shape[1:-1]
        pads = conv_in_loops.explicit_padding(
            padding, spatial, kernel.shape[:-2], strides, dilation
        )
        return conv_in_loops.conv(
            inputs,
            kernel.astype(inputs.dtype),
            strides,
            pads,
            dilation,
            data_format == "channels_first",
        )
    return jax.lax.conv_general_dilated(
        inputs,
        kernel.astype(inputs.dtype),
        window_strides=strides,
        padding=padding,
        rhs_dilation=dilation,
        dimension_numbers=_dimension_numbers(n, data_format),
        feature_group_count=groups,
    )


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """Depthwise convolution with a `(*spatial, in_channels, depth_multiplier)` kernel."""
    inputs, kernel = _operands(inputs, kernel)
    data_format = _data_format(data_format)
    n = inputs.ndim - 2
    strides = _tuple(strides, n, "strides")
    dilation = _tuple(dilation_rate, n, "dilation_rate")
    in_channels = kernel.shape[-2]
    padding = _conv_padding(padding, kernel.shape[:-2], dilation)
    if _taps_on_cpu(inputs, kernel):
        padding = padding if isinstance(padding, str) else tuple(tuple(p) for p in padding)
        return _depthwise_by_taps(inputs, kernel, strides, padding, dilation, data_format)
    kernel = jnp.reshape(kernel, kernel.shape[:-2] + (1, in_channels * kernel.shape[-1]))
    return jax.lax.conv_general_dilated(
        inputs,
        kernel.astype(inputs.dtype),
        window_strides=strides,
        padding=padding,
        rhs_dilation=dilation,
        dimension_numbers=_dimension_numbers(n, data_format),
        feature_group_count=in_channels,
    )


def _pointwise_on_cpu(inputs, kernel) -> bool:
    """Whether a convolution with a 1x1 (1, 1x1x1) kernel runs as a matrix product over
    the channels: on the CPU, where XLA's convolution takes 1.5-4.5x the time of the
    product, forward and with its gradients (a ConvMixer block's 1x1 layer on
    128x16x16x256: 53 against 20 ms forward, 247 against 97 ms with gradients), in
    float32 or float64 (the products the convolution would compute, summed in the
    same precision)."""
    return (
        jax.default_backend() == "cpu"
        and inputs.dtype in (jnp.float32, jnp.float64)
        and all(int(k) == 1 for k in kernel.shape[:-2])
    )


def _pointwise_by_product(inputs, kernel, strides, data_format):
    """A 1x1 convolution as `inputs @ kernel` over the channel axis. A 1x1 kernel reads
    no padding ('same' pads nothing for it) and no dilation: a stride keeps every
    `stride`-th position, as the convolution's windows do."""
    x = jnp.moveaxis(inputs, 1, -1) if data_format == "channels_first" else inputs
    if any(s != 1 for s in strides):
        x = x[(slice(None), *(slice(None, None, s) for s in strides), slice(None))]
    weights = jnp.reshape(kernel, kernel.shape[-2:]).astype(x.dtype)
    # As a 2-D product over the flattened positions: the same product of rank 4 made
    # XLA's CPU take 190 ms against 112 for a 1x1 layer's output and gradients (with a
    # bias and a sine loss, 128x16x16x256).
    y = numpy_products._flat_matmul(x, weights)
    return jnp.moveaxis(y, -1, 1) if data_format == "channels_first" else y


# At most this many kernel taps are summed one by one (a 7x7 kernel has 49).
_MAX_TAPS = 64


def _taps_on_cpu(inputs, kernel) -> bool:
    """Whether a depthwise convolution runs as a sum over its kernel's taps: on the CPU,
    where XLA's grouped convolution (one group per channel) runs 5x slower forward and
    3x slower with its gradients than the sum of shifted slices (a ConvMixer block's
    5x5 layer on 128x16x16x256: 293 against 56 ms, 1009 against 315 ms), in float32 or
    float64 (a low-precision sum would round at each tap)."""
    return (
        jax.default_backend() == "cpu"
        and inputs.dtype in (jnp.float32, jnp.float64)
        and int(np.prod(kernel.shape[:-2])) <= _MAX_TAPS
    )


@functools.partial(jax.custom_vjp, nondiff_argnums=(2, 3, 4, 5))
def _depthwise_by_taps(inputs, kernel, strides, padding, dilation, data_format):
    """`_sum_over_taps`, whose kernel gradient is summed over the batch a few images at a
    time (`_kernel_gradient_in_chunks`)."""
    return _sum_over_taps(inputs, kernel, strides, padding, dilation, data_format)


def _taps_forward(inputs, kernel, strides, padding, dilation, data_format):
    y = _sum_over_taps(inputs, kernel, strides, padding, dilation, data_format)
    return y, (inputs, kernel)


def _taps_backward(strides, padding, dilation, data_format, residuals, grad):
    inputs, kernel = residuals

    def taps(x, k):
        return _sum_over_taps(x, k, strides, padding, dilation, data_format)

    (inputs_grad,) = jax.vjp(lambda x: taps(x, kernel), inputs)[1](grad)
    return inputs_grad, _kernel_gradient_in_chunks(taps, inputs, kernel, grad)


_depthwise_by_taps.defvjp(_taps_forward, _taps_backward)

# The images (inputs and output gradients together) one step of the kernel gradient's
# sum takes: about what a core's L2 cache holds.
_CHUNK_BYTES = 1 << 20


def _kernel_gradient_in_chunks(taps, inputs, kernel, grad):
    """The kernel's gradient, summed over the batch `_CHUNK_BYTES` of images at a time.

    Each tap's weight gradient is a sum over the whole batch of its slice of the inputs
    times the output gradients: over the whole batch at once, XLA reads both from memory
    once per tap (25 times for a 5x5 kernel; 215 ms for a ConvMixer block's layer on
    128x16x16x256); over two images at a time, from the cache (40 ms). The sums are
    grouped differently, so the gradient differs in its last bits.
    """
    batch = inputs.shape[0]
    per_image = (inputs.dtype.itemsize * math.prod(inputs.shape[1:])) + (
        grad.dtype.itemsize * math.prod(grad.shape[1:])
    )
    chunk = max(1, _CHUNK_BYTES // max(per_image, 1))

    def kernel_grad(x, g):
        return jax.vjp(lambda k: taps(x, k), kernel)[1](g)[0]

    if chunk >= batch:
        return kernel_grad(inputs, grad)
    steps = batch // chunk
    whole = steps * chunk

    def step(total, pair):
        return total + kernel_grad(*pair), None

    pairs = tuple(a[:whole].reshape((steps, chunk) + a.shape[1:]) for a in (inputs, grad))
    total, _ = jax.lax.scan(step, jnp.zeros_like(kernel), pairs)
    if whole < batch:
        total = total + kernel_grad(inputs[whole:], grad[whole:])
    return total


def _sum_over_taps(inputs, kernel, strides, padding, dilation, data_format):
    """`depthwise_conv` as the sum over the kernel's taps of a strided slice of the padded
    inputs times that tap's weights (output channel `c * depth_multiplier + m`, as the
    grouped convolution orders them)."""
    n = inputs.ndim - 2
    x = jnp.moveaxis(inputs, 1, -1) if data_format == "channels_first" else inputs
    sizes = kernel.shape[:n]
    reach = [(k - 1) * d + 1 for k, d in zip(sizes, dilation, strict=True)]
    pads = (
        padding
        if not isinstance(padding, str)
        else jax.lax.padtype_to_pads(x.shape[1:-1], reach, strides, padding)
    )
    x = jnp.pad(x, ((0, 0), *[tuple(p) for p in pads], (0, 0)))
    out = [(x.shape[1 + i] - reach[i]) // strides[i] + 1 for i in range(n)]
    if min(out) < 1:  # the kernel reaches past the padded inputs: an empty output
        shape = (x.shape[0], *[max(o, 0) for o in out], kernel.shape[-2] * kernel.shape[-1])
        y = jnp.zeros(shape, x.dtype)
        return jnp.moveaxis(y, -1, 1) if data_format == "channels_first" else y
    channels, multiplier = kernel.shape[-2], kernel.shape[-1]
    kernel = kernel.astype(x.dtype)
    total = None
    for tap in itertools.product(*(range(k) for k in sizes)):
        start = [0, *(t * d for t, d in zip(tap, dilation, strict=True)), 0]
        limit = [
            x.shape[0],
            *(s + (o - 1) * st + 1 for s, o, st in zip(start[1:-1], out, strides, strict=True)),
            channels,
        ]
        piece = jax.lax.slice(x, start, limit, (1, *strides, 1))
        weights = kernel[tap]  # (channels, multiplier)
        if multiplier == 1:
            term = piece * weights[:, 0]
        else:
            term = (piece[..., None] * weights).reshape(piece.shape[:-1] + (-1,))
        total = term if total is None else total + term
    return jnp.moveaxis(total, -1, 1) if data_format == "channels_first" else total


def separable_conv(
    inputs,
    depthwise_kernel,
    pointwise_kernel,
    strides=1,
    padding="valid",
    data_format=None,
    dilation_rate=1,
):
    """A depthwise convolution followed by a pointwise (1x1) convolution."""
    x = depthwise_conv(inputs, depthwise_kernel, strides, padding, data_format, dilation_rate)
    return conv(x, pointwise_kernel, 1, "valid", data_format, 1)


def conv_transpose(
    inputs,
    kernel,
    strides=1,
    padding="valid",
    output_padding=None,
    data_format=None,
    dilation_rate=1,
):
    """Transposed convolution with a `(*spatial, out_channels, in_channels)` kernel.

    The output equals the gradient of `conv` (same strides, padding and dilation) with
    respect to its input, for an input of the Keras output length.
    """
    inputs, kernel = _operands(inputs, kernel)
    data_format = _data_format(data_format)
    padding = str(padding).lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"`padding` must be 'valid' or 'same'; received {padding!r}.")
    n = inputs.ndim - 2
    strides = _tuple(strides, n, "strides")
    dilation = _tuple(dilation_rate, n, "dilation_rate")
    out_pad = (None,) * n if output_padding is None else _tuple(output_padding, n, "output_padding")
    spatial_in = inputs.shape[2:] if data_format == "channels_first" else inputs.shape[1:-1]
    pads = []
    for size, k, s, d, op in zip(
        spatial_in, kernel.shape[:-2], strides, dilation, out_pad, strict=True
    ):
        k_eff = (k - 1) * d + 1
        out_len = conv_transpose_output_length(size, k, s, padding, op, d)
        full = (size - 1) * s + k_eff
        start = max(full - out_len, 0) // 2 if padding == "same" else 0
        left = k_eff - 1 - start
        right = out_len + k_eff - 2 - (size - 1) * s - left
        pads.append((left, right))
    args = (strides, tuple(pads), dilation, data_format)
    if conv_in_loops.in_loop_body() and jax.default_backend() == "cpu":
        # The convolution of the strides-dilated inputs by the flipped kernel, its
        # channel axes swapped (what `lax.conv_transpose` computes), with gradients
        # XLA's CPU runs fast in a loop's body (see `conv_in_loops`).
        flipped = jnp.swapaxes(jnp.flip(kernel, axis=tuple(range(n))), -1, -2)
        return conv_in_loops.conv(
            inputs,
            flipped.astype(inputs.dtype),
            (1,) * n,
            tuple(pads),
            dilation,
            data_format == "channels_first",
            strides,
        )
    if jax.default_backend() == "cpu" and any(s > 1 for s in strides):
        return _conv_transpose_by_adjoint(inputs, kernel, *args)
    return _lax_conv_transpose(inputs, kernel, *args)


def _lax_conv_transpose(inputs, kernel, strides, pads, dilation, data_format):
    return jax.lax.conv_transpose(
        inputs,
        kernel.astype(inputs.dtype),
        strides,
        padding=list(pads),
        rhs_dilation=dilation,
        dimension_numbers=_dimension_numbers(inputs.ndim - 2, data_format),
        transpose_kernel=True,
    )


@functools.partial(jax.custom_vjp, nondiff_argnums=(2, 3, 4, 5))
def _conv_transpose_by_adjoint(inputs, kernel, strides, pads, dilation, data_format):
    """A strided transposed convolution whose gradients come from its adjoint, the strided
    convolution: on the CPU, XLA's own gradients of a transposed convolution (a
    convolution of input-dilated operands) take 6-9x as long (a 4x4, stride-2 layer on
    64x16x16x128: 958 against 112 ms)."""
    return _lax_conv_transpose(inputs, kernel, strides, pads, dilation, data_format)


def _conv_transpose_forward(inputs, kernel, strides, pads, dilation, data_format):
    y = _lax_conv_transpose(inputs, kernel, strides, pads, dilation, data_format)
    return y, (inputs, kernel)


def _conv_transpose_backward(strides, pads, dilation, data_format, residuals, grad):
    """`y = T_k(x)` is linear in `x`; its adjoint `A_k = T_k^*` (what the inputs' gradient
    applies to `grad`) is a strided convolution with the same kernel. Since
    `<grad, T_k(x)> = <A_k(grad), x>` for every kernel, the kernel's gradient is that of
    `<A_k(grad), x>`: a strided convolution's kernel gradient, which XLA computes fast."""
    inputs, kernel = residuals

    def adjoint(k):
        transposed = functools.partial(
            _lax_conv_transpose,
            strides=strides,
            pads=pads,
            dilation=dilation,
            data_format=data_format,
        )
        return jax.vjp(lambda x: transposed(x, k), inputs)[1](grad)[0]

    inputs_grad, kernel_vjp = jax.vjp(adjoint, kernel)
    return inputs_grad, kernel_vjp(inputs)[0]


_conv_transpose_by_adjoint.defvjp(_conv_transpose_forward, _conv_transpose_backward)


def _pool_args(inputs, pool_size, strides, padding, data_format):
    data_format = _data_format(data_format)
    n = inputs.ndim - 2
    pool_size = _tuple(pool_size, n, "pool_size")
    strides = pool_size if strides is None else _tuple(strides, n, "strides")
    padding = str(padding).lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"`padding` must be 'valid' or 'same'; received {padding!r}.")
    if data_format == "channels_first":
        window, stride = (1, 1) + pool_size, (1, 1) + strides
    else:
        window, stride = (1,) + pool_size + (1,), (1,) + strides + (1,)
    return window, stride, padding.upper()


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Max pooling over the spatial axes."""
    inputs = _operands(inputs)
    window, stride, padding = _pool_args(inputs, pool_size, strides, padding, data_format)
    # NumPy constants, not `jnp.array`s: under `jit` + autodiff a `jnp` init value is a
    # traced operand, `reduce_window` then loses its monoid form and cannot linearize.
    if jnp.issubdtype(inputs.dtype, jnp.floating):
        init = np.array(-np.inf, inputs.dtype)
    elif inputs.dtype == jnp.bool_:
        init = np.array(False)
    else:
        init = np.array(jnp.iinfo(inputs.dtype).min, inputs.dtype)
    return jax.lax.reduce_window(inputs, init, jax.lax.max, window, stride, padding)


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Average pooling; with `"same"` padding only the valid elements are averaged."""
    inputs = _operands(inputs)
    if not jnp.issubdtype(inputs.dtype, jnp.inexact):
        # Integers and booleans (as 0/1) average as float32, summed in float32: an
        # integer sum can wrap around (uint8 windows of large values).
        inputs = inputs.astype(jnp.float32)
    window, stride, padding = _pool_args(inputs, pool_size, strides, padding, data_format)
    zero = np.array(0, inputs.dtype)  # a constant, see `max_pool`
    total = jax.lax.reduce_window(inputs, zero, jax.lax.add, window, stride, padding)
    if padding == "VALID":
        count = 1
        for w in window:
            count *= w
        return total / jnp.array(count, inputs.dtype)
    ones = jnp.ones((1,) + inputs.shape[1:], inputs.dtype)
    counts = jax.lax.reduce_window(ones, zero, jax.lax.add, window, stride, padding)
    return total / counts


def _pair(value):
    return (int(value),) * 2 if isinstance(value, int) else tuple(int(v) for v in value)


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    x = jnp.asarray(x)
    if x.ndim != 4:
        raise ValueError(f"unfold: expected (N, C, H, W) input, received shape {x.shape}.")
    pads = _pair(padding)
    patches = jax.lax.conv_general_dilated_patches(
        x,
        filter_shape=_pair(kernel_size),
        window_strides=_pair(stride),
        padding=[(p, p) for p in pads],
        rhs_dilation=_pair(dilation),
        dimension_numbers=("NCHW", "OIHW", "NCHW"),
    )
    return patches.reshape(patches.shape[0], patches.shape[1], -1)


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    x = jnp.asarray(x)
    if x.ndim != 3:
        raise ValueError(f"fold: expected (N, C * kh * kw, L) input, received shape {x.shape}.")
    kh, kw = _pair(kernel_size)
    n, ckk, _ = x.shape
    if ckk % (kh * kw):
        raise ValueError(
            f"fold: axis 1 of `x` ({ckk}) must be a multiple of the kernel's {kh * kw} cells."
        )
    image = jax.ShapeDtypeStruct((n, ckk // (kh * kw), *_pair(output_size)), x.dtype)
    # Fold sums each patch back into place: the adjoint (transpose) of unfold.
    transpose = jax.linear_transpose(
        lambda img: unfold(img, kernel_size, dilation, padding, stride), image
    )
    return transpose(x)[0]


def polar(abs_, angle):
    abs_, angle = jnp.asarray(abs_), jnp.asarray(angle)
    return jax.lax.complex(abs_ * jnp.cos(angle), abs_ * jnp.sin(angle))


def ctc_loss(target, output, target_length, output_length, mask_index=0):
    # No kernel here: `lamina.ops.ctc_loss`'s forward algorithm, compiled by XLA, is the
    # JAX path (about a millisecond for a batch of 32).
    return None
