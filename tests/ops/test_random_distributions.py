"""`lamina.random.gamma`, `binomial`, `beta`: Keras 3's signatures, seeding and moments.

Moments are checked against the distributions' formulas on a few thousand samples, with
tolerances of several standard errors (the seeds are fixed, so the checks are
deterministic; the margins keep them valid for any seed).
"""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina import random as lrandom

N = 4000


def _np(x):
    return ops.convert_to_numpy(x)


def _check_moments(x, mean, var, sigmas=5.0):
    x = np.asarray(x, dtype="float64").ravel()
    n = x.size
    # Standard error of the mean is sqrt(var / n); of the variance about
    # var * sqrt(2 / n) for near-normal data; doubled for skewed ones.
    assert abs(x.mean() - mean) < sigmas * np.sqrt(var / n), (x.mean(), mean)
    assert abs(x.var() - var) < sigmas * 2 * var * np.sqrt(2 / n), (x.var(), var)


def test_signatures_match_keras():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras

    for name in ("gamma", "binomial", "beta"):
        ours = inspect.signature(getattr(lamina.random, name))
        theirs = inspect.signature(getattr(keras.random, name))
        assert list(ours.parameters) == list(theirs.parameters), name
        for p in theirs.parameters.values():
            assert ours.parameters[p.name].default == p.default, (name, p.name)


# One sample shape and one parameter shape per distribution: on JAX each new shape
# compiles the sampler again (seconds), so every check below reuses the same program.
SHAPE = (N // 2, 2)


def gamma(seed, dtype=None):
    return lrandom.gamma(SHAPE, alpha=[0.5, 3.0], dtype=dtype, seed=seed)


def binomial(seed, dtype=None):
    return lrandom.binomial(
        SHAPE, counts=[12.0, 4.0], probabilities=[0.3, 0.5], dtype=dtype, seed=seed
    )


def beta(seed, dtype=None):
    return lrandom.beta(SHAPE, alpha=[2.0, 0.7], beta=[5.0, 0.7], dtype=dtype, seed=seed)


def test_gamma_moments():
    x = _np(gamma(7))
    assert x.shape == SHAPE and x.dtype == np.float32
    assert (x >= 0).all()
    for column, alpha in enumerate((0.5, 3.0)):
        _check_moments(x[:, column], alpha, alpha)


def test_binomial_moments():
    x = _np(binomial(3))
    assert x.dtype == np.float32
    np.testing.assert_array_equal(x, np.round(x))
    assert x.min() >= 0 and x[:, 0].max() <= 12 and x[:, 1].max() <= 4
    for column, (n, p) in enumerate(((12, 0.3), (4, 0.5))):
        _check_moments(x[:, column], n * p, n * p * (1 - p))


def test_beta_moments():
    x = _np(beta(11))
    assert ((x >= 0) & (x <= 1)).all()
    for column, (a, b) in enumerate(((2.0, 5.0), (0.7, 0.7))):
        mean = a / (a + b)
        var = a * b / ((a + b) ** 2 * (a + b + 1))
        _check_moments(x[:, column], mean, var)


def test_seeds():
    for draw in (gamma, binomial, beta):
        _check_seeds(draw)


def _check_seeds(draw):
    # An int seed is stateless: the same draw every time.
    np.testing.assert_array_equal(_np(draw(5)), _np(draw(5)))
    assert not np.array_equal(_np(draw(5)), _np(draw(6)))
    # A SeedGenerator advances; a fresh one with the same seed repeats the stream.
    gen = lrandom.SeedGenerator(9)
    first, second = _np(draw(gen)), _np(draw(gen))
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(_np(draw(lrandom.SeedGenerator(9))), first)
    # The global generator, reset by set_random_seed.
    lamina.utils.set_random_seed(1)
    a = _np(draw(None))
    lamina.utils.set_random_seed(1)
    np.testing.assert_array_equal(_np(draw(None)), a)
    # Integer dtypes are refused, as Keras documents (floating types only).
    with pytest.raises(ValueError, match="floating"):
        draw(1, "int32")
