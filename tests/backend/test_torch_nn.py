"""The torch engine's `nn` functions against the JAX engine's (an independent reference):
values, output dtypes and gradients, on grids of layouts, paddings, strides and dilations.

Each grid's JAX results come from one compiled program (`jax_batch`): compiling every
case on its own would take most of a minute.
"""

from __future__ import annotations

import functools
import itertools
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# The torch engine against the JAX one: each comparison runs once, in the torch pass.
pytestmark = pytest.mark.engine("torch")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from lamina.backend import standardize_dtype  # noqa: E402
from lamina.backend.jax import nn as jnn  # noqa: E402
from lamina.backend.torch import core as tcore  # noqa: E402
from lamina.backend.torch import nn as tnn  # noqa: E402

TOL = {"float32": 2e-5, "float16": 2e-2, "bfloat16": 2e-2}
FORMATS = ("channels_last", "channels_first")


def _t(x, dtype=None):
    return tcore.convert_to_tensor(x, dtype)


def _host(x):
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu()
        return x.float().numpy() if x.dtype == torch.bfloat16 else x.numpy()
    return np.asarray(x.astype("float32") if x.dtype == jnp.bfloat16 else x)


def _dtype(x):
    return tcore.dtype_name(x.dtype) if isinstance(x, torch.Tensor) else standardize_dtype(x.dtype)


def assert_same(t_out, j_out, tol=None):
    """Same dtype, shape and values (to `tol`, by default the dtype's)."""
    assert _dtype(t_out) == _dtype(j_out), (_dtype(t_out), _dtype(j_out))
    assert tuple(t_out.shape) == tuple(j_out.shape)
    tol = TOL.get(_dtype(j_out), 0) if tol is None else tol
    np.testing.assert_allclose(_host(t_out), _host(j_out), rtol=tol, atol=tol)


def jax_batch(calls):
    """`[fn(*arrays) for fn, arrays in calls]`, computed by JAX as one compiled program."""
    fns = [fn for fn, _ in calls]
    with warnings.catch_warnings():  # JAX's softmax of integers warns in a cast
        warnings.simplefilter("ignore", RuntimeWarning)
        return jax.jit(lambda arrays: [fn(*a) for fn, a in zip(fns, arrays, strict=True)])(
            [tuple(jnp.asarray(a) for a in arrays) for _, arrays in calls]
        )


# The gradients checked are those of `sum(out * w)` for a fixed, shape-derived weighting
# `w`, so that every output element's contribution counts.
def _weighted_sum_jax(out):
    return (out * jnp.cos(jnp.arange(out.size) * 0.7).reshape(out.shape)).sum()


def _weighted_sum_torch(out):
    w = torch.cos(torch.arange(out.numel(), dtype=torch.float32, device=out.device) * 0.7)
    return (out * w.reshape(out.shape)).sum()


def jax_grads(calls):
    """For each `(fn, arrays)`: the gradients of `weighted_sum(fn(*arrays))` by JAX."""
    return jax_batch(
        [
            (
                jax.grad(
                    lambda *a, fn=fn: _weighted_sum_jax(fn(*a)), argnums=tuple(range(len(arrays)))
                ),
                arrays,
            )
            for fn, arrays in calls
        ]
    )


def assert_torch_grads(fn, arrays, j_grads):
    tensors = [_t(a).requires_grad_(True) for a in arrays]
    _weighted_sum_torch(fn(*tensors)).backward()
    for tensor, j_grad in zip(tensors, j_grads, strict=True):
        np.testing.assert_allclose(
            tensor.grad.cpu().numpy(), np.asarray(j_grad), rtol=1e-4, atol=1e-5
        )


# Activations --------------------------------------------------------------------------
ACTIVATIONS = [
    ("relu", {}),
    ("relu6", {}),
    ("sigmoid", {}),
    ("hard_sigmoid", {}),
    ("hard_silu", {}),
    ("softplus", {}),
    ("softsign", {}),
    ("silu", {}),
    ("log_sigmoid", {}),
    ("leaky_relu", {}),
    ("leaky_relu", {"negative_slope": 0.5}),
    ("elu", {}),
    ("elu", {"alpha": 0.7}),
    ("selu", {}),
    ("gelu", {}),
    ("gelu", {"approximate": False}),
    ("mish", {}),
    ("softmax", {}),
    ("softmax", {"axis": 0}),
    ("softmax", {"axis": (0, 1)}),
    ("softmax", {"axis": None}),
    ("log_softmax", {}),
    ("log_softmax", {"axis": 0}),
    ("log_softmax", {"axis": (0, 1)}),
]
ACTIVATION_IDS = [f"{name}{kwargs or ''}" for name, kwargs in ACTIVATIONS]
# Avoids the kinks (0, +-3, 6) where one-sided derivatives differ between engines.
VALUES = np.array([[-30.0, -7.2, -2.5, -0.4, 0.3], [1.7, 2.9, 5.5, 7.1, 31.0]], "float32")
INTS = np.array([[-3, -1, 0, 2, 7]], "int32")
# JAX refuses integers in its logistic function; the torch engine gives float32 as for
# the other activations.
NO_JAX_INTS = ("sigmoid", "silu")


def _activation(module, name, kwargs):
    return lambda x: getattr(module, name)(x, **kwargs)


@functools.cache
def activations_jax(dtype):
    """`{activation index: JAX result}` on `VALUES` (or `INTS`) as `dtype`."""
    x = (VALUES if dtype != "int32" else INTS).astype(dtype)
    cases = [
        i for i, (name, _) in enumerate(ACTIVATIONS) if dtype != "int32" or name not in NO_JAX_INTS
    ]
    calls = [(_activation(jnn, *ACTIVATIONS[i]), (x,)) for i in cases]
    return dict(zip(cases, jax_batch(calls), strict=True))


@functools.cache
def activation_grads_jax():
    return jax_grads([(_activation(jnn, name, kwargs), (VALUES,)) for name, kwargs in ACTIVATIONS])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int32"])
@pytest.mark.parametrize("i", range(len(ACTIVATIONS)), ids=ACTIVATION_IDS)
def test_activation_matches_jax(i, dtype):
    name, kwargs = ACTIVATIONS[i]
    x = (VALUES if dtype != "int32" else INTS).astype(dtype)
    t_out = getattr(tnn, name)(_t(x, dtype), **kwargs)
    if dtype == "int32" and name in NO_JAX_INTS:
        assert t_out.dtype == torch.float32
        return
    assert_same(t_out, activations_jax(dtype)[i], tol=TOL.get(dtype, 2e-5))


@pytest.mark.parametrize("i", range(len(ACTIVATIONS)), ids=ACTIVATION_IDS)
def test_activation_gradient_matches_jax(i):
    name, kwargs = ACTIVATIONS[i]
    assert_torch_grads(_activation(tnn, name, kwargs), (VALUES,), activation_grads_jax()[i])


def test_activations_take_numpy_and_python_values():
    assert_same(tnn.relu(VALUES.astype("float64")), jnn.relu(VALUES.astype("float64")))
    assert_same(tnn.gelu(1.5), jnn.gelu(1.5), tol=1e-6)


ONE_HOT_CASES = list(itertools.product((-1, 0, 1), (None, "int32", "bool", "float16")))
CLASSES = np.array([[0, 2, -1], [3, 1, 7]], "int32")


@functools.cache
def one_hot_jax():
    return jax_batch(
        [
            (
                lambda x, axis=axis, dtype=dtype: jnn.one_hot(x, 4, axis=axis, dtype=dtype),
                (CLASSES,),
            )
            for axis, dtype in ONE_HOT_CASES
        ]
    )


@pytest.mark.parametrize("i", range(len(ONE_HOT_CASES)), ids=str)
def test_one_hot_matches_jax_including_out_of_range(i):
    axis, dtype = ONE_HOT_CASES[i]
    assert_same(tnn.one_hot(CLASSES, 4, axis=axis, dtype=dtype), one_hot_jax()[i])


def test_one_hot_errors():
    with pytest.raises(ValueError, match="sparse"):
        tnn.one_hot(np.array([1]), 3, sparse=True)
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        tnn.one_hot(np.array([1]), 3, axis=3)


MOMENTS_CASES = list(
    itertools.product(([0], (0, 2), (1,), 2, ()), (False, True), ("float32", "float16", "int32"))
)


def _moments_data(dtype):
    return (np.random.default_rng(1).normal(size=(3, 4, 5)) * 10).astype(dtype)


@functools.cache
def moments_jax():
    calls = [
        (
            lambda x, axes=axes, keepdims=keepdims: jnn.moments(x, axes, keepdims),
            (_moments_data(dtype),),
        )
        for axes, keepdims, dtype in MOMENTS_CASES
    ]
    return jax_batch(calls)


@pytest.mark.parametrize("i", range(len(MOMENTS_CASES)), ids=str)
def test_moments_match_jax(i):
    axes, keepdims, dtype = MOMENTS_CASES[i]
    t_mean, t_var = tnn.moments(_t(_moments_data(dtype)), axes, keepdims, synchronized=True)
    j_mean, j_var = moments_jax()[i]
    assert_same(t_mean, j_mean, tol=TOL.get(dtype, 2e-5))
    assert_same(t_var, j_var, tol=TOL.get(dtype, 2e-5))


def test_moments_gradient_matches_jax():
    x = _moments_data("float32")

    def f(module):
        return lambda v: sum(module.moments(v, (0, 2)))

    assert_torch_grads(f(tnn), (x,), jax_grads([(f(jnn), (x,))])[0])


# Convolution --------------------------------------------------------------------------
SPATIAL = {1: (7,), 2: (6, 5), 3: (5, 6, 4)}
KERNEL = {1: (3,), 2: (3, 2), 3: (2, 3, 2)}
STRIDE_DILATION = [(1, 1), (2, 1), (1, 2)]


def _data(seed, n, channels, data_format, batch=2):
    x = np.random.default_rng(seed).normal(size=(batch, *SPATIAL[n], channels))
    x = x.astype("float32")
    return x if data_format == "channels_last" else np.moveaxis(x, -1, 1).copy()


def _normal(seed, shape):
    return np.random.default_rng(seed + 1000).normal(size=shape).astype("float32")


CONV_CASES = [
    (n, padding, strides, dilation, data_format, groups)
    for n, padding, (strides, dilation), data_format, groups in itertools.product(
        (1, 2, 3), ("valid", "same", "causal"), STRIDE_DILATION, FORMATS, (1, 2)
    )
    if padding != "causal" or n == 1
]


def _conv_case(i):
    n, padding, strides, dilation, data_format, groups = CONV_CASES[i]
    x = _data(i, n, 4, data_format)
    kernel = _normal(i, (*KERNEL[n], 4 // groups, 6))
    args = dict(strides=strides, padding=padding, data_format=data_format, dilation_rate=dilation)
    return (x, kernel), args


@functools.cache
def conv_jax():
    calls = []
    for i in range(len(CONV_CASES)):
        arrays, args = _conv_case(i)
        calls.append((lambda x, k, args=args: jnn.conv(x, k, **args), arrays))
    return jax_batch(calls), jax_grads(calls[::8])


@pytest.mark.parametrize("i", range(len(CONV_CASES)), ids=[str(c) for c in CONV_CASES])
def test_conv_matches_jax(i):
    (x, kernel), args = _conv_case(i)
    values, grads = conv_jax()
    assert_same(tnn.conv(_t(x), _t(kernel), **args), values[i])
    if i % 8 == 0:
        assert_torch_grads(lambda a, k: tnn.conv(a, k, **args), (x, kernel), grads[i // 8])


DEPTHWISE_CASES = list(itertools.product((1, 2, 3), ("valid", "same"), STRIDE_DILATION, FORMATS))


def _depthwise_case(i):
    n, padding, (strides, dilation), data_format = DEPTHWISE_CASES[i]
    x = _data(i, n, 3, data_format)
    depthwise = _normal(i, (*KERNEL[n], 3, 2))
    pointwise = _normal(i + 1, ((1,) * n + (6, 5)))
    args = dict(strides=strides, padding=padding, data_format=data_format, dilation_rate=dilation)
    return (x, depthwise, pointwise), args


@functools.cache
def depthwise_jax():
    calls = []
    for i in range(len(DEPTHWISE_CASES)):
        arrays, args = _depthwise_case(i)
        calls.append((lambda x, d, args=args: jnn.depthwise_conv(x, d, **args), arrays[:2]))
        calls.append((lambda x, d, p, args=args: jnn.separable_conv(x, d, p, **args), arrays))
    return jax_batch(calls), jax_grads(calls[1::10])


@pytest.mark.parametrize("i", range(len(DEPTHWISE_CASES)), ids=[str(c) for c in DEPTHWISE_CASES])
def test_depthwise_and_separable_conv_match_jax(i):
    (x, depthwise, pointwise), args = _depthwise_case(i)
    values, grads = depthwise_jax()
    assert_same(tnn.depthwise_conv(_t(x), _t(depthwise), **args), values[2 * i])
    assert_same(tnn.separable_conv(_t(x), _t(depthwise), _t(pointwise), **args), values[2 * i + 1])
    if i % 5 == 0:
        assert_torch_grads(
            lambda a, d, p: tnn.separable_conv(a, d, p, **args),
            (x, depthwise, pointwise),
            grads[i // 5],
        )


TRANSPOSE_CASES = [
    (n, padding, strides, dilation, output_padding, kernel, FORMATS[i % 2])
    for i, (n, padding, (strides, dilation), output_padding, kernel) in enumerate(
        (n, padding, sd, output_padding, kernel)
        for n in (1, 2, 3)
        for padding in ("valid", "same")
        for sd in ((1, 1), (2, 1), (3, 1), (1, 2))
        for output_padding in (None, 0, sd[0] - 1)
        for kernel in (2, 3)
        if n == 1 or (kernel == 3 and output_padding != 0)
    )
]


def _transpose_case(i):
    n, padding, strides, dilation, output_padding, k, data_format = TRANSPOSE_CASES[i]
    x = _data(i, n, 3, data_format)
    kernel = _normal(i, ((k,) * n + (4, 3)))
    args = dict(
        strides=strides,
        padding=padding,
        output_padding=output_padding,
        data_format=data_format,
        dilation_rate=dilation,
    )
    return (x, kernel), args


@functools.cache
def transpose_jax():
    calls = []
    for i in range(len(TRANSPOSE_CASES)):
        arrays, args = _transpose_case(i)
        calls.append((lambda x, k, args=args: jnn.conv_transpose(x, k, **args), arrays))
    return jax_batch(calls), jax_grads(calls[::7])


@pytest.mark.parametrize("i", range(len(TRANSPOSE_CASES)), ids=[str(c) for c in TRANSPOSE_CASES])
def test_conv_transpose_matches_jax(i):
    (x, kernel), args = _transpose_case(i)
    values, grads = transpose_jax()
    assert_same(tnn.conv_transpose(_t(x), _t(kernel), **args), values[i])
    if i % 7 == 0:
        assert_torch_grads(
            lambda a, k: tnn.conv_transpose(a, k, **args), (x, kernel), grads[i // 7]
        )


def test_conv_errors_name_the_problem():
    x = _t(np.zeros((1, 5, 5, 4), "float32"))
    with pytest.raises(ValueError, match="padding"):
        tnn.conv(x, _t(np.zeros((3, 3, 4, 2), "float32")), padding="full")
    with pytest.raises(ValueError, match="causal"):
        tnn.conv(x, _t(np.zeros((3, 3, 4, 2), "float32")), padding="causal")
    with pytest.raises(ValueError, match="multiple"):
        tnn.conv(x, _t(np.zeros((3, 3, 3, 2), "float32")))
    with pytest.raises(ValueError, match="strides"):
        tnn.conv(x, _t(np.zeros((3, 3, 4, 2), "float32")), strides=(1, 1, 1))
    with pytest.raises(ValueError, match="rank 3, 4 or 5"):
        tnn.conv(_t(np.zeros((5, 4), "float32")), _t(np.zeros((3, 4, 2), "float32")))
    with pytest.raises(ValueError, match="kernel of rank 4"):
        tnn.conv(x, _t(np.zeros((3, 4, 2), "float32")))
    with pytest.raises(ValueError, match=r"\(\*spatial, 4, multiplier\)"):
        tnn.depthwise_conv(x, _t(np.zeros((3, 3, 2, 2), "float32")))
    with pytest.raises(ValueError, match=r"\(\*spatial, out_channels, 4\)"):
        tnn.conv_transpose(x, _t(np.zeros((3, 3, 4, 2), "float32")))
    with pytest.raises(ValueError, match="'valid' or 'same'"):
        tnn.conv_transpose(x, _t(np.zeros((3, 3, 2, 4), "float32")), padding="causal")


def test_conv_casts_the_kernel_and_takes_numpy():
    x = np.random.default_rng(2).normal(size=(1, 6, 3)).astype("float16")
    kernel = np.random.default_rng(3).normal(size=(3, 3, 2)).astype("float32")
    assert_same(tnn.conv(x, kernel, padding="same"), jnn.conv(x, kernel, padding="same"))


# Pooling ------------------------------------------------------------------------------
POOL_CASES = list(
    itertools.product(
        ("max_pool", "average_pool"),
        (1, 2, 3),
        ("valid", "same"),
        ((2, None), (3, 2), (2, 1)),
        FORMATS,
    )
)


def _pool_case(i):
    name, n, padding, (pool_size, strides), data_format = POOL_CASES[i]
    args = dict(strides=strides, padding=padding, data_format=data_format)
    return name, _data(i, n, 3, data_format), pool_size, args


@functools.cache
def pool_jax():
    calls = []
    for i in range(len(POOL_CASES)):
        name, x, pool_size, args = _pool_case(i)
        calls.append(
            (lambda a, name=name, p=pool_size, args=args: getattr(jnn, name)(a, p, **args), (x,))
        )
    return jax_batch(calls), jax_grads(calls[::6])


@pytest.mark.parametrize("i", range(len(POOL_CASES)), ids=[str(c) for c in POOL_CASES])
def test_pool_matches_jax(i):
    name, x, pool_size, args = _pool_case(i)
    values, grads = pool_jax()
    assert_same(getattr(tnn, name)(_t(x), pool_size, **args), values[i])
    if i % 6 == 0:
        assert_torch_grads(lambda a: getattr(tnn, name)(a, pool_size, **args), (x,), grads[i // 6])


def _pool_reference(x, k, s, padding, reduce):
    """1-D pooling of `x` over TF's windows; padding never enters a window."""
    n = len(x)
    if padding == "valid":
        out, before = (n - k) // s + 1, 0
    else:
        out = -(-n // s)
        before = max((out - 1) * s + k - n, 0) // 2
    windows = [x[max(i * s - before, 0) : min(i * s - before + k, n)] for i in range(out)]
    return np.array([reduce(w) for w in windows], "float32")


def test_pool_windows_on_every_small_size():
    # torch pools "same" windows through symmetric padding and ceil_mode: check that
    # this gives TF's windows for every small size, pool size and stride.
    rng = np.random.default_rng(4)
    for n, k, s, padding in itertools.product(
        range(1, 9), range(1, 5), range(1, 4), ("valid", "same")
    ):
        if padding == "valid" and k > n:
            continue
        x = rng.normal(size=n).astype("float32")
        tx = _t(x.reshape(1, n, 1))
        for name, reduce in (("max_pool", np.max), ("average_pool", np.mean)):
            got = getattr(tnn, name)(tx, k, s, padding).cpu().numpy().reshape(-1)
            np.testing.assert_allclose(got, _pool_reference(x, k, s, padding, reduce), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["int32", "float16"])
def test_pool_dtypes_match_jax(dtype):
    x = (np.random.default_rng(5).normal(size=(2, 5, 5, 2)) * 10).astype(dtype)
    cases = list(itertools.product(("max_pool", "average_pool"), ("valid", "same")))
    expected = jax_batch(
        [(lambda a, name=name, p=p: getattr(jnn, name)(a, 2, padding=p), (x,)) for name, p in cases]
    )
    for (name, padding), j_out in zip(cases, expected, strict=True):
        t_out = getattr(tnn, name)(_t(x), 2, padding=padding)
        assert_same(t_out, j_out, tol=2e-2 if dtype == "float16" else 1e-6)
