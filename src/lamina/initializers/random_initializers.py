"""Random initializers: plain distributions, fan-scaled (Glorot, He, LeCun), orthogonal.

Seeds: `seed=int` gives the initializer its own `SeedGenerator`, so it is reproducible
from construction and each call draws new values (two layers built from one seeded
initializer get different weights). `seed=None` draws from the global generator, which
`lamina.utils.set_random_seed` resets. A `SeedGenerator` may be passed in directly.

A call takes one seed from the generator and draws with it (`_sampler` says how), with
the `portable_*` draws of `lamina.ops.random`: JAX's numbers on every engine, so a model
built with the same seed starts from the same weights on JAX and on torch (`Orthogonal`
factorizes on the host for the same reason). A variable being loaded from a file takes
its seed when it is created, as a call would, and draws only if the file does not set
it (`_deferred`): the streams stay the same.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from lamina import ops
from lamina.initializers.initializer import Initializer, TensorLike, resolve_dtype
from lamina.ops import random

# The standard deviation of a unit normal truncated to [-2, 2]; VarianceScaling divides
# by it so the *truncated* samples have the variance asked for (as Keras does).
_TRUNCATED_STDDEV = 0.87962566103423978


class RandomInitializer(Initializer):
    """Base of the seeded initializers: holds the seed and serializes it.

    Args:
        seed: an int (a private `SeedGenerator` is made from it), a `SeedGenerator`,
            or None (the global generator).

    >>> RandomInitializer(seed=3).get_config()
    {'seed': 3}
    """

    def __init__(self, seed: int | random.SeedGenerator | dict | None = None):
        if isinstance(seed, dict) and seed.get("class_name") == "SeedGenerator":
            seed = random.SeedGenerator(**seed.get("config", {}))  # Keras's serialized form
        if isinstance(seed, random.SeedGenerator):
            self.seed, self._generator = seed.get_config()["seed"], seed
        elif seed is None or (isinstance(seed, int) and not isinstance(seed, bool)):
            self.seed = seed
            self._generator = random.SeedGenerator(seed) if seed is not None else None
        else:
            raise ValueError(
                f"{type(self).__name__} seed must be an int, a SeedGenerator or None; "
                f"received seed={seed!r}."
            )

    def __call__(self, shape: tuple[int, ...], dtype: str | None = None) -> TensorLike:
        sample = self._sampler(tuple(shape), resolve_dtype(dtype))
        return sample(random.draw_seed(self._generator))

    def _sampler(self, shape: tuple[int, ...], dtype: str) -> Callable:
        """The draw for `shape` and `dtype` as a function of a seed tensor; argument
        errors are raised here, before a seed is taken."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement __call__(shape, dtype) (or _sampler)."
        )

    def _deferred(self, shape: tuple[int, ...], dtype: str) -> Callable | None:
        """`self(shape, dtype)` to run later: the seed is taken now, as the call would
        take it, so what is drawn later (if ever) is what the call would give and the
        generator moves on as it would. None when a subclass replaced `__call__`."""
        if type(self).__call__ is not RandomInitializer.__call__:
            return None
        sample = self._sampler(tuple(shape), resolve_dtype(dtype))
        seed = random.draw_seed(self._generator)
        return lambda: sample(seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class RandomNormal(RandomInitializer):
    """Samples from a normal distribution with `mean` and `stddev`.

    Args:
        mean: mean of the distribution.
        stddev: standard deviation of the distribution.
        seed: int, SeedGenerator or None (see the module docstring).

    >>> values = ops.convert_to_numpy(RandomNormal(stddev=1.0, seed=1)((4000,)))
    >>> bool(abs(values.std() - 1.0) < 0.05)
    True
    """

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def _sampler(self, shape: tuple[int, ...], dtype: str) -> Callable:
        def sample(seed):
            return random.portable_normal(shape, self.mean, self.stddev, dtype, seed=seed)

        return sample

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, **super().get_config()}


class RandomUniform(RandomInitializer):
    """Samples from a uniform distribution on `[minval, maxval)`.

    Args:
        minval: lower bound.
        maxval: upper bound (excluded).
        seed: int, SeedGenerator or None (see the module docstring).

    >>> values = ops.convert_to_numpy(RandomUniform(0.0, 1.0, seed=1)((100,)))
    >>> bool(values.min() >= 0.0 and values.max() < 1.0)
    True
    """

    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def _sampler(self, shape: tuple[int, ...], dtype: str) -> Callable:
        def sample(seed):
            return random.portable_uniform(shape, self.minval, self.maxval, dtype, seed=seed)

        return sample

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, **super().get_config()}


class TruncatedNormal(RandomInitializer):
    """Normal samples, re-drawn when more than two `stddev` away from `mean`.

    Args:
        mean: mean of the (untruncated) distribution.
        stddev: standard deviation of the (untruncated) distribution.
        seed: int, SeedGenerator or None (see the module docstring).

    >>> values = ops.convert_to_numpy(TruncatedNormal(stddev=1.0, seed=1)((1000,)))
    >>> bool(abs(values).max() <= 2.0)
    True
    """

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def _sampler(self, shape: tuple[int, ...], dtype: str) -> Callable:
        def sample(seed):
            return random.portable_truncated_normal(shape, self.mean, self.stddev, dtype, seed=seed)

        return sample

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, **super().get_config()}


def compute_fans(
    shape: tuple[int, ...],
    input_axes: list[int] | None = None,
    output_axes: list[int] | None = None,
) -> tuple[int, int]:
    """`(fan_in, fan_out)` of a weight shape, as Keras computes them.

    A 2D kernel `(in, out)` gives `(in, out)`; a convolution kernel
    `(*spatial, in, out)` multiplies both by the receptive field size. Explicit
    `input_axes`/`output_axes` (both given) multiply the sizes of those axes instead.

    >>> compute_fans((3, 3, 16, 32))
    (144, 288)
    """
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        return math.prod(shape[a] for a in input_axes), math.prod(shape[a] for a in output_axes)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return int(shape[0]), int(shape[0])
    receptive_field = math.prod(shape[:-2])
    return int(shape[-2] * receptive_field), int(shape[-1] * receptive_field)


_MODES = ("fan_in", "fan_out", "fan_avg")
_DISTRIBUTIONS = ("truncated_normal", "untruncated_normal", "uniform")


class VarianceScaling(RandomInitializer):
    """Samples whose variance is `scale / n`, `n` the fan chosen by `mode`.

    With `distribution="truncated_normal"` (or its alias `"normal"`) samples come from
    a normal truncated at two standard deviations, scaled so the truncated variance is
    `scale / n`; `"untruncated_normal"` uses a plain normal; `"uniform"` draws from
    `[-limit, limit]` with `limit = sqrt(3 * scale / n)`.

    Args:
        scale: positive scaling factor.
        mode: `"fan_in"`, `"fan_out"` or `"fan_avg"` (their mean).
        distribution: `"truncated_normal"`, `"untruncated_normal"` or `"uniform"`.
        seed: int, SeedGenerator or None (see the module docstring).
        input_axes: optional axes that count as inputs when computing the fans.
        output_axes: optional axes that count as outputs (use both or neither).

    >>> init = VarianceScaling(scale=0.1, mode="fan_in", distribution="uniform", seed=0)
    >>> values = ops.convert_to_numpy(init((10, 5)))
    >>> bool(abs(values).max() <= (3 * 0.1 / 10) ** 0.5)
    True
    """

    def __init__(
        self,
        scale: float = 1.0,
        mode: str = "fan_in",
        distribution: str = "truncated_normal",
        seed=None,
        input_axes: list[int] | None = None,
        output_axes: list[int] | None = None,
    ):
        if not scale > 0:
            raise ValueError(f"VarianceScaling scale must be a positive float; received {scale}.")
        if mode not in _MODES:
            raise ValueError(
                f"VarianceScaling mode must be one of {list(_MODES)}; received mode={mode!r}."
            )
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in _DISTRIBUTIONS:
            raise ValueError(
                f"VarianceScaling distribution must be one of {list(_DISTRIBUTIONS)}; "
                f"received distribution={distribution!r}."
            )
        super().__init__(seed)
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.input_axes, self.output_axes = input_axes, output_axes

    def _sampler(self, shape: tuple[int, ...], dtype: str) -> Callable:
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            stddev = math.sqrt(variance) / _TRUNCATED_STDDEV
            return lambda seed: random.portable_truncated_normal(
                shape, 0.0, stddev, dtype, seed=seed
            )
        if self.distribution == "untruncated_normal":
            stddev = math.sqrt(variance)
            return lambda seed: random.portable_normal(shape, 0.0, stddev, dtype, seed=seed)
        limit = math.sqrt(3.0 * variance)
        return lambda seed: random.portable_uniform(shape, -limit, limit, dtype, seed=seed)

    def _axes_config(self) -> dict:
        # Written only when set, so files stay readable by Keras versions without them.
        axes = {"input_axes": self.input_axes, "output_axes": self.output_axes}
        return {k: v for k, v in axes.items() if v is not None}

    def get_config(self) -> dict:
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            **super().get_config(),
            **self._axes_config(),
        }


class _FixedVarianceScaling(VarianceScaling):
    """A VarianceScaling preset: subclasses set `_PRESET = (scale, mode, distribution)`."""

    _PRESET: tuple[float, str, str]

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        scale, mode, distribution = self._PRESET
        super().__init__(scale, mode, distribution, seed, input_axes, output_axes)

    def get_config(self) -> dict:
        return {"seed": self.seed, **self._axes_config()}


class GlorotUniform(_FixedVarianceScaling):
    """Glorot (Xavier) uniform: `[-limit, limit]`, `limit = sqrt(6 / (fan_in + fan_out))`.

    The default kernel initializer of `Dense` and the convolutions.

    >>> values = ops.convert_to_numpy(GlorotUniform(seed=0)((4, 2)))
    >>> bool(abs(values).max() <= 1.0)
    True
    """

    _PRESET = (1.0, "fan_avg", "uniform")


class GlorotNormal(_FixedVarianceScaling):
    """Glorot (Xavier) normal: truncated normal with stddev `sqrt(2 / (fan_in + fan_out))`.

    >>> tuple(GlorotNormal(seed=0)((3, 3)).shape)
    (3, 3)
    """

    _PRESET = (1.0, "fan_avg", "truncated_normal")


class HeUniform(_FixedVarianceScaling):
    """He uniform: `[-limit, limit]`, `limit = sqrt(6 / fan_in)`. Suits ReLU layers.

    >>> values = ops.convert_to_numpy(HeUniform(seed=0)((6, 2)))
    >>> bool(abs(values).max() <= 1.0)
    True
    """

    _PRESET = (2.0, "fan_in", "uniform")


class HeNormal(_FixedVarianceScaling):
    """He normal: truncated normal with stddev `sqrt(2 / fan_in)`. Suits ReLU layers.

    >>> tuple(HeNormal(seed=0)((3, 3)).shape)
    (3, 3)
    """

    _PRESET = (2.0, "fan_in", "truncated_normal")


class LecunUniform(_FixedVarianceScaling):
    """LeCun uniform: `[-limit, limit]`, `limit = sqrt(3 / fan_in)`.

    >>> values = ops.convert_to_numpy(LecunUniform(seed=0)((3, 2)))
    >>> bool(abs(values).max() <= 1.0)
    True
    """

    _PRESET = (1.0, "fan_in", "uniform")


class LecunNormal(_FixedVarianceScaling):
    """LeCun normal: truncated normal with stddev `sqrt(1 / fan_in)`. Suits SELU layers.

    >>> tuple(LecunNormal(seed=0)((3, 3)).shape)
    (3, 3)
    """

    _PRESET = (1.0, "fan_in", "truncated_normal")


class Orthogonal(RandomInitializer):
    """A (semi-)orthogonal matrix times `gain`.

    Made from the QR decomposition of a normal matrix, with the signs of `R`'s diagonal
    folded into `Q` so the result is uniformly distributed. With fewer rows than
    columns the rows are orthonormal, otherwise the columns. A shape of rank > 2 is
    treated as `(prod(shape[:-1]), shape[-1])` and reshaped back.

    Args:
        gain: multiplicative factor applied to the orthogonal matrix.
        seed: int, SeedGenerator or None (see the module docstring).

    >>> q = ops.convert_to_numpy(Orthogonal(seed=0)((3, 3)))
    >>> ((q.T @ q).round(4) + 0.0).tolist()  # (+ 0.0 turns -0.0 into 0.0)
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """

    def __init__(self, gain: float = 1.0, seed=None):
        super().__init__(seed)
        self.gain = gain

    def _sampler(self, shape: tuple[int, ...], dtype: str) -> Callable:
        if len(shape) < 2:
            raise ValueError(
                f"Orthogonal initializer needs a shape of rank >= 2; received "
                f"shape={tuple(shape)} of rank {len(shape)}."
            )
        rows, cols = math.prod(shape[:-1]), shape[-1]
        flat = (max(rows, cols), min(rows, cols))

        def sample(seed):
            a = random.portable_normal(flat, 0.0, 1.0, "float32", seed=seed)
            # The factorization runs on the host in NumPy, whatever the engine: each
            # engine's own QR rounds differently, and the same seed should give the same
            # matrix on every engine.
            q, r = np.linalg.qr(ops.convert_to_numpy(a))
            q = q * np.sign(np.diagonal(r))
            if rows < cols:
                q = q.T
            values = np.float32(self.gain) * q.reshape(shape)
            return ops.cast(ops.convert_to_tensor(values), dtype)

        return sample

    def get_config(self) -> dict:
        return {"gain": self.gain, **super().get_config()}
