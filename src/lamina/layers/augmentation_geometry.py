"""Geometric augmentation layers: RandomCrop, RandomErasing, RandomShear and
RandomPerspective.

See `augmentation_base` for the input forms (batch, single image, or
`{"images": ..., "labels": ...}`) and the training rule.
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.layers.augmentation_base import (
    BaseAugmentation,
    check_value_range,
    factor_range,
    per_image,
    register,
)
from lamina.ops import image as ops_image
from lamina.ops import random as ops_random

_FILL_MODES = ("reflect", "wrap", "constant", "nearest", "mirror")
_INTERPOLATIONS = ("nearest", "bilinear")


def _choice(who, name, value, allowed):
    if value not in allowed:
        raise ValueError(f"{who}: unknown {name} {value!r}; expected one of {list(allowed)}.")
    return value


@register
class RandomCrop(BaseAugmentation):
    """Crops a random `height x width` window out of the images while training.

    As in Keras, one window (drawn uniformly among all positions) is cut from the whole
    batch. At inference, and in training when the images are not larger than the window,
    the largest centered window with the target aspect ratio is cropped and resized to
    `(height, width)` (bilinear), so the output shape is always `(height, width)`.

    Args:
        height, width: the output size.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> RandomCrop(3, 4, seed=1)(np.zeros((2, 6, 8, 3))).shape
    (2, 3, 4, 3)
    """

    _keras_base_factor = "store"  # Keras's image base takes `factor`

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, name=name, **kwargs)
        self.height, self.width = int(height), int(width)
        if self.height < 1 or self.width < 1:
            raise ValueError(
                f"{self.who}: height and width must be >= 1; received {height}x{width}."
            )

    def _center_resize(self, images):
        height, width = images.shape[1], images.shape[2]
        crop_h = max(min(height, int(width * self.height / self.width)), 1)
        crop_w = max(min(width, int(height * self.width / self.height)), 1)
        top, left = (height - crop_h) // 2, (width - crop_w) // 2
        images = images[:, top : top + crop_h, left : left + crop_w, :]
        if (crop_h, crop_w) == (self.height, self.width):
            return images
        return ops_image.resize(
            images, (self.height, self.width), interpolation="bilinear", data_format="channels_last"
        )

    def augment_images(self, images):
        n, height, width, channels = images.shape
        if height is None or width is None:
            raise ValueError(
                f"{self.who} needs images with a known height and width; received shape "
                f"{tuple(images.shape)}."
            )
        if height <= self.height or width <= self.width:
            return self._center_resize(images)
        top = ops_random.randint((), 0, height - self.height + 1, seed=self.seed_generator)
        left = ops_random.randint((), 0, width - self.width + 1, seed=self.seed_generator)
        zero = ops.zeros((), dtype=top.dtype)
        return ops.slice(images, (zero, top, left, zero), (n, self.height, self.width, channels))

    def inference(self, images):
        return self._center_resize(images)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        if len(shape) not in (3, 4):
            raise ValueError(f"{self.who} expects rank-3 or rank-4 images; received {shape}.")
        offset = len(shape) - 3
        h_axis = offset + (0 if self.data_format == "channels_last" else 1)
        shape[h_axis], shape[h_axis + 1] = self.height, self.width
        return tuple(shape)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width}


@register
class RandomErasing(BaseAugmentation):
    """Erases a random rectangle of each image, with a random probability, while
    training.

    The rectangle's sides are `sqrt(s)` of the image's height and width, with `s` drawn
    (per side) from `scale`; it is placed at random and filled with `fill_value`, or with
    Gaussian noise times `value_range[1]` when `fill_value` is None.

    Args:
        factor: the probability of erasing, drawn per image in `[0, f]` (or a range);
            `(1, 1)` always erases.
        scale: the range of the erased fraction of each side (squared), default
            `(0.02, 0.33)`.
        fill_value: the value written into the rectangle (None: noise).
        value_range: the range of the pixel values, `(0, 255)` by default.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> erase = RandomErasing(factor=(1.0, 1.0), scale=(0.25, 0.25), fill_value=0.0, seed=1)
    >>> out = np.asarray(erase(np.ones((1, 4, 4, 1))))
    >>> out.shape, float(out.sum())  # a 2x2 rectangle of the 4x4 image erased
    ((1, 4, 4, 1), 12.0)
    """

    def __init__(
        self,
        factor=1.0,
        scale=(0.02, 0.33),
        fill_value=None,
        value_range=(0, 255),
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = factor
        self._range = factor_range(self.who, "factor", factor, 0.0, 1.0)
        self.scale = scale
        self._scale = factor_range(self.who, "scale", scale, 0.0, 1.0)
        if fill_value is not None and not isinstance(fill_value, (int, float)):
            raise ValueError(
                f"{self.who}: fill_value must be a number or None; received {fill_value!r}."
            )
        self.fill_value = fill_value
        self.value_range = check_value_range(self.who, value_range)

    def augment_images(self, images):
        n = images.shape[0]
        sides = ops_random.uniform((n, 2), *self._scale, seed=self.seed_generator)
        starts = ops_random.uniform((n, 2), seed=self.seed_generator)
        apply = per_image(self, n) < per_image(self, n, *self._range)
        if self.fill_value is None:
            fill = ops_random.normal(images.shape, seed=self.seed_generator) * self.value_range[1]
        else:
            fill = ops.full(images.shape, float(self.fill_value))
        return _erase_program(images, sides, starts, apply, ops.cast(fill, images.dtype))

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "scale": self.scale,
            "fill_value": self.fill_value,
            "value_range": list(self.value_range),
        }


def _erase(images, sides, starts, apply, fill):
    """Fill a box per image: sides `sqrt(sides)` of the image, placed at `starts`."""
    _, height, width, _ = images.shape
    sides = ops.sqrt(sides)

    def bounds(length, ratio, start):
        size = ratio * length
        first = start * (length - size)
        return first[:, None, None, None], (first + size)[:, None, None, None]

    x0, x1 = bounds(width, sides[:, 0], starts[:, 0])
    y0, y1 = bounds(height, sides[:, 1], starts[:, 1])
    rows = ops.reshape(ops.arange(height, dtype=images.dtype), (1, height, 1, 1))
    cols = ops.reshape(ops.arange(width, dtype=images.dtype), (1, 1, width, 1))
    inside = (cols >= x0) & (cols < x1) & (rows >= y0) & (rows < y1)
    return ops.where(inside & apply, fill, images)


# Compiled as one program where the engine compiles (JAX), as the other helpers here.
_erase_program = backend.jit(_erase)


class _Resampling(BaseAugmentation):
    """A layer that resamples images through a projective transform."""

    def __init__(
        self,
        interpolation="bilinear",
        fill_mode="reflect",
        fill_value=0.0,
        data_format=None,
        seed=None,
        **kwargs,
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.interpolation = _choice(self.who, "interpolation", interpolation, _INTERPOLATIONS)
        self.fill_mode = _choice(self.who, "fill_mode", fill_mode, _FILL_MODES)
        self.fill_value = float(fill_value)

    def resample(self, images, transform):
        return ops_image.affine_transform(
            images,
            ops.cast(transform, "float32"),
            interpolation=self.interpolation,
            fill_mode=self.fill_mode,
            fill_value=self.fill_value,
            data_format="channels_last",
        )

    def get_config(self):
        return {
            **super().get_config(),
            "interpolation": self.interpolation,
            "fill_mode": self.fill_mode,
            "fill_value": self.fill_value,
        }


@register
class RandomShear(_Resampling):
    """Shears each image by a random amount while training.

    The output pixel `(x, y)` samples the input at `(x + s_x * y, s_y * x + y)` (about
    the top-left corner, as Keras does), with `s_x`, `s_y` drawn per image from the factor
    ranges and a shared random sign.

    Args:
        x_factor: `f` draws `s_x` in `[-f, f]`; a pair gives the range; in `[-1, 1]`.
        y_factor: the same for `s_y`.
        interpolation: `"bilinear"` (default) or `"nearest"`.
        fill_mode: `"reflect"` (default), `"wrap"`, `"constant"`, `"nearest"` or
            `"mirror"`.
        fill_value: the value for `fill_mode="constant"`.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> out = RandomShear(x_factor=0.3, y_factor=0.3, seed=1)(np.ones((2, 8, 8, 3)))
    >>> out.shape
    (2, 8, 8, 3)
    """

    _keras_base_factor = "refuse"  # Keras's image base takes `factor`

    def __init__(
        self,
        x_factor=0.0,
        y_factor=0.0,
        interpolation="bilinear",
        fill_mode="reflect",
        fill_value=0.0,
        data_format=None,
        seed=None,
        **kwargs,
    ):
        super().__init__(interpolation, fill_mode, fill_value, data_format, seed, **kwargs)
        self.x_factor = x_factor
        self.y_factor = y_factor
        self._x = factor_range(self.who, "x_factor", x_factor, -1.0, 1.0)
        self._y = factor_range(self.who, "y_factor", y_factor, -1.0, 1.0)

    def augment_images(self, images):
        n = images.shape[0]
        sign = ops.where(per_image(self, n, rank=1) > 0.5, -1.0, 1.0)
        shear_y = per_image(self, n, *self._y, rank=1) * sign
        shear_x = per_image(self, n, *self._x, rank=1) * sign
        ones, zeros = ops.ones((n,)), ops.zeros((n,))
        transform = ops.stack([ones, shear_x, zeros, shear_y, ones, zeros, zeros, zeros], axis=1)
        return self.resample(images, transform)

    def get_config(self):
        return {**super().get_config(), "x_factor": self.x_factor, "y_factor": self.y_factor}


def _solve_homography(source, target):
    """The 8 projective coefficients mapping `target` corner points onto `source`
    (both `(n, 4, 2)` as x, y): output pixel `p` samples the input at `H p`."""
    rows = []
    rhs = []
    for k in range(4):
        x, y = target[:, k, 0], target[:, k, 1]
        u, v = source[:, k, 0], source[:, k, 1]
        one, zero = ops.ones_like(x), ops.zeros_like(x)
        rows.append(ops.stack([x, y, one, zero, zero, zero, -u * x, -u * y], axis=1))
        rows.append(ops.stack([zero, zero, zero, x, y, one, -v * x, -v * y], axis=1))
        rhs += [u, v]
    matrix = ops.stack(rows, axis=1)  # (n, 8, 8)
    vector = ops.stack(rhs, axis=1)[..., None]  # (n, 8, 1)
    return ops.squeeze(ops.solve(matrix, vector), -1)


def _perspective(moves, w, h, scale):
    """The transform that moves the corners of a `w x h` image by `moves * scale` of its
    half sides."""
    corners = ops.convert_to_tensor([[0.0, 0.0], [w, 0.0], [0.0, h], [w, h]])
    corners = ops.broadcast_to(corners[None], tuple(moves.shape))
    half = ops.convert_to_tensor([w / 2.0, h / 2.0])
    return _solve_homography(corners, corners + moves * scale * half)


_perspective_program = backend.jit(_perspective, static_argnums=(1, 2, 3))


@register
class RandomPerspective(_Resampling):
    """Applies a random perspective warp to each image, with a random probability, while
    training.

    Each corner of the image moves by up to `scale / 2` of the image's half-width and
    half-height (uniformly, independently per corner); the image is resampled through the
    projective transform taking the moved corners back to the original ones.

    Args:
        factor: the probability of warping, drawn per image in `[0, f]` (or a range);
            `(1, 1)` always warps.
        scale: the distortion strength, in `[0, 1]` (1.0 by default).
        interpolation: `"bilinear"` (default) or `"nearest"`.
        fill_value: the value of points that fall outside the image.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> out = RandomPerspective(scale=0.5, seed=1)(np.ones((2, 8, 8, 3)))
    >>> out.shape
    (2, 8, 8, 3)
    """

    def __init__(
        self,
        factor=1.0,
        scale=1.0,
        interpolation="bilinear",
        fill_value=0.0,
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(interpolation, "constant", fill_value, data_format, seed, **kwargs)
        self.factor = factor
        self._range = factor_range(self.who, "factor", factor, 0.0, 1.0)
        if not isinstance(scale, (int, float)) or not 0 <= scale <= 1:
            raise ValueError(f"{self.who}: scale must be in [0, 1]; received {scale!r}.")
        self.scale = float(scale)

    def augment_images(self, images):
        n, height, width, _ = images.shape
        moves = ops_random.uniform((n, 4, 2), -0.5, 0.5, seed=self.seed_generator)
        transform = _perspective_program(moves, float(width - 1), float(height - 1), self.scale)
        warped = self.resample(images, transform)
        apply = per_image(self, n) < per_image(self, n, *self._range)
        return ops.where(apply, warped, images)

    def get_config(self):
        config = super().get_config()
        config.pop("fill_mode")
        return {**config, "factor": self.factor, "scale": self.scale}
