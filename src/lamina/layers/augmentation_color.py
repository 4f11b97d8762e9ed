"""Color augmentation layers: brightness, grayscale, inversion, hue, saturation, color
degeneration, sharpness, posterization, solarization, auto-contrast, equalization,
Gaussian blur and the combined `RandomColorJitter`.

Pixel values are read in `value_range` (`(0, 255)` by default; `(0, 1)` for scaled
images) and results are kept inside it. See `augmentation_base` for the input forms
(batch, single image, or `{"images": ..., "labels": ...}`) and the training rule.
"""

from __future__ import annotations

import math

from lamina import backend, ops
from lamina.layers.augmentation_base import (
    BaseAugmentation,
    check_value_range,
    factor_range,
    grayscale,
    hsv_to_rgb,
    per_image,
    register,
    rescale,
    rgb_to_hsv,
)
from lamina.ops import random as ops_random


class _ValueRangeAugmentation(BaseAugmentation):
    """A color layer with a `value_range` (kept in the config)."""

    def __init__(self, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = check_value_range(self.who, value_range)

    def clip(self, images):
        return ops.clip(images, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {**super().get_config(), "value_range": list(self.value_range)}


def _check_rgb(layer, images):
    if images.shape[-1] != 3:
        raise ValueError(
            f"{layer.who} works on RGB images (3 channels); received {images.shape[-1]} "
            "channels. Pass RGB images, or data_format='channels_first' if the channels "
            "come first."
        )


@register
class RandomBrightness(_ValueRangeAugmentation):
    """Adds a random brightness offset to each image while training.

    The offset is `delta * (value_range[1] - value_range[0])` with `delta` drawn per image
    from the factor range, added to every pixel and channel; the result is clipped to
    `value_range`.

    Args:
        factor: `f` draws `delta` in `[-f, f]`; a pair `(lower, upper)` gives the range.
            Values in `[-1, 1]`.
        value_range: the range of the pixel values, `(0, 255)` by default.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> out = RandomBrightness((0.1, 0.1))(np.full((1, 2, 2, 3), 100.0))
    >>> float(np.asarray(out).max())
    125.5
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(value_range=value_range, seed=seed, **kwargs)
        self.factor = factor
        self._range = factor_range(self.who, "factor", factor, -1.0, 1.0)

    def augment_images(self, images):
        low, high = self.value_range
        delta = per_image(self, images.shape[0], *self._range) * (high - low)
        return self.clip(images + delta)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


@register
class RandomGrayscale(BaseAugmentation):
    """Turns each image to grayscale with probability `factor` while training.

    The gray image keeps its three channels (each equal to the luma
    `0.2989 R + 0.5870 G + 0.1140 B`), so the output shape is the input shape.

    Args:
        factor: the probability of converting an image, in `[0, 1]` (default 0.5).
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> red = np.array([255.0, 0.0, 0.0]).reshape(1, 1, 1, 3)
    >>> np.asarray(RandomGrayscale(factor=1.0)(red)).ravel().round(2)
    array([76.22, 76.22, 76.22], dtype=float32)
    """

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if not isinstance(factor, (int, float)) or not 0 <= factor <= 1:
            raise ValueError(f"{self.who}: factor must be in [0, 1]; received {factor!r}.")
        self.factor = float(factor)

    def augment_images(self, images):
        _check_rgb(self, images)
        apply = per_image(self, images.shape[0]) < self.factor
        return ops.where(apply, grayscale(images), images)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


class _ProbabilityAugmentation(_ValueRangeAugmentation):
    """Applies `transform` to each image with a probability drawn from `factor`."""

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(value_range=value_range, seed=seed, data_format=data_format, **kwargs)
        self.factor = factor
        self._range = factor_range(self.who, "factor", factor, 0.0, 1.0)

    def should_apply(self, batch_size):
        probability = per_image(self, batch_size, *self._range)
        return per_image(self, batch_size) < probability

    def augment_images(self, images):
        return ops.where(self.should_apply(images.shape[0]), self.transform(images), images)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


@register
class RandomInvert(_ProbabilityAugmentation):
    """Inverts each image (`value_range[1] - x`) with a random probability while training.

    Args:
        factor: the probability of inverting: `f` draws it in `[0, f]` per image, a pair
            gives the range; `1.0` (default) draws it in `[0, 1]`, `(1, 1)` always inverts.
        value_range: the range of the pixel values, `(0, 255)` by default.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> np.asarray(RandomInvert((1.0, 1.0))(np.full((1, 1, 1, 3), 55.0))).ravel().tolist()
    [200.0, 200.0, 200.0]
    """

    def transform(self, images):
        return self.value_range[1] - images


def _turn_hue(images, sign, size, low, high):
    shift = ops.where(sign > 0.5, -1.0, 1.0) * size * 0.5
    hsv = rgb_to_hsv(rescale(images, (low, high), (0, 1)))
    hue = hsv[..., 0] + shift
    hue = hue - ops.floor(hue)
    rgb = hsv_to_rgb(ops.stack([hue, hsv[..., 1], hsv[..., 2]], axis=-1))
    return rescale(ops.clip(rgb, 0.0, 1.0), (0, 1), (low, high))


_hue_program = backend.jit(_turn_hue, static_argnums=(3, 4))


@register
class RandomHue(_ValueRangeAugmentation):
    """Rotates the hue of each image by a random amount while training.

    A shift of `s * 0.5` turns (with `s` drawn from the factor range and a random sign)
    is added to the hue in HSV space: `factor=1` may turn the colors half way round.

    Args:
        factor: `f` draws `s` in `[0, f]`; a pair gives the range; values in `[0, 1]`.
        value_range: the range of the pixel values, `(0, 255)` by default.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> pixel = np.array([200.0, 50.0, 50.0]).reshape(1, 1, 1, 3)
    >>> out = np.asarray(RandomHue(0.5, seed=1)(pixel))
    >>> out.shape, round(float(out.max()), 2)  # the hue turns; the value (max channel) stays
    ((1, 1, 1, 3), 200.0)
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(value_range=value_range, seed=seed, data_format=data_format, **kwargs)
        self.factor = factor
        self._range = factor_range(self.who, "factor", factor, 0.0, 1.0)

    def augment_images(self, images):
        _check_rgb(self, images)
        n = images.shape[0]
        sign = per_image(self, n, rank=3)
        size = per_image(self, n, *self._range, rank=3)
        return _hue_program(images, sign, size, *self.value_range)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def _saturate(images, s, low, high):
    scale = ops.maximum(s / (1.0 - s + 1e-7), 0.0)
    hsv = rgb_to_hsv(ops.clip(rescale(images, (low, high), (0, 1)), 0.0, 1.0))
    saturation = ops.clip(hsv[..., 1] * scale, 0.0, 1.0)
    rgb = hsv_to_rgb(ops.stack([hsv[..., 0], saturation, hsv[..., 2]], axis=-1))
    return rescale(rgb, (0, 1), (low, high))


_saturation_program = backend.jit(_saturate, static_argnums=(2, 3))


@register
class RandomSaturation(_ValueRangeAugmentation):
    """Scales the saturation of each image by a random amount while training.

    With `s` drawn from the factor range, the HSV saturation is multiplied by
    `s / (1 - s)`: `s = 0.5` leaves the image as is, `s <= 0` makes it gray, values near
    1 saturate it fully.

    Args:
        factor: `f` draws `s` in `[-f, f]` (as Keras does); a pair gives the range, in
            `[-1, 1]`: `(0.5, 0.5)` is the identity.
        value_range: the range of the pixel values, `(0, 255)` by default.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> pixel = np.array([200.0, 50.0, 50.0]).reshape(1, 1, 1, 3)
    >>> np.asarray(RandomSaturation((0.0, 0.0))(pixel)).ravel().round(2)  # s = 0: gray
    array([200., 200., 200.], dtype=float32)
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(value_range=value_range, seed=seed, data_format=data_format, **kwargs)
        self.factor = factor
        self._range = factor_range(self.who, "factor", factor, -1.0, 1.0)

    def augment_images(self, images):
        _check_rgb(self, images)
        s = per_image(self, images.shape[0], *self._range, rank=3)
        return _saturation_program(images, s, *self.value_range)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


@register
class RandomColorDegeneration(_ValueRangeAugmentation):
    """Blends each image toward its grayscale version by a random amount while training.

    `out = x + f * (gray(x) - x)` with `f` drawn per image: 0 keeps the image, 1 makes it
    gray, negative values push colors further apart; clipped to `value_range`.

    Args:
        factor: `f` draws in `[-f, f]`; a pair gives the range; values in `[-1, 1]`.
        value_range: the range of the pixel values, `(0, 255)` by default.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> red = np.array([255.0, 0.0, 0.0]).reshape(1, 1, 1, 3)
    >>> np.asarray(RandomColorDegeneration((1.0, 1.0))(red)).ravel().round(2)  # f = 1: gray
    array([76.22, 76.22, 76.22], dtype=float32)
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(value_range=value_range, seed=seed, data_format=data_format, **kwargs)
        self.factor = factor
        self._range = factor_range(self.who, "factor", factor, -1.0, 1.0)

    def augment_images(self, images):
        _check_rgb(self, images)
        f = per_image(self, images.shape[0], *self._range)
        return self.clip(images + f * (grayscale(images) - images))

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def _depthwise(images, kernel2d):
    """Convolve every channel of a channels-last batch with one 2-D kernel ('same',
    zero padding)."""
    kh, kw = kernel2d.shape[0], kernel2d.shape[1]
    kernel = ops.reshape(kernel2d, (kh, kw, 1, 1))
    kernel = ops.tile(kernel, (1, 1, images.shape[-1], 1))
    return ops.depthwise_conv(
        images, ops.cast(kernel, images.dtype), padding="same", data_format="channels_last"
    )


def _sharpen(images, f):
    a, b = 1.0 / 13.0, 5.0 / 13.0
    kernel = ops.convert_to_tensor([[a, a, a], [a, b, a], [a, a, a]], dtype=images.dtype)
    smooth = _depthwise(images, kernel)
    return images + (1.0 - 2.0 * f) * (smooth - images)


_sharpen_program = backend.jit(_sharpen)


@register
class RandomSharpness(_ValueRangeAugmentation):
    """Sharpens or blurs each image by a random amount while training.

    The image is blended with a smoothed copy (3x3 kernel, center weight 5/13):
    `out = x + (1 - 2f) * (smooth(x) - x)` with `f` drawn per image, so `f = 0.5` keeps
    the image, 0 gives the smoothed image and 1 sharpens; clipped to `value_range`.

    Args:
        factor: `f` draws in `[0, f]`; a pair gives the range; values in `[0, 1]`.
        value_range: the range of the pixel values, `(0, 255)` by default.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> image = np.zeros((1, 3, 3, 1))
    >>> image[0, 1, 1, 0] = 130.0
    >>> out = RandomSharpness((0.0, 0.0))(image)  # f = 0: the smoothed image
    >>> round(float(np.asarray(out)[0, 1, 1, 0]), 2)
    50.0
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(value_range=value_range, seed=seed, data_format=data_format, **kwargs)
        self.factor = factor
        self._range = factor_range(self.who, "factor", factor, 0.0, 1.0)

    def augment_images(self, images):
        f = per_image(self, images.shape[0], *self._range)
        return self.clip(_sharpen_program(images, f))

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def _posterize(images, bits, low, high):
    """Keep the top `bits` bits of each 8-bit value (images in `(low, high)`)."""
    pixels = ops.floor(ops.clip(rescale(images, (low, high), (0, 255)), 0.0, 255.0))
    step = 2.0 ** (8.0 - bits)
    return rescale(ops.floor(pixels / step) * step, (0, 255), (low, high))


_posterize_program = backend.jit(_posterize, static_argnums=(2, 3))


@register
class RandomPosterization(_ValueRangeAugmentation):
    """Reduces each image to a random number of bits per channel while training.

    Values are mapped to 8-bit integers and all but their top `b` bits are cleared, with
    `b` drawn per image as an integer in `[lower, upper)` (or exactly `b` when the range
    is a single value).

    Args:
        factor: the largest number of bits kept, `1` to `8`: `f` draws in `[1, f)`,
            a pair `(lower, upper)` gives the range.
        value_range: the range of the pixel values, `(0, 255)` by default.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> out = RandomPosterization((2, 2))(np.full((1, 1, 1, 3), 200.0))
    >>> np.asarray(out).ravel().tolist()
    [192.0, 192.0, 192.0]
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(value_range=value_range, seed=seed, data_format=data_format, **kwargs)
        self.factor = factor
        lower, upper = factor_range(self.who, "factor", factor, 1.0, 8.0)
        self._range = (int(lower), int(upper))

    def augment_images(self, images):
        lower, upper = self._range
        n = images.shape[0]
        if lower == upper:
            bits = ops.full((n, 1, 1, 1), float(lower))
        else:
            draw = ops_random.randint((n, 1, 1, 1), lower, upper, seed=self.seed_generator)
            bits = ops.cast(draw, "float32")
        return _posterize_program(images, ops.cast(bits, images.dtype), *self.value_range)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


@register
class Solarization(_ValueRangeAugmentation):
    """Adds a random offset, then inverts the pixels above a random threshold, while
    training.

    In 0-255 units, `y = clip(x + a, 0, 255)`, then `y` where `y < t` and `255 - y`
    elsewhere, with `a` and `t` drawn per image as `addition_factor` and
    `threshold_factor` times 255. With both factors 0 (the default) every pixel is
    inverted.

    Args:
        addition_factor: `f` draws in `[0, f]`, a pair gives the range; in `[0, 1]`.
        threshold_factor: the same for the threshold.
        value_range: the range of the pixel values, `(0, 255)` by default.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> np.asarray(Solarization()(np.full((1, 1, 1, 3), 55.0))).ravel().tolist()
    [200.0, 200.0, 200.0]
    """

    _keras_base_factor = "refuse"  # Keras's image base takes `factor`

    def __init__(
        self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255), seed=None, **kwargs
    ):
        super().__init__(value_range=value_range, seed=seed, **kwargs)
        self.addition_factor = addition_factor
        self.threshold_factor = threshold_factor
        self._addition = factor_range(self.who, "addition_factor", addition_factor, 0.0, 1.0)
        self._threshold = factor_range(self.who, "threshold_factor", threshold_factor, 0.0, 1.0)

    def augment_images(self, images):
        n = images.shape[0]
        add = per_image(self, n, *(255.0 * f for f in self._addition))
        threshold = per_image(self, n, *(255.0 * f for f in self._threshold))
        pixels = ops.clip(rescale(images, self.value_range, (0, 255)) + add, 0.0, 255.0)
        out = ops.where(pixels < threshold, pixels, 255.0 - pixels)
        return rescale(out, (0, 255), self.value_range)

    def get_config(self):
        return {
            **super().get_config(),
            "addition_factor": self.addition_factor,
            "threshold_factor": self.threshold_factor,
        }


@register
class AutoContrast(_ValueRangeAugmentation):
    """Stretches each channel of each image to fill `value_range`.

    Deterministic, and applied at inference too (as in Keras): each channel's minimum
    maps to `value_range[0]` and its maximum to `value_range[1]`; a constant channel is
    left as it is.

    Args:
        value_range: the range of the pixel values, `(0, 255)` by default.

    >>> import numpy as np
    >>> images = np.array([50.0, 100.0, 150.0]).reshape(1, 1, 3, 1)
    >>> np.asarray(AutoContrast()(images)).ravel().tolist()
    [0.0, 127.5, 255.0]
    """

    _keras_base_factor = "refuse"  # Keras's image base takes `factor`

    applies_at_inference = True

    def __init__(self, value_range=(0, 255), **kwargs):
        super().__init__(value_range=value_range, **kwargs)

    def augment_images(self, images):
        low = ops.min(images, axis=(1, 2), keepdims=True)
        high = ops.max(images, axis=(1, 2), keepdims=True)
        spread = high - low
        safe = ops.where(spread > 0, spread, ops.ones_like(spread))
        span = self.value_range[1] - self.value_range[0]
        stretched = self.clip((images - low) * (span / safe) + self.value_range[0])
        return ops.where(spread > 0, stretched, images)

    def get_config(self):
        config = super().get_config()
        config.pop("seed")
        return config


@register
class Equalization(_ValueRangeAugmentation):
    """Equalizes the histogram of each channel of each image while training.

    Values are binned (`bins` bins over `value_range`); each bin maps to
    `round(255 * (cdf - cdf_min) / (total - cdf_min))` in 0-255 units, spreading the
    values evenly over the range. A channel with a single value is left as it is.
    Identity at inference, as in Keras.

    Args:
        value_range: the range of the pixel values, `(0, 255)` by default.
        bins: the number of histogram bins (256 by default).

    >>> import numpy as np
    >>> image = np.array([0.0, 0.0, 50.0, 100.0]).reshape(1, 2, 2, 1)
    >>> np.asarray(Equalization()(image)).ravel().tolist()
    [0.0, 0.0, 128.0, 255.0]
    """

    _keras_base_factor = "store"  # Keras's image base takes `factor`

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(value_range=value_range, data_format=data_format, **kwargs)
        if not isinstance(bins, int) or bins < 2:
            raise ValueError(f"{self.who}: bins must be an int >= 2; received {bins!r}.")
        self.bins = bins

    def augment_images(self, images):
        return _equalize_program(images, self.bins, *self.value_range)

    def get_config(self):
        config = super().get_config()
        config.pop("seed")
        return {**config, "bins": self.bins}


def _equalize(images, bins, low, high):
    pixels = rescale(images, (low, high), (0, 255))
    n, height, width, channels = pixels.shape
    index = ops.cast(ops.clip(pixels * (bins - 1) / 255.0, 0, bins - 1), "int32")
    hist = ops.sum(ops.one_hot(index, bins, dtype="float32"), axis=(1, 2))  # (n, c, bins)
    cdf = ops.cumsum(hist, axis=-1)
    cdf_min = ops.min(ops.where(cdf > 0, cdf, ops.full(cdf.shape, math.inf)), axis=-1)
    total = cdf[..., -1]
    denominator = ops.where(total - cdf_min > 0, total - cdf_min, ops.ones_like(total))
    table = ops.clip(ops.round((cdf - cdf_min[..., None]) * 255.0 / denominator[..., None]), 0, 255)
    flat = ops.transpose(ops.reshape(index, (n, height * width, channels)), (0, 2, 1))
    mapped = ops.take_along_axis(table, flat, axis=-1)  # (n, c, h * w)
    mapped = ops.reshape(ops.transpose(mapped, (0, 2, 1)), (n, height, width, channels))
    nonzero = ops.sum(ops.cast(hist > 0, "float32"), axis=-1)  # (n, c)
    keep = (nonzero <= 1)[:, None, None, :]
    out = ops.where(keep, pixels, ops.cast(mapped, pixels.dtype))
    return rescale(out, (0, 255), (low, high))


_equalize_program = backend.jit(_equalize, static_argnums=(1, 2, 3))


def _gaussian_kernel(size: int, sigma):
    x = ops.arange(size, dtype="float32") - (size - 1) / 2.0
    weights = ops.exp(-(x**2) / (2.0 * sigma**2))
    return weights / ops.sum(weights)


def _blur(images, sigmas, kernel_size):
    ky = _gaussian_kernel(kernel_size[0], sigmas[0])
    kx = _gaussian_kernel(kernel_size[1], sigmas[1])
    return _depthwise(images, ky[:, None] * kx[None, :])


_blur_program = backend.jit(_blur, static_argnums=(2,))


@register
class RandomGaussianBlur(_ProbabilityAugmentation):
    """Blurs each image with a Gaussian kernel, with a random probability, while training.

    Args:
        factor: the probability of blurring, drawn per image in `[0, f]` (or a range);
            `(1, 1)` always blurs.
        kernel_size: the odd size of the kernel (3 by default), or a pair
            `(height, width)`.
        sigma: the standard deviation: `s` draws it in `[0, s]` once per call (a pair
            gives the range); 1.0 by default.
        value_range: the range of the pixel values, `(0, 255)` by default.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> image = np.zeros((1, 3, 3, 1))
    >>> image[0, 1, 1, 0] = 100.0
    >>> out = np.asarray(RandomGaussianBlur(factor=(1.0, 1.0), sigma=(1.0, 1.0))(image))
    >>> out.shape, round(float(out[0, 1, 1, 0]), 1)
    ((1, 3, 3, 1), 20.4)
    """

    def __init__(
        self,
        factor=1.0,
        kernel_size=3,
        sigma=1.0,
        value_range=(0, 255),
        data_format=None,
        seed=None,
        **kwargs,
    ):
        super().__init__(factor, value_range, seed, data_format, **kwargs)
        sizes = kernel_size if isinstance(kernel_size, (list, tuple)) else (kernel_size,) * 2
        if len(sizes) != 2 or not all(isinstance(k, int) and k >= 1 and k % 2 for k in sizes):
            raise ValueError(
                f"{self.who}: kernel_size must be an odd positive int or a pair of them; "
                f"received {kernel_size!r}."
            )
        self.kernel_size = kernel_size
        self._kernel = tuple(sizes)
        self.sigma = sigma
        self._sigma = factor_range(self.who, "sigma", sigma, 0.0, math.inf)

    def transform(self, images):
        sigmas = ops_random.uniform((2,), *self._sigma, seed=self.seed_generator) + 1e-6
        return self.clip(_blur_program(images, sigmas, self._kernel))

    def get_config(self):
        kernel = self.kernel_size
        kernel = list(kernel) if isinstance(kernel, (list, tuple)) else kernel
        return {**super().get_config(), "kernel_size": kernel, "sigma": self.sigma}


@register
class RandomColorJitter(_ValueRangeAugmentation):
    """Random brightness, contrast, saturation and hue, applied in that order.

    Each factor left `None` skips its step; the others mean what they mean for
    `RandomBrightness`, `RandomContrast`, `RandomSaturation` and `RandomHue`.

    Args:
        value_range: the range of the pixel values, `(0, 255)` by default.
        brightness_factor, contrast_factor, saturation_factor, hue_factor: the factors.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> jitter = RandomColorJitter(brightness_factor=(0.1, 0.1), contrast_factor=0.2, seed=1)
    >>> out = np.asarray(jitter(np.full((2, 4, 4, 3), 100.0)))
    >>> out.shape, float(out.max())
    ((2, 4, 4, 3), 125.5)
    """

    _keras_base_factor = "store"  # Keras's image base takes `factor`

    def __init__(
        self,
        value_range=(0, 255),
        brightness_factor=None,
        contrast_factor=None,
        saturation_factor=None,
        hue_factor=None,
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(value_range=value_range, seed=seed, data_format=data_format, **kwargs)
        from lamina.layers.image_preprocessing import RandomContrast

        self.brightness_factor = brightness_factor
        self.contrast_factor = contrast_factor
        self.saturation_factor = saturation_factor
        self.hue_factor = hue_factor

        def options(offset):  # distinct streams per step when a seed is given
            step_seed = None if seed is None else seed + offset
            return {"value_range": value_range, "seed": step_seed}

        self._steps = []
        if brightness_factor is not None:
            self._steps.append(RandomBrightness(brightness_factor, **options(0)))
        if contrast_factor is not None:
            self._steps.append(RandomContrast(contrast_factor, **options(1)))
        if saturation_factor is not None:
            self._steps.append(RandomSaturation(saturation_factor, **options(2)))
        if hue_factor is not None:
            self._steps.append(RandomHue(hue_factor, **options(3)))

    def augment_images(self, images):
        for step in self._steps:
            images = step(images, training=True)
        return images

    def get_config(self):
        return {
            **super().get_config(),
            "brightness_factor": self.brightness_factor,
            "contrast_factor": self.contrast_factor,
            "saturation_factor": self.saturation_factor,
            "hue_factor": self.hue_factor,
        }
