"""Random sampling from explicit seeds, engine module `random`.

Each entry is the signature an engine provides and what it does (see
`lamina.backend.declarations`); `lamina.ops.random` wraps these with seed handling and
documentation of its own.

The `portable_*` draws are what initializers use: JAX's threefry numbers computed on
the host by the same NumPy code on every engine (`lamina.backend.common.threefry`), so
a model built with the same seed starts from the same weights on every engine. The other draws (dropout's masks, noise, `shuffle`) come
from each engine's own generator and differ between engines.
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    SEED_DTYPE
        The dtype of seed tensors (the state of a `SeedGenerator`).
    make_seed(seed)
        A seed tensor (two `SEED_DTYPE` numbers) from an integer seed.
    normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None)
        Samples from a normal distribution.
    uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None)
        Samples from a uniform distribution on `[minval, maxval)`.
    truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None)
        Normal samples re-drawn beyond two standard deviations.
    portable_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None)
        `normal` with JAX's numbers for `seed` on every engine (what initializers draw).
    portable_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None)
        `uniform` with JAX's numbers for `seed` on every engine (what initializers draw).
    portable_truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None)
        `truncated_normal` with JAX's numbers for `seed` on every engine.
    randint(shape, minval, maxval, dtype='int32', seed=None)
        Integers uniformly drawn from `[minval, maxval)`.
    categorical(logits, num_samples, dtype='int32', seed=None)
        Class indices drawn from the categorical distributions given by `logits`.
    dropout(inputs, rate, noise_shape=None, seed=None)
        Zero each element with probability `rate`, scaling the rest by `1 / (1 - rate)`.
    shuffle(x, axis=0, seed=None)
        A random permutation of `x` along `axis`.
    gamma(shape, alpha, dtype=None, seed=None)
        Samples from a Gamma distribution with concentration `alpha` and rate 1.
    binomial(shape, counts, probabilities, dtype=None, seed=None)
        Numbers of successes in `counts` trials of success probability `probabilities`.
    beta(shape, alpha, beta, dtype=None, seed=None)
        Samples from a Beta distribution with parameters `alpha` and `beta`.
    """
)
