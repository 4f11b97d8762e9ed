"""1x1 convolutions on JAX's CPU as a matrix product over the channels
(`_pointwise_by_product`), against NumPy's sum over the channels and against XLA's
convolution (what the product replaces): the same outputs and gradients for every
stride, padding, data format and rank, and the convolution kept where the product does
not apply."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.engine("jax")

jax = pytest.importorskip("jax")
jnp = jax.numpy

from lamina.backend.jax import nn  # noqa: E402

CASES = [
    # rank, data format, strides, padding, dilation
    (2, "channels_last", 1, "valid", 1),  # a ConvMixer block's 1x1 layer
    (2, "channels_last", 2, "same", 1),  # a ResNet shortcut's strided projection
    (2, "channels_first", 1, "same", 3),  # dilation does not move a 1x1 kernel
    (2, "channels_first", 3, "valid", 1),  # a stride that does not divide the size
    (1, "channels_last", 2, "causal", 1),
    (3, "channels_last", 2, "same", 1),
    (3, "channels_first", 1, "valid", 1),
]


def _numpy_pointwise(x, kernel, strides, data_format):
    """The 1x1 convolution's definition: each output position is its input position's
    channels times the (in, out) weights, every `strides`-th position kept."""
    x = np.moveaxis(x, 1, -1) if data_format == "channels_first" else x
    x = x[(slice(None), *(slice(None, None, strides),) * (x.ndim - 2), slice(None))]
    y = np.einsum("...c,cd->...d", x.astype("float64"), kernel.reshape(kernel.shape[-2:]))
    return np.moveaxis(y, -1, 1) if data_format == "channels_first" else y


def _xla_conv(x, kernel, strides, padding, data_format, dilation):
    n = x.ndim - 2
    return jax.lax.conv_general_dilated(
        x,
        kernel,
        (strides,) * n,
        nn._conv_padding(padding, kernel.shape[:-2], (dilation,) * n),
        rhs_dilation=(dilation,) * n,
        dimension_numbers=nn._dimension_numbers(n, data_format),
    )


def _case(n, data_format, dtype="float32"):
    rng = np.random.default_rng(0)
    spatial = {1: (11,), 2: (9, 8), 3: (6, 5, 7)}[n]
    shape = (2, *spatial, 4) if data_format == "channels_last" else (2, 4, *spatial)
    x = rng.standard_normal(shape).astype(dtype)
    kernel = rng.standard_normal((1,) * n + (4, 5)).astype(dtype)
    return x, kernel


@pytest.mark.parametrize("n, data_format, strides, padding, dilation", CASES)
def test_the_product_gives_the_convolutions_values_and_gradients(
    n, data_format, strides, padding, dilation
):
    x, kernel = _case(n, data_format)
    args = (strides, padding, data_format, dilation)
    assert nn._pointwise_on_cpu(jnp.asarray(x), jnp.asarray(kernel))
    got = nn.conv(x, kernel, *args)
    want = _numpy_pointwise(x, kernel, strides, data_format)
    assert got.shape == want.shape == _xla_conv(x, kernel, *args).shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)

    # The gradients with respect to both operands: XLA's convolution's, as JAX
    # differentiates it (the product's are JAX's of a dot_general).
    def loss(conv):
        return lambda a, b: jnp.sum(jnp.sin(conv(a, b)))

    ours = jax.grad(loss(lambda a, b: nn.conv(a, b, *args)), argnums=(0, 1))(x, kernel)
    xla = jax.grad(loss(lambda a, b: _xla_conv(a, b, *args)), argnums=(0, 1))(x, kernel)
    for a, b in zip(ours, xla, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def test_a_kernel_is_cast_to_the_inputs_dtype():
    x, kernel = _case(2, "channels_last")
    got = nn.conv(x, kernel.astype("float16"))
    assert got.dtype == jnp.float32
    want = _numpy_pointwise(x, kernel.astype("float16").astype("float32"), 1, "channels_last")
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def _primitives(fn, *args):
    return {eqn.primitive.name for eqn in jax.make_jaxpr(fn)(*args).eqns}


def test_the_product_replaces_the_convolution_only_where_it_applies():
    x, kernel = _case(2, "channels_last")
    assert "dot_general" in _primitives(lambda a, b: nn.conv(a, b), x, kernel)
    assert "conv_general_dilated" not in _primitives(lambda a, b: nn.conv(a, b), x, kernel)
    # A 3x3 kernel and half precision keep XLA's convolution.
    k3 = np.ones((3, 3, 4, 5), "float32")
    assert "conv_general_dilated" in _primitives(lambda a, b: nn.conv(a, b), x, k3)
    # A grouped 1x1 convolution runs group by group (`test_jax_grouped_conv.py`), each
    # group a product.
    grouped = np.ones((1, 1, 2, 6), "float32")
    assert {"split", "dot_general"} <= _primitives(lambda a, b: nn.conv(a, b), x, grouped)
    assert "conv_general_dilated" not in _primitives(lambda a, b: nn.conv(a, b), x, grouped)
    half = x.astype("float16")
    assert "conv_general_dilated" in _primitives(lambda a, b: nn.conv(a, b), half, kernel)


def test_a_conv2d_layer_with_a_1x1_kernel_matches_keras():
    import os

    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    import lamina

    x, _ = _case(2, "channels_last")
    for kwargs in ({"strides": 2, "padding": "same"}, {"data_format": "channels_first"}):
        ours = lamina.layers.Conv2D(5, 1, **kwargs)
        theirs = keras.layers.Conv2D(5, 1, **kwargs)
        ours.build(x.shape), theirs.build(x.shape)
        theirs.set_weights(ours.get_weights())
        np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-5, atol=1e-5)
