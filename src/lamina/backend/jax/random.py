"""Random sampling on JAX. Every function takes `seed`, a `uint32[2]` key tensor."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from lamina.backend import config
from lamina.backend.common.variables import standardize_dtype

SEED_DTYPE = "uint32"


def _key(seed):
    return jnp.asarray(seed, dtype=SEED_DTYPE)


def _float(dtype):
    return standardize_dtype(dtype) if dtype is not None else config.floatx()


def make_seed(seed: int):
    """A key tensor from an integer seed."""
    return jnp.array([0, int(seed) % (2**32)], dtype=SEED_DTYPE)


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    sample = jax.random.normal(_key(seed), shape=tuple(shape), dtype=_float(dtype))
    return sample * stddev + mean


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    return jax.random.uniform(
        _key(seed), shape=tuple(shape), dtype=_float(dtype), minval=minval, maxval=maxval
    )


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    sample = jax.random.truncated_normal(
        _key(seed), lower=-2.0, upper=2.0, shape=tuple(shape), dtype=_float(dtype)
    )
    return sample * stddev + mean


def randint(shape, minval, maxval, dtype="int32", seed=None):
    return jax.random.randint(
        _key(seed), shape=tuple(shape), minval=minval, maxval=maxval, dtype=dtype
    )


def categorical(logits, num_samples, dtype="int32", seed=None):
    logits = jnp.asarray(logits)
    out = jax.random.categorical(
        _key(seed), logits[..., None, :], axis=-1, shape=logits.shape[:-1] + (num_samples,)
    )
    return out.astype(dtype)


def dropout(inputs, rate, noise_shape=None, seed=None):
    inputs = jnp.asarray(inputs)
    shape = (
        inputs.shape
        if noise_shape is None
        else tuple(s if n is None else n for s, n in zip(inputs.shape, noise_shape, strict=True))
    )
    keep = jax.random.bernoulli(_key(seed), 1.0 - rate, shape)
    keep = jnp.broadcast_to(keep, inputs.shape)
    return jnp.where(keep, inputs / (1.0 - rate), jnp.zeros_like(inputs))


def shuffle(x, axis=0, seed=None):
    return jax.random.permutation(_key(seed), x, axis=axis, independent=False)


def gamma(shape, alpha, dtype=None, seed=None):
    return jax.random.gamma(_key(seed), jnp.asarray(alpha), shape=tuple(shape), dtype=_float(dtype))


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    return jax.random.binomial(
        _key(seed),
        jnp.asarray(counts),
        jnp.asarray(probabilities),
        shape=tuple(shape),
        dtype=_float(dtype),
    )


def beta(shape, alpha, beta, dtype=None, seed=None):
    return jax.random.beta(
        _key(seed), jnp.asarray(alpha), jnp.asarray(beta), shape=tuple(shape), dtype=_float(dtype)
    )
