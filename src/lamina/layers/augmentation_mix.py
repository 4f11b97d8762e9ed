"""Mixing and policy augmentation layers: MixUp, CutMix, RandAugment, AugMix, and
`Pipeline`, which chains augmentation layers.

MixUp and CutMix mix each image with another image of the batch; pass
`{"images": x, "labels": y}` (one-hot or soft labels) to have the labels mixed in the
same proportions. See `augmentation_base` for the input forms and the training rule.
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.common import serialization
from lamina.layers.augmentation_base import (
    BaseAugmentation,
    check_value_range,
    factor_range,
    register,
    sample_beta,
    sample_gamma,
)
from lamina.layers.augmentation_color import (
    AutoContrast,
    Equalization,
    RandomBrightness,
    RandomColorDegeneration,
    RandomPosterization,
    RandomSharpness,
    Solarization,
)
from lamina.layers.augmentation_geometry import RandomShear
from lamina.layers.image_preprocessing import RandomContrast, RandomRotation, RandomTranslation
from lamina.layers.layer import Layer
from lamina.ops import random as ops_random


def _permutation(layer, batch_size):
    return ops_random.shuffle(ops.arange(batch_size), seed=layer.seed_generator)


def _mix_labels_once(labels, weight, order):
    labels = ops.cast(labels, "float32")
    weight = ops.reshape(weight, (-1,) + (1,) * (len(labels.shape) - 1))
    return weight * labels + (1.0 - weight) * ops.take(labels, order, axis=0)


_mix_labels = backend.jit(_mix_labels_once)


@register
class MixUp(BaseAugmentation):
    """Blends each image (and its label) with another image of the batch while training.

    With `w` drawn per image from `Beta(alpha, alpha)` and a random permutation `p` of the
    batch, `x[i] -> w x[i] + (1 - w) x[p[i]]`, and labels given as
    `{"images": x, "labels": y}` are mixed with the same `w`.

    Args:
        alpha: the Beta distribution's parameter (0.2 by default); small values keep
            most images close to one of the pair.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> out = MixUp(seed=1)({"images": np.ones((4, 2, 2, 3)), "labels": np.eye(4)})
    >>> np.allclose(np.asarray(out["labels"]).sum(axis=1), 1.0)
    True
    """

    _keras_base_factor = "store"  # Keras's image base takes `factor`

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if not isinstance(alpha, (int, float)) or alpha <= 0:
            raise ValueError(f"{self.who}: alpha must be a number > 0; received {alpha!r}.")
        self.alpha = float(alpha)

    def augment(self, images, labels, training):
        n = images.shape[0]
        weight = sample_beta((n,), self.alpha, self.alpha, self.seed_generator)
        order = _permutation(self, n)
        mixed = _mixup_program(images, weight, order)
        if labels is not None:
            labels = _mix_labels(labels, weight, order)
        return mixed, labels

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


def _cutmix(images, weight, center_y, center_x, order):
    """Paste a box of sides `sqrt(1 - weight)` around each center from image `order[i]`;
    also returns the share of each image kept."""
    n, height, width, _ = images.shape
    ratio = ops.sqrt(1.0 - weight)
    cut_h = ops.cast(ratio * height, "int32")
    cut_w = ops.cast(ratio * width, "int32")
    center_y, center_x = ops.cast(center_y, "int32"), ops.cast(center_x, "int32")
    y0 = ops.clip(center_y - cut_h // 2, 0, height)
    y1 = ops.clip(center_y + cut_h // 2, 0, height)
    x0 = ops.clip(center_x - cut_w // 2, 0, width)
    x1 = ops.clip(center_x + cut_w // 2, 0, width)
    rows = ops.reshape(ops.arange(height, dtype="int32"), (1, height, 1, 1))
    cols = ops.reshape(ops.arange(width, dtype="int32"), (1, 1, width, 1))

    def edge(v):
        return ops.reshape(v, (n, 1, 1, 1))

    inside = (rows >= edge(y0)) & (rows < edge(y1)) & (cols >= edge(x0)) & (cols < edge(x1))
    mixed = ops.where(inside, ops.take(images, order, axis=0), images)
    area = ops.cast((y1 - y0) * (x1 - x0), "float32")
    return mixed, 1.0 - area / float(height * width)


def _mixup(images, weight, order):
    w = ops.cast(ops.reshape(weight, (-1, 1, 1, 1)), images.dtype)
    return w * images + (1.0 - w) * ops.take(images, order, axis=0)


# Compiled as one program each where the engine compiles (JAX).
_cutmix_program = backend.jit(_cutmix)
_mixup_program = backend.jit(_mixup)


@register
class CutMix(BaseAugmentation):
    """Pastes a random box from another image of the batch into each image while
    training.

    With `w` drawn per image from `Beta(factor, factor)`, a box of sides
    `sqrt(1 - w)` of the image's height and width, centered at a random pixel and clipped
    to the image, is copied from image `p[i]` of a random permutation. Labels given as
    `{"images": x, "labels": y}` are mixed by the share of the image kept:
    `y[i] -> a y[i] + (1 - a) y[p[i]]`, `a = 1 - box area / image area`.

    Args:
        factor: the Beta distribution's parameter, in `(0, 1]` (1.0: uniform areas).
        seed: an int for reproducible draws.

    >>> import lamina
    >>> batch = {"images": lamina.Input((8, 8, 3)), "labels": lamina.Input((4,))}
    >>> out = CutMix(seed=1)(batch)  # images and one-hot labels, mixed alike
    >>> out["images"].shape, out["labels"].shape
    ((None, 8, 8, 3), (None, 4))
    """

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = factor
        lower, upper = factor_range(self.who, "factor", factor, 0.0, 1.0)
        if upper <= 0:
            raise ValueError(f"{self.who}: factor must be > 0; received {factor!r}.")
        self._alpha = upper

    def augment(self, images, labels, training):
        n, height, width, _ = images.shape
        weight = sample_beta((n,), self._alpha, self._alpha, self.seed_generator)
        center_y = ops_random.randint((n,), 0, height, seed=self.seed_generator)
        center_x = ops_random.randint((n,), 0, width, seed=self.seed_generator)
        order = _permutation(self, n)
        mixed, kept = _cutmix_program(images, weight, center_y, center_x, order)
        if labels is not None:
            labels = _mix_labels(labels, kept, order)
        return mixed, labels

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def _select(candidates, choice):
    """Per image, the output of candidate `choice[i]` (all candidates were computed)."""
    stacked = ops.stack(candidates, axis=0)  # (k, n, h, w, c)
    index = ops.reshape(choice, (1, -1, 1, 1, 1))
    index = ops.broadcast_to(ops.cast(index, "int32"), (1,) + tuple(stacked.shape[1:]))
    return ops.take_along_axis(stacked, index, axis=0)[0]


def _policy_layers(value_range, magnitude, interpolation, seed, color_ops=True):
    """The operations RandAugment and AugMix choose from, at strength `magnitude`."""
    f = max(float(magnitude), 1e-3)
    common = {"seed": seed}
    geometry = {"interpolation": interpolation, "fill_mode": "constant", "seed": seed}
    found = [
        AutoContrast(value_range=value_range),
        Equalization(value_range=value_range),
        RandomPosterization((max(1, 8 - int(round(4 * f))), 8), value_range=value_range, **common),
        Solarization(threshold_factor=(1.0 - f, 1.0), value_range=value_range, **common),
        RandomRotation(f * 30.0 / 360.0, **geometry),
        RandomShear(x_factor=min(f * 0.3, 1.0), **geometry),
        RandomShear(y_factor=min(f * 0.3, 1.0), **geometry),
        RandomTranslation(f / 3.0, 0.0, **geometry),
        RandomTranslation(0.0, f / 3.0, **geometry),
    ]
    if color_ops:
        found += [
            RandomBrightness(min(f * 0.9, 1.0), value_range=value_range, **common),
            RandomColorDegeneration(min(f * 0.9, 1.0), value_range=value_range, **common),
            RandomContrast(min(f * 0.9, 1.0), value_range=value_range, **common),
            RandomSharpness(min(f, 1.0), value_range=value_range, **common),
        ]
    return found


def _apply_all(operations, images, value_range):
    return [
        ops.clip(op(images, training=True), value_range[0], value_range[1]) for op in operations
    ]


@register
class RandAugment(BaseAugmentation):
    """Applies `num_ops` operations, chosen at random per image, while training.

    The operations (auto-contrast, equalization, posterization, solarization, rotation,
    shear and translation along each axis, brightness, color, contrast, sharpness) run at a
    strength set by `factor`; each image gets its own random choice at each of the
    `num_ops` steps (choices may repeat).

    Args:
        value_range: the range of the pixel values, `(0, 255)` by default.
        num_ops: how many operations to apply to each image (2 by default).
        factor: the strength of the operations, in `[0, 1]` (0.5 by default); a pair
            uses its upper end.
        interpolation: `"bilinear"` (default) or `"nearest"`, for the geometric ones.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> import lamina
    >>> lamina.Sequential([lamina.Input((32, 32, 3)), RandAugment(num_ops=2, seed=1)]).output_shape
    (None, 32, 32, 3)
    >>> images = np.full((1, 2, 2, 3), 128.0)
    >>> float(np.asarray(RandAugment(seed=1)(images, training=False)).max())  # inference: as is
    128.0
    """

    def __init__(
        self,
        value_range=(0, 255),
        num_ops=2,
        factor=0.5,
        interpolation="bilinear",
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = check_value_range(self.who, value_range)
        if not isinstance(num_ops, int) or num_ops < 0:
            raise ValueError(f"{self.who}: num_ops must be an int >= 0; received {num_ops!r}.")
        self.num_ops = num_ops
        self.factor = factor
        self._range = factor_range(self.who, "factor", factor, 0.0, 1.0)
        self.interpolation = interpolation
        self._operations = _policy_layers(
            self.value_range, self._range[1], interpolation, seed, color_ops=True
        )

    def augment_images(self, images):
        n = images.shape[0]
        for _ in range(self.num_ops):
            choice = ops_random.randint((n,), 0, len(self._operations), seed=self.seed_generator)
            images = _select(_apply_all(self._operations, images, self.value_range), choice)
        return images

    def get_config(self):
        return {
            **super().get_config(),
            "value_range": list(self.value_range),
            "num_ops": self.num_ops,
            "factor": self.factor,
            "interpolation": self.interpolation,
        }


@register
class AugMix(BaseAugmentation):
    """Blends each image with a mix of randomly augmented copies of itself (AugMix).

    `num_chains` chains each apply `chain_depth` random operations (chosen per image);
    the chains are mixed with Dirichlet(`alpha`) weights and the result is blended with
    the original image by a Beta(`alpha`, `alpha`) weight.

    Args:
        value_range: the range of the pixel values, `(0, 255)` by default.
        num_chains: the number of augmentation chains (3 by default).
        chain_depth: operations per chain: an int (3 by default), or a pair
            `(min, max)` drawing the depth per image in that range.
        factor: the strength of the operations, in `[0, 1]` (0.3 by default).
        alpha: the Dirichlet and Beta parameter (1.0 by default).
        all_ops: also use brightness, color, contrast and sharpness (True by default).
        interpolation: `"bilinear"` (default) or `"nearest"`.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> import lamina
    >>> lamina.Sequential([lamina.Input((32, 32, 3)), AugMix(num_chains=2, seed=1)]).output_shape
    (None, 32, 32, 3)
    >>> images = np.full((1, 2, 2, 3), 128.0)
    >>> float(np.asarray(AugMix(seed=1)(images, training=False)).max())  # identity at inference
    128.0
    """

    def __init__(
        self,
        value_range=(0, 255),
        num_chains=3,
        chain_depth=3,
        factor=0.3,
        alpha=1.0,
        all_ops=True,
        interpolation="bilinear",
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = check_value_range(self.who, value_range)
        if not isinstance(num_chains, int) or num_chains < 1:
            raise ValueError(
                f"{self.who}: num_chains must be an int >= 1; received {num_chains!r}."
            )
        depth = (chain_depth, chain_depth) if isinstance(chain_depth, int) else chain_depth
        if (
            not isinstance(depth, (list, tuple))
            or len(depth) != 2
            or not all(isinstance(d, int) and d >= 1 for d in depth)
            or depth[0] > depth[1]
        ):
            raise ValueError(
                f"{self.who}: chain_depth must be an int >= 1 or a pair (min, max); "
                f"received {chain_depth!r}."
            )
        if not isinstance(alpha, (int, float)) or alpha <= 0:
            raise ValueError(f"{self.who}: alpha must be > 0; received {alpha!r}.")
        self.num_chains = num_chains
        self.chain_depth = chain_depth
        self._depth = tuple(depth)
        self.factor = factor
        self._range = factor_range(self.who, "factor", factor, 0.0, 1.0)
        self.alpha = float(alpha)
        self.all_ops = bool(all_ops)
        self.interpolation = interpolation
        self._operations = _policy_layers(
            self.value_range, self._range[1], interpolation, seed, color_ops=self.all_ops
        )

    def augment_images(self, images):
        n = images.shape[0]
        gammas = sample_gamma((n, self.num_chains), self.alpha, self.seed_generator)
        chain_weights = gammas / ops.sum(gammas, axis=1, keepdims=True)
        blend = sample_beta((n,), self.alpha, self.alpha, self.seed_generator)
        mixed = ops.zeros_like(images)
        for chain in range(self.num_chains):
            low, high = self._depth
            depth = ops_random.randint((n,), low, high + 1, seed=self.seed_generator)
            augmented = images
            for step in range(high):
                choice = ops_random.randint(
                    (n,), 0, len(self._operations), seed=self.seed_generator
                )
                stepped = _select(_apply_all(self._operations, augmented, self.value_range), choice)
                active = ops.reshape(step < depth, (n, 1, 1, 1))
                augmented = ops.where(active, stepped, augmented)
            w = ops.cast(ops.reshape(chain_weights[:, chain], (n, 1, 1, 1)), images.dtype)
            mixed = mixed + w * augmented
        b = ops.cast(ops.reshape(blend, (n, 1, 1, 1)), images.dtype)
        return b * images + (1.0 - b) * mixed

    def get_config(self):
        return {
            **super().get_config(),
            "value_range": list(self.value_range),
            "num_chains": self.num_chains,
            "chain_depth": list(self.chain_depth)
            if isinstance(self.chain_depth, (list, tuple))
            else self.chain_depth,
            "factor": self.factor,
            "alpha": self.alpha,
            "all_ops": self.all_ops,
            "interpolation": self.interpolation,
        }


@register
class Pipeline(Layer):
    """Applies a list of (augmentation) layers in order, passing `training` to each.

    Args:
        layers: the layers, applied first to last.

    >>> import numpy as np
    >>> from lamina import layers
    >>> pipe = Pipeline([layers.RandomFlip(seed=1), layers.RandomCrop(2, 2, seed=1)])
    >>> pipe(np.zeros((3, 4, 4, 3))).shape
    (3, 2, 2, 3)
    """

    def __init__(self, layers, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        layers = list(layers)
        for layer in layers:
            if not isinstance(layer, Layer):
                raise ValueError(
                    f"Pipeline {self.name!r}: every entry must be a layer; received "
                    f"{type(layer).__name__} {layer!r}."
                )
        self._pipeline_layers = layers
        self.built = True

    @property
    def layers(self):
        return self._pipeline_layers

    def call(self, inputs, training=True):
        for layer in self._pipeline_layers:
            inputs = layer(inputs, training=training)
        return inputs

    def compute_output_shape(self, input_shape):
        for layer in self._pipeline_layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "layers": [
                serialization.serialize_keras_object(layer, "layers")
                for layer in self._pipeline_layers
            ],
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["layers"] = [
            serialization.deserialize_keras_object(layer, "layers") for layer in config["layers"]
        ]
        return cls(**config)
