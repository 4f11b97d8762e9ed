"""The host generator (`backend.common.threefry`) draws JAX's numbers.

The reference is `jax.random` itself, called with the same raw keys. Its random bits
are integers, equal whatever XLA does; its float transforms (the uniform's multiply-add,
`erfinv`) round as XLA's compiler chooses. On a CPU with XLA's default optimization the
host numbers are JAX's bit for bit (checked in a fresh process); the suite compiles with
less optimization (see `conftest.py`), where XLA fuses fewer multiply-adds and JAX's own
draws move by up to 4 float32 ulps, the bound checked in this process. Every engine
draws initial values with this module (none imports JAX for it), so they are equal on
every engine bit for bit whatever XLA does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

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
ULPS = 4


def _key(words):
    return jax.random.wrap_key_data(jnp.asarray(np.array(words, np.uint32)))


def _ordered(x):
    """float32 as integers in the order of the values (ulps apart = integers apart)."""
    i = np.asarray(x, np.float32).view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)


def _ulps(ours, theirs):
    assert ours.dtype == theirs.dtype == np.float32 and ours.shape == theirs.shape
    return int(np.abs(_ordered(ours) - _ordered(theirs)).max())


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
        if kind == "uniform":  # ulps of the range: values near 0 have tiny ulps
            np.testing.assert_allclose(ours, theirs[kind], rtol=0, atol=ULPS * 2.0**-23)
        else:
            assert _ulps(ours, theirs[kind]) <= ULPS, kind


def test_draws_are_jax_numbers_bit_for_bit_with_xla_defaults(tmp_path):
    script = f"""
        import numpy as np, jax, jax.numpy as jnp
        assert "XLA_FLAGS" not in __import__("os").environ
        {textwrap.indent(textwrap.dedent(_DEFAULTS_SCRIPT), " " * 8).strip()}
    """
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "PYTEST_CURRENT_TEST")}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    reference = np.load(tmp_path / "draws.npz")
    for words in KEYS:
        for shape in SHAPES[1:2]:
            for kind, ours in _host_draws(words, shape).items():
                theirs = reference[f"{kind}-{words[0]}-{len(shape)}"]
                np.testing.assert_array_equal(ours.view(np.uint32), theirs.view(np.uint32))


_DEFAULTS_SCRIPT = f"""
    draws = {{}}
    for words in {KEYS!r}:
        key = jax.random.wrap_key_data(jnp.asarray(np.array(words, np.uint32)))
        for shape in {SHAPES[1:2]!r}:
            suffix = f"{{words[0]}}-{{len(shape)}}"
            draws["uniform-" + suffix] = jax.random.uniform(key, shape, jnp.float32, -0.37, 0.71)
            draws["normal-" + suffix] = jax.random.normal(key, shape)
            draws["truncated_normal-" + suffix] = jax.random.truncated_normal(
                key, -2.0, 2.0, shape, jnp.float32
            )
    np.savez("draws.npz", **{{k: np.asarray(v) for k, v in draws.items()}})
"""


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
