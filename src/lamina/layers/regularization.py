"""Regularization layers: spatial, Gaussian and alpha dropout, Gaussian noise, and
activity regularization. The random ones act only when called with `training=True`."""

from __future__ import annotations

import math

from lamina import backend, ops
from lamina.common import serialization
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer
from lamina.ops import random as ops_random
from lamina.regularizers.regularizers import L1L2


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _check_rate(rate, who):
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
        raise ValueError(f"{who} expects `rate` to be a float in [0, 1); received {rate!r}.")
    return float(rate)


def _data_format(data_format, who):
    try:
        return backend.standardize_data_format(data_format)
    except ValueError as e:
        raise ValueError(f"{who}: {e}") from None


class _SpatialDropout(Layer):
    """Drops whole feature maps (channels) instead of single elements."""

    rank = None

    def __init__(self, rate: float, data_format=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = _check_rate(rate, type(self).__name__)
        self.data_format = _data_format(data_format, type(self).__name__)
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.supports_masking = True
        self.built = True

    def _noise_shape(self, shape):
        spatial = (1,) * self.rank
        if self.data_format == "channels_last":
            return (shape[0],) + spatial + (shape[-1],)
        return (shape[0], shape[1]) + spatial

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            return ops_random.dropout(
                inputs,
                self.rate,
                self._noise_shape(tuple(inputs.shape)),
                seed=self.seed_generator,
            )
        return inputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "rate": self.rate,
            "data_format": self.data_format,
            "seed": self.seed,
        }


@_register
class SpatialDropout1D(_SpatialDropout):
    """Dropout of whole 1D feature maps: each channel is kept or zeroed for all timesteps.

    Args:
        rate: fraction of channels to drop, in `[0, 1)`.
        seed: an int for reproducible masks.

    Input shape: `(batch, steps, channels)`.

    >>> import numpy as np
    >>> SpatialDropout1D(0.5)(np.ones((2, 4, 3)), training=True).shape
    (2, 4, 3)
    """

    rank = 1

    def __init__(self, rate: float, seed=None, **kwargs):
        kwargs.pop("data_format", None)
        super().__init__(rate, data_format="channels_last", seed=seed, **kwargs)

    def get_config(self):
        config = super().get_config()
        config.pop("data_format")
        return config


@_register
class SpatialDropout2D(_SpatialDropout):
    """Dropout of whole 2D feature maps (channels).

    Args:
        rate: fraction of channels to drop, in `[0, 1)`.
        data_format: `"channels_last"` or `"channels_first"` (default: the global
            `image_data_format()`).
        seed: an int for reproducible masks.

    >>> import numpy as np
    >>> SpatialDropout2D(0.5)(np.ones((2, 4, 4, 3)), training=True).shape
    (2, 4, 4, 3)
    """

    rank = 2


@_register
class SpatialDropout3D(_SpatialDropout):
    """Dropout of whole 3D feature maps (channels).

    Args:
        rate: fraction of channels to drop, in `[0, 1)`.
        data_format: `"channels_last"` or `"channels_first"`.
        seed: an int for reproducible masks.

    >>> import numpy as np
    >>> SpatialDropout3D(0.5)(np.ones((1, 2, 2, 2, 3)), training=True).shape
    (1, 2, 2, 2, 3)
    """

    rank = 3


@_register
class GaussianDropout(Layer):
    """Multiplies the inputs by noise drawn from `N(1, rate / (1 - rate))` in training.

    Args:
        rate: drop probability (as for `Dropout`), in `[0, 1)`.
        seed: an int for reproducible noise.

    >>> import numpy as np
    >>> np.asarray(GaussianDropout(0.5)(np.ones((1, 2)))).tolist()
    [[1.0, 1.0]]
    """

    def __init__(self, rate: float, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = _check_rate(rate, "GaussianDropout")
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)
        self.supports_masking = True
        self.built = True

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            stddev = math.sqrt(self.rate / (1.0 - self.rate))
            noise = ops_random.normal(
                tuple(inputs.shape),
                mean=1.0,
                stddev=stddev,
                dtype=inputs.dtype,
                seed=self.seed_generator,
            )
            return ops.multiply(inputs, noise)
        return inputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


@_register
class GaussianNoise(Layer):
    """Adds zero-centered Gaussian noise with standard deviation `stddev` in training.

    Args:
        stddev: standard deviation of the noise.
        seed: an int for reproducible noise.

    >>> import numpy as np
    >>> GaussianNoise(0.1)(np.ones((2, 3)), training=True).shape
    (2, 3)
    """

    def __init__(self, stddev: float, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(stddev, bool) or not isinstance(stddev, (int, float)) or stddev < 0:
            raise ValueError(
                f"GaussianNoise expects `stddev` to be a non-negative float; received {stddev!r}."
            )
        self.stddev = float(stddev)
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)
        self.supports_masking = True
        self.built = True

    def call(self, inputs, training=False):
        if training and self.stddev > 0:
            noise = ops_random.normal(
                tuple(inputs.shape),
                mean=0.0,
                stddev=self.stddev,
                dtype=inputs.dtype,
                seed=self.seed_generator,
            )
            return ops.add(inputs, noise)
        return inputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}


@_register
class AlphaDropout(Layer):
    """Dropout that keeps the mean and variance of its inputs (for SELU networks).

    Dropped entries are set to SELU's negative saturation value, then an affine
    transformation restores zero mean and unit variance for standardized inputs.

    Args:
        rate: fraction of the inputs to drop, in `[0, 1)`.
        noise_shape: shape of the keep mask, `None` entries taking the input's size.
        seed: an int for reproducible masks.

    >>> import numpy as np
    >>> AlphaDropout(0.2)(np.ones((2, 3)), training=True).shape
    (2, 3)
    """

    _ALPHA = 1.6732632423543772848170429916717
    _SCALE = 1.0507009873554804934193349852946

    def __init__(self, rate: float, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = _check_rate(rate, "AlphaDropout")
        self.noise_shape = tuple(noise_shape) if noise_shape is not None else None
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)
        self.supports_masking = True
        self.built = True

    def call(self, inputs, training=False):
        if not (training and self.rate > 0):
            return inputs
        shape = tuple(inputs.shape)
        if self.noise_shape is not None:
            shape = tuple(
                s if n is None else n for s, n in zip(shape, self.noise_shape, strict=True)
            )
        alpha_p = -self._ALPHA * self._SCALE
        keep = ops.greater_equal(
            ops_random.uniform(shape, dtype=inputs.dtype, seed=self.seed_generator), self.rate
        )
        keep = ops.cast(keep, inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = ops.add(ops.multiply(inputs, keep), ops.multiply(ops.subtract(1.0, keep), alpha_p))
        return ops.add(ops.multiply(x, a), b)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "rate": self.rate,
            "noise_shape": self.noise_shape,
            "seed": self.seed,
        }


@_register
class ActivityRegularization(Layer):
    """Returns its input unchanged and adds `l1 * sum(|x|) + l2 * sum(x ** 2)` to `losses`.

    Args:
        l1: L1 regularization factor.
        l2: L2 regularization factor.

    >>> import numpy as np
    >>> layer = ActivityRegularization(l1=0.5)
    >>> _ = layer(np.array([[1.0, -2.0]]))
    >>> float(layer.losses[0])
    1.5
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs):
        kwargs.pop("activity_regularizer", None)
        super().__init__(activity_regularizer=L1L2(l1=l1, l2=l2), **kwargs)
        self.l1 = float(l1)
        self.l2 = float(l2)
        self.supports_masking = True
        self.built = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        return {**config, "l1": self.l1, "l2": self.l2}
