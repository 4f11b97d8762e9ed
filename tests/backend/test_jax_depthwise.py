"""Depthwise convolution on JAX's CPU as a sum over the kernel's taps (`_depthwise_by_taps`),
against XLA's grouped convolution (one group per channel, what it replaces): the same
outputs and gradients for every stride, dilation, padding, data format, rank and depth
multiplier, and the grouped convolution kept where the sum would not help."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.engine("jax")

jax = pytest.importorskip("jax")
jnp = jax.numpy

from lamina.backend.jax import nn  # noqa: E402

CASES = [
    # rank, data format, strides, dilation, padding, depth multiplier, kernel size
    (2, "channels_last", 1, 1, "same", 1, 5),  # a ConvMixer block
    (2, "channels_last", 2, 1, "same", 1, 3),  # MobileNet's downsampling layers
    (2, "channels_first", 1, 2, "valid", 2, 3),
    (2, "channels_last", 2, 1, "valid", 3, 4),  # an even kernel, strided
    (1, "channels_last", 1, 2, "causal", 1, 3),
    (3, "channels_first", 2, 1, "same", 1, 3),
    (2, "channels_last", 1, 2, "valid", 1, 8),  # reaches past the inputs: empty
]


def _grouped(x, kernel, strides, padding, data_format, dilation):
    n = x.ndim - 2
    channels = kernel.shape[-2]
    return jax.lax.conv_general_dilated(
        x,
        jnp.reshape(kernel, kernel.shape[:-2] + (1, channels * kernel.shape[-1])),
        (strides,) * n,
        nn._conv_padding(padding, kernel.shape[:-2], (dilation,) * n),
        rhs_dilation=(dilation,) * n,
        dimension_numbers=nn._dimension_numbers(n, data_format),
        feature_group_count=channels,
    )


@pytest.mark.parametrize("n, data_format, strides, dilation, padding, multiplier, size", CASES)
def test_the_sum_over_taps_gives_the_grouped_convolutions_values_and_gradients(
    n, data_format, strides, dilation, padding, multiplier, size
):
    rng = np.random.default_rng(0)
    spatial = {1: (11,), 2: (9, 8), 3: (6, 5, 7)}[n]
    channels = 3
    shape = (2, *spatial, channels) if data_format == "channels_last" else (2, channels, *spatial)
    x = jnp.asarray(rng.standard_normal(shape).astype("float32"))
    kernel = jnp.asarray(rng.standard_normal((size,) * n + (channels, multiplier)), "float32")
    args = (strides, padding, data_format, dilation)
    assert nn._taps_on_cpu(x, kernel)
    got = nn.depthwise_conv(x, kernel, *args)
    want = _grouped(x, kernel, *args)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)

    def loss(conv):
        return lambda a, b: jnp.sum(jnp.sin(conv(a, b, *args)))

    got_grads = jax.grad(loss(nn.depthwise_conv), (0, 1))(x, kernel)
    want_grads = jax.grad(loss(_grouped), (0, 1))(x, kernel)
    for have, expected in zip(got_grads, want_grads, strict=True):
        np.testing.assert_allclose(np.asarray(have), np.asarray(expected), rtol=1e-4, atol=1e-4)


def test_the_grouped_convolution_stays_for_low_precision_and_large_kernels():
    x = jnp.zeros((1, 8, 8, 2), "float32")
    assert nn._taps_on_cpu(x, jnp.zeros((3, 3, 2, 1)))
    assert not nn._taps_on_cpu(x.astype("bfloat16"), jnp.zeros((3, 3, 2, 1)))
    assert not nn._taps_on_cpu(x.astype("float16"), jnp.zeros((3, 3, 2, 1)))
    assert not nn._taps_on_cpu(x, jnp.zeros((9, 9, 2, 1)))  # 81 taps
    # Either way the values agree (a bfloat16 call takes the grouped convolution).
    kernel = jnp.ones((3, 3, 2, 1), "bfloat16")
    y = nn.depthwise_conv(jnp.ones((1, 4, 4, 2), "bfloat16"), kernel, 1, "valid")
    np.testing.assert_array_equal(np.asarray(y, "float32"), np.full((1, 2, 2, 2), 9.0))


@pytest.mark.parametrize("batch", [5, 6, 1])
def test_the_kernel_gradient_summed_a_few_images_at_a_time_is_the_whole_batchs(batch, monkeypatch):
    # Two images per step of the sum (the step's bytes set to two images' inputs and
    # gradients): 5 images are two steps and one left over, 6 three steps, 1 no step.
    rng = np.random.default_rng(1)
    x = jnp.asarray(rng.standard_normal((batch, 7, 6, 3)).astype("float32"))
    kernel = jnp.asarray(rng.standard_normal((3, 3, 3, 2)).astype("float32"))
    per_image = 4 * (7 * 6 * 3 + 7 * 6 * 6)
    monkeypatch.setattr(nn, "_CHUNK_BYTES", 2 * per_image)
    args = (1, "same", "channels_last", 1)

    def loss(conv):
        return lambda a, b: jnp.sum(jnp.sin(conv(a, b, *args)))

    got = jax.jit(jax.grad(loss(nn.depthwise_conv), (0, 1)))(x, kernel)
    want = jax.grad(loss(_grouped), (0, 1))(x, kernel)
    for have, expected in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(have), np.asarray(expected), rtol=1e-4, atol=1e-4)
    text = str(jax.make_jaxpr(jax.grad(loss(nn.depthwise_conv), 1))(x, kernel))
    assert ("scan[" in text) == (batch > 2)  # one image: the sum in one go
