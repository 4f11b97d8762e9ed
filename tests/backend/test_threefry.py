"""The host generator (`backend.common.threefry`) draws JAX's numbers.

The reference is `jax.random` itself, called with the same raw keys. Its random bits
are integers: equal bit for bit. Its float transforms (the uniform's multiply-add,
`erfinv`) round as XLA's compiler chooses, with the suite's flags (`conftest.py`) or
without; the host's, rounded once per operation by NumPy, agree to 4 float32 ulps of
`max(|x|, 1)`. Every engine draws initial values with this module (none imports JAX
for it), so they are equal on every engine bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from lamina.backend.common import threefry

jax = pytest.importorskip("jax")
jnp = jax.numpy

pytestmark = pytest.mark.engine("jax")

# Raw keys as seed tensors hold them: `make_seed` gives `[0, seed]`, a SeedGenerator adds
# one per draw; the third has words past 2**31 (int64 seeds on torch are read mod 2**32).
KEYS = [(0, 7), (3, 1000), (0xFFFFFFF0, 0x9E3779B9)]
# A size past four blocks of the host generator shares its blocks between threads.
SHAPES = [(5,), (33, 7), (4 * (1 << 16) + 3,)]
# 4 float32 ulps of max(|x|, 1): the bound measured is 3.5 (truncated normal).
TOLERANCE = 4 * 2.0**-23


def _key(words):
    return jax.random.wrap_key_data(jnp.asarray(np.array(words, np.uint32)))


def _jax_draws(words, shape):
    key = _key(words)
    return {
        "uniform": np.asarray(jax.random.uniform(key, shape, jnp.float32, -0.37, 0.71)),
        "normal": np.asarray(jax.random.normal(key, shape)),
        "truncated_normal": np.asarray(
            jax.random.truncated_normal(key, -2.0, 2.0, shape, jnp.float32)
        ),
    }


def _host_draws(words, shape):
    return {
        "uniform": threefry.uniform(words, shape, -0.37, 0.71),
        "normal": threefry.normal(words, shape),
        "truncated_normal": threefry.truncated_normal(words, shape),
    }


@pytest.mark.parametrize("words", KEYS)
@pytest.mark.parametrize("shape", SHAPES)
def test_draws_are_jax_numbers(words, shape):
    bits = threefry.random_bits(words, shape)
    np.testing.assert_array_equal(bits, np.asarray(jax.random.bits(_key(words), shape)))
    theirs = _jax_draws(words, shape)
    for kind, ours in _host_draws(words, shape).items():
        assert ours.dtype == np.float32 and ours.shape == shape
        np.testing.assert_allclose(ours, theirs[kind], rtol=TOLERANCE, atol=TOLERANCE)


def test_truncation_bounds_are_jax_erf_values():
    sqrt2 = np.float32(np.sqrt(2.0))
    for bound, ours in ((-2.0, threefry._TRUNCATED_LOW), (2.0, threefry._TRUNCATED_HIGH)):
        theirs = np.asarray(jax.lax.erf(jnp.float32(bound) / sqrt2))
        assert np.float32(ours).view(np.uint32) == theirs.view(np.uint32)


def test_sample_scales_as_jax_does():
    # `normal(...) * stddev + mean` in float32, one rounding after each operation.
    words, shape = (0, 7), (6, 5)
    standard = threefry.normal(words, shape)
    expected = standard * np.float32(0.3) + np.float32(-0.1)
    np.testing.assert_array_equal(threefry.sample("normal", words, shape, -0.1, 0.3), expected)
    uniform = threefry.sample("uniform", words, shape, -0.37, 0.71)
    np.testing.assert_array_equal(uniform, threefry.uniform(words, shape, -0.37, 0.71))


def test_seed_words_are_read_mod_two_to_the_32():
    assert threefry.key_words(np.array([2**32 + 5, -1], np.int64)) == (5, 2**32 - 1)
    with pytest.raises(ValueError, match="two numbers; received 3"):
        threefry.key_words([1, 2, 3])


def test_initializers_draw_jax_numbers():
    # RandomNormal(seed=7)'s first call draws with the key [0, 7] (`make_seed`).
    from lamina import initializers, ops

    ours = ops.convert_to_numpy(initializers.RandomNormal(0.1, 0.5, seed=7)((40, 3)))
    theirs = np.asarray(jax.random.normal(_key((0, 7)), (40, 3))) * np.float32(0.5) + 0.1
    np.testing.assert_allclose(ours, theirs, rtol=TOLERANCE, atol=TOLERANCE)
