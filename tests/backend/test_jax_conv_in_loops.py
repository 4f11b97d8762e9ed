"""Convolutions traced in the body of a loop lamina makes, on JAX's CPU, take gradients
written in the standard layout (`backend.jax.conv_in_loops`): the values and gradients
XLA's own rules give outside a loop, for every rank, stride, dilation, padding and data
format; the loops that mark their bodies; eager loops still compiled once; and, end to
end, `steps_per_execution` and a ConvLSTM2D training as they do step by step."""

from __future__ import annotations

import logging
import re

import numpy as np
import pytest

pytestmark = pytest.mark.engine("jax")

jax = pytest.importorskip("jax")
jnp = jax.numpy

import lamina  # noqa: E402
from lamina.backend.jax import conv_in_loops, nn  # noqa: E402
from lamina.backend.jax import core_control_flow as flow  # noqa: E402

CASES = [
    # rank, data format, strides, padding, dilation
    (2, "channels_last", 1, "same", 1),  # a ConvLSTM2D's convolutions
    (2, "channels_last", 2, "valid", 1),
    (2, "channels_first", 2, "same", 1),
    (2, "channels_last", (2, 1), "same", 1),  # one axis strided
    (2, "channels_last", 1, "valid", 2),  # dilated
    (1, "channels_last", 1, "causal", 2),
    (1, "channels_first", 3, "valid", 1),
    (3, "channels_last", 2, "same", 1),
]


def _case(n, data_format):
    rng = np.random.default_rng(0)
    spatial = {1: (9,), 2: (7, 6), 3: (5, 4, 5)}[n]
    shape = (2, *spatial, 3) if data_format == "channels_last" else (2, 3, *spatial)
    xs = jnp.asarray(rng.standard_normal((3, *shape)).astype("float32"))  # 3 steps
    kernel = jnp.asarray(rng.standard_normal((3,) * n + (3, 4)).astype("float32"))
    return xs, kernel


@pytest.mark.parametrize("n, data_format, strides, padding, dilation", CASES)
def test_gradients_in_a_loop_are_xlas_outside_one(n, data_format, strides, padding, dilation):
    xs, kernel = _case(n, data_format)

    def conv(x, k):
        return nn.conv(x, k, strides, padding, data_format, dilation)

    def looped(xs, k):
        _, ys = flow.scan(lambda c, x: (c, conv(x, k)), 0.0, xs)
        return jnp.sum(jnp.sin(ys))

    def unrolled(xs, k):  # XLA's own rules: no loop
        return sum(jnp.sum(jnp.sin(conv(xs[t], k))) for t in range(xs.shape[0]))

    assert "custom_vjp" in str(jax.make_jaxpr(looped)(xs, kernel))
    assert "custom_vjp" not in str(jax.make_jaxpr(unrolled)(xs, kernel))
    np.testing.assert_allclose(looped(xs, kernel), unrolled(xs, kernel), rtol=1e-5)
    ours = jax.jit(jax.grad(looped, (0, 1)))(xs, kernel)
    xlas = jax.jit(jax.grad(unrolled, (0, 1)))(xs, kernel)
    for a, b in zip(ours, xlas, strict=True):
        assert a.shape == b.shape
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-4)


TRANSPOSED = [
    # rank, data format, strides, padding, output padding, dilation
    (2, "channels_last", 1, "same", None, 1),
    (2, "channels_last", 2, "same", None, 1),  # a decoder's upsampling layer
    (2, "channels_first", 3, "valid", 1, 1),
    (1, "channels_last", 1, "valid", None, 2),  # dilated
    (3, "channels_last", 2, "valid", None, 1),
]


@pytest.mark.parametrize("n, data_format, strides, padding, out_pad, dilation", TRANSPOSED)
def test_transposed_convolutions_in_a_loop_are_xlas_outside_one(
    n, data_format, strides, padding, out_pad, dilation
):
    xs, kernel = _case(n, data_format)  # kernel (*spatial, out=3, in=4): 4 -> 3 channels
    kernel = jnp.swapaxes(kernel, -1, -2)  # (*spatial, out=4, in=3): the inputs' 3 channels

    def conv_t(x, k):
        return nn.conv_transpose(x, k, strides, padding, out_pad, data_format, dilation)

    def looped(xs, k):
        _, ys = flow.scan(lambda c, x: (c, conv_t(x, k)), 0.0, xs)
        return jnp.sum(jnp.sin(ys))

    def unrolled(xs, k):
        return sum(jnp.sum(jnp.sin(conv_t(xs[t], k))) for t in range(xs.shape[0]))

    # The loop's rule (`conv_in_loops.conv`), whatever the strides.
    assert re.search(r"name=conv\b", str(jax.make_jaxpr(looped)(xs, kernel)))
    np.testing.assert_allclose(looped(xs, kernel), unrolled(xs, kernel), rtol=1e-4)
    ours = jax.jit(jax.grad(looped, (0, 1)))(xs, kernel)
    theirs = jax.jit(jax.grad(unrolled, (0, 1)))(xs, kernel)
    for a, b in zip(ours, theirs, strict=True):
        assert a.shape == b.shape
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-3)


def test_every_loop_marks_its_body_and_only_while_tracing_it():
    seen = []

    def body(*args):
        seen.append(conv_in_loops.in_loop_body())
        return args[-1]

    assert not conv_in_loops.in_loop_body()
    flow.scan(lambda c, x: (body(c), x), 0.0, jnp.ones(2))
    flow.fori_loop(0, 2, body, 0.0)
    flow.while_loop(lambda v: v < 0.0, body, 1.0)
    flow.while_loop(lambda v: v < 5.0, lambda v: body(v) + 1.0, 1.0, maximum_iterations=2)
    flow.map(lambda x: body(x), jnp.ones(2))
    assert seen and all(seen)
    assert not conv_in_loops.in_loop_body()


def test_an_eager_loop_with_the_same_body_compiles_once(caplog):
    # The body goes to JAX as it is (no wrapper made per call), so JAX's caches know it.
    def body(i, x):
        return x * 1.5 + i

    x = jnp.ones(3)
    flow.fori_loop(0, 3, body, x)
    with jax.log_compiles(), caplog.at_level(logging.WARNING):
        caplog.clear()
        flow.fori_loop(0, 3, body, x)
    assert not [r for r in caplog.records if "Compiling" in r.getMessage()]


def test_forward_mode_through_a_loop_with_a_convolution_raises():
    # The custom gradient has no forward mode (documented in the performance guide).
    xs, kernel = _case(2, "channels_last")

    def looped(k):
        return flow.scan(lambda c, x: (c, nn.conv(x, k, 1, "same")), 0.0, xs)[1]

    with pytest.raises(TypeError):
        jax.jvp(looped, (kernel,), (kernel,))


def _convnet(steps_per_execution):
    lamina.utils.set_random_seed(3)
    layers = lamina.layers
    model = lamina.Sequential(
        [
            lamina.Input((8, 8, 2)),
            layers.Conv2D(4, 3, activation="relu"),
            layers.Conv2D(3, 3, strides=2, padding="same"),
            layers.Flatten(),
            layers.Dense(3),
        ]
    )
    model.compile(
        optimizer=lamina.optimizers.SGD(0.05),
        loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True),
        steps_per_execution=steps_per_execution,
    )
    return model


def test_steps_per_execution_trains_a_convnet_as_one_step_at_a_time_does():
    # With steps_per_execution=4 the steps run in a `lax.scan` (this module's rules);
    # one at a time they run XLA's.
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 8, 8, 2)).astype("float32")
    y = rng.integers(0, 3, 32)
    weights = []
    for spe in (1, 4):
        model = _convnet(spe)
        model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
        weights.append(model.get_weights())
    for a, b in zip(*weights, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_a_conv_lstm_trains_as_its_unrolled_loop_does():
    # ConvLSTM2D's steps run in a scan; `unroll=True` runs them in Python (XLA's rules).
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 6, 6, 1)).astype("float32")
    y = rng.standard_normal((2, 6, 6, 2)).astype("float32")
    weights = []
    for unroll in (False, True):
        lamina.utils.set_random_seed(4)
        model = lamina.Sequential(
            [
                lamina.Input((3, 6, 6, 1)),
                lamina.layers.ConvLSTM2D(2, 3, padding="same", unroll=unroll),
            ]
        )
        model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
        model.fit(x, y, batch_size=2, epochs=2, verbose=0)
        weights.append(model.get_weights())
    for a, b in zip(*weights, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
