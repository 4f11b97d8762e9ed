"""`lamina.initializers`: how weights get their first values.

A seeded initializer (`seed=int`) owns a `SeedGenerator`, so it is reproducible from
construction and gives new values on each call; with `seed=None` it draws from the global
generator, which `lamina.utils.set_random_seed` resets.

>>> from lamina import initializers
>>> init = initializers.get("glorot_uniform")
>>> tuple(init((3, 4)).shape)
(3, 4)
>>> initializers.serialize(initializers.Constant(2.0))["class_name"]
'Constant'
"""

from __future__ import annotations

import math

from lamina import backend, ops
from lamina.ops import random
from lamina.utils import serialization


class Initializer:
    """Base class: `initializer(shape, dtype=None)` returns a tensor."""

    def __call__(self, shape, dtype=None):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__.")

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**serialization.drop_keras_only_arguments(config, cls.__name__))


def _dtype(dtype):
    return backend.standardize_dtype(dtype) if dtype is not None else backend.floatx()


class _Seeded(Initializer):
    def __init__(self, seed=None):
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError(
                f"{type(self).__name__} seed must be an int or None; received {seed!r}."
            )
        self.seed = seed
        self._generator = random.SeedGenerator(seed) if seed is not None else None

    def _seed(self):
        return self._generator  # None: the global generator

    def get_config(self):
        return {"seed": self.seed}


class Zeros(Initializer):
    """All zeros."""

    def __call__(self, shape, dtype=None):
        return ops.zeros(shape, dtype=_dtype(dtype))


class Ones(Initializer):
    """All ones."""

    def __call__(self, shape, dtype=None):
        return ops.ones(shape, dtype=_dtype(dtype))


class Constant(Initializer):
    """Every value equal to `value`."""

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        return ops.full(shape, self.value, dtype=_dtype(dtype))

    def get_config(self):
        return {"value": self.value}


class RandomNormal(_Seeded):
    """Normal samples with `mean` and `stddev`."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=None):
        return random.normal(shape, self.mean, self.stddev, _dtype(dtype), seed=self._seed())

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, **super().get_config()}


class RandomUniform(_Seeded):
    """Uniform samples in `[minval, maxval)`."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape, dtype=None):
        return random.uniform(shape, self.minval, self.maxval, _dtype(dtype), seed=self._seed())

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, **super().get_config()}


class TruncatedNormal(_Seeded):
    """Normal samples re-drawn beyond two standard deviations."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=None):
        return random.truncated_normal(
            shape, self.mean, self.stddev, _dtype(dtype), seed=self._seed()
        )

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, **super().get_config()}


def compute_fans(shape) -> tuple[float, float]:
    """`(fan_in, fan_out)` as Keras computes them (convolution kernels: times the
    receptive field)."""
    shape = tuple(shape)
    if len(shape) == 0:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    if len(shape) == 2:
        return float(shape[0]), float(shape[1])
    receptive = math.prod(shape[:-2])
    return float(shape[-2] * receptive), float(shape[-1] * receptive)


_MODES = ("fan_in", "fan_out", "fan_avg")
_DISTRIBUTIONS = ("truncated_normal", "untruncated_normal", "uniform", "normal")


class VarianceScaling(_Seeded):
    """Samples scaled to the layer's fan: variance `scale / n` for the chosen fan `n`.

    Args:
        scale: positive scaling factor.
        mode: `"fan_in"`, `"fan_out"` or `"fan_avg"`.
        distribution: `"truncated_normal"`, `"untruncated_normal"` or `"uniform"`.
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        super().__init__(seed)
        if scale <= 0:
            raise ValueError(f"VarianceScaling scale must be positive; received {scale}.")
        if mode not in _MODES:
            raise ValueError(
                f"VarianceScaling mode must be one of {list(_MODES)}; received {mode!r}."
            )
        distribution = distribution.lower()
        if distribution not in _DISTRIBUTIONS:
            raise ValueError(
                f"VarianceScaling distribution must be one of {list(_DISTRIBUTIONS)}; "
                f"received {distribution!r}."
            )
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, n)
        dtype = _dtype(dtype)
        if self.distribution == "truncated_normal":
            # Std of a unit normal truncated to [-2, 2].
            stddev = math.sqrt(variance) / 0.87962566103423978
            return random.truncated_normal(shape, 0.0, stddev, dtype, seed=self._seed())
        if self.distribution in ("untruncated_normal", "normal"):
            return random.normal(shape, 0.0, math.sqrt(variance), dtype, seed=self._seed())
        limit = math.sqrt(3.0 * variance)
        return random.uniform(shape, -limit, limit, dtype, seed=self._seed())

    def get_config(self):
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            **super().get_config(),
        }


def _variance_scaling(name, scale, mode, distribution, doc):
    def __init__(self, seed=None):
        VarianceScaling.__init__(self, scale=scale, mode=mode, distribution=distribution, seed=seed)

    def get_config(self):
        return {"seed": self.seed}

    cls = type(
        name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config, "__doc__": doc}
    )
    cls.__module__ = __name__
    return cls


GlorotNormal = _variance_scaling(
    "GlorotNormal",
    1.0,
    "fan_avg",
    "truncated_normal",
    "Truncated normal with stddev `sqrt(2 / (fan_in + fan_out))`.",
)
GlorotUniform = _variance_scaling(
    "GlorotUniform", 1.0, "fan_avg", "uniform", "Uniform in `±sqrt(6 / (fan_in + fan_out))`."
)
HeNormal = _variance_scaling(
    "HeNormal",
    2.0,
    "fan_in",
    "truncated_normal",
    "Truncated normal with stddev `sqrt(2 / fan_in)`.",
)
HeUniform = _variance_scaling(
    "HeUniform", 2.0, "fan_in", "uniform", "Uniform in `±sqrt(6 / fan_in)`."
)
LecunNormal = _variance_scaling(
    "LecunNormal",
    1.0,
    "fan_in",
    "truncated_normal",
    "Truncated normal with stddev `sqrt(1 / fan_in)`.",
)
LecunUniform = _variance_scaling(
    "LecunUniform", 1.0, "fan_in", "uniform", "Uniform in `±sqrt(3 / fan_in)`."
)


class Orthogonal(_Seeded):
    """A (semi-)orthogonal matrix times `gain`, from the QR decomposition of normal samples."""

    def __init__(self, gain=1.0, seed=None):
        super().__init__(seed)
        self.gain = gain

    def __call__(self, shape, dtype=None):
        if len(shape) < 2:
            raise ValueError(
                f"Orthogonal initializer needs a shape of rank >= 2; received {tuple(shape)}."
            )
        rows = math.prod(shape[:-1])
        cols = shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        a = random.normal(flat, 0.0, 1.0, "float32", seed=self._seed())
        q, r = ops.qr(a)
        q = q * ops.sign(ops.diagonal(r))
        if rows < cols:
            q = ops.transpose(q)
        return ops.cast(self.gain * ops.reshape(q, shape), _dtype(dtype))

    def get_config(self):
        return {"gain": self.gain, **super().get_config()}


class Identity(Initializer):
    """`gain` times the identity matrix (2D shapes only)."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        if len(shape) != 2:
            raise ValueError(f"Identity initializer needs a 2D shape; received {tuple(shape)}.")
        return self.gain * ops.eye(shape[0], shape[1], dtype=_dtype(dtype))

    def get_config(self):
        return {"gain": self.gain}


IdentityInitializer = Identity

_CLASSES = {
    "Zeros": Zeros,
    "Ones": Ones,
    "Constant": Constant,
    "RandomNormal": RandomNormal,
    "RandomUniform": RandomUniform,
    "TruncatedNormal": TruncatedNormal,
    "VarianceScaling": VarianceScaling,
    "GlorotNormal": GlorotNormal,
    "GlorotUniform": GlorotUniform,
    "HeNormal": HeNormal,
    "HeUniform": HeUniform,
    "LecunNormal": LecunNormal,
    "LecunUniform": LecunUniform,
    "Orthogonal": Orthogonal,
    "Identity": Identity,
    "IdentityInitializer": Identity,
}
_ALIASES = {
    "zeros": Zeros,
    "ones": Ones,
    "constant": Constant,
    "random_normal": RandomNormal,
    "random_uniform": RandomUniform,
    "uniform": RandomUniform,
    "normal": RandomNormal,
    "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling,
    "glorot_normal": GlorotNormal,
    "glorot_uniform": GlorotUniform,
    "he_normal": HeNormal,
    "he_uniform": HeUniform,
    "lecun_normal": LecunNormal,
    "lecun_uniform": LecunUniform,
    "orthogonal": Orthogonal,
    "identity": Identity,
}
for _name, _cls in {**_CLASSES, **_ALIASES}.items():
    serialization.register_builtin("initializers", _cls, name=_name)


serialize, deserialize, get = serialization.object_accessors(
    "initializers", "initializer", Initializer
)


__all__ = sorted(_CLASSES) + ["Initializer", "compute_fans", "deserialize", "get", "serialize"]
