"""Neural-network functions on JAX arrays: activations, softmax, one-hot."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from lamina.backend import config
from lamina.backend.common.variables import standardize_dtype


def relu(x):
    return jax.nn.relu(x)


def relu6(x):
    return jax.nn.relu6(x)


def sigmoid(x):
    return jax.nn.sigmoid(x)


def hard_sigmoid(x):
    # Keras's piecewise-linear form: clip(x / 6 + 0.5, 0, 1).
    return jnp.clip(x / 6.0 + 0.5, 0.0, 1.0)


def hard_silu(x):
    return x * hard_sigmoid(x)


def softplus(x):
    return jax.nn.softplus(x)


def softsign(x):
    return jax.nn.soft_sign(x)


def silu(x):
    return jax.nn.silu(x)


def log_sigmoid(x):
    return jax.nn.log_sigmoid(x)


def leaky_relu(x, negative_slope=0.2):
    return jax.nn.leaky_relu(x, negative_slope=negative_slope)


def elu(x, alpha=1.0):
    return jax.nn.elu(x, alpha=alpha)


def selu(x):
    return jax.nn.selu(x)


def gelu(x, approximate=True):
    return jax.nn.gelu(x, approximate=approximate)


def mish(x):
    return x * jnp.tanh(jax.nn.softplus(x))


def softmax(x, axis=-1):
    return jax.nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    return jax.nn.log_softmax(x, axis=axis)


def one_hot(x, num_classes, axis=-1, dtype=None):
    dtype = standardize_dtype(dtype) if dtype is not None else config.floatx()
    return jax.nn.one_hot(x, num_classes, axis=axis, dtype=dtype)


def moments(x, axes, keepdims=False):
    mean = jnp.mean(x, axis=axes, keepdims=True)
    variance = jnp.mean(jnp.square(x - jax.lax.stop_gradient(mean)), axis=axes, keepdims=True)
    if not keepdims:
        mean = jnp.squeeze(mean, axes)
        variance = jnp.squeeze(variance, axes)
    return mean, variance
