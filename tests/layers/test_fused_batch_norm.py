"""torch's BatchNormalization in training runs torch's own kernel (`fused_batch_norm`).

The kernel must compute what the composite (`moments`, then the affine) computes: the
outputs, the batch mean and biased variance for the moving averages, and gradients that
flow through the statistics. Checked against NumPy formulas and against the composite's
autograd gradients, for images held channels-last, features on axis 1 and a matrix.
"""

import os

import numpy as np
import pytest

import lamina
from lamina import layers

RNG = np.random.default_rng(3)
os.environ.setdefault("KERAS_BACKEND", "jax")  # the reference below, before Keras loads
CASES = [((4, 5, 5, 3), -1), ((6, 3, 4), 1), ((8, 5), -1)]


def _numpy_bn(x, axis, gamma, beta, eps):
    axes = tuple(a for a in range(x.ndim) if a != axis % x.ndim)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    shape = [1] * x.ndim
    shape[axis] = -1
    y = (x - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)
    return y, mean.reshape(-1), var.reshape(-1)


@pytest.mark.engine("torch")
@pytest.mark.parametrize("shape, axis", CASES)
def test_the_fused_kernel_matches_numpy_and_the_composites_gradients(shape, axis):
    import torch

    from lamina.backend.torch import nn as torch_nn

    x = RNG.standard_normal(shape).astype("float32") * 2.0 + 0.5
    channels = shape[axis]
    gamma = RNG.uniform(0.5, 1.5, channels).astype("float32")
    beta = RNG.standard_normal(channels).astype("float32")
    expected, mean, var = _numpy_bn(x.astype("float64"), axis, gamma, beta, 1e-3)

    tx, tg, tb = (torch.tensor(a, requires_grad=True) for a in (x, gamma, beta))
    out, got_mean, got_var = torch_nn.fused_batch_norm(tx, axis, tg, tb, 1e-3)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_mean.numpy(), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_var.numpy(), var, rtol=1e-5, atol=1e-6)
    weights = torch.tensor(RNG.standard_normal(shape).astype("float32"))
    fused_grads = torch.autograd.grad((out * weights).sum(), (tx, tg, tb))

    cx, cg, cb = (torch.tensor(a, requires_grad=True) for a in (x, gamma, beta))
    axes = [a for a in range(len(shape)) if a != axis % len(shape)]
    bshape = [1] * len(shape)
    bshape[axis] = -1
    m = cx.mean(axes, keepdim=True)
    v = ((cx - m) ** 2).mean(axes, keepdim=True)
    composite = (cx - m) * torch.rsqrt(v + 1e-3) * cg.reshape(bshape) + cb.reshape(bshape)
    composite_grads = torch.autograd.grad((composite * weights).sum(), (cx, cg, cb))
    for fused, reference in zip(fused_grads, composite_grads, strict=True):
        np.testing.assert_allclose(fused.numpy(), reference.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.engine("torch")
def test_the_fused_kernel_declines_what_it_does_not_take():
    import torch

    from lamina.backend.torch import nn as torch_nn

    half = torch.ones((4, 3), dtype=torch.float16)
    assert torch_nn.fused_batch_norm(half, -1, None, None, 1e-3) is None
    assert torch_nn.fused_batch_norm(torch.ones(3), 0, None, None, 1e-3) is None


def test_a_batchnorm_layer_in_training_gives_the_numpy_values_and_moving_statistics():
    x = RNG.standard_normal((6, 4, 4, 3)).astype("float32") * 3.0 - 1.0
    layer = layers.BatchNormalization(momentum=0.9, epsilon=1e-3)
    layer.build(x.shape)
    gamma = RNG.uniform(0.5, 1.5, 3).astype("float32")
    beta = RNG.standard_normal(3).astype("float32")
    layer.set_weights([gamma, beta, np.zeros(3, "float32"), np.ones(3, "float32")])
    out = lamina.ops.convert_to_numpy(layer(x, training=True))
    expected, mean, var = _numpy_bn(x.astype("float64"), -1, gamma, beta, 1e-3)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.1 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=1e-5)


def _numpy_inference(x, axis, mean, var, gamma, beta, eps):
    shape = [1] * x.ndim
    shape[axis] = -1
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    if gamma is not None:
        y = y * gamma.reshape(shape)
    return y if beta is None else y + beta.reshape(shape)


@pytest.mark.engine("torch")
@pytest.mark.parametrize("shape, axis", CASES)
def test_the_inference_kernel_matches_numpy_and_the_composites_gradients(shape, axis):
    import torch

    from lamina.backend.torch import nn as torch_nn

    x = RNG.standard_normal(shape).astype("float32") * 2.0 + 0.5
    channels = shape[axis]
    mean = RNG.standard_normal(channels).astype("float32")
    var = RNG.uniform(0.2, 3.0, channels).astype("float32")
    gamma = RNG.uniform(0.5, 1.5, channels).astype("float32")
    beta = RNG.standard_normal(channels).astype("float32")
    f64 = [a.astype("float64") for a in (x, mean, var, gamma, beta)]
    expected = _numpy_inference(f64[0], axis, *f64[1:], 1e-3)

    tx, tg, tb = (torch.tensor(a, requires_grad=True) for a in (x, gamma, beta))
    tm, tv = torch.tensor(mean), torch.tensor(var)
    out, got_mean, got_var = torch_nn.fused_batch_norm(tx, axis, tg, tb, 1e-3, tm, tv)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-5, atol=1e-5)
    assert got_mean is tm and got_var is tv
    # The statistics are constants; the gradient reaches the inputs, gamma and beta, as
    # through the composite (a frozen BatchNormalization in a fine-tuned model).
    weights = torch.tensor(RNG.standard_normal(shape).astype("float32"))
    fused_grads = torch.autograd.grad((out * weights).sum(), (tx, tg, tb))
    cx, cg, cb = (torch.tensor(a, requires_grad=True) for a in (x, gamma, beta))
    bshape = [1] * len(shape)
    bshape[axis] = -1
    composite = (cx - tm.reshape(bshape)) * torch.rsqrt(tv.reshape(bshape) + 1e-3)
    composite = composite * cg.reshape(bshape) + cb.reshape(bshape)
    composite_grads = torch.autograd.grad((composite * weights).sum(), (cx, cg, cb))
    for fused, reference in zip(fused_grads, composite_grads, strict=True):
        np.testing.assert_allclose(fused.numpy(), reference.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.engine("torch")
def test_the_inference_kernel_wants_both_statistics():
    import torch

    from lamina.backend.torch import nn as torch_nn

    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        torch_nn.fused_batch_norm(torch.ones((2, 3)), -1, None, None, 1e-3, torch.zeros(3))


@pytest.mark.parametrize("center, scale", [(True, True), (False, False)])
def test_a_batchnorm_layer_in_inference_gives_the_numpy_values_in_every_mode(center, scale):
    x = RNG.standard_normal((6, 4, 4, 3)).astype("float32") * 3.0 - 1.0
    layer = layers.BatchNormalization(epsilon=1e-3, center=center, scale=scale)
    layer.build(x.shape)
    gamma = RNG.uniform(0.5, 1.5, 3).astype("float32") if scale else None
    beta = RNG.standard_normal(3).astype("float32") if center else None
    mean = RNG.standard_normal(3).astype("float32")
    var = RNG.uniform(0.2, 3.0, 3).astype("float32")
    layer.set_weights([w for w in (gamma, beta, mean, var) if w is not None])
    f64 = lambda a: None if a is None else a.astype("float64")  # noqa: E731
    expected = _numpy_inference(f64(x), -1, f64(mean), f64(var), f64(gamma), f64(beta), 1e-3)
    eager = lamina.ops.convert_to_numpy(layer(x, training=False))
    np.testing.assert_allclose(eager, expected, rtol=1e-5, atol=1e-5)
    inputs = lamina.Input((4, 4, 3))
    model = lamina.Model(inputs, layer(inputs, training=False))
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-5)


def _frozen_bn_model(weights):
    """A fine-tuning model: BatchNormalization called in inference mode (its moving
    statistics) while its gamma and beta train, inside `fit`'s compiled step."""
    inputs = lamina.Input((4,))
    x = lamina.layers.Dense(3)(inputs)
    x = lamina.layers.BatchNormalization(epsilon=1e-3)(x, training=False)
    model = lamina.Model(inputs, lamina.layers.Dense(2)(x))
    model.set_weights(weights)
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    return model


def _keras_reference(keras, weights):
    """The same model in Keras 3 with the normalization written out: trainable gamma and
    beta, the statistics constants. (Keras 3.15's functional models override a layer's
    `training=False` given at construction with fit's `training=True`, so its
    BatchNormalization would train its statistics here; Keras 2, tf.keras and Keras's
    transfer-learning guide keep it in inference mode, as lamina does.)"""

    class FrozenNormalization(keras.layers.Layer):
        def build(self, shape):
            self.gamma = self.add_weight(shape=(shape[-1],), name="gamma")
            self.beta = self.add_weight(shape=(shape[-1],), name="beta")

        def call(self, x):
            mean = keras.ops.convert_to_tensor(weights[4])
            inv = self.gamma * keras.ops.rsqrt(keras.ops.convert_to_tensor(weights[5]) + 1e-3)
            return (x - mean) * inv + self.beta

    inputs = keras.Input((4,))
    x = FrozenNormalization()(keras.layers.Dense(3)(inputs))
    model = keras.Model(inputs, keras.layers.Dense(2)(x))
    model.set_weights(weights[:4] + weights[6:])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    return model


# Keras's own Variable.__array__ (its get_weights) under NumPy 2, as in tests/saving.
@pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)
def test_inference_batchnorm_inside_fit_trains_gamma_and_beta_as_keras():
    keras = pytest.importorskip("keras")
    weights = [
        RNG.standard_normal((4, 3)).astype("float32"),
        RNG.standard_normal(3).astype("float32"),
        RNG.uniform(0.5, 1.5, 3).astype("float32"),  # gamma
        RNG.standard_normal(3).astype("float32"),  # beta
        RNG.standard_normal(3).astype("float32"),  # moving mean
        RNG.uniform(0.5, 2.0, 3).astype("float32"),  # moving variance
        RNG.standard_normal((3, 2)).astype("float32"),
        RNG.standard_normal(2).astype("float32"),
    ]
    x = RNG.standard_normal((8, 4)).astype("float32")
    y = RNG.standard_normal((8, 2)).astype("float32")
    ours, theirs = _frozen_bn_model(weights), _keras_reference(keras, weights)
    lost = ours.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0).history["loss"]
    expected = theirs.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    np.testing.assert_allclose(lost, expected.history["loss"], rtol=1e-5)
    got = ours.get_weights()
    for mine, want in zip(got[:4] + got[6:], theirs.get_weights(), strict=True):
        np.testing.assert_allclose(mine, want, rtol=1e-5, atol=1e-6)
    # The moving statistics stay as they were; gamma and beta moved.
    np.testing.assert_array_equal(got[4], weights[4])
    np.testing.assert_array_equal(got[5], weights[5])
    assert not np.allclose(got[2], weights[2])
