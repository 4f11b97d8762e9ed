"""RandomElasticTransform: Keras 3's random elastic deformation layer.

Built on `ops.image.elastic_transform`'s warp (random displacement fields, Gaussian
smoothing, `map_coordinates`); see `augmentation_base` for the input forms, seeding and
the training rule (identity at inference).
"""

from __future__ import annotations

from lamina import ops
from lamina.layers.augmentation_base import (
    BaseAugmentation,
    check_value_range,
    factor_range,
    per_image,
    register,
)
from lamina.ops import random as ops_random
from lamina.ops.image_warps import _ELASTIC_FILL_MODES, _ELASTIC_ORDERS, _elastic_program


@register
class RandomElasticTransform(BaseAugmentation):
    """Deforms images with random elastic displacements while training.

    Per call, one distortion strength `f` is drawn uniformly from the `scale` range; each
    image is then warped by `ops.image.elastic_transform` with
    `alpha = 0.1 f max(height, width)` and `sigma = 0.05 f min(height, width)` (its own
    random fields), with a probability drawn per image from the `factor` range. Results
    are clipped to `value_range`. As in Keras, `factor` and `scale` give a range `(0, f)`
    for a number `f`. The smoothing window is sized for the largest `sigma` the `scale`
    range allows (Keras sizes it from the drawn one), so the layer also runs in compiled
    steps.

    Args:
        factor: the probability of deforming an image, drawn per image in `[0, f]` (or a
            range within `[0, 1]`); `1.0` (default) always deforms.
        scale: the distortion strength `f`, drawn in `[0, s]` (or a range within
            `[0, 1]`); `1.0` by default.
        interpolation: `"bilinear"` (default) or `"nearest"`.
        fill_mode: how points outside the image are filled: `"reflect"` (default),
            `"constant"`, `"nearest"`, `"wrap"` or `"mirror"`.
        fill_value: the value outside the image with `fill_mode="constant"`.
        value_range: the `(low, high)` range of the images' values; outputs are clipped
            to it.
        seed: an int for reproducible draws.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format).

    >>> import numpy as np
    >>> layer = RandomElasticTransform(seed=1)
    >>> layer(np.zeros((2, 8, 8, 3))).shape
    (2, 8, 8, 3)
    """

    def __init__(
        self,
        factor=1.0,
        scale=1.0,
        interpolation="bilinear",
        fill_mode="reflect",
        fill_value=0.0,
        value_range=(0, 255),
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = factor_range(self.who, "factor", factor, 0.0, 1.0)
        self.scale = factor_range(self.who, "scale", scale, 0.0, 1.0)
        if interpolation not in _ELASTIC_ORDERS:
            raise ValueError(
                f"{self.who}: unknown interpolation {interpolation!r}; expected one of "
                f"{list(_ELASTIC_ORDERS)}."
            )
        if fill_mode not in _ELASTIC_FILL_MODES:
            raise ValueError(
                f"{self.who}: unknown fill_mode {fill_mode!r}; expected one of "
                f"{list(_ELASTIC_FILL_MODES)}."
            )
        self.interpolation = interpolation
        self.fill_mode = fill_mode
        self.fill_value = float(fill_value)
        self.value_range = check_value_range(self.who, value_range)

    def augment_images(self, images):
        if self.factor[1] == 0 or self.scale[1] == 0:
            return images
        n, height, width, _ = (int(d) for d in images.shape)
        apply = per_image(self, n) < per_image(self, n, *self.factor)
        strength = ops_random.uniform(
            (), self.scale[0], self.scale[1], dtype=images.dtype, seed=self.seed_generator
        )
        alpha = 0.1 * max(height, width) * strength
        sigma = 0.05 * min(height, width) * strength
        kernel_size = int(6 * 0.05 * min(height, width) * self.scale[1]) | 1
        noise = ops_random.normal(
            (2 * n, height, width, 1), dtype=images.dtype, seed=self.seed_generator
        )
        warped = _elastic_program(
            images,
            noise,
            alpha,
            sigma,
            kernel_size,
            _ELASTIC_ORDERS[self.interpolation],
            self.fill_mode,
            self.fill_value,
        )
        out = ops.where(apply, warped, images)
        return ops.clip(out, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "scale": self.scale,
            "interpolation": self.interpolation,
            "fill_mode": self.fill_mode,
            "fill_value": self.fill_value,
            "value_range": self.value_range,
        }
