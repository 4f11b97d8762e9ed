"""Random sampling on JAX. Every function takes `seed`, a `uint32[2]` key tensor.

Eager draws (initializers, mostly) of `uniform`, `normal` and `truncated_normal` do not
compile a program per shape. Compiling JAX's threefry sampler takes 0.2-3 s on a CPU,
once for every new shape, which made building or loading a model mostly compile time.
With partitionable threefry (JAX's default since 0.5) element `i` of a sample depends
only on the key and `i`, and the transforms after it are elementwise: a draw of shape
`S` is the first `prod(S)` numbers of any longer flat draw from the same key, reshaped.
So an eager draw samples a flat vector of a bucketed length (compiled once per bucket,
distribution and dtype) and keeps its prefix: the same numbers, bit for bit. Inside a
traced program (`jit`, where the seed is traced) the draw is the plain call.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from lamina.backend import config
from lamina.backend.common import threefry
from lamina.backend.common.variables import standardize_dtype

SEED_DTYPE = "uint32"


def _key(seed):
    return jnp.asarray(seed, dtype=SEED_DTYPE)


def _float(dtype):
    return standardize_dtype(dtype) if dtype is not None else config.floatx()


def make_seed(seed: int):
    """A key tensor from an integer seed."""
    # Made on the host: `jnp.array` would cast with a compiled program.
    return jax.device_put(np.array([0, int(seed) % (2**32)], dtype=SEED_DTYPE))


# Flat draws are at least this long (16 KiB of float32: nothing to draw), so the small
# weights of a model share one program.
_MIN_BUCKET = 1 << 12


def _bucket(size: int) -> int:
    """The flat length drawn for `size` numbers: 4096, then 3/4 of a power of two or a
    power of two (a third more than asked for at most)."""
    if size <= _MIN_BUCKET:
        return _MIN_BUCKET
    power = 1 << (size - 1).bit_length()
    return power * 3 // 4 if size <= power * 3 // 4 else power


def _prefix_stable() -> bool:
    """Whether a sample is the prefix of a longer flat sample (see the module doc)."""
    return bool(
        jax.config.jax_threefry_partitionable and jax.config.jax_default_prng_impl == "threefry2x32"
    )


@functools.partial(jax.jit, static_argnums=(1, 2))
def _take(flat, size, shape):
    return flat[:size].reshape(shape)


def _scalar(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _sample(draw, shape, seed, *params):
    """`draw(key, shape)`; an eager draw goes through a bucketed flat draw when its
    parameters are Python numbers (arrays may broadcast against `shape`)."""
    shape = tuple(shape)
    key = jax.random.wrap_key_data(_key(seed))
    # A traced key (the draw is part of a program being traced) is a Tracer.
    if isinstance(key, jax.core.Tracer) or not all(map(_scalar, params)):
        return draw(key, shape)
    if not all(isinstance(d, (int, np.integer)) for d in shape) or not _prefix_stable():
        return draw(key, shape)
    size = math.prod(shape)
    flat = draw(key, (_bucket(size),))
    if all(device.platform == "cpu" for device in flat.devices()):
        # On the host the prefix is a view: copy it (the bucket's buffer is not ours to
        # alias) and hand it to the device; no program per shape.
        return jax.device_put(np.array(np.asarray(flat)[:size]).reshape(shape))
    return _take(flat, size, shape)


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    dtype = _float(dtype)

    def draw(key, shape):
        return jax.random.normal(key, shape=shape, dtype=dtype) * stddev + mean

    return _sample(draw, shape, seed, mean, stddev)


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    dtype = _float(dtype)

    def draw(key, shape):
        return jax.random.uniform(key, shape=shape, dtype=dtype, minval=minval, maxval=maxval)

    return _sample(draw, shape, seed, minval, maxval)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    dtype = _float(dtype)

    def draw(key, shape):
        sample = jax.random.truncated_normal(key, lower=-2.0, upper=2.0, shape=shape, dtype=dtype)
        return sample * stddev + mean

    return _sample(draw, shape, seed, mean, stddev)


def _portable(kind, shape, first, second, dtype, seed):
    """JAX's numbers for `seed` computed on the host (`common.threefry`, the same code
    on every engine, so the same seed gives the same bits whatever the engine, device
    or XLA flags; XLA's own draw rounds the float transforms as its compiler chooses).
    None when the seed is traced or the parameters are arrays: the caller then draws
    with `jax.random`, the same numbers to a few ulps."""
    key = jnp.asarray(seed)
    if isinstance(key, jax.core.Tracer) or not all(map(_scalar, (first, second))):
        return None
    values = threefry.sample(kind, np.asarray(key), shape, first, second)
    return jnp.asarray(values, dtype=jax.dtypes.canonicalize_dtype(_float(dtype)))


def portable_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    out = _portable("normal", shape, mean, stddev, dtype, seed)
    return normal(shape, mean, stddev, dtype, seed) if out is None else out


def portable_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    out = _portable("uniform", shape, minval, maxval, dtype, seed)
    return uniform(shape, minval, maxval, dtype, seed) if out is None else out


def portable_truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    out = _portable("truncated_normal", shape, mean, stddev, dtype, seed)
    return truncated_normal(shape, mean, stddev, dtype, seed) if out is None else out


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
