"""The shared body of the image augmentation layers (color, geometry and mixing).

Each layer takes a batch `(batch, height, width, channels)` or one image
`(height, width, channels)` (channels first with `data_format="channels_first"`), or, as
in Keras, a dict `{"images": ..., "labels": ...}` whose labels the mixing layers (MixUp,
CutMix) mix along with the images; other keys pass through.

The random layers change images only when `training` is true (a direct call counts as
training, as in Keras); their draws come from a `SeedGenerator`, so runs repeat under
`lamina.utils.set_random_seed`. Internally every layer works on a channels-last batch.
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.common import serialization
from lamina.layers.layer import Layer
from lamina.ops import random as ops_random

GRAY_WEIGHTS = (0.2989, 0.5870, 0.1140)  # ITU-R 601 luma, as Keras's rgb_to_grayscale


def register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def factor_range(who: str, name: str, factor, low: float, high: float) -> tuple[float, float]:
    """Keras's factor rule: a number `f` means `(max(-f, low), f)`, a pair is a range."""
    message = (
        f"{who}: {name} must be a number or a pair of numbers in [{low}, {high}]; "
        f"received {factor!r}."
    )
    if isinstance(factor, (list, tuple)):
        if len(factor) != 2 or not all(
            isinstance(f, (int, float)) and not isinstance(f, bool) for f in factor
        ):
            raise ValueError(message)
        lower, upper = sorted(float(f) for f in factor)
    elif isinstance(factor, (int, float)) and not isinstance(factor, bool):
        lower, upper = max(-abs(float(factor)), low), abs(float(factor))
    else:
        raise ValueError(message)
    if lower < low or upper > high:
        raise ValueError(message)
    return lower, upper


def check_value_range(who: str, value_range) -> tuple[float, float]:
    if (
        not isinstance(value_range, (list, tuple))
        or len(value_range) != 2
        or not value_range[0] < value_range[1]
    ):
        raise ValueError(
            f"{who}: value_range must be (low, high) with low < high, e.g. (0, 255) or "
            f"(0, 1); received {value_range!r}."
        )
    return float(value_range[0]), float(value_range[1])


def rescale(images, source, target):
    """Map values linearly from the `source` range onto the `target` range."""
    if tuple(source) == tuple(target):
        return images
    scale = (target[1] - target[0]) / (source[1] - source[0])
    return (images - source[0]) * scale + target[0]


def per_image(layer, batch_size, low=0.0, high=1.0, rank=4):
    """One uniform draw in `[low, high)` per image, shaped to broadcast over a batch."""
    shape = (batch_size,) + (1,) * (rank - 1)
    return ops_random.uniform(shape, minval=low, maxval=high, seed=layer.seed_generator)


def grayscale(images):
    """Channels-last RGB images to one luma channel (keeps the channel axis)."""
    weights = ops.convert_to_tensor(GRAY_WEIGHTS, dtype=images.dtype)
    return ops.sum(images * weights, axis=-1, keepdims=True)


def _rgb_to_hsv(images):
    """Channels-last RGB in [0, 1] to HSV in [0, 1] (hue as a fraction of a turn)."""
    r, g, b = images[..., 0], images[..., 1], images[..., 2]
    value = ops.max(images, axis=-1)
    spread = value - ops.min(images, axis=-1)
    safe_value = ops.where(value > 0, value, ops.ones_like(value))
    safe_spread = ops.where(spread > 0, spread, ops.ones_like(spread))
    saturation = ops.where(value > 0, spread / safe_value, ops.zeros_like(value))
    hue = ops.where(
        value == r,
        (g - b) / safe_spread,
        ops.where(value == g, 2.0 + (b - r) / safe_spread, 4.0 + (r - g) / safe_spread),
    )
    hue = ops.where(spread > 0, hue / 6.0, ops.zeros_like(hue))
    hue = hue - ops.floor(hue)
    return ops.stack([hue, saturation, value], axis=-1)


def _hsv_to_rgb(images):
    """Channels-last HSV in [0, 1] back to RGB in [0, 1]."""
    hue, saturation, value = images[..., 0], images[..., 1], images[..., 2]
    channels = []
    for n in (5.0, 3.0, 1.0):
        k = ops.mod(n + hue * 6.0, 6.0)
        weight = ops.clip(ops.minimum(k, 4.0 - k), 0.0, 1.0)
        channels.append(value - value * saturation * weight)
    return ops.stack(channels, axis=-1)


# Pure helpers compiled as one program where the engine compiles (JAX): an eager call
# then costs one compilation per shape instead of one per inner op.
rgb_to_hsv = backend.jit(_rgb_to_hsv)
hsv_to_rgb = backend.jit(_hsv_to_rgb)


def sample_gamma(shape, alpha: float, seed, tries: int = 12):
    """Gamma(alpha, 1) draws by Marsaglia and Tsang's method, vectorized with a fixed
    number of proposals (each accepted with probability > 0.95)."""
    shape = tuple(shape)
    x = ops_random.normal((tries,) + shape, seed=seed)
    u = ops_random.uniform((tries,) + shape, seed=seed)
    boost = ops_random.uniform(shape, minval=1e-12, maxval=1.0, seed=seed)
    return _gamma_program(x, u, boost, float(alpha))


def _gamma_from_draws(x, u, boost_draw, alpha):
    boost = alpha < 1.0
    a = alpha + 1.0 if boost else alpha
    d = a - 1.0 / 3.0
    c = 1.0 / (9.0 * d) ** 0.5
    shape = tuple(x.shape[1:])
    v = (1.0 + c * x) ** 3
    safe_v = ops.where(v > 0, v, ops.ones_like(v))
    accept = (v > 0) & (ops.log(u) < 0.5 * x * x + d - d * safe_v + d * ops.log(safe_v))
    first = ops.argmax(ops.cast(accept, "int32"), axis=0)  # the first accepted proposal
    picked = ops.take_along_axis(d * safe_v, ops.expand_dims(first, 0), axis=0)[0]
    result = ops.where(ops.any(accept, axis=0), picked, ops.full(shape, d))
    if boost:
        result = result * boost_draw ** (1.0 / alpha)
    return result


_gamma_program = backend.jit(_gamma_from_draws, static_argnums=(3,))


def sample_beta(shape, alpha: float, beta: float, seed):
    """Beta(alpha, beta) draws as a ratio of two Gamma draws."""
    x = sample_gamma(shape, alpha, seed)
    y = sample_gamma(shape, beta, seed)
    return x / ops.maximum(x + y, 1e-12)


class BaseAugmentation(Layer):
    """Shared body: input forms, inference identity, layout, seeding and config."""

    _takes_bounding_box_format = True

    applies_at_inference = False  # the deterministic layers that always act say True

    def __init__(self, seed=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        try:
            self.data_format = backend.standardize_data_format(data_format)
        except ValueError as e:
            raise ValueError(f"{type(self).__name__} {self.name!r}: {e}") from None
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)
        self.built = True

    @property
    def who(self) -> str:
        return f"{type(self).__name__} {self.name!r}"

    def augment(self, images, labels, training):
        """Transform a channels-last float batch (and its labels, or None)."""
        return self.augment_images(images), labels

    def augment_images(self, images):
        raise NotImplementedError

    def inference(self, images):
        return images

    def call(self, data, training=True):
        parts = dict(data) if isinstance(data, dict) else None
        if parts is not None and "images" not in parts:
            raise ValueError(
                f"{self.who}: a dict input needs an 'images' key (and optionally 'labels'); "
                f"received keys {sorted(parts)}."
            )
        images = ops.cast(parts["images"] if parts is not None else data, self.compute_dtype)
        if len(images.shape) not in (3, 4):
            raise ValueError(
                f"{self.who} expects a batch of images (batch, height, width, channels) or "
                f"one image (height, width, channels); received shape {tuple(images.shape)}."
            )
        single = len(images.shape) == 3
        batch = ops.expand_dims(images, 0) if single else images
        if self.data_format == "channels_first":
            batch = ops.transpose(batch, (0, 2, 3, 1))
        labels = None if parts is None else parts.get("labels")
        if labels is not None:
            labels = ops.convert_to_tensor(labels)
            labels = ops.expand_dims(labels, 0) if single else labels
        if training or self.applies_at_inference:
            batch, labels = self.augment(batch, labels, training)
        else:
            batch = self.inference(batch)
        batch = ops.cast(batch, self.compute_dtype)
        if self.data_format == "channels_first":
            batch = ops.transpose(batch, (0, 3, 1, 2))
        out = ops.squeeze(batch, 0) if single else batch
        if parts is None:
            return out
        parts["images"] = out
        if labels is not None:
            parts["labels"] = ops.squeeze(labels, 0) if single else labels
        return parts

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, dict):  # {"images": ..., "labels": ...}: shapes kept
            return {key: tuple(shape) for key, shape in input_shape.items()}
        return tuple(input_shape)

    def get_config(self):
        return {**super().get_config(), "seed": self.seed, "data_format": self.data_format}
