"""Seeded random sampling. Randomness comes from explicit seed state, never hidden globals.

`seed` is an int (the same draw every time), a `SeedGenerator` (a new draw each call, its
state a variable that compiled training carries along), or `None` (the global generator,
reset by `lamina.utils.set_random_seed`).
"""

from __future__ import annotations

import random as _py_random

from lamina import backend
from lamina.backend.common import seed_state
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
        # A callable initial value: drawn as real data even when the generator is made
        # while a program is traced or a layer evaluated abstractly (on torch's `meta`
        # device), never a traced or a meta tensor.
        self.state = backend.Variable(
            lambda shape, dtype: backend.random.make_seed(seed),
            shape=(2,),
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
        """The current seed tensor, a value of its own; advances the state.

        Returns:
            A new seed tensor: later draws leave it unchanged.
        """
        seed = self.state.value
        # A copy: an engine that writes the state in place (torch) would otherwise
        # change the seed handed out here when the state advances below.
        drawn = backend.numpy.copy(seed)
        self.state.assign(seed + backend.convert_to_tensor([0, 1], dtype=backend.random.SEED_DTYPE))
        return drawn

    def get_config(self) -> dict:
        return {"seed": self._initial_seed}


_GLOBAL_GENERATOR: SeedGenerator | None = None


def global_seed_generator() -> SeedGenerator:
    """The generator behind `seed=None` (made on first use, reset by `clear_session`).

    Every random op called with `seed=None` draws its seed from this generator, so
    consecutive calls give different samples. `lamina.utils.set_random_seed` (or
    `set_global_seed`) restarts it from a known seed.

    Returns:
        The global `SeedGenerator` (the same object until it is reset).

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> from lamina.ops import random
    >>> random.global_seed_generator() is random.global_seed_generator()
    True
    """
    global _GLOBAL_GENERATOR
    if _GLOBAL_GENERATOR is None:
        _GLOBAL_GENERATOR = _make_global()
    return _GLOBAL_GENERATOR


def _make_global(seed: int | None = None) -> SeedGenerator:
    generator = SeedGenerator(seed, name="global_seed_generator")
    # One path wherever it is first used, not the name scope of the layer that drew.
    generator.state.path = "global_seed_generator/seed_generator_state"
    generator.state._is_global_seed = True
    return generator


def set_global_seed(seed: int) -> None:
    """Restart the global generator from `seed` (see `lamina.utils.set_random_seed`).

    After it, the ops called with `seed=None` repeat the same sequence of draws.
    `lamina.utils.set_random_seed` also seeds Python's and NumPy's generators.

    Args:
        seed: An int.

    Returns:
        None.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> from lamina.ops import random
    >>> random.set_global_seed(7)
    >>> a = ops.convert_to_numpy(random.uniform((3,)))
    >>> random.set_global_seed(7)
    >>> bool((a == ops.convert_to_numpy(random.uniform((3,)))).all())
    True
    """
    global _GLOBAL_GENERATOR
    _GLOBAL_GENERATOR = _make_global(seed)


def _reset_global():
    global _GLOBAL_GENERATOR
    _GLOBAL_GENERATOR = None


register_reset_hook(_reset_global)
# Every compiled program carries the global state (see `backend.common.seed_state`).
seed_state.register(lambda: global_seed_generator().state)


def draw_seed(seed):
    """A seed tensor from an int, a SeedGenerator, None (global) or a seed tensor.

    What each random op does with its `seed` argument (Keras keeps this helper internal,
    in `keras.src.random.seed_generator`).
    An int always gives the same seed tensor; a `SeedGenerator` (or `None`, the global
    generator) gives a copy of its current state and advances it, so a drawn seed keeps
    its value when the generator moves on (as in Keras, on every engine).

    Args:
        seed: An int, a `SeedGenerator`, `None`, or a seed tensor (returned as is).

    Returns:
        A seed tensor: two numbers of the engine's seed dtype.

    Raises:
        TypeError: for any other `seed`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> from lamina.ops import random
    >>> ops.convert_to_numpy(random.draw_seed(42)).shape
    (2,)
    >>> gen = random.SeedGenerator(1)
    >>> first = ops.convert_to_numpy(random.draw_seed(gen))
    >>> second = ops.convert_to_numpy(random.draw_seed(gen))
    >>> bool((first != second).any())
    True
    """
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
    """Samples from a normal distribution.

    Args:
        shape: The shape of the samples (a tuple of ints).
        mean: The mean of the distribution.
        stddev: The standard deviation of the distribution.
        dtype: A floating dtype (default: `lamina.config.floatx()`).
        seed: An int (the same samples every call), a `SeedGenerator` (new samples each
            call), or `None` (the global generator; see `lamina.utils.set_random_seed`).

    Returns:
        A tensor of `shape` and `dtype`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> from lamina.ops import random
    >>> x = ops.convert_to_numpy(random.normal((2, 3), seed=1))
    >>> x.shape, x.dtype
    ((2, 3), dtype('float32'))
    """
    return backend.random.normal(shape, mean, stddev, dtype, seed=draw_seed(seed))


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Samples from a uniform distribution on `[minval, maxval)`.

    Args:
        shape: The shape of the samples (a tuple of ints).
        minval: The lower bound (included).
        maxval: The upper bound (excluded).
        dtype: A floating dtype (default: `lamina.config.floatx()`).
        seed: An int (the same samples every call), a `SeedGenerator` (new samples each
            call), or `None` (the global generator; see `lamina.utils.set_random_seed`).

    Returns:
        A tensor of `shape` and `dtype`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> from lamina.ops import random
    >>> x = ops.convert_to_numpy(random.uniform((4,), minval=2.0, maxval=3.0, seed=1))
    >>> x.shape, bool(((x >= 2.0) & (x < 3.0)).all())
    ((4,), True)
    """
    return backend.random.uniform(shape, minval, maxval, dtype, seed=draw_seed(seed))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples re-drawn beyond two standard deviations.

    Samples of a normal distribution cut at `mean - 2 * stddev` and `mean + 2 * stddev`
    (the usual initializer noise: no outliers).

    Args:
        shape: The shape of the samples (a tuple of ints).
        mean: The mean of the (untruncated) distribution.
        stddev: The standard deviation of the (untruncated) distribution.
        dtype: A floating dtype (default: `lamina.config.floatx()`).
        seed: An int (the same samples every call), a `SeedGenerator` (new samples each
            call), or `None` (the global generator; see `lamina.utils.set_random_seed`).

    Returns:
        A tensor of `shape` and `dtype`, every value within two `stddev` of `mean`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> from lamina.ops import random
    >>> x = ops.convert_to_numpy(random.truncated_normal((100,), stddev=0.5, seed=1))
    >>> x.shape, bool((np.abs(x) <= 1.0).all())
    ((100,), True)
    """
    return backend.random.truncated_normal(shape, mean, stddev, dtype, seed=draw_seed(seed))


_PORTABLE = """{what}, with the same numbers on every engine.

    The numbers JAX's generator (threefry) draws for the seed, computed on the host in
    NumPy by the same code on every engine: the same seed gives the same values, bit
    for bit, on JAX and on torch, on any device. (`jax.random.{name}` itself gives
    these numbers to a few float32 ulps: XLA rounds the float transforms as its
    compiler chooses.) Values are drawn in float32 and cast to `dtype`. Initializers
    draw with these, which is why a model built with the same seed starts from the
    same weights on every engine. Computing on the host costs more than the engine's
    own draw: use `{name}` for numbers drawn at every step (noise, dropout).

    Args:
        shape: The shape of the samples (a tuple of ints).
        {params}
        dtype: A floating dtype (default: `lamina.config.floatx()`).
        seed: An int, a `SeedGenerator` or `None`, as for `{name}`.

    Returns:
        A tensor of `shape` and `dtype`.

    Example:

    >>> from lamina import ops
    >>> from lamina.ops import random
    >>> x = ops.convert_to_numpy(random.portable_{name}((3,), seed=1))
    >>> x.tolist() == ops.convert_to_numpy(random.portable_{name}((3,), seed=1)).tolist()
    True
    """


def portable_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return backend.random.portable_normal(shape, mean, stddev, dtype, seed=draw_seed(seed))


def portable_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    return backend.random.portable_uniform(shape, minval, maxval, dtype, seed=draw_seed(seed))


def portable_truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return backend.random.portable_truncated_normal(
        shape, mean, stddev, dtype, seed=draw_seed(seed)
    )


_NORMAL_PARAMS = """mean: The mean of the distribution.
        stddev: The standard deviation of the distribution."""
portable_normal.__doc__ = _PORTABLE.format(
    what="Samples from a normal distribution", name="normal", params=_NORMAL_PARAMS
)
portable_uniform.__doc__ = _PORTABLE.format(
    what="Samples from a uniform distribution on `[minval, maxval)`",
    name="uniform",
    params="""minval: The lower bound (included).
        maxval: The upper bound (excluded).""",
)
portable_truncated_normal.__doc__ = _PORTABLE.format(
    what="Normal samples re-drawn beyond two standard deviations",
    name="truncated_normal",
    params=_NORMAL_PARAMS,
)


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers uniformly drawn from `[minval, maxval)`.

    Args:
        shape: The shape of the samples (a tuple of ints).
        minval: The lowest value (included).
        maxval: The bound (excluded).
        dtype: An integer dtype (default `"int32"`).
        seed: An int (the same samples every call), a `SeedGenerator` (new samples each
            call), or `None` (the global generator; see `lamina.utils.set_random_seed`).

    Returns:
        A tensor of `shape` and `dtype`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> from lamina.ops import random
    >>> x = ops.convert_to_numpy(random.randint((5,), minval=0, maxval=3, seed=1))
    >>> x.shape, x.dtype, bool(((x >= 0) & (x < 3)).all())
    ((5,), dtype('int32'), True)
    """
    return backend.random.randint(shape, minval, maxval, dtype, seed=draw_seed(seed))


def categorical(logits, num_samples, dtype="int32", seed=None):
    """Class indices drawn from the categorical distributions given by `logits`.

    Row `i` of `logits` holds the unnormalized log-probabilities of the classes of
    distribution `i` (`softmax(logits[i])` are the probabilities).

    Args:
        logits: A float tensor of shape `(batch, num_classes)`.
        num_samples: How many samples to draw from each distribution (a Python int).
        dtype: An integer dtype for the indices (default `"int32"`).
        seed: An int (the same samples every call), a `SeedGenerator` (new samples each
            call), or `None` (the global generator; see `lamina.utils.set_random_seed`).

    Returns:
        A tensor of shape `(batch, num_samples)` of class indices.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> from lamina.ops import random
    >>> logits = np.array([[0.0, -100.0, -100.0], [-100.0, -100.0, 0.0]])
    >>> ops.convert_to_numpy(random.categorical(logits, 4, seed=1)).tolist()
    [[0, 0, 0, 0], [2, 2, 2, 2]]
    """
    return backend.random.categorical(logits, num_samples, dtype, seed=draw_seed(seed))


def dropout(inputs, rate, noise_shape=None, seed=None):
    """Zero each element with probability `rate`, scaling the rest by `1 / (1 - rate)`.

    The scaling keeps the expected value of each element unchanged.

    Args:
        inputs: The input tensor.
        rate: The probability of dropping each element, in `[0, 1)`.
        noise_shape: The shape of the random keep/drop mask, broadcast against
            `inputs` (e.g. `(batch, 1, features)` drops the same features at every
            time step); `None` (default) draws one decision per element.
        seed: An int (the same samples every call), a `SeedGenerator` (new samples each
            call), or `None` (the global generator; see `lamina.utils.set_random_seed`).

    Returns:
        A tensor of the shape and dtype of `inputs`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> from lamina.ops import random
    >>> y = ops.convert_to_numpy(random.dropout(np.ones((2, 4)), rate=0.5, seed=1))
    >>> y.shape, bool(np.isin(y, [0.0, 2.0]).all())
    ((2, 4), True)
    """
    return backend.random.dropout(inputs, rate, noise_shape, seed=draw_seed(seed))


def shuffle(x, axis=0, seed=None):
    """A random permutation of `x` along `axis`.

    Args:
        x: The tensor to shuffle.
        axis: The axis along which to permute (the slices along it stay whole).
        seed: An int (the same samples every call), a `SeedGenerator` (new samples each
            call), or `None` (the global generator; see `lamina.utils.set_random_seed`).

    Returns:
        A tensor of the shape and dtype of `x`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> from lamina.ops import random
    >>> y = ops.convert_to_numpy(random.shuffle(np.arange(6), seed=1))
    >>> sorted(y.tolist())
    [0, 1, 2, 3, 4, 5]
    """
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
    "portable_normal",
    "portable_truncated_normal",
    "portable_uniform",
    "randint",
    "set_global_seed",
    "shuffle",
    "truncated_normal",
    "uniform",
]
