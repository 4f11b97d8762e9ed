"""Convolution layers: conformance (check_layer), numerics against NumPy loops, errors."""

import itertools

import numpy as np
import pytest
from scipy import signal

from lamina import backend, layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(7)


# NumPy references ---------------------------------------------------------------------
def _pads(spatial, kernel, strides, dilation, padding):
    """(before, after) pads and output sizes, TF/Keras rules."""
    pads, outs = [], []
    for n, k, s, d in zip(spatial, kernel, strides, dilation, strict=True):
        k_eff = (k - 1) * d + 1
        if padding == "valid":
            out, pad = (n - k_eff) // s + 1, (0, 0)
        elif padding == "causal":
            out, pad = (n - 1) // s + 1, (k_eff - 1, 0)
        else:
            out = -(-n // s)
            total = max((out - 1) * s + k_eff - n, 0)
            pad = (total // 2, total - total // 2)
        pads.append(pad)
        outs.append(out)
    return pads, outs


def _offsets(kernel_spatial):
    return itertools.product(*[range(k) for k in kernel_spatial])


def _window(xp, t, strides, dilation, outs):
    idx = tuple(
        slice(ti * d, ti * d + (o - 1) * s + 1, s)
        for ti, s, d, o in zip(t, strides, dilation, outs, strict=True)
    )
    return xp[(slice(None),) + idx + (slice(None),)]


def ref_conv(x, w, strides, padding, dilation, groups=1):
    """Channels-last grouped convolution, by summing over kernel offsets."""
    rank = x.ndim - 2
    pads, outs = _pads(x.shape[1:-1], w.shape[:rank], strides, dilation, padding)
    xp = np.pad(x.astype(np.float64), [(0, 0)] + pads + [(0, 0)])
    cin_g, cout = w.shape[-2], w.shape[-1]
    cout_g = cout // groups
    out = np.zeros((x.shape[0], *outs, cout))
    for t in _offsets(w.shape[:rank]):
        win = _window(xp, t, strides, dilation, outs)
        for g in range(groups):
            xs = win[..., g * cin_g : (g + 1) * cin_g]
            ws = w[t][:, g * cout_g : (g + 1) * cout_g]
            out[..., g * cout_g : (g + 1) * cout_g] += xs @ ws
    return out


def ref_depthwise(x, w, strides, padding, dilation):
    rank = x.ndim - 2
    pads, outs = _pads(x.shape[1:-1], w.shape[:rank], strides, dilation, padding)
    xp = np.pad(x.astype(np.float64), [(0, 0)] + pads + [(0, 0)])
    c, m = w.shape[-2:]
    out = np.zeros((x.shape[0], *outs, c, m))
    for t in _offsets(w.shape[:rank]):
        out += _window(xp, t, strides, dilation, outs)[..., :, None] * w[t]
    return out.reshape(out.shape[:-2] + (c * m,))


def ref_conv_transpose(x, w, strides, padding, dilation, output_padding=None):
    """Scatter each input element through the `(*k, out, in)` kernel, then crop."""
    rank = x.ndim - 2
    spatial = x.shape[1:-1]
    fulls, lengths, starts = [], [], []
    for i in range(rank):
        n, k, s, d = spatial[i], w.shape[i], strides[i], dilation[i]
        k_eff = (k - 1) * d + 1
        full = (n - 1) * s + k_eff
        if output_padding is None:
            length = n * s + max(k_eff - s, 0) if padding == "valid" else n * s
        else:
            pad = k_eff // 2 if padding == "same" else 0
            length = (n - 1) * s + k_eff - 2 * pad + output_padding[i]
        start = max(full - length, 0) // 2 if padding == "same" else 0
        fulls.append(max(full, start + length))
        lengths.append(length)
        starts.append(start)
    y = np.zeros((x.shape[0], *fulls, w.shape[-2]))
    for t in _offsets(w.shape[:rank]):
        idx = tuple(
            slice(
                t[i] * dilation[i],
                t[i] * dilation[i] + (spatial[i] - 1) * strides[i] + 1,
                strides[i],
            )
            for i in range(rank)
        )
        y[(slice(None),) + idx] += x.astype(np.float64) @ w[t].T
    crop = tuple(slice(st, st + n) for st, n in zip(starts, lengths, strict=True))
    return y[(slice(None),) + crop]


def _cl(x):  # channels_first -> channels_last
    return np.moveaxis(x, 1, -1)


def _cf(x):  # channels_last -> channels_first
    return np.moveaxis(x, -1, 1)


def _data(shape):
    return RNG.standard_normal(shape).astype("float32")


def _close(got, want):
    np.testing.assert_allclose(ops.convert_to_numpy(got), want, rtol=1e-4, atol=1e-4)


# Random initializers compile once per weight shape (about a second each), so the layers
# here start from constant weights; numerics tests then load NumPy random weights.
def _fast(cls, kwargs):
    import inspect

    params = inspect.signature(cls.__init__).parameters
    names = ("kernel_initializer", "depthwise_initializer", "pointwise_initializer")
    return {**{n: "ones" for n in names if n in params}, **kwargs}


def _random_layer(cls, x_in, **kwargs):
    layer = cls(**_fast(cls, kwargs))
    layer(x_in)
    layer.set_weights([_data(w.shape) for w in layer.weights])
    return layer


# Conformance ----------------------------------------------------------------------------
CONFORMANCE = [
    (layers.Conv1D, {"filters": 4, "kernel_size": 3}, (2, 7, 3), (2, 5, 4), 2),
    (
        layers.Conv1D,
        {"filters": 4, "kernel_size": 3, "padding": "causal", "dilation_rate": 2},
        (2, 7, 3),
        (2, 7, 4),
        2,
    ),
    (
        layers.Conv1D,
        {"filters": 4, "kernel_size": 2, "strides": 2, "padding": "same", "groups": 2},
        (2, 7, 6),
        (2, 4, 4),
        2,
    ),
    (
        layers.Conv2D,
        {"filters": 4, "kernel_size": 3, "padding": "same", "data_format": "channels_first"},
        (2, 3, 5, 6),
        (2, 4, 5, 6),
        2,
    ),
    (
        layers.Conv2D,
        {"filters": 2, "kernel_size": 2, "dilation_rate": 2, "activation": "relu"},
        (2, 6, 7, 3),
        (2, 4, 5, 2),
        2,
    ),
    (
        layers.Conv3D,
        {
            "filters": 2,
            "kernel_size": 2,
            "strides": 2,
            "padding": "same",
            "data_format": "channels_first",
        },
        (1, 2, 3, 4, 5),
        (1, 2, 2, 2, 3),
        2,
    ),
    (
        layers.Conv1DTranspose,
        {"filters": 3, "kernel_size": 3, "strides": 2, "padding": "same", "output_padding": 1},
        (2, 5, 2),
        (2, 10, 3),
        2,
    ),
    (
        layers.Conv2DTranspose,
        {
            "filters": 2,
            "kernel_size": 2,
            "strides": 2,
            "padding": "same",
            "data_format": "channels_first",
        },
        (1, 3, 4, 5),
        (1, 2, 8, 10),
        2,
    ),
    (
        layers.Conv3DTranspose,
        {"filters": 2, "kernel_size": 2, "dilation_rate": 2},
        (1, 2, 3, 2, 2),
        (1, 4, 5, 4, 2),
        2,
    ),
    (layers.DepthwiseConv1D, {"kernel_size": 3, "depth_multiplier": 2}, (2, 7, 3), (2, 5, 6), 2),
    (
        layers.DepthwiseConv2D,
        {"kernel_size": 2, "data_format": "channels_first", "dilation_rate": 2},
        (1, 2, 5, 6),
        (1, 2, 3, 4),
        2,
    ),
    (layers.SeparableConv1D, {"filters": 4, "kernel_size": 3}, (2, 7, 3), (2, 5, 4), 3),
    (
        layers.SeparableConv2D,
        {
            "filters": 4,
            "kernel_size": 3,
            "padding": "same",
            "depth_multiplier": 2,
            "data_format": "channels_first",
        },
        (1, 3, 5, 6),
        (1, 4, 5, 6),
        3,
    ),
]


@pytest.mark.parametrize(
    "cls, kwargs, shape, out_shape, n_weights",
    CONFORMANCE,
    ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CONFORMANCE)],
)
def test_conformance(cls, kwargs, shape, out_shape, n_weights):
    check_layer(
        cls,
        _fast(cls, kwargs),
        input_shape=shape,
        expected_output_shape=out_shape,
        expected_num_trainable_weights=n_weights,
        expected_num_non_trainable_weights=0,
    )


# Numerics -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "cls, shape, kwargs, data_format",
    [
        (
            layers.Conv1D,
            (2, 11, 3),
            {"filters": 4, "kernel_size": 4, "strides": 3},
            "channels_last",
        ),
        (
            layers.Conv1D,
            (2, 9, 3),
            {"filters": 2, "kernel_size": 3, "padding": "causal", "dilation_rate": 2},
            "channels_first",
        ),
        (
            layers.Conv1D,
            (2, 10, 4),
            {"filters": 6, "kernel_size": 2, "padding": "same", "strides": 3, "groups": 2},
            "channels_last",
        ),
        (
            layers.Conv2D,
            (2, 7, 9, 3),
            {"filters": 5, "kernel_size": (3, 2), "strides": (2, 3), "padding": "same"},
            "channels_first",
        ),
        (
            layers.Conv2D,
            (1, 8, 7, 4),
            {"filters": 4, "kernel_size": 3, "dilation_rate": (2, 1), "groups": 4},
            "channels_last",
        ),
        (
            layers.Conv2D,
            (2, 6, 5, 3),
            {"filters": 3, "kernel_size": 4, "padding": "same"},
            "channels_first",
        ),
        (
            layers.Conv3D,
            (1, 5, 4, 6, 2),
            {"filters": 3, "kernel_size": (2, 3, 2), "strides": 2, "padding": "same"},
            "channels_last",
        ),
    ],
)
def test_conv_numerics(cls, shape, kwargs, data_format):
    x = _data(shape)
    x_in = x if data_format == "channels_last" else _cf(x)
    layer = _random_layer(cls, x_in, data_format=data_format, **kwargs)
    rank = layer.rank
    out = ops.convert_to_numpy(layer(x_in))
    if data_format == "channels_first":
        out = _cl(out)
    want = (
        ref_conv(
            x,
            layer.kernel.numpy(),
            layer.strides,
            layer.padding,
            layer.dilation_rate,
            kwargs.get("groups", 1),
        )
        + layer.bias.numpy()
    )
    assert out.shape == want.shape and len(layer.strides) == rank
    _close(out, want)


def test_conv1d_matches_scipy_correlate():
    x = _data((1, 13, 1))
    layer = _random_layer(layers.Conv1D, x, filters=1, kernel_size=5, use_bias=False)
    k = layer.kernel.numpy()[:, 0, 0]
    want = signal.correlate(x[0, :, 0].astype(np.float64), k, mode="valid")
    _close(ops.convert_to_numpy(layer(x))[0, :, 0], want)


def test_conv2d_same_matches_scipy_when_odd_kernel():
    x = _data((1, 7, 6, 1))
    layer = _random_layer(
        layers.Conv2D, x, filters=1, kernel_size=3, padding="same", use_bias=False
    )
    k = layer.kernel.numpy()[:, :, 0, 0]
    want = signal.correlate(x[0, :, :, 0].astype(np.float64), k, mode="same")
    _close(ops.convert_to_numpy(layer(x))[0, :, :, 0], want)


@pytest.mark.parametrize(
    "cls, shape, kwargs, data_format",
    [
        (
            layers.Conv1DTranspose,
            (2, 5, 3),
            {"filters": 2, "kernel_size": 3, "strides": 2},
            "channels_first",
        ),
        (
            layers.Conv1DTranspose,
            (2, 5, 3),
            {"filters": 2, "kernel_size": 4, "strides": 3, "padding": "same"},
            "channels_last",
        ),
        (
            layers.Conv1DTranspose,
            (2, 4, 3),
            {"filters": 2, "kernel_size": 2, "strides": 3},
            "channels_first",
        ),
        (
            layers.Conv1DTranspose,
            (1, 5, 2),
            {"filters": 3, "kernel_size": 3, "strides": 2, "padding": "same", "output_padding": 1},
            "channels_last",
        ),
        (
            layers.Conv1DTranspose,
            (1, 5, 2),
            {"filters": 3, "kernel_size": 3, "strides": 3, "padding": "valid", "output_padding": 2},
            "channels_first",
        ),
        (
            layers.Conv2DTranspose,
            (1, 3, 4, 2),
            {"filters": 3, "kernel_size": (3, 2), "strides": (2, 1), "padding": "same"},
            "channels_last",
        ),
        (
            layers.Conv2DTranspose,
            (2, 4, 3, 2),
            {"filters": 2, "kernel_size": 2, "dilation_rate": 2},
            "channels_first",
        ),
        (
            layers.Conv3DTranspose,
            (1, 2, 3, 3, 2),
            {"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same"},
            "channels_last",
        ),
    ],
)
def test_conv_transpose_numerics(cls, shape, kwargs, data_format):
    x = _data(shape)
    x_in = x if data_format == "channels_last" else _cf(x)
    layer = _random_layer(cls, x_in, data_format=data_format, **kwargs)
    out = ops.convert_to_numpy(layer(x_in))
    assert out.shape == layer.compute_output_shape(x_in.shape)
    if data_format == "channels_first":
        out = _cl(out)
    want = (
        ref_conv_transpose(
            x,
            layer.kernel.numpy(),
            layer.strides,
            layer.padding,
            layer.dilation_rate,
            layer.output_padding,
        )
        + layer.bias.numpy()
    )
    assert out.shape == want.shape
    _close(out, want)


@pytest.mark.parametrize(
    "cls, shape, kwargs, data_format",
    [
        (
            layers.DepthwiseConv1D,
            (2, 9, 3),
            {"kernel_size": 3, "depth_multiplier": 2, "strides": 2, "padding": "same"},
            "channels_first",
        ),
        (
            layers.DepthwiseConv2D,
            (2, 7, 6, 3),
            {"kernel_size": (3, 2), "depth_multiplier": 3},
            "channels_last",
        ),
        (
            layers.DepthwiseConv2D,
            (1, 7, 8, 2),
            {"kernel_size": 3, "dilation_rate": 2, "padding": "same"},
            "channels_first",
        ),
    ],
)
def test_depthwise_numerics(cls, shape, kwargs, data_format):
    x = _data(shape)
    x_in = x if data_format == "channels_last" else _cf(x)
    layer = _random_layer(cls, x_in, data_format=data_format, **kwargs)
    out = ops.convert_to_numpy(layer(x_in))
    if data_format == "channels_first":
        out = _cl(out)
    want = (
        ref_depthwise(x, layer.kernel.numpy(), layer.strides, layer.padding, layer.dilation_rate)
        + layer.bias.numpy()
    )
    _close(out, want)


@pytest.mark.parametrize(
    "cls, shape, kwargs, data_format",
    [
        (
            layers.SeparableConv1D,
            (2, 9, 3),
            {"filters": 4, "kernel_size": 3, "depth_multiplier": 2, "padding": "same"},
            "channels_last",
        ),
        (
            layers.SeparableConv2D,
            (1, 7, 6, 3),
            {"filters": 5, "kernel_size": (2, 3), "strides": 2},
            "channels_first",
        ),
    ],
)
def test_separable_numerics(cls, shape, kwargs, data_format):
    x = _data(shape)
    x_in = x if data_format == "channels_last" else _cf(x)
    layer = _random_layer(cls, x_in, data_format=data_format, **kwargs)
    out = ops.convert_to_numpy(layer(x_in))
    if data_format == "channels_first":
        out = _cl(out)
    mid = ref_depthwise(
        x, layer.depthwise_kernel.numpy(), layer.strides, layer.padding, layer.dilation_rate
    )
    want = mid @ layer.pointwise_kernel.numpy().reshape(mid.shape[-1], -1) + layer.bias.numpy()
    _close(out, want)


def test_causal_conv_does_not_see_the_future():
    x = _data((1, 10, 2))
    layer = _random_layer(
        layers.Conv1D, x, filters=2, kernel_size=3, padding="causal", dilation_rate=2
    )
    y = x.copy()
    y[:, 6:] = 100.0
    np.testing.assert_allclose(
        ops.convert_to_numpy(layer(x))[:, :6], ops.convert_to_numpy(layer(y))[:, :6]
    )


def test_conv2d_kernel_gradient_matches_finite_differences():
    x = RNG.standard_normal((1, 4, 3, 2))
    layer = _random_layer(
        layers.Conv2D,
        x.astype("float32"),
        filters=2,
        kernel_size=2,
        strides=(1, 2),
        padding="same",
    )
    kernel_var, bias_var = layer.kernel, layer.bias

    def loss(k):
        with backend.StatelessScope([(kernel_var, k), (bias_var, bias_var.value)]):
            out = layer(x.astype("float32"))
        return ops.sum(ops.square(out))

    k0 = kernel_var.numpy()
    _, (grad,) = backend.value_and_grad(lambda ws: loss(ws[0]))([kernel_var.value])
    grad = ops.convert_to_numpy(grad)
    eps = 1e-2
    fd = np.zeros_like(k0)
    for i in np.ndindex(k0.shape):
        plus, minus = k0.copy(), k0.copy()
        plus[i] += eps
        minus[i] -= eps
        fd[i] = (
            float(ops.convert_to_numpy(loss(ops.convert_to_tensor(plus))))
            - float(ops.convert_to_numpy(loss(ops.convert_to_tensor(minus))))
        ) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=1e-2, atol=1e-2)


def test_symbolic_shapes_with_unknown_spatial_dims():
    from lamina import Input

    out = layers.Conv2D(4, 3, strides=2, kernel_initializer="ones")(Input(shape=(None, 9, 3)))
    assert out.shape == (None, None, 4, 4)
    out = layers.Conv1DTranspose(2, 3, strides=2, kernel_initializer="ones")(Input(shape=(None, 3)))
    assert out.shape == (None, None, 2)


# Errors ---------------------------------------------------------------------------------
def test_kernel_larger_than_input_with_valid_padding():
    with pytest.raises(ValueError, match=r"Conv2D.*larger than the input.*\(1, 3, 3, 1\)"):
        layers.Conv2D(2, 5)(np.zeros((1, 3, 3, 1), "float32"))
    with pytest.raises(ValueError, match="larger than the input"):
        layers.Conv1D(2, 3, dilation_rate=3)(np.zeros((1, 6, 1), "float32"))
    # "same" padding accepts it.
    assert layers.Conv2D(2, 5, padding="same", kernel_initializer="ones")(
        np.zeros((1, 3, 3, 1), "float32")
    ).shape == (
        1,
        3,
        3,
        2,
    )


def test_wrong_input_rank():
    with pytest.raises(ValueError, match=r"Conv2D.*rank 4.*\(2, 5, 3\)"):
        layers.Conv2D(2, 3)(np.zeros((2, 5, 3), "float32"))
    with pytest.raises(ValueError, match="DepthwiseConv1D.*rank 3"):
        layers.DepthwiseConv1D(2)(np.zeros((2, 5, 5, 3), "float32"))


def test_groups_must_divide_channels_and_filters():
    with pytest.raises(ValueError, match=r"Conv2D.*input channels \(3\).*groups.*\(2\)"):
        layers.Conv2D(4, 3, groups=2)(np.zeros((1, 5, 5, 3), "float32"))
    with pytest.raises(ValueError, match=r"Conv1D.*filters.*\(3\).*groups.*\(2\)"):
        layers.Conv1D(3, 3, groups=2)


def test_bad_arguments():
    with pytest.raises(ValueError, match="Conv2D.*data_format"):
        layers.Conv2D(2, 3, data_format="channels_middle")
    with pytest.raises(ValueError, match="Conv2D.*padding"):
        layers.Conv2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="Conv1D.*padding"):
        layers.Conv1D(2, 3, padding="full")
    with pytest.raises(ValueError, match="Conv1DTranspose.*padding"):
        layers.Conv1DTranspose(2, 3, padding="causal")
    with pytest.raises(ValueError, match="kernel_size"):
        layers.Conv2D(2, (3, 3, 3))
    with pytest.raises(ValueError, match="filters"):
        layers.Conv2D(0, 3)
    with pytest.raises(ValueError, match="strides.*dilation_rate"):
        layers.Conv2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="output_padding"):
        layers.Conv2DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match="depth_multiplier"):
        layers.DepthwiseConv2D(3, depth_multiplier=0)


def test_channel_count_is_fixed_after_build():
    layer = layers.Conv1D(2, 3, kernel_initializer="ones")
    layer(np.zeros((1, 5, 3), "float32"))
    with pytest.raises(ValueError, match="Conv1D"):
        layer(np.zeros((1, 5, 4), "float32"))


def test_input_errors_name_the_layer_and_shapes():
    with pytest.raises(ValueError, match=r"'grouped'.*input channels \(3\).*`groups` \(2\)"):
        layers.Conv2D(4, 3, groups=2, name="grouped")(np.zeros((1, 5, 5, 3), "float32"))
    with pytest.raises(ValueError, match=r"`filters` \(3\).*`groups` \(2\)"):
        layers.Conv2D(3, 3, groups=2)
    with pytest.raises(ValueError, match=r"Conv2D.*rank 4.*shape \(1, 5, 5\)"):
        layers.Conv2D(2, 3)(np.zeros((1, 5, 5), "float32"))
    with pytest.raises(ValueError, match=r"Conv1D.*dilation_rate=\(2,\).*\(1, 4, 1\)"):
        layers.Conv1D(2, 3, dilation_rate=2)(np.zeros((1, 4, 1), "float32"))
    with pytest.raises(ValueError, match="DepthwiseConv2D.*data_format.*channels_last"):
        layers.DepthwiseConv2D(3, data_format="NCHW")
