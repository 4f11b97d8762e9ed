"""Neural-network ops Keras 3 has beyond the engine's primitives, written once from ops.

Activations, normalizations, cross-entropies, attention, pixel shuffles and adaptive
pooling: each is a composition of contract ops, so it runs (and differentiates) on every
engine and becomes one graph node on KerasTensors.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.hard_tanh(np.array([-2.0, 0.5, 3.0]))).tolist()
[-1.0, 0.5, 1.0]
"""

from __future__ import annotations

import math

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import cast, composite, convert_to_tensor, declared_op, dtype, shape

_sigmoid = declared_op("nn", "sigmoid")
_softmax = declared_op("nn", "softmax")
_log_softmax = declared_op("nn", "log_softmax")
_log_sigmoid = declared_op("nn", "log_sigmoid")
_one_hot = declared_op("nn", "one_hot")
_rsqrt = declared_op("math", "rsqrt")
_norm = declared_op("math", "norm")


def _float_tensor(x):
    x = convert_to_tensor(x)
    return x if "float" in dtype(x) else cast(x, backend.floatx())


# Activations -------------------------------------------------------------------------
swish = declared_op("nn", "silu")
swish.__name__ = swish.__qualname__ = "swish"
swish.__doc__ = "Swish (SiLU): `x * sigmoid(x)`; Keras's other name for `silu`."
hard_swish = declared_op("nn", "hard_silu")
hard_swish.__name__ = hard_swish.__qualname__ = "hard_swish"
hard_swish.__doc__ = "Hard swish: `x * relu6(x + 3) / 6`; Keras's other name for `hard_silu`."


@composite
def celu(x, alpha=1.0):
    """Continuously differentiable ELU: `max(x, 0) + min(0, alpha * (exp(x / alpha) - 1))`."""
    x = _float_tensor(x)
    return lnp.where(lnp.greater(x, 0), x, alpha * lnp.expm1(lnp.minimum(x, 0.0) / alpha))


@composite
def glu(x, axis=-1):
    """Gated linear unit: `a * sigmoid(b)` where `a, b` are the halves of `x` on `axis`."""
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
    """`x` clipped to `[-1, 1]`."""
    return lnp.clip(_float_tensor(x), -1.0, 1.0)


@composite
def hard_shrink(x, threshold=0.5):
    """`x` where `abs(x) > threshold`, else 0."""
    x = _float_tensor(x)
    return lnp.where(lnp.greater(lnp.abs(x), threshold), x, lnp.zeros_like(x))


@composite
def soft_shrink(x, threshold=0.5):
    """`x` moved toward 0 by `threshold` (0 within `[-threshold, threshold]`)."""
    x = _float_tensor(x)
    return lnp.where(
        lnp.greater(x, threshold),
        x - threshold,
        lnp.where(lnp.less(x, -threshold), x + threshold, lnp.zeros_like(x)),
    )


@composite
def tanh_shrink(x):
    """`x - tanh(x)`."""
    x = _float_tensor(x)
    return lnp.subtract(x, lnp.tanh(x))


@composite
def threshold(x, threshold, default_value):
    """`x` where `x > threshold`, else `default_value`."""
    x = convert_to_tensor(x)
    return lnp.where(lnp.greater(x, threshold), x, lnp.full_like(x, default_value))


@composite
def squareplus(x, b=4):
    """Smooth ReLU `(x + sqrt(x ** 2 + b)) / 2` (`b >= 0`)."""
    x = _float_tensor(x)
    return lnp.divide(lnp.add(x, lnp.sqrt(lnp.add(lnp.square(x), b))), 2.0)


@composite
def sparse_plus(x):
    """0 below -1, `(x + 1) ** 2 / 4` on `[-1, 1]`, `x` above 1."""
    x = _float_tensor(x)
    middle = lnp.square(x + 1.0) / 4.0
    return lnp.where(
        lnp.less_equal(x, -1.0), lnp.zeros_like(x), lnp.where(lnp.greater_equal(x, 1.0), x, middle)
    )


@composite
def sparse_sigmoid(x):
    """0 below -1, `(x + 1) / 2` on `[-1, 1]`, 1 above."""
    return lnp.clip((_float_tensor(x) + 1.0) / 2.0, 0.0, 1.0)


@composite
def sparsemax(x, axis=-1):
    """Sparsemax: the Euclidean projection of `x` onto the probability simplex on `axis`."""
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


polar = declared_op("nn", "polar")


# Normalization -------------------------------------------------------------------------
def _compute_dtype(x):
    return backend.result_type(dtype(x), "float32")


@composite
def normalize(x, axis=-1, order=2, epsilon=None):
    """`x` divided by its `order`-norm along `axis` (at least `epsilon`)."""
    if not isinstance(order, int) or order < 1:
        raise ValueError(f"normalize: `order` must be an int >= 1, received order={order!r}.")
    epsilon = backend.epsilon() if epsilon is None else epsilon
    x = _float_tensor(x)
    if order == 2:
        inv = lnp.minimum(_rsqrt(lnp.sum(lnp.square(x), axis=axis, keepdims=True)), 1.0 / epsilon)
        return lnp.multiply(x, inv)
    norm = _norm(x, ord=order, axis=axis, keepdims=True)
    return lnp.divide(x, lnp.maximum(norm, epsilon))


def _along(v, axis, ndim):
    """Vector `v` shaped to broadcast along `axis` of a rank-`ndim` tensor."""
    if v is None:
        return None
    v = convert_to_tensor(v)
    if len(shape(v)) != 1:
        return v
    target = [1] * ndim
    target[axis] = shape(v)[0]
    return lnp.reshape(v, target)


@composite
def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=0.001):
    """`(x - mean) / sqrt(variance + epsilon) * scale + offset`, the statistics on `axis`."""
    x = convert_to_tensor(x)
    ndim = len(shape(x))
    axis = axis % ndim
    inv = _rsqrt(lnp.add(_along(variance, axis, ndim), epsilon))
    if scale is not None:
        inv = lnp.multiply(inv, _along(scale, axis, ndim))
    out = lnp.multiply(lnp.subtract(x, _along(mean, axis, ndim)), inv)
    if offset is not None:
        out = lnp.add(out, _along(offset, axis, ndim))
    return cast(out, dtype(x)) if "float" in dtype(x) else out


def _axes_shape(x, axis):
    ndim = len(shape(x))
    axes = sorted(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))
    return axes, [shape(x)[a] if a in axes else 1 for a in range(ndim)]


def _to_axes(v, axes, target, x):
    if v is None:
        return None
    v = cast(convert_to_tensor(v), dtype(x))
    if len(shape(v)) != len(target) and axes != [len(target) - 1]:
        v = lnp.reshape(v, target)
    return v


@composite
def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """`x` normalized to mean 0 and variance 1 over `axis`, then `* gamma + beta`.

    Computed in float32 at least (half-precision input is returned in its dtype).
    `rms_scaling=True` (a keyword Keras accepts) scales by the root mean square instead.
    """
    rms_scaling = kwargs.pop("rms_scaling", False)
    if kwargs:
        raise TypeError(f"layer_normalization: unexpected keyword arguments {sorted(kwargs)}.")
    epsilon = backend.epsilon() if epsilon is None else epsilon
    original = dtype(x)
    x = cast(convert_to_tensor(x), _compute_dtype(x))
    axes, target = _axes_shape(x, axis)
    gamma, beta = _to_axes(gamma, axes, target, x), _to_axes(beta, axes, target, x)
    if rms_scaling:
        inv = _rsqrt(lnp.var(x, axis=axes, keepdims=True) + epsilon)
        out = x * inv if gamma is None else x * inv * gamma
    else:
        mean = lnp.mean(x, axis=axes, keepdims=True)
        centered = lnp.subtract(x, mean)
        inv = _rsqrt(lnp.mean(lnp.square(centered), axis=axes, keepdims=True) + epsilon)
        out = centered * inv
        if gamma is not None:
            out = out * gamma
        if beta is not None:
            out = out + beta
    return cast(out, original)


@composite
def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """`x` divided by its root mean square over `axis` (plus `epsilon`), times `scale`."""
    epsilon = backend.epsilon() if epsilon is None else epsilon
    original = dtype(x)
    x = cast(convert_to_tensor(x), _compute_dtype(x))
    if not shape(x):
        x = lnp.expand_dims(x, 0)
    out = x * _rsqrt(lnp.mean(lnp.square(x), axis=axis, keepdims=True) + epsilon)
    if scale is not None:
        out = out * cast(convert_to_tensor(scale), dtype(x))
    return cast(out, original)


# Cross-entropies and metrics -------------------------------------------------------------
@composite
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy of `target` against probabilities (or logits)."""
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
    """Cross-entropy of one-hot (or soft) `target` against class scores on `axis`."""
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
    """Multi-hot encoding: 1 for each class present in a row of integer `inputs`."""
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
    """Peak signal-to-noise ratio in dB: `20 log10(max_val) - 10 log10(mse(x1, x2))`."""
    x1, x2 = _float_tensor(x1), _float_tensor(x2)
    if shape(x1) != shape(x2):
        raise ValueError(
            f"psnr: `x1` and `x2` must have the same shape, received {shape(x1)} and {shape(x2)}."
        )
    mse = lnp.mean(lnp.square(lnp.subtract(x1, x2)))
    return 20.0 * math.log10(max_val) - 10.0 * lnp.log10(mse)


# Attention -------------------------------------------------------------------------------
# Also raised by the attention layers given `flash_attention=True`.
NO_FLASH_KERNEL = (
    "flash_attention=True asks for a fused flash-attention kernel, and lamina has none on "
    "any engine or device (Keras raises here too when it finds no kernel, e.g. on a CPU). "
    "Pass flash_attention=None (the default) or False: the attention computed is the same."
)


@composite
def dot_product_attention(
    query,
    key,
    value,
    bias=None,
    mask=None,
    scale=None,
    is_causal=False,
    flash_attention=None,
    attn_logits_soft_cap=None,
):
    """Scaled dot-product attention: `softmax(q k^T * scale + bias, masked) v`.

    `query` is `(batch, target, heads, head_dim)` and `key`/`value` are `(batch, source,
    kv_heads, head_dim)`, with `heads` a multiple of `kv_heads` (grouped-query attention);
    rank-3 inputs have no heads axis. `mask` is boolean, broadcast to `(batch, heads,
    target, source)`, True where attention is allowed; `is_causal` also masks future
    positions. `scale` defaults to `1 / sqrt(head_dim)`. `flash_attention` selects a
    fused kernel in Keras; lamina has none, so `None` (auto) and `False` compute the same
    attention without one, and `True` is a RuntimeError, as in Keras where no kernel is
    available (e.g. on a CPU).
    """
    if flash_attention:
        raise RuntimeError(f"dot_product_attention: {NO_FLASH_KERNEL}")
    query, key, value = (convert_to_tensor(t) for t in (query, key, value))
    rank3 = len(shape(query)) == 3
    if rank3:
        query, key, value = (lnp.expand_dims(t, 2) for t in (query, key, value))
    if len(shape(query)) != 4:
        raise ValueError(
            "dot_product_attention: `query` must be (batch, target, heads, head_dim) or "
            f"(batch, target, head_dim); received shape {shape(query)}."
        )
    heads, kv_heads, head_dim = shape(query)[2], shape(key)[2], shape(query)[-1]
    if heads % kv_heads:
        raise ValueError(
            f"dot_product_attention: the query's {heads} heads must be a multiple of the "
            f"key's {kv_heads}."
        )
    if heads != kv_heads:
        key = lnp.repeat(key, heads // kv_heads, axis=2)
        value = lnp.repeat(value, heads // kv_heads, axis=2)
    scale = 1.0 / math.sqrt(head_dim) if scale is None else scale
    compute = _compute_dtype(query)
    logits = lnp.einsum("btnh,bsnh->bnts", cast(query, compute), cast(key, compute)) * scale
    if attn_logits_soft_cap is not None:
        logits = lnp.tanh(logits / attn_logits_soft_cap) * attn_logits_soft_cap
    if bias is not None:
        logits = logits + cast(convert_to_tensor(bias), compute)
    allowed = None if mask is None else cast(convert_to_tensor(mask), "bool")
    if is_causal:
        target, source = shape(logits)[-2], shape(logits)[-1]
        causal = cast(lnp.tri(target, source, dtype="int32"), "bool")
        allowed = causal if allowed is None else lnp.logical_and(allowed, causal)
    if allowed is not None:
        # A large finite negative, so a fully masked row gives uniform weights, not NaN.
        logits = lnp.where(allowed, logits, -0.7 * 3.4028234663852886e38)
    weights = cast(_softmax(logits, axis=-1), dtype(value))
    out = lnp.einsum("bnts,bsnh->btnh", weights, value)
    return lnp.squeeze(out, 2) if rank3 else out


# Pixel shuffles and adaptive pooling --------------------------------------------------------
def _image4(x, op):
    x = convert_to_tensor(x)
    if len(shape(x)) != 4:
        raise ValueError(f"{op}: expected a 4-D batch of images, received shape {shape(x)}.")
    return x


@composite
def depth_to_space(x, block_size, data_format="channels_last"):
    """Move blocks of channels into `block_size` by `block_size` spatial blocks."""
    x = _image4(x, "depth_to_space")
    b = int(block_size)
    if data_format == "channels_last":
        n, h, w, c = shape(x)
        x = lnp.reshape(x, (n, h, w, b, b, c // (b * b)))
        x = lnp.transpose(x, (0, 1, 3, 2, 4, 5))
        return lnp.reshape(x, (n, h * b, w * b, c // (b * b)))
    n, c, h, w = shape(x)
    x = lnp.reshape(x, (n, c // (b * b), b, b, h, w))
    x = lnp.transpose(x, (0, 1, 4, 2, 5, 3))
    return lnp.reshape(x, (n, c // (b * b), h * b, w * b))


@composite
def space_to_depth(x, block_size, data_format="channels_last"):
    """Move `block_size` by `block_size` spatial blocks into channels (inverse of
    `depth_to_space`)."""
    x = _image4(x, "space_to_depth")
    b = int(block_size)
    if data_format == "channels_last":
        n, h, w, c = shape(x)
        x = lnp.reshape(x, (n, h // b, b, w // b, b, c))
        x = lnp.transpose(x, (0, 1, 3, 2, 4, 5))
        return lnp.reshape(x, (n, h // b, w // b, b * b * c))
    n, c, h, w = shape(x)
    x = lnp.reshape(x, (n, c, h // b, b, w // b, b))
    x = lnp.transpose(x, (0, 1, 3, 5, 2, 4))
    return lnp.reshape(x, (n, c * b * b, h // b, w // b))


def _bins(length, size):
    """PyTorch's adaptive bins: `[floor(i L / n), ceil((i + 1) L / n))` for each output i."""
    return [((i * length) // size, -((-(i + 1) * length) // size)) for i in range(size)]


def _adaptive_pool(inputs, output_size, data_format, reduce, op):
    x = convert_to_tensor(inputs)
    spatial = len(shape(x)) - 2
    if spatial not in (1, 2, 3):
        raise ValueError(
            f"{op}: expected a 3-D, 4-D or 5-D batch (1 to 3 spatial axes), received shape "
            f"{shape(x)}."
        )
    sizes = (output_size,) * spatial if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != spatial:
        raise ValueError(
            f"{op}: `output_size` {output_size!r} needs one size per spatial axis ({spatial})."
        )
    first = backend.standardize_data_format(data_format) == "channels_first"
    for i, size in enumerate(sizes):
        axis = i + 2 if first else i + 1
        parts = [
            reduce(lnp.take(x, lnp.arange(start, stop), axis=axis), axis)
            for start, stop in _bins(shape(x)[axis], int(size))
        ]
        x = lnp.stack(parts, axis=axis)
    return x


@composite
def adaptive_average_pool(inputs, output_size, data_format=None):
    """Average pooling to a fixed `output_size` per spatial axis (PyTorch's bins)."""
    return _adaptive_pool(
        inputs, output_size, data_format, lambda p, a: lnp.mean(p, axis=a), "adaptive_average_pool"
    )


@composite
def adaptive_max_pool(inputs, output_size, data_format=None):
    """Max pooling to a fixed `output_size` per spatial axis (PyTorch's bins)."""
    return _adaptive_pool(
        inputs, output_size, data_format, lambda p, a: lnp.max(p, axis=a), "adaptive_max_pool"
    )


__all__ = [
    "adaptive_average_pool",
    "adaptive_max_pool",
    "batch_normalization",
    "binary_crossentropy",
    "categorical_crossentropy",
    "celu",
    "depth_to_space",
    "dot_product_attention",
    "glu",
    "hard_shrink",
    "hard_swish",
    "hard_tanh",
    "layer_normalization",
    "multi_hot",
    "normalize",
    "polar",
    "psnr",
    "rms_normalization",
    "soft_shrink",
    "space_to_depth",
    "sparse_plus",
    "sparse_sigmoid",
    "sparsemax",
    "squareplus",
    "swish",
    "tanh_shrink",
    "threshold",
]
