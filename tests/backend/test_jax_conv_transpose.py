"""Strided transposed convolutions on JAX's CPU take their gradients from the adjoint
strided convolution (`_conv_transpose_by_adjoint`): the same values, and the gradients
JAX derives for XLA's transposed convolution itself, for every rank, stride, padding,
output padding, dilation and data format."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.engine("jax")

jax = pytest.importorskip("jax")
jnp = jax.numpy

from lamina.backend.jax import nn  # noqa: E402

CASES = [
    # rank, data format, strides, padding, output padding, dilation, kernel size
    (2, "channels_last", 2, "same", None, 1, 3),  # a decoder's upsampling layer
    (2, "channels_last", 2, "valid", None, 1, 4),
    (2, "channels_first", 3, "same", 1, 1, 3),
    (2, "channels_last", (2, 1), "valid", (1, 0), 1, 3),  # one axis strided
    (1, "channels_last", 2, "same", None, 1, 5),
    (3, "channels_first", 2, "valid", None, 1, 2),
    (2, "channels_last", 2, "valid", None, 2, 3),  # dilated
]


def _case(n, data_format, size):
    rng = np.random.default_rng(0)
    spatial = {1: (9,), 2: (5, 6), 3: (3, 4, 3)}[n]
    shape = (2, *spatial, 3) if data_format == "channels_last" else (2, 3, *spatial)
    x = jnp.asarray(rng.standard_normal(shape).astype("float32"))
    kernel = jnp.asarray(rng.standard_normal((size,) * n + (4, 3)).astype("float32"))
    return x, kernel


@pytest.mark.parametrize("n, data_format, strides, padding, out_pad, dilation, size", CASES)
def test_the_adjoints_gradients_are_xlas(
    n, data_format, strides, padding, out_pad, dilation, size, monkeypatch
):
    x, kernel = _case(n, data_format, size)
    arguments = []  # what conv_transpose passes on: strides, pads, dilation, data format
    adjoint = nn._conv_transpose_by_adjoint
    monkeypatch.setattr(
        nn,
        "_conv_transpose_by_adjoint",
        lambda a, b, *args: arguments.append(args) or adjoint(a, b, *args),
    )

    def ours(a, b):
        return nn.conv_transpose(a, b, strides, padding, out_pad, data_format, dilation)

    def xlas(a, b):  # the same transposed convolution under XLA's own gradient rules
        return nn._lax_conv_transpose(a, b, *arguments[0])

    np.testing.assert_array_equal(np.asarray(ours(x, kernel)), np.asarray(xlas(x, kernel)))

    def loss(fn):
        return lambda a, b: jnp.sum(jnp.sin(fn(a, b)))

    got = jax.jit(jax.grad(loss(ours), (0, 1)))(x, kernel)
    want = jax.grad(loss(xlas), (0, 1))(x, kernel)
    for have, expected in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(have), np.asarray(expected), rtol=1e-5, atol=1e-5)
    assert "custom_vjp_call" in str(jax.make_jaxpr(ours)(x, kernel))


def test_a_stride_of_one_keeps_xlas_rules():
    x, kernel = _case(2, "channels_last", 3)
    jaxpr = str(jax.make_jaxpr(lambda a, b: nn.conv_transpose(a, b, 1, "same"))(x, kernel))
    assert "custom_vjp_call" not in jaxpr


def test_a_conv2d_transpose_layer_trains_as_keras_does():
    import os

    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    import lamina

    x, _ = _case(2, "channels_last", 3)
    ours = lamina.layers.Conv2DTranspose(4, 3, strides=2, padding="same")
    theirs = keras.layers.Conv2DTranspose(4, 3, strides=2, padding="same")
    ours.build(x.shape), theirs.build(x.shape)
    theirs.set_weights(ours.get_weights())

    def grads(layer, weights):
        def loss(ws, a):
            out, _ = layer.stateless_call(ws, [], a)
            return jnp.sum(jnp.sin(out))

        return jax.grad(loss, (0, 1))(weights, x)

    ours_grads = grads(ours, [v.value for v in ours.trainable_variables])
    theirs_grads = grads(theirs, [v.value for v in theirs.trainable_variables])
    for a, b in zip(jax.tree.leaves(ours_grads), jax.tree.leaves(theirs_grads), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)
