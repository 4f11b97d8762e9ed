"""JAX's eager random draws: a prefix of a bucketed flat draw, the same numbers as a
direct `jax.random` call, without compiling a program per shape."""

import logging

import numpy as np
import pytest

pytestmark = pytest.mark.engine("jax")

jax = pytest.importorskip("jax")

from lamina.backend.jax import random as jax_random  # noqa: E402

SEED = np.array([0, 1234], dtype="uint32")
# Each compiles a direct program: a few, across the first buckets' edges (4096 numbers,
# then 6144) and dtypes.
CASES = [
    ("uniform", (5, 3), "float32"),
    ("uniform", (4097,), "float32"),
    ("uniform", (2, 3), "bfloat16"),
    ("normal", (3, 3, 16, 8), "float32"),
    ("truncated_normal", (), "float32"),
    ("truncated_normal", (7,), "float16"),
]


def _direct(kind, shape, dtype):
    key = jax.numpy.asarray(SEED)
    if kind == "uniform":
        return jax.random.uniform(key, shape, dtype, minval=-0.3, maxval=0.7)
    if kind == "normal":
        return jax.random.normal(key, shape, dtype) * 0.5 + 1.0
    return jax.random.truncated_normal(key, -2.0, 2.0, shape, dtype) * 0.5 + 1.0


def _ours(kind, shape, dtype):
    if kind == "uniform":
        return jax_random.uniform(shape, -0.3, 0.7, dtype, seed=SEED)
    fn = jax_random.normal if kind == "normal" else jax_random.truncated_normal
    return fn(shape, 1.0, 0.5, dtype, seed=SEED)


def _bits(x):
    return np.asarray(x).reshape(-1).view(np.uint8)


@pytest.mark.parametrize("kind, shape, dtype", CASES)
def test_eager_draws_are_jax_randoms_numbers_bit_for_bit(kind, shape, dtype):
    ours, direct = _ours(kind, shape, dtype), _direct(kind, shape, dtype)
    assert ours.shape == direct.shape and ours.dtype == direct.dtype
    np.testing.assert_array_equal(_bits(ours), _bits(direct))


def test_traced_draws_are_the_direct_call():
    # Inside a program the draw is the plain call (XLA may fuse it with what follows,
    # so its last bit can differ from an eager draw's, as it always has).
    @jax.jit
    def ours(seed):
        return jax_random.uniform((5, 3), -0.3, 0.7, "float32", seed=seed)

    @jax.jit
    def direct(seed):
        return jax.random.uniform(seed, (5, 3), "float32", minval=-0.3, maxval=0.7)

    np.testing.assert_array_equal(_bits(ours(SEED)), _bits(direct(SEED)))


def test_new_small_shapes_compile_nothing(caplog):
    _ours("uniform", (2,), "float32")  # compiles the smallest bucket's program
    with caplog.at_level(logging.WARNING), jax.log_compiles():
        for shape in [(3,), (4, 5), (2, 3, 7), (61, 67)]:
            _ours("uniform", shape, "float32")
    assert [r.getMessage() for r in caplog.records if "Compiling" in r.getMessage()] == []
