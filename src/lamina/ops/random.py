"""Seeded random sampling. Randomness comes from explicit seed state, never hidden globals.

`seed` is an int (the same draw every time), a `SeedGenerator` (a new draw each call, its
state a variable that compiled training carries along), or `None` (the global generator,
reset by `lamina.utils.set_random_seed`).
"""

from __future__ import annotations

import random as _py_random

from lamina import backend
from lamina.backend.common.global_state import register_reset_hook


class SeedGenerator:
    """Seed state for a stream of random draws.

    Args:
        seed: an int; `None` draws one from Python's `random` (itself seeded by
            `lamina.utils.set_random_seed`).
        name: the generator's name (default `"seed_generator"`).
        **kwargs: Keras's one extra keyword, `backend`: the backend module whose
            variables hold the state. lamina accepts `None` or `lamina.backend` itself
            (both mean the current engine); any other keyword is a ValueError, as in
            Keras (which also refuses `dtype=`: the state's dtype is the engine's).

    >>> gen = SeedGenerator(42)
    >>> a = normal((2,), seed=gen)
    >>> b = normal((2,), seed=gen)
    >>> bool((a != b).any())
    True
    """

    def __init__(self, seed: int | None = None, name: str | None = None, **kwargs):
        custom_backend = kwargs.pop("backend", None)
        if kwargs:
            raise ValueError(
                f"SeedGenerator: Unrecognized keyword arguments: {kwargs}. The only extra "
                "keyword, as in Keras, is `backend`."
            )
        if custom_backend is not None and custom_backend is not backend:
            raise ValueError(
                f"SeedGenerator: backend={custom_backend!r} is not lamina's backend. lamina "
                "keeps seed state on its current engine only: pass backend=None or "
                "backend=lamina.backend (switch engines with lamina.config.set_backend)."
            )
        if seed is None:
            seed = _py_random.randint(1, 2**31 - 1)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"SeedGenerator seed must be an int or None; received {seed!r}.")
        self._initial_seed = seed
        self.name = name or "seed_generator"
        self.state = backend.Variable(
            backend.random.make_seed(seed),
            dtype=backend.random.SEED_DTYPE,
            trainable=False,
            name="seed_generator_state",
        )

    @property
    def backend(self):
        """The backend module holding the state, as in Keras: always `lamina.backend`.

        A property rather than an attribute, so models holding generators still deepcopy
        (a module object cannot be copied).
        """
        return backend

    def next(self):
        """The current seed tensor; advances the state."""
        seed = self.state.value
        self.state.assign(seed + backend.convert_to_tensor([0, 1], dtype=backend.random.SEED_DTYPE))
        return seed

    def get_config(self) -> dict:
        return {"seed": self._initial_seed}


_GLOBAL_GENERATOR: SeedGenerator | None = None


def global_seed_generator() -> SeedGenerator:
    """The generator behind `seed=None` (made on first use, reset by `clear_session`)."""
    global _GLOBAL_GENERATOR
    if _GLOBAL_GENERATOR is None:
        _GLOBAL_GENERATOR = SeedGenerator()
        # Named in the error a compiled step raises when it draws from it.
        _GLOBAL_GENERATOR.state._is_global_seed = True
    return _GLOBAL_GENERATOR


def set_global_seed(seed: int) -> None:
    """Restart the global generator from `seed` (see `lamina.utils.set_random_seed`)."""
    global _GLOBAL_GENERATOR
    _GLOBAL_GENERATOR = SeedGenerator(seed)
    _GLOBAL_GENERATOR.state._is_global_seed = True


def _reset_global():
    global _GLOBAL_GENERATOR
    _GLOBAL_GENERATOR = None


register_reset_hook(_reset_global)


def draw_seed(seed):
    """A seed tensor from an int, a SeedGenerator, None (global) or a seed tensor."""
    if isinstance(seed, SeedGenerator):
        return seed.next()
    if seed is None:
        return global_seed_generator().next()
    if isinstance(seed, int) and not isinstance(seed, bool):
        return backend.random.make_seed(seed)
    if backend.is_tensor(seed):
        return seed
    raise TypeError(
        f"`seed` must be an int, a SeedGenerator or None; received {type(seed).__name__}."
    )


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Samples from a normal distribution."""
    return backend.random.normal(shape, mean, stddev, dtype, seed=draw_seed(seed))


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Samples from a uniform distribution on `[minval, maxval)`."""
    return backend.random.uniform(shape, minval, maxval, dtype, seed=draw_seed(seed))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples re-drawn beyond two standard deviations."""
    return backend.random.truncated_normal(shape, mean, stddev, dtype, seed=draw_seed(seed))


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers uniformly drawn from `[minval, maxval)`."""
    return backend.random.randint(shape, minval, maxval, dtype, seed=draw_seed(seed))


def categorical(logits, num_samples, dtype="int32", seed=None):
    """Class indices drawn from the categorical distributions given by `logits`."""
    return backend.random.categorical(logits, num_samples, dtype, seed=draw_seed(seed))


def dropout(inputs, rate, noise_shape=None, seed=None):
    """Zero each element with probability `rate`, scaling the rest by `1 / (1 - rate)`."""
    return backend.random.dropout(inputs, rate, noise_shape, seed=draw_seed(seed))


def shuffle(x, axis=0, seed=None):
    """A random permutation of `x` along `axis`."""
    return backend.random.shuffle(x, axis, seed=draw_seed(seed))


def _float_dtype(dtype, name):
    """`dtype` (floatx when None), refused unless it is a floating type, as Keras does."""
    dtype = backend.standardize_dtype(dtype) if dtype is not None else backend.floatx()
    if "float" not in dtype:
        raise ValueError(
            f"lamina.random.{name}: dtype must be a floating type (float16, bfloat16, "
            f"float32, float64); received dtype={dtype!r}. Cast the samples afterwards if "
            "you need integers."
        )
    return dtype


def gamma(shape, alpha, dtype=None, seed=None):
    """Samples from a Gamma distribution with concentration `alpha` (and rate 1).

    Args:
        shape: the shape of the samples.
        alpha: the concentration, a float or an array broadcastable to `shape`.
        dtype: a floating dtype (default `floatx()`).
        seed: an int, a `SeedGenerator` or None (see the module docstring).

    Returns:
        A tensor of `shape`; its mean is `alpha` and its variance `alpha`.

    Example (not run as a test: each new shape compiles the sampler on JAX, seconds):

    >>> x = gamma((2000,), alpha=3.0, seed=1)  # doctest: +SKIP
    """
    dtype = _float_dtype(dtype, "gamma")
    return backend.random.gamma(tuple(shape), alpha, dtype, seed=draw_seed(seed))


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Numbers of successes in `counts` independent trials of success chance `probabilities`.

    Args:
        shape: the shape of the samples.
        counts: the number of trials, a number or an array broadcastable to `shape`.
        probabilities: the success probability of one trial, a float or an array
            broadcastable to `shape`.
        dtype: a floating dtype (default `floatx()`); the values are whole numbers.
        seed: an int, a `SeedGenerator` or None (see the module docstring).

    Returns:
        A tensor of `shape`; its mean is `counts * probabilities` and its variance
        `counts * probabilities * (1 - probabilities)`.

    >>> from lamina import ops
    >>> x = ops.convert_to_numpy(binomial((3,), counts=5, probabilities=1.0, seed=1))
    >>> x.tolist()
    [5.0, 5.0, 5.0]
    """
    dtype = _float_dtype(dtype, "binomial")
    return backend.random.binomial(tuple(shape), counts, probabilities, dtype, seed=draw_seed(seed))


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Samples from a Beta distribution on `[0, 1]` with parameters `alpha` and `beta`.

    Args:
        shape: the shape of the samples.
        alpha: the first parameter, a float or an array broadcastable to `shape`.
        beta: the second parameter, a float or an array broadcastable to `shape`.
        dtype: a floating dtype (default `floatx()`).
        seed: an int, a `SeedGenerator` or None (see the module docstring).

    Returns:
        A tensor of `shape`; its mean is `alpha / (alpha + beta)`.

    Example (not run as a test: each new shape compiles the sampler on JAX, seconds):

    >>> x = beta((2000,), alpha=2.0, beta=6.0, seed=1)  # doctest: +SKIP
    """
    dtype = _float_dtype(dtype, "beta")
    return backend.random.beta(tuple(shape), alpha, beta, dtype, seed=draw_seed(seed))


__all__ = [
    "SeedGenerator",
    "beta",
    "binomial",
    "categorical",
    "draw_seed",
    "dropout",
    "gamma",
    "global_seed_generator",
    "normal",
    "randint",
    "set_global_seed",
    "shuffle",
    "truncated_normal",
    "uniform",
]
