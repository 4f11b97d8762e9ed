"""The classic backend functions (`K.mean`, `K.batch_dot`, ...) against NumPy formulas.

Each case runs eagerly (compared with a NumPy reference of Keras 2's documented result)
and symbolically on `Input`s (the output's shape and dtype agree with the eager result,
and a model built on it computes the same values). Gradients of a sample are compared
with finite differences of the NumPy reference.
"""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

import lamina
from lamina import backend, ops
from lamina import backend as K
from lamina.legacy import backend_ops

os.environ.setdefault("KERAS_BACKEND", "jax")

RNG = np.random.default_rng(0)
A = RNG.normal(size=(2, 3, 4)).astype("float32")
B = RNG.normal(size=(2, 3, 4)).astype("float32")
M = RNG.normal(size=(2, 3)).astype("float32")
INTS = np.array([[0, 1, 2], [3, 0, 4]], "int32")
IMG = RNG.normal(size=(2, 4, 5, 3)).astype("float32")
VOL = RNG.normal(size=(2, 3, 4, 2, 2)).astype("float32")
HALVES = np.array([[-2.5, -1.5, -0.5], [0.5, 1.5, 2.6]], "float32")
PROBS = RNG.uniform(0.05, 1.0, size=(2, 3, 4)).astype("float32")
ONEHOT = np.eye(4, dtype="float32")[RNG.integers(0, 4, size=(2, 3))]
BINARY = (RNG.uniform(size=(2, 3, 4)) > 0.5).astype("float32")


def _np(x):
    return ops.convert_to_numpy(x)


def _softmax(a, axis=-1):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(a, axis=-1):
    return np.log(_softmax(a.astype("float64"), axis))


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _relu_ref(x, alpha=0.0, max_value=None, threshold=0.0):
    top = np.inf if max_value is None else max_value
    return np.where(x > threshold, np.clip(x, 0 if threshold >= 0 else -np.inf, top), 0) + (
        alpha * np.minimum(x - threshold, 0)
    )


def _batch_dot_ref(x, y, axes):
    # Keras 2's documented result: per sample, contract x's axis axes[0] with y's axes[1];
    # x's other axes, then y's; 2-D with 2-D gives (batch, 1).
    out = np.stack([np.tensordot(x[i], y[i], (axes[0] - 1, axes[1] - 1)) for i in range(len(x))])
    return out.reshape(len(x), 1) if x.ndim == 2 and y.ndim == 2 else out


def _eps():
    return backend.epsilon()


def _cce_ref(t, p, axis=-1):
    p = p / p.sum(axis=axis, keepdims=True)
    return -(t * np.log(np.clip(p, _eps(), 1 - _eps()))).sum(axis=axis)


def _bce_ref(t, p):
    p = np.clip(p, _eps(), 1 - _eps())
    return -(t * np.log(p + _eps()) + (1 - t) * np.log(1 - p + _eps()))


def _bce_logits_ref(t, z):
    z = z.astype("float64")
    return np.logaddexp(0.0, z) - z * t  # -t log(sigmoid z) - (1 - t) log(1 - sigmoid z)


def _scce_ref(t, p, ignore=None):
    p = np.clip(p, _eps(), 1 - _eps())
    picked = np.take_along_axis(p, t[..., None], -1)[..., 0]
    out = -np.log(picked / p.sum(-1))
    return out if ignore is None else np.where(t == ignore, 0.0, out)


def _pad_same(x, spatial_axes, window, strides, dilation=None, value=0.0):
    pads = [(0, 0)] * x.ndim
    for i, axis in enumerate(spatial_axes):
        k = (window[i] - 1) * (dilation[i] if dilation else 1) + 1
        n = x.shape[axis]
        out = -(-n // strides[i])
        total = max((out - 1) * strides[i] + k - n, 0)
        pads[axis] = (total // 2, total - total // 2)
    return np.pad(x, pads, constant_values=value)


def _conv_ref(x, k, strides, padding, dilation):
    """Channels-last cross-correlation, TF padding; kernel (*window, in, out)."""
    nd = k.ndim - 2
    axes = list(range(1, nd + 1))
    if padding == "same":
        x = _pad_same(x, axes, k.shape[:nd], strides, dilation)
    eff = [(k.shape[i] - 1) * dilation[i] + 1 for i in range(nd)]
    out_shape = [(x.shape[1 + i] - eff[i]) // strides[i] + 1 for i in range(nd)]
    out = np.zeros((x.shape[0], *out_shape, k.shape[-1]))
    for pos in itertools.product(*[range(n) for n in out_shape]):
        for tap in itertools.product(*[range(n) for n in k.shape[:nd]]):
            idx = tuple(pos[i] * strides[i] + tap[i] * dilation[i] for i in range(nd))
            out[(slice(None), *pos)] += x[(slice(None), *idx)] @ k[tap]
    return out


def _depthwise_ref(x, k, strides, padding, dilation):
    mult = k.shape[-1]
    parts = [
        _conv_ref(x[..., c : c + 1], k[..., c : c + 1, :], strides, padding, dilation)
        for c in range(x.shape[-1])
    ]
    return np.concatenate(parts, -1).reshape(*parts[0].shape[:-1], -1)[..., : x.shape[-1] * mult]


def _transpose_conv_ref(x, k, out_hw, strides, padding):
    """TF's conv2d_transpose: the gradient of a forward conv with input size `out_hw`."""
    kh, kw = k.shape[:2]
    before = [0, 0]
    if padding == "same":
        for i, (n, kk) in enumerate(zip(out_hw, (kh, kw), strict=True)):
            before[i] = max((x.shape[1 + i] - 1) * strides[i] + kk - n, 0) // 2
    out = np.zeros((x.shape[0], *out_hw, k.shape[2]))
    for i, j, a, b in itertools.product(range(x.shape[1]), range(x.shape[2]), range(kh), range(kw)):
        r, c = i * strides[0] + a - before[0], j * strides[1] + b - before[1]
        if 0 <= r < out_hw[0] and 0 <= c < out_hw[1]:
            out[:, r, c] += x[:, i, j] @ k[a, b].T
    return out


def _transpose_conv3d_ref(x, k, out_sizes, strides, padding):
    """N-D TF transposed convolution: out[i * s + j - before] += x[i] @ k[j].T."""
    nd = len(out_sizes)
    before = [0] * nd
    if padding == "same":
        for d in range(nd):
            before[d] = max((x.shape[1 + d] - 1) * strides[d] + k.shape[d] - out_sizes[d], 0) // 2
    out = np.zeros((x.shape[0], *out_sizes, k.shape[-2]))
    for i in itertools.product(*[range(n) for n in x.shape[1:-1]]):
        for j in itertools.product(*[range(n) for n in k.shape[:nd]]):
            o = tuple(i[d] * strides[d] + j[d] - before[d] for d in range(nd))
            if all(0 <= o[d] < out_sizes[d] for d in range(nd)):
                out[(slice(None), *o)] += x[(slice(None), *i)] @ k[j].T
    return out


def _pool_ref(x, size, strides, padding, mode):
    nd = len(size)
    axes = list(range(1, nd + 1))
    fill = -np.inf if mode == "max" else np.nan
    if padding == "same":
        x = _pad_same(x, axes, size, strides, value=fill)
    out_shape = [(x.shape[1 + i] - size[i]) // strides[i] + 1 for i in range(nd)]
    out = np.zeros((x.shape[0], *out_shape, x.shape[-1]))
    for pos in itertools.product(*[range(n) for n in out_shape]):
        window = x[
            (
                slice(None),
                *[slice(p * s, p * s + w) for p, s, w in zip(pos, strides, size, strict=True)],
            )
        ]
        window = window.reshape(x.shape[0], -1, x.shape[-1])
        out[(slice(None), *pos)] = np.nanmax(window, 1) if mode == "max" else np.nanmean(window, 1)
    return out


def _cf(x):  # channels last -> channels first
    return np.moveaxis(x, -1, 1)


KERNEL1 = RNG.normal(size=(3, 4, 2)).astype("float32")
KERNEL2 = RNG.normal(size=(2, 3, 3, 2)).astype("float32")
KERNEL3 = RNG.normal(size=(2, 2, 1, 2, 3)).astype("float32")
DEPTH = RNG.normal(size=(2, 2, 3, 2)).astype("float32")
POINT = RNG.normal(size=(1, 1, 6, 4)).astype("float32")
TKERNEL3 = RNG.normal(size=(2, 3, 2, 2, 2)).astype("float32")
TKERNEL = RNG.normal(size=(3, 3, 2, 3)).astype("float32")  # (rows, cols, out, in)
Y3 = RNG.normal(size=(5, 4, 2)).astype("float32")
Y435 = RNG.normal(size=(4, 3, 5)).astype("float32")
BIAS4 = RNG.normal(size=(4,)).astype("float32")
BIAS34 = RNG.normal(size=(3, 4)).astype("float32")

LOCAL1 = RNG.normal(size=(2, 2 * 4, 5)).astype("float32")  # 2 outputs of (3-2)//1+1
LOCAL2 = RNG.normal(size=(2 * 2, 2 * 2 * 3, 2)).astype("float32")
DEPTH1 = RNG.normal(size=(2, 4, 2)).astype("float32")
POINT1 = RNG.normal(size=(1, 8, 3)).astype("float32")


def _local_ref(x, kernel, size, strides, out_sizes, channels_first=False):
    """Keras 2's unshared convolution: each output position has its own kernel."""
    out = []
    for n, pos in enumerate(itertools.product(*[range(o) for o in out_sizes])):
        index = tuple(slice(p * s, p * s + k) for p, s, k in zip(pos, strides, size, strict=True))
        lead = (slice(None),) * (2 if channels_first else 1)
        out.append(x[lead + index].reshape(len(x), -1) @ kernel[n])
    out = np.stack(out, 1).reshape(len(x), *out_sizes, -1)
    return np.moveaxis(out, -1, 1) if channels_first else out


# (id, function of the array inputs, inputs, NumPy reference of the same inputs)
CASES = [
    ("abs", K.abs, [A], np.abs),
    ("all", lambda x: K.all(x, axis=1), [INTS], lambda x: np.all(x != 0, axis=1)),
    ("any", lambda x: K.any(x, -1, True), [INTS], lambda x: np.any(x != 0, -1, keepdims=True)),
    ("argmax", K.argmax, [A], lambda x: np.argmax(x, -1)),
    ("argmin", lambda x: K.argmin(x, 1), [A], lambda x: np.argmin(x, 1)),
    ("clip", lambda x: K.clip(x, -0.5, 0.5), [A], lambda x: np.clip(x, -0.5, 0.5)),
    ("clip_raised_max", lambda x: K.clip(x, 0.2, 0.1), [A], lambda x: np.clip(x, 0.2, 0.2)),
    ("clip_open", lambda x: K.clip(x, None, 0.1), [A], lambda x: np.minimum(x, 0.1)),
    ("cos", K.cos, [A], np.cos),
    ("sin", K.sin, [A], np.sin),
    ("cumsum", K.cumsum, [A], lambda x: np.cumsum(x, 0)),
    ("cumprod", lambda x: K.cumprod(x, axis=2), [A], lambda x: np.cumprod(x, 2)),
    ("exp", K.exp, [A], np.exp),
    ("log", lambda x: K.log(K.abs(x) + 0.1), [A], lambda x: np.log(np.abs(x) + 0.1)),
    ("logsumexp", lambda x: K.logsumexp(x, 1), [A], lambda x: np.log(np.exp(x).sum(1))),
    ("max", lambda x: K.max(x, 1, True), [A], lambda x: x.max(1, keepdims=True)),
    ("min", lambda x: K.min(x, (1, 2)), [A], lambda x: x.min((1, 2))),
    ("sum", lambda x: K.sum(x, -1), [A], lambda x: x.sum(-1)),
    ("prod", lambda x: K.prod(x, 1), [A], lambda x: x.prod(1)),
    ("mean", lambda x: K.mean(x, axis=-1), [A], lambda x: x.mean(-1)),
    ("mean_of_bool", lambda x: K.mean(K.greater(x, 0), 1), [A], lambda x: (x > 0).mean(1)),
    ("std", lambda x: K.std(x, 2), [A], lambda x: x.std(2)),
    ("var", lambda x: K.var(x, 1, True), [A], lambda x: x.var(1, keepdims=True)),
    ("maximum", K.maximum, [A, B], np.maximum),
    ("minimum", K.minimum, [A, B], np.minimum),
    ("pow", lambda x: K.pow(x, 3), [A], lambda x: x**3),
    ("round", K.round, [HALVES], np.round),
    ("sign", K.sign, [A], np.sign),
    ("sqrt_clamps_negatives", K.sqrt, [A], lambda x: np.sqrt(np.maximum(x, 0))),
    ("square", K.square, [A], np.square),
    ("tanh", K.tanh, [A], np.tanh),
    ("equal", lambda x: K.equal(x, K.round(x)), [HALVES], lambda x: x == np.round(x)),
    ("not_equal", K.not_equal, [A, B], np.not_equal),
    ("greater", K.greater, [A, B], np.greater),
    ("greater_equal", K.greater_equal, [A, B], np.greater_equal),
    ("less", K.less, [A, B], np.less),
    ("less_equal", K.less_equal, [A, B], np.less_equal),
    ("stop_gradient", K.stop_gradient, [A], lambda x: x),
    ("identity", K.identity, [A], lambda x: x),
    # shapes
    ("reshape", lambda x: K.reshape(x, (-1, 4)), [A], lambda x: x.reshape(-1, 4)),
    ("transpose", K.transpose, [A], np.transpose),
    (
        "permute_dimensions",
        lambda x: K.permute_dimensions(x, (0, 2, 1)),
        [A],
        lambda x: x.transpose(0, 2, 1),
    ),
    ("expand_dims", K.expand_dims, [A], lambda x: x[..., None]),
    ("expand_dims_1", lambda x: K.expand_dims(x, 1), [A], lambda x: x[:, None]),
    ("squeeze", lambda x: K.squeeze(K.expand_dims(x, 1), 1), [A], lambda x: x),
    ("flatten", K.flatten, [A], np.ravel),
    ("batch_flatten", K.batch_flatten, [A], lambda x: x.reshape(len(x), -1)),
    (
        "concatenate",
        lambda x, y: K.concatenate([x, y]),
        [A, B],
        lambda x, y: np.concatenate([x, y], -1),
    ),
    (
        "concatenate_1",
        lambda x, y: K.concatenate([x, y], 1),
        [A, B],
        lambda x, y: np.concatenate([x, y], 1),
    ),
    ("stack", lambda x, y: K.stack([x, y], 1), [A, B], lambda x, y: np.stack([x, y], 1)),
    ("tile", lambda x: K.tile(x, (1, 2, 1)), [A], lambda x: np.tile(x, (1, 2, 1))),
    ("repeat", lambda x: K.repeat(x, 3), [M], lambda x: np.repeat(x[:, None], 3, 1)),
    (
        "repeat_elements",
        lambda x: K.repeat_elements(x, 2, axis=1),
        [A],
        lambda x: np.repeat(x, 2, 1),
    ),
    ("gather", lambda x: K.gather(x, np.array([1, 0, 1])), [A], lambda x: x[[1, 0, 1]]),
    ("reverse", lambda x: K.reverse(x, [1, 2]), [A], lambda x: x[:, ::-1, ::-1]),
    ("reverse_int", lambda x: K.reverse(x, 1), [A], lambda x: x[:, ::-1]),
    ("one_hot", lambda x: K.one_hot(x, 5), [INTS], lambda x: np.eye(5)[x]),
    (
        "temporal_padding",
        lambda x: K.temporal_padding(x, (1, 2)),
        [A],
        lambda x: np.pad(x, [(0, 0), (1, 2), (0, 0)]),
    ),
    (
        "spatial_2d_padding",
        lambda x: K.spatial_2d_padding(x, ((1, 0), (2, 1))),
        [IMG],
        lambda x: np.pad(x, [(0, 0), (1, 0), (2, 1), (0, 0)]),
    ),
    (
        "spatial_2d_padding_cf",
        lambda x: K.spatial_2d_padding(x, ((1, 0), (2, 1)), "channels_first"),
        [IMG],
        lambda x: np.pad(x, [(0, 0), (0, 0), (1, 0), (2, 1)]),
    ),
    (
        "spatial_3d_padding",
        lambda x: K.spatial_3d_padding(x, ((1, 0), (0, 1), (1, 1))),
        [VOL],
        lambda x: np.pad(x, [(0, 0), (1, 0), (0, 1), (1, 1), (0, 0)]),
    ),
    (
        "resize_images",
        lambda x: K.resize_images(x, 2, 3, "channels_last"),
        [IMG],
        lambda x: x.repeat(2, 1).repeat(3, 2),
    ),
    (
        "resize_images_cf",
        lambda x: K.resize_images(x, 2, 1, "channels_first"),
        [IMG],
        lambda x: x.repeat(2, 2),
    ),
    (
        "resize_volumes",
        lambda x: K.resize_volumes(x, 1, 2, 3, "channels_last"),
        [VOL],
        lambda x: x.repeat(2, 2).repeat(3, 3),
    ),
    ("zeros_like", K.zeros_like, [A], np.zeros_like),
    (
        "ones_like",
        lambda x: K.ones_like(x, dtype="int32"),
        [A],
        lambda x: np.ones(x.shape, "int32"),
    ),
    ("cast", lambda x: K.cast(x, "int32"), [HALVES], lambda x: x.astype("int32")),
    # linear algebra: Keras 2's dot is np.dot for every rank
    ("dot_2d", lambda x: K.dot(x, M.T), [M], lambda x: x @ M.T),
    ("dot_3d_2d", lambda x: K.dot(x, A[0]), [M], lambda x: np.dot(x, A[0])),
    ("dot_nd", lambda x: K.dot(x, Y3), [A], lambda x: np.dot(x, Y3)),
    ("dot_2d_3d", lambda x: K.dot(x, Y435), [M], lambda x: np.dot(x, Y435)),
    # nn
    ("relu", K.relu, [A], _relu_ref),
    ("relu_leaky", lambda x: K.relu(x, alpha=0.1), [A], lambda x: _relu_ref(x, 0.1)),
    ("relu_max", lambda x: K.relu(x, max_value=0.5), [A], lambda x: _relu_ref(x, max_value=0.5)),
    (
        "relu_threshold",
        lambda x: K.relu(x, threshold=0.3),
        [A],
        lambda x: _relu_ref(x, threshold=0.3),
    ),
    ("relu_all", lambda x: K.relu(x, 0.2, 1.0, 0.3), [A], lambda x: _relu_ref(x, 0.2, 1.0, 0.3)),
    ("elu", lambda x: K.elu(x, 0.5), [A], lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
    ("softmax", K.softmax, [A], _softmax),
    ("softmax_axis", lambda x: K.softmax(x, axis=1), [A], lambda x: _softmax(x, 1)),
    ("softmax_axes", lambda x: K.softmax(x, axis=(1, 2)), [A], lambda x: _softmax(x, (1, 2))),
    ("softplus", K.softplus, [A], lambda x: np.log1p(np.exp(x))),
    ("softsign", K.softsign, [A], lambda x: x / (1 + np.abs(x))),
    ("sigmoid", K.sigmoid, [A], _sigmoid),
    ("hard_sigmoid", lambda x: K.hard_sigmoid(x * 4), [A], lambda x: np.clip(0.8 * x + 0.5, 0, 1)),
    (
        "l2_normalize",
        lambda x: K.l2_normalize(x, -1),
        [A],
        lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True),
    ),
    ("l2_normalize_all", K.l2_normalize, [M], lambda x: x / np.linalg.norm(x)),
    ("bias_add", lambda x: K.bias_add(x, BIAS4), [A], lambda x: x + BIAS4),
    (
        "bias_add_cf",
        lambda x: K.bias_add(x, BIAS4[:3], "channels_first"),
        [A],
        lambda x: x + BIAS4[:3, None],
    ),
    ("bias_add_nd", lambda x: K.bias_add(x, BIAS34), [A], lambda x: x + BIAS34),
    (
        "bias_add_nd_cf",
        lambda x: K.bias_add(x, BIAS34, "channels_first"),
        [A.transpose(0, 2, 1)],
        # Keras 2 reshapes (not transposes) an N-D bias to channels first
        lambda x: x + BIAS34.reshape(1, 4, 3),
    ),
    (
        "batch_normalization",
        lambda x: K.batch_normalization(x, BIAS4, BIAS4**2, BIAS4 / 3, 1 + BIAS4, epsilon=0.01),
        [A],
        lambda x: (x - BIAS4) / np.sqrt(BIAS4**2 + 0.01) * (1 + BIAS4) + BIAS4 / 3,
    ),
    (
        "batch_normalization_axis_1",
        lambda x: K.batch_normalization(x, BIAS4, BIAS4**2, None, 1 + BIAS4, axis=1),
        [A.transpose(0, 2, 1)],
        lambda x: (x - BIAS4[:, None]) / np.sqrt(BIAS4[:, None] ** 2 + 1e-3) * (1 + BIAS4[:, None]),
    ),
    (
        "in_top_k",
        lambda x, t: K.in_top_k(x, t, 2),
        [A[:, 0], np.array([0, 3], "int32")],
        lambda x, t: (x > x[[0, 1], t][:, None]).sum(1) < 2,
    ),
    (
        "conv1d_causal_dilated",
        lambda x: K.conv1d(x, KERNEL1, padding="causal", dilation_rate=2),
        [A],
        lambda x: _conv_ref(np.pad(x, [(0, 0), (4, 0), (0, 0)]), KERNEL1, (1,), "valid", (2,)),
    ),
    (
        "conv1d_same_cf",
        lambda x: K.conv1d(x, KERNEL1, strides=2, padding="same", data_format="channels_first"),
        [_cf(A)],
        lambda x: _cf(_conv_ref(np.moveaxis(x, 1, -1), KERNEL1, (2,), "same", (1,))),
    ),
    (
        "conv2d_same_strided",
        lambda x: K.conv2d(x, KERNEL2, strides=(2, 2), padding="same"),
        [IMG],
        lambda x: _conv_ref(x, KERNEL2, (2, 2), "same", (1, 1)),
    ),
    (
        "conv2d_dilated_cf",
        lambda x: K.conv2d(
            x, KERNEL2, padding="valid", data_format="channels_first", dilation_rate=(1, 2)
        ),
        [_cf(IMG)],
        lambda x: _cf(_conv_ref(np.moveaxis(x, 1, -1), KERNEL2, (1, 1), "valid", (1, 2))),
    ),
    (
        "conv3d",
        lambda x: K.conv3d(x, KERNEL3, padding="same"),
        [VOL],
        lambda x: _conv_ref(x, KERNEL3, (1, 1, 1), "same", (1, 1, 1)),
    ),
    (
        "depthwise_conv2d",
        lambda x: K.depthwise_conv2d(x, DEPTH, strides=(1, 2), padding="same"),
        [IMG],
        lambda x: _depthwise_ref(x, DEPTH, (1, 2), "same", (1, 1)),
    ),
    (
        "separable_conv2d",
        lambda x: K.separable_conv2d(x, DEPTH, POINT),
        [IMG],
        lambda x: _depthwise_ref(x, DEPTH, (1, 1), "valid", (1, 1)) @ POINT[0, 0],
    ),
    (
        "separable_conv1d",
        lambda x: K.separable_conv1d(x, DEPTH1, POINT1, padding="same"),
        [A],
        lambda x: _depthwise_ref(x, DEPTH1, (1,), "same", (1,)) @ POINT1[0],
    ),
    (
        "local_conv1d",
        lambda x: K.local_conv1d(x, LOCAL1, (2,), (1,)),
        [A],
        lambda x: _local_ref(x, LOCAL1, (2,), (1,), (2,)),
    ),
    (
        "local_conv2d",
        lambda x: K.local_conv2d(x, LOCAL2, (2, 2), (2, 2), (2, 2)),
        [IMG],
        lambda x: _local_ref(x, LOCAL2, (2, 2), (2, 2), (2, 2)),
    ),
    (
        "local_conv2d_cf",
        lambda x: K.local_conv2d(x, LOCAL2, (2, 2), (2, 3), (2, 2), "channels_first"),
        [_cf(IMG)[:, :, :, :5]],
        lambda x: _local_ref(x, LOCAL2, (2, 2), (2, 3), (2, 2), channels_first=True),
    ),
    (
        "conv2d_transpose_valid",
        lambda x: K.conv2d_transpose(x, TKERNEL, (None, 10, 12, 2), strides=(2, 2)),
        [IMG],
        lambda x: _transpose_conv_ref(x, TKERNEL, (10, 12), (2, 2), "valid"),
    ),
    (
        "conv2d_transpose_same",
        lambda x: K.conv2d_transpose(x, TKERNEL, (2, 7, 10, 2), strides=(2, 2), padding="same"),
        [IMG],
        lambda x: _transpose_conv_ref(x, TKERNEL, (7, 10), (2, 2), "same"),
    ),
    (
        "conv2d_transpose_same_cf",
        lambda x: K.conv2d_transpose(
            x, TKERNEL, (2, 2, 8, 9), strides=(2, 2), padding="same", data_format="channels_first"
        ),
        [_cf(IMG)],
        lambda x: _cf(_transpose_conv_ref(np.moveaxis(x, 1, -1), TKERNEL, (8, 9), (2, 2), "same")),
    ),
    (
        "conv3d_transpose",
        lambda x: K.conv3d_transpose(x, TKERNEL3, (None, 5, 8, 2, 2), (2, 2, 1), "same"),
        [VOL],
        lambda x: _transpose_conv3d_ref(x, TKERNEL3, (5, 8, 2), (2, 2, 1), "same"),
    ),
    (
        "normalize_batch_in_training",
        lambda x: K.concatenate(
            [
                K.flatten(t)
                for t in K.normalize_batch_in_training(x, BIAS4[:3], BIAS4[1:], [0, 2], 0.01)
            ],
            0,
        ),
        [A],
        lambda x: np.concatenate(
            [
                (
                    (x - x.mean((0, 2), keepdims=True))
                    / np.sqrt(x.var((0, 2), keepdims=True) + 0.01)
                    * BIAS4[:3, None]
                    + BIAS4[1:, None]
                ).ravel(),
                x.mean((0, 2)),
                x.var((0, 2)),
            ]
        ),
    ),
    (
        "pool2d_max_same",
        lambda x: K.pool2d(x, (2, 2), (2, 2), padding="same"),
        [IMG],
        lambda x: _pool_ref(x, (2, 2), (2, 2), "same", "max"),
    ),
    (
        "pool2d_avg_same_cf",
        lambda x: K.pool2d(x, (3, 3), (2, 2), "same", "channels_first", "avg"),
        [_cf(IMG)],
        lambda x: _cf(_pool_ref(np.moveaxis(x, 1, -1), (3, 3), (2, 2), "same", "avg")),
    ),
    (
        "pool2d_default_strides",
        lambda x: K.pool2d(x, (2, 2), pool_mode="avg"),
        [IMG],
        lambda x: _pool_ref(x, (2, 2), (1, 1), "valid", "avg"),
    ),
    (
        "pool3d",
        lambda x: K.pool3d(x, (2, 2, 2), (1, 2, 1)),
        [VOL],
        lambda x: _pool_ref(x, (2, 2, 2), (1, 2, 1), "valid", "max"),
    ),
    # losses: Keras 2's argument order (target, output) and epsilon clipping
    ("categorical_crossentropy", K.categorical_crossentropy, [ONEHOT, PROBS], _cce_ref),
    (
        "categorical_crossentropy_axis",
        lambda t, p: K.categorical_crossentropy(t, p, axis=1),
        [ONEHOT, PROBS],
        lambda t, p: _cce_ref(t, p, 1),
    ),
    (
        "categorical_crossentropy_logits",
        lambda t, z: K.categorical_crossentropy(t, z, from_logits=True),
        [ONEHOT, A],
        lambda t, z: -(t * _log_softmax(z)).sum(-1),
    ),
    (
        "sparse_categorical_crossentropy",
        K.sparse_categorical_crossentropy,
        [INTS % 4, PROBS],
        _scce_ref,
    ),
    (
        "sparse_categorical_crossentropy_logits",
        lambda t, z: K.sparse_categorical_crossentropy(t, z, from_logits=True),
        [INTS % 4, A],
        lambda t, z: -np.take_along_axis(_log_softmax(z), t[..., None], -1)[..., 0],
    ),
    (
        "sparse_categorical_crossentropy_ignore",
        lambda t, p: K.sparse_categorical_crossentropy(t, p, ignore_class=0),
        [INTS % 4, PROBS],
        lambda t, p: _scce_ref(t, p, ignore=0),
    ),
    (
        "sparse_categorical_crossentropy_axis",
        lambda t, p: K.sparse_categorical_crossentropy(t, p, axis=1),
        [INTS[:, :2] % 3, PROBS.transpose(0, 2, 1)[:, :3, :2]],
        lambda t, p: _scce_ref(t, np.moveaxis(p, 1, -1)),
    ),
    ("binary_crossentropy", K.binary_crossentropy, [BINARY, PROBS], _bce_ref),
    ("binary_crossentropy_clipped", K.binary_crossentropy, [BINARY, BINARY], _bce_ref),
    (
        "binary_crossentropy_logits",
        lambda t, z: K.binary_crossentropy(t, z * 20, from_logits=True),
        [BINARY, A],
        lambda t, z: _bce_logits_ref(t, z * 20),
    ),
    (
        "binary_focal_crossentropy",
        lambda t, p: K.binary_focal_crossentropy(t, p, True, 0.3, 1.5),
        [BINARY, PROBS],
        lambda t, p: (
            (t * 0.3 + (1 - t) * 0.7) * (1 - (t * p + (1 - t) * (1 - p))) ** 1.5 * _bce_ref(t, p)
        ),
    ),
    (
        "binary_focal_crossentropy_logits",
        lambda t, z: K.binary_focal_crossentropy(t, z, gamma=2.0, from_logits=True),
        [BINARY, A],
        lambda t, z: (
            (1 - (t * _sigmoid(z) + (1 - t) * (1 - _sigmoid(z)))) ** 2 * _bce_logits_ref(t, z)
        ),
    ),
    (
        "categorical_focal_crossentropy",
        K.categorical_focal_crossentropy,
        [ONEHOT, PROBS],
        lambda t, p: (
            -0.25
            * (1 - (q := np.clip(p / p.sum(-1, keepdims=True), _eps(), 1 - _eps()))) ** 2
            * t
            * np.log(q)
        ).sum(-1),
    ),
    # control flow
    (
        "switch_elementwise",
        lambda x, y: K.switch(K.greater(x, 0), x, y),
        [A, B],
        lambda x, y: np.where(x > 0, x, y),
    ),
    (
        "switch_per_sample",
        lambda x, y: K.switch(K.greater(K.sum(x, (1, 2)), 0), x, y),
        [A, B],
        lambda x, y: np.where(x.sum((1, 2))[:, None, None] > 0, x, y),
    ),
    (
        "map_fn",
        lambda x: K.map_fn(lambda row: row * 2 + K.sum(row), x),
        [A],
        lambda x: x * 2 + x.sum((1, 2), keepdims=True),
    ),
    ("foldl", lambda x: K.foldl(lambda acc, r: acc * 2 + r, x), [A], lambda x: x[0] * 2 + x[1]),
    ("foldr", lambda x: K.foldr(lambda acc, r: acc * 2 + r, x), [A], lambda x: x[1] * 2 + x[0]),
    (
        "foldl_initializer",
        lambda x: K.foldl(lambda acc, r: acc - r, x, initializer=ops.ones((3, 4))),
        [A],
        lambda x: 1 - x[0] - x[1],
    ),
]
# batch_dot: Keras 2's documented shapes and NumPy formulas of its result.
BATCH_DOT = [
    ((2, 5, 1), (2, 3, 5), (1, 2), (2, 1, 3)),  # the docs' (32,20,1).(32,30,20) -> (32,1,30)
    ((2, 3), (2, 3), 1, (2, 1)),
    ((2, 3, 4), (2, 4, 5), None, (2, 3, 5)),
    ((2, 4), (2, 4, 5), None, (2, 5)),
    ((2, 3, 4), (2, 4), None, (2, 3)),
    ((2, 3, 4, 5), (2, 5, 6, 3), (1, 3), (2, 4, 5, 5, 6)),
    ((2, 3, 4), (2, 5, 4), (-1, -1), (2, 3, 5)),
]
for _i, (_xs, _ys, _axes, _out) in enumerate(BATCH_DOT):
    _x = RNG.normal(size=_xs).astype("float32")
    _y = RNG.normal(size=_ys).astype("float32")
    if _axes is None:
        _ref_axes = (len(_xs) - 1, len(_ys) - 1 if len(_ys) == 2 else len(_ys) - 2)
    elif isinstance(_axes, int):
        _ref_axes = (_axes, _axes)
    else:
        _ref_axes = (_axes[0] % len(_xs), _axes[1] % len(_ys))
    assert _batch_dot_ref(_x, _y, _ref_axes).shape == _out
    CASES.append(
        (
            f"batch_dot_{_i}",
            lambda x, y, axes=_axes: K.batch_dot(x, y, axes),
            [_x, _y],
            lambda x, y, axes=_ref_axes: _batch_dot_ref(x, y, axes),
        )
    )


# Models built on the symbolic results run for a sample (each costs a compilation): every
# composite that becomes one graph node, and every fifth case.
_COMPOSITES = (
    "local_conv",
    "batch_flatten",
    "resize_images",
    "conv2d_transpose",
    "switch",
    "map_fn",
    "fold",
)
RUN_AS_MODEL = {c[0] for i, c in enumerate(CASES) if i % 5 == 0 or c[0].startswith(_COMPOSITES)}


@pytest.mark.parametrize("name, fn, inputs, reference", CASES, ids=[c[0] for c in CASES])
def test_function_matches_numpy_eagerly_and_symbolically(name, fn, inputs, reference):
    eager = _np(fn(*inputs))
    want = np.asarray(
        reference(*[x.astype("float64") if x.dtype == "float32" else x for x in inputs])
    )
    assert eager.shape == want.shape
    np.testing.assert_allclose(eager, want, rtol=2e-5, atol=2e-5)

    symbolic_inputs = [lamina.Input(x.shape[1:], dtype=str(x.dtype)) for x in inputs]
    symbolic = fn(*symbolic_inputs)
    assert isinstance(symbolic, lamina.graph.KerasTensor)
    assert len(symbolic.shape) == eager.ndim
    assert all(s is None or s == e for s, e in zip(symbolic.shape, eager.shape, strict=True))
    assert symbolic.dtype == backend.standardize_dtype(eager.dtype)
    if name not in RUN_AS_MODEL:
        return
    model = lamina.Model(symbolic_inputs, symbolic)
    np.testing.assert_allclose(_np(model(inputs)), eager, rtol=1e-5, atol=1e-5)


# Gradients of a sample, against central differences of the NumPy reference -------------
GRAD_CASES = [
    "relu_all",
    "softmax_axes",
    "batch_dot_5",
    "categorical_crossentropy",
    "binary_crossentropy_logits",
    "conv2d_transpose_same",
]
_BY_NAME = {c[0]: c for c in CASES}


def _engine_grad(fn, inputs, wrt):
    """d sum(fn(*inputs)) / d inputs[wrt], by the engine's autodiff."""
    if backend.backend() == "jax":
        import jax

        def total(x):
            args = list(inputs)
            args[wrt] = x
            return ops.sum(fn(*args))

        return np.asarray(jax.grad(total)(inputs[wrt]))
    import torch

    x = torch.tensor(inputs[wrt], requires_grad=True)
    args = list(inputs)
    args[wrt] = x
    ops.sum(fn(*args)).backward()
    return x.grad.numpy()


def _numeric_grad(reference, inputs, wrt, eps=1e-4):
    base = [x.astype("float64") if x.dtype == "float32" else x for x in inputs]
    x = base[wrt]
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        plus = np.sum(reference(*base[:wrt], up, *base[wrt + 1 :]))
        minus = np.sum(reference(*base[:wrt], down, *base[wrt + 1 :]))
        grad[index] = (plus - minus) / (2 * eps)
    return grad


@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradients_match_finite_differences(name):
    _, fn, inputs, reference = _BY_NAME[name]
    wrt = len(inputs) - 1  # the output / the last operand
    got = _engine_grad(fn, inputs, wrt)
    np.testing.assert_allclose(got, _numeric_grad(reference, inputs, wrt), rtol=2e-3, atol=2e-3)


# Shapes, dtypes and tensors -------------------------------------------------------------
def test_shape_functions_on_arrays_variables_and_keras_tensors():
    variable = backend.Variable(np.zeros((2, 3), "float32"))
    tensor = ops.ones((4, 1), dtype="int32")
    symbolic = lamina.Input((3, 5))
    assert K.int_shape(A) == (2, 3, 4) and K.int_shape(variable) == (2, 3)
    assert K.int_shape(tensor) == (4, 1) and K.int_shape(symbolic) == (None, 3, 5)
    assert K.int_shape(3.0) is None
    assert [K.ndim(v) for v in (A, variable, tensor, symbolic)] == [3, 2, 2, 3]
    assert [K.dtype(v) for v in (A, variable, tensor, symbolic)] == [
        "float32",
        "float32",
        "int32",
        "float32",
    ]
    assert K.shape(A).tolist() == [2, 3, 4] and K.shape(variable).tolist() == [2, 3]
    dynamic = K.shape(symbolic)
    assert isinstance(dynamic, lamina.graph.KerasTensor)
    assert dynamic.shape == (3,) and dynamic.dtype == "int32"
    model = lamina.Model(symbolic, K.cast(dynamic, "float32") * 1.0)
    assert _np(model(np.zeros((7, 3, 5), "float32"))).tolist() == [7.0, 3.0, 5.0]
    # lamina.backend.is_tensor is the engine's (engine arrays only); the classic one
    # counts every kind of tensor, as Keras 2's did.
    assert all(backend_ops.is_tensor(t) for t in (tensor, variable, symbolic))
    assert not backend_ops.is_tensor(A)
    assert K.is_keras_tensor(symbolic) and not K.is_keras_tensor(tensor)
    with pytest.raises(ValueError, match="expects a tensor"):
        K.is_keras_tensor(A)
    assert not K.is_sparse(tensor) and K.to_dense(tensor) is tensor
    floats = K.cast_to_floatx([1, 2])
    assert isinstance(floats, np.ndarray) and floats.dtype == "float32"
    assert K.dtype(K.cast_to_floatx(tensor)) == "float32"


def test_shape_in_a_lambda_layer_sizes_new_tensors_in_compiled_code():
    # The classic VAE sampling layer: noise shaped by K.shape of the input.
    z = lamina.Input((2,))
    noise = lamina.layers.Lambda(lambda t: t + 0.0 * K.random_normal((K.shape(t)[0], 2), seed=3))(z)
    flat = lamina.layers.Lambda(lambda t: K.reshape(t, (K.shape(t)[0], -1)))(noise)
    model = lamina.Model(z, flat)
    assert model.output_shape == (None, 2)
    x = RNG.normal(size=(5, 2)).astype("float32")
    np.testing.assert_allclose(model.predict(x, verbose=0), x, atol=1e-6)


def test_arange_zeros_ones_eye():
    assert _np(K.arange(4)).tolist() == [0, 1, 2, 3]
    assert _np(K.arange(-3)).tolist() == []  # Keras 2 clamps a lone negative start
    assert _np(K.arange(1, 7, 2)).tolist() == [1, 3, 5]
    assert K.dtype(K.arange(3)) == "int32" and K.dtype(K.arange(3, dtype="float32")) == "float32"
    # lamina.backend's zeros/ones/eye are the graph API's classic variables; these are
    # the plain-Variable versions they build on.
    for made, want in [
        (backend_ops.zeros((2, 3)), np.zeros((2, 3))),
        (backend_ops.ones((2,), dtype="int32", name="o"), np.ones(2)),
        (backend_ops.eye(3), np.eye(3)),
        (backend_ops.eye((2, 3)), np.eye(2, 3)),
    ]:
        assert isinstance(made, backend.Variable)
        np.testing.assert_array_equal(_np(made.value), want)
    assert backend_ops.ones((2,), dtype="int32").dtype == "int32"
    assert backend_ops.zeros((1,)).dtype == "float32"
    assert _np(backend_ops.sum(backend_ops.eye(3))) == 3.0  # ops read a Variable's value


# Random ---------------------------------------------------------------------------------
def test_random_functions_draw_from_their_distributions():
    n = (4000,)  # one shape throughout: each new shape is a new compilation
    normal = _np(K.random_normal(n, mean=1.0, stddev=2.0, seed=1))
    assert normal.dtype == "float32" and abs(normal.mean() - 1.0) < 0.15
    assert abs(normal.std() - 2.0) < 0.15
    np.testing.assert_array_equal(normal, _np(K.random_normal(n, 1.0, 2.0, seed=1)))
    uniform = _np(K.random_uniform(n, -1.0, 3.0, seed=2))
    assert uniform.min() >= -1.0 and uniform.max() < 3.0 and abs(uniform.mean() - 1.0) < 0.1
    truncated = _np(K.truncated_normal(n, stddev=0.5, seed=3))
    assert np.abs(truncated).max() <= 1.0 + 1e-6
    for fn, dtype in ((K.random_bernoulli, "float32"), (K.random_binomial, "int32")):
        coins = fn(n, p=0.3, dtype=dtype, seed=4)
        assert K.dtype(coins) == dtype
        coins = _np(coins)
        assert set(np.unique(coins)) <= {0, 1} and abs(coins.mean() - 0.3) < 0.05
    variable = K.random_normal_variable(n, 0.0, 1.0, name="w", seed=5)
    assert isinstance(variable, backend.Variable) and variable.shape == n
    assert variable.name == "w"
    variable = K.random_uniform_variable(n, 2.0, 3.0, seed=6)
    values = _np(variable.value)
    assert isinstance(variable, backend.Variable) and values.min() >= 2.0 and values.max() < 3.0
    assert K.int_shape(K.random_uniform(K.shape(A)[:2], seed=1)) == (2, 3)


def test_dropout_zeroes_and_rescales():
    x = np.ones((2000,), "float32")
    dropped = _np(K.dropout(x, 0.25, seed=7))
    assert set(np.unique(dropped)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((dropped == 0).mean() - 0.25) < 0.05
    rows = _np(K.dropout(np.ones((50, 4), "float32"), 0.5, noise_shape=(50, 1), seed=8))
    assert all(len(set(r)) == 1 for r in rows)  # one draw per row
    symbolic = K.dropout(lamina.Input((4,)), 0.5, seed=1)
    assert symbolic.shape == (None, 4)


# Control flow ---------------------------------------------------------------------------
def test_switch_with_a_scalar_condition_runs_one_branch():
    calls = []

    def branch(value):
        def fn():
            calls.append(value)
            return ops.ones((2,)) * value

        return fn

    assert _np(K.switch(True, branch(1.0), branch(2.0))).tolist() == [1.0, 1.0]
    assert _np(K.switch(np.array(0), 3.0 * np.ones(2), -np.ones(2))).tolist() == [-1.0, -1.0]
    with pytest.raises(ValueError, match="rank"):
        K.switch(np.ones((2, 2)) > 0, np.ones(2), np.ones(2))


def _rnn_reference(x, w, u, h0, mask=None, backwards=False, zero_output=False):
    steps = range(x.shape[1] - 1, -1, -1) if backwards else range(x.shape[1])
    h, prev, outputs = h0, np.zeros_like(h0), []
    for t in steps:
        new = np.tanh(x[:, t] @ w + h @ u)
        if mask is not None:
            keep = mask[:, t][:, None]
            out = np.where(keep, new, 0.0 if zero_output else prev)
            h = np.where(keep, new, h)
        else:
            out = h = new
        prev = out
        outputs.append(out)
    return outputs[-1], np.stack(outputs, 1), h


W = RNG.normal(size=(4, 3)).astype("float32") * 0.5
U = RNG.normal(size=(3, 3)).astype("float32") * 0.5
MASK = np.array([[1, 1, 0, 1, 0], [1, 0, 0, 1, 1]], bool)


@pytest.mark.parametrize(
    "options",
    [
        {"go_backwards": True},
        {"mask": MASK},
        {"mask": MASK, "zero_output_for_mask": True, "go_backwards": True},
        {"time_major": True, "unroll": True, "constants": True},
    ],
    ids=["backwards", "mask", "mask_zero_backwards", "time_major_constants"],
)
def test_rnn_matches_a_numpy_loop(options):
    options = dict(options)
    x = RNG.normal(size=(2, 5, 4)).astype("float32")
    h0 = RNG.normal(size=(2, 3)).astype("float32")
    use_constants = options.pop("constants", False)
    time_major = options.get("time_major", False)

    def step(x_t, states):
        # With constants, the states are followed by a scale (1.0) to multiply by.
        scale = states[1] if use_constants else 1.0
        new = ops.tanh(ops.matmul(x_t, W) + ops.matmul(states[0], U)) * scale
        return new, [new]

    if use_constants:
        options["constants"] = [np.ones((1,), "float32")]
    inputs = np.swapaxes(x, 0, 1) if time_major else x
    last, outputs, states = K.rnn(step, inputs, [h0], **options)
    want_last, want_outputs, want_h = _rnn_reference(
        x,
        W,
        U,
        h0,
        options.get("mask"),
        options.get("go_backwards", False),
        options.get("zero_output_for_mask", False),
    )
    if time_major:
        want_outputs = np.swapaxes(want_outputs, 0, 1)
    np.testing.assert_allclose(_np(last), want_last, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(_np(outputs), want_outputs, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(_np(states[0]), want_h, rtol=1e-5, atol=1e-5)
    if not time_major and "mask" not in options:
        seq = lamina.Input((5, 4))
        state = lamina.Input((3,))
        s_last, s_outputs, s_states = K.rnn(step, seq, [state], **options)
        assert s_last.shape == (None, 3) and s_outputs.shape == (None, 5, 3)
        assert s_states[0].shape == (None, 3)
        model = lamina.Model([seq, state], s_outputs)
        np.testing.assert_allclose(_np(model([x, h0])), want_outputs, rtol=1e-5, atol=1e-5)


def test_rnn_gradient_matches_finite_differences():
    x = RNG.normal(size=(2, 3, 4)).astype("float32")
    h0 = np.zeros((2, 3), "float32")

    def run(inputs):
        def step(x_t, states):
            new = ops.tanh(ops.matmul(x_t, W) + ops.matmul(states[0], U))
            return new, [new]

        return K.rnn(step, inputs, [h0], mask=MASK[:, :3])[1]

    got = _engine_grad(run, [x], 0)
    want = _numeric_grad(lambda v: _rnn_reference(v, W, U, h0, MASK[:, :3])[1], [x], 0)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)


# CTC ------------------------------------------------------------------------------------
def test_ctc_batch_cost_and_decode_take_softmax_outputs_with_the_last_class_blank():
    rng = np.random.default_rng(3)
    y_pred = _softmax(rng.normal(size=(2, 4, 3)))
    labels = np.array([[0, 1], [1, 1]], "int32")
    input_length = np.array([[4], [4]])
    label_length = np.array([[2], [1]])
    cost = _np(K.ctc_batch_cost(labels, y_pred.astype("float32"), input_length, label_length))
    assert cost.shape == (2, 1)
    log_p = np.log(y_pred + _eps())
    for b in range(2):  # brute force over every path of 4 steps, blank = class 2
        label = tuple(labels[b, : label_length[b, 0]])
        total = 0.0
        for path in itertools.product(range(3), repeat=4):
            collapsed = tuple(
                c for i, c in enumerate(path) if c != 2 and (i == 0 or path[i - 1] != c)
            )
            if collapsed == label:
                total += np.exp(sum(log_p[b, t, c] for t, c in enumerate(path)))
        norm = np.exp(log_p[b]).sum(-1)  # log(p + eps) is renormalized by the loss
        assert cost[b, 0] == pytest.approx(-np.log(total) + np.log(norm).sum(), rel=1e-4)

    probs = np.array(
        [[[0.1, 0.8, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8], [0.7, 0.2, 0.1]]], "float32"
    )
    decoded, log_prob = K.ctc_decode(probs, np.array([4]))
    assert len(decoded) == 1 and _np(decoded[0]).tolist() == [[1, 0, -1, -1]]
    want = -np.log(np.array([0.8, 0.8, 0.8, 0.7]) + _eps()).sum()
    assert _np(log_prob).tolist()[0][0] == pytest.approx(want, rel=1e-5)
    paths, scores = K.ctc_decode(probs, np.array([4]), greedy=False, beam_width=5, top_paths=2)
    assert len(paths) == 2 and _np(paths[0]).tolist() == [[1, 0, -1, -1]]
    assert _np(scores).shape == (1, 2) and _np(scores)[0, 0] > _np(scores)[0, 1]
    # Keras 2's beam search merges equal neighbours of a path even across a blank.
    repeat = np.array([[[0.05, 0.9, 0.05], [0.05, 0.05, 0.9], [0.05, 0.9, 0.05]]], "float32")
    assert _np(K.ctc_decode(repeat, np.array([3]))[0][0]).tolist() == [[1, 1, -1]]
    merged = K.ctc_decode(repeat, np.array([3]), greedy=False, beam_width=3)[0][0]
    assert _np(merged).tolist() == [[1, -1, -1]]
    with pytest.raises(NotImplementedError, match="no sparse tensors"):
        K.ctc_label_dense_to_sparse(labels, label_length)


# Use in training code -------------------------------------------------------------------
def test_a_custom_loss_and_metric_written_with_k_train_a_model():
    def mse(y_true, y_pred):
        return K.mean(K.square(y_pred - y_true), axis=-1)

    def max_error(y_true, y_pred):
        return K.max(K.abs(y_pred - y_true))

    lamina.utils.set_random_seed(0)
    x = RNG.normal(size=(64, 3)).astype("float32")
    y = x @ np.array([[1.0], [-2.0], [0.5]], "float32")
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(1)])
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss=mse, metrics=[max_error])
    history = model.fit(x, y, epochs=20, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < 0.01 * history.history["loss"][0]
    assert "max_error" in history.history


def test_get_uid_counts_per_prefix():
    K.reset_uids()
    assert [K.get_uid("dense"), K.get_uid("dense"), K.get_uid("conv")] == [1, 2, 1]
    K.clear_session()
    assert K.get_uid("dense") == 1


def test_print_tensor_prints_and_returns_its_input(capsys):
    np.testing.assert_array_equal(_np(K.print_tensor(M, message="M is")), M)
    assert "M is" in capsys.readouterr().out
    assert K.print_tensor(lamina.Input((3,)), "x").shape == (None, 3)


def test_errors_name_what_was_wrong():
    x = lamina.Input((3, 4))
    with pytest.raises(ValueError, match="known only when the graph runs"):
        K.reshape(x, (K.shape(x)[0], -1))
    with pytest.raises(ValueError, match="rank 2 or more"):
        K.batch_dot(np.ones(3), np.ones((3, 3)))
    with pytest.raises(ValueError, match="batch axis 0"):
        K.batch_dot(np.ones((2, 3)), np.ones((2, 3)), axes=0)
    with pytest.raises(ValueError, match=r"x.shape\[1\] != y.shape\[1\]"):
        K.batch_dot(np.ones((2, 3)), np.ones((2, 4)), axes=1)
    with pytest.raises(ValueError, match="1-D"):
        K.softmax(np.ones(3))
    with pytest.raises(ValueError, match="2-D tensor"):
        K.repeat(np.ones((2, 3, 4)), 2)
    with pytest.raises(ValueError, match="pool_mode"):
        K.pool2d(IMG, (2, 2), pool_mode="min")
    with pytest.raises(ValueError, match="padding"):
        K.conv2d(IMG, KERNEL2, padding="full")
    with pytest.raises(ValueError, match="rank 1 or 2"):
        K.bias_add(A, np.ones((2, 2, 2, 2)))
    with pytest.raises(ValueError, match="possible lengths are 7 to 8"):
        K.conv2d_transpose(IMG, TKERNEL, (2, 20, 10, 2), (2, 2), "same")
    with pytest.raises(ValueError, match="possible lengths are 9 to 10"):
        K.conv2d_transpose(IMG, TKERNEL, (2, 11, 11, 2), (2, 2), "valid")
