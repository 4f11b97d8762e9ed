"""Grouped convolutions on JAX's CPU run one convolution per group (`nn.conv`): the
values and the gradients of XLA's grouped convolution, for every rank, stride, dilation,
padding and data format; forward mode kept; and Keras's `Conv2D(groups=...)`."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytestmark = pytest.mark.engine("jax")

jax = pytest.importorskip("jax")
jnp = jax.numpy

import lamina  # noqa: E402
from lamina.backend.jax import nn  # noqa: E402

CASES = [
    # rank, data format, groups, strides, padding, dilation
    (2, "channels_last", 2, 1, "same", 1),
    (2, "channels_first", 4, 2, "valid", 1),
    (2, "channels_last", 8, 1, "valid", 2),  # one input channel a group
    (1, "channels_last", 2, 1, "causal", 1),
    (3, "channels_last", 4, 2, "same", 1),
]


def _xlas(x, k, groups, strides, padding, data_format, dilation):
    n = x.ndim - 2
    return jax.lax.conv_general_dilated(
        x,
        k,
        (strides,) * n,
        nn._conv_padding(padding, k.shape[:-2], (dilation,) * n),
        rhs_dilation=(dilation,) * n,
        dimension_numbers=nn._dimension_numbers(n, data_format),
        feature_group_count=groups,
    )


@pytest.mark.parametrize("n, data_format, groups, strides, padding, dilation", CASES)
def test_group_by_group_gives_xlas_values_and_gradients(
    n, data_format, groups, strides, padding, dilation
):
    rng = np.random.default_rng(0)
    spatial = {1: (9,), 2: (7, 6), 3: (5, 4, 5)}[n]
    shape = (2, *spatial, 8) if data_format == "channels_last" else (2, 8, *spatial)
    x = jnp.asarray(rng.standard_normal(shape).astype("float32"))
    k = jnp.asarray(rng.standard_normal((3,) * n + (8 // groups, 4 * groups)).astype("float32"))

    def ours(x, k):
        return nn.conv(x, k, strides, padding, data_format, dilation)

    def xlas(x, k):
        return _xlas(x, k, groups, strides, padding, data_format, dilation)

    counts = re.findall(r"feature_group_count=(\d+)", str(jax.make_jaxpr(ours)(x, k)))
    assert counts == ["1"] * groups  # one ungrouped convolution a group
    np.testing.assert_allclose(ours(x, k), xlas(x, k), rtol=1e-5, atol=1e-5)

    def loss(fn):
        return lambda x, k: jnp.sum(jnp.sin(fn(x, k)))

    for a, b in zip(
        jax.grad(loss(ours), (0, 1))(x, k), jax.grad(loss(xlas), (0, 1))(x, k), strict=True
    ):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-4)
    # Plain JAX ops, no custom rule: forward mode works.
    _, tangent = jax.jvp(ours, (x, k), (x, k))
    _, expected = jax.jvp(xlas, (x, k), (x, k))
    np.testing.assert_allclose(tangent, expected, rtol=1e-4, atol=1e-4)


def test_a_grouped_conv2d_layer_trains_as_xlas_grouped_convolution_does():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 6, 6, 4)).astype("float32")
    y = rng.standard_normal((4, 6, 6, 6)).astype("float32")
    lamina.utils.set_random_seed(2)
    layer = lamina.layers.Conv2D(6, 3, padding="same", groups=2)
    model = lamina.Sequential([lamina.Input((6, 6, 4)), layer])
    kernel, bias = (w.copy() for w in model.get_weights())
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)

    def loss(k, b):
        out = _xlas(jnp.asarray(x), k, 2, 1, "same", "channels_last", 1) + b
        return jnp.mean((out - y) ** 2)

    gk, gb = jax.grad(loss, (0, 1))(jnp.asarray(kernel), jnp.asarray(bias))
    np.testing.assert_allclose(model.get_weights()[0], kernel - 0.1 * gk, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(model.get_weights()[1], bias - 0.1 * gb, rtol=1e-4, atol=1e-6)
