"""Image preprocessing layers: Resizing, CenterCrop, and the seeded augmentations
RandomFlip, RandomRotation, RandomZoom, RandomTranslation and RandomContrast.

Images are a batch `(batch, height, width, channels)` or a single image
`(height, width, channels)` (channels first with `data_format="channels_first"`).

The random layers change images only when `training` is true. As in Keras, a direct
call (`layer(images)`) counts as training; `fit` trains with them and `evaluate` /
`predict` pass images through unchanged. Their randomness comes from a `SeedGenerator`
whose state is part of the training state, so runs repeat under
`lamina.utils.set_random_seed`.
"""

from __future__ import annotations

import math

import numpy as np

from lamina import backend, ops
from lamina.common import serialization
from lamina.layers.layer import Layer
from lamina.ops import image as ops_image
from lamina.ops import random as ops_random

_FILL_MODES = ("reflect", "wrap", "constant", "nearest", "mirror")
_AFFINE_INTERPOLATIONS = ("nearest", "bilinear")
_RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "lanczos3", "lanczos5")


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _data_format(who: str, data_format):
    try:
        return backend.standardize_data_format(data_format)
    except ValueError as e:
        raise ValueError(f"{who}: {e}") from None


def _hw_axes(rank: int, data_format: str) -> tuple[int, int]:
    """The height and width axes of a rank-3 or rank-4 image tensor."""
    if rank not in (3, 4):
        raise ValueError(f"expected images of rank 3 or 4; received rank {rank}.")
    return (rank - 3, rank - 2) if data_format == "channels_last" else (rank - 2, rank - 1)


def _check_images(layer, shape) -> None:
    if len(shape) not in (3, 4):
        raise ValueError(
            f"{type(layer).__name__} {layer.name!r} expects a batch of images "
            "(batch, height, width, channels) or one image (height, width, channels); "
            f"received shape {tuple(shape)}."
        )


def _check_choice(who: str, name: str, value, allowed):
    if value not in allowed:
        raise ValueError(f"{who}: unknown {name} {value!r}; expected one of {list(allowed)}.")
    return value


def _factor_range(who: str, name: str, factor, low: float, high: float) -> tuple[float, float]:
    """Keras's factor rule: `f` means `(-f, f)` (clipped to `low`), a pair is a range."""
    message = (
        f"{who}: {name} must be a number or a pair of numbers in [{low}, {high}]; "
        f"received {factor!r}."
    )
    if isinstance(factor, (list, tuple)):
        if len(factor) != 2 or not all(isinstance(f, (int, float)) for f in factor):
            raise ValueError(message)
        lower, upper = sorted(float(f) for f in factor)
    elif isinstance(factor, (int, float)) and not isinstance(factor, bool):
        lower, upper = max(-abs(float(factor)), low), abs(float(factor))
    else:
        raise ValueError(message)
    if lower < low or upper > high:
        raise ValueError(message)
    return lower, upper


def _as_batch(images):
    """Add a batch axis to a single image; returns the batch and a function undoing it."""
    if len(images.shape) == 3:
        return ops.expand_dims(images, 0), lambda x: ops.squeeze(x, 0)
    return images, lambda x: x


class _RandomAffine(Layer):
    """Shared body of the augmentations that resample through an affine transform."""

    _takes_bounding_box_format = True

    def __init__(
        self,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        data_format=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        who = f"{type(self).__name__} {self.name!r}"
        self.fill_mode = _check_choice(who, "fill_mode", fill_mode, _FILL_MODES)
        self.interpolation = _check_choice(
            who, "interpolation", interpolation, _AFFINE_INTERPOLATIONS
        )
        self.fill_value = float(fill_value)
        self.data_format = _data_format(who, data_format)
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)
        self.built = True

    def _transforms(self, batch_size: int, height: int, width: int):
        raise NotImplementedError  # each subclass draws its own transform

    def call(self, data, training=True):
        data = ops.cast(data, self.compute_dtype)
        _check_images(self, data.shape)
        if not training:
            return data
        images, restore = _as_batch(data)
        h_axis, w_axis = _hw_axes(4, self.data_format)
        transform = self._transforms(images.shape[0], images.shape[h_axis], images.shape[w_axis])
        out = ops_image.affine_transform(
            images,
            transform,
            interpolation=self.interpolation,
            fill_mode=self.fill_mode,
            fill_value=self.fill_value,
            data_format=self.data_format,
        )
        return restore(out)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "fill_mode": self.fill_mode,
            "interpolation": self.interpolation,
            "seed": self.seed,
            "fill_value": self.fill_value,
            "data_format": self.data_format,
        }


def _uniform(layer, batch_size, lower, upper):
    return ops_random.uniform((batch_size,), minval=lower, maxval=upper, seed=layer.seed_generator)


def _affine_rows(a0, a1, a2, b0, b1, b2):
    """Stack per-image coefficients into Keras's 8-number transforms (no projection)."""
    zeros = ops.zeros_like(a0)
    return ops.stack([a0, a1, a2, b0, b1, b2, zeros, zeros], axis=1)


@_register
class RandomRotation(_RandomAffine):
    """Rotates each image by a random angle about its center while training.

    Args:
        factor: a fraction of a full turn: `0.1` draws angles in `[-36, 36]` degrees;
            a pair `(lower, upper)` draws in `[lower * 360, upper * 360]`. Positive
            angles turn counter-clockwise.
        fill_mode: how points outside the image are filled: `"reflect"` (default),
            `"wrap"`, `"constant"` (with `fill_value`), `"nearest"` or `"mirror"`.
        interpolation: `"bilinear"` or `"nearest"`.
        seed: an int for reproducible draws.
        fill_value: the value for `fill_mode="constant"`.

    >>> import numpy as np
    >>> RandomRotation(0.25, seed=1)(np.ones((2, 5, 5, 3))).shape
    (2, 5, 5, 3)
    """

    def __init__(
        self,
        factor,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        data_format=None,
        **kwargs,
    ):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.factor = factor
        self._range = _factor_range(f"RandomRotation {self.name!r}", "factor", factor, -1, 1)

    def _transforms(self, batch_size, height, width):
        lower, upper = self._range
        angle = _uniform(self, batch_size, lower * 2 * math.pi, upper * 2 * math.pi)
        cos, sin = ops.cos(angle), ops.sin(angle)
        cx, cy = (width - 1) / 2, (height - 1) / 2
        return _affine_rows(cos, -sin, cx - cx * cos + cy * sin, sin, cos, cy - cx * sin - cy * cos)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


@_register
class RandomZoom(_RandomAffine):
    """Zooms each image in or out by a random amount while training.

    Args:
        height_factor: a fraction of the height: `0.2` draws zooms in `[-20%, +20%]`;
            a pair `(lower, upper)` gives the range. Positive values zoom out (the image
            shrinks inside a filled border), negative values zoom in.
        width_factor: the same for the width; `None` zooms both axes by the same amount,
            keeping the aspect ratio.
        fill_mode, interpolation, seed, fill_value: as for `RandomRotation`.

    >>> import numpy as np
    >>> RandomZoom(0.3, seed=1)(np.ones((2, 5, 5, 3))).shape
    (2, 5, 5, 3)
    """

    _keras_base_factor = "refuse"  # Keras's image base takes `factor`

    def __init__(
        self,
        height_factor,
        width_factor=None,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        data_format=None,
        **kwargs,
    ):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        who = f"RandomZoom {self.name!r}"
        self.height_factor = height_factor
        self.width_factor = width_factor
        self._height_range = _factor_range(who, "height_factor", height_factor, -1, 1)
        self._width_range = (
            None
            if width_factor is None
            else _factor_range(who, "width_factor", width_factor, -1, 1)
        )

    def _transforms(self, batch_size, height, width):
        zoom_y = 1.0 + _uniform(self, batch_size, *self._height_range)
        zoom_x = (
            zoom_y
            if self._width_range is None
            else 1.0 + _uniform(self, batch_size, *self._width_range)
        )
        zeros = ops.zeros_like(zoom_x)
        return _affine_rows(
            zoom_x,
            zeros,
            (width - 1) / 2 * (1.0 - zoom_x),
            zeros,
            zoom_y,
            (height - 1) / 2 * (1.0 - zoom_y),
        )

    def get_config(self):
        return {
            **super().get_config(),
            "height_factor": self.height_factor,
            "width_factor": self.width_factor,
        }


@_register
class RandomTranslation(_RandomAffine):
    """Shifts each image by a random offset while training.

    Args:
        height_factor: a fraction of the height: `0.2` shifts up or down by up to 20%;
            a pair `(lower, upper)` gives the range (positive moves the image down).
        width_factor: the same for the width (positive moves the image right).
        fill_mode, interpolation, seed, fill_value: as for `RandomRotation`.

    >>> import numpy as np
    >>> RandomTranslation(0.2, 0.2, seed=1)(np.ones((2, 5, 5, 3))).shape
    (2, 5, 5, 3)
    """

    _keras_base_factor = "refuse"  # Keras's image base takes `factor`

    def __init__(
        self,
        height_factor,
        width_factor,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        data_format=None,
        **kwargs,
    ):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        who = f"RandomTranslation {self.name!r}"
        self.height_factor = height_factor
        self.width_factor = width_factor
        self._height_range = _factor_range(who, "height_factor", height_factor, -1, 1)
        self._width_range = _factor_range(who, "width_factor", width_factor, -1, 1)

    def _transforms(self, batch_size, height, width):
        dy = _uniform(self, batch_size, *self._height_range) * height
        dx = _uniform(self, batch_size, *self._width_range) * width
        ones, zeros = ops.ones_like(dx), ops.zeros_like(dx)
        return _affine_rows(ones, zeros, -dx, zeros, ones, -dy)

    def get_config(self):
        return {
            **super().get_config(),
            "height_factor": self.height_factor,
            "width_factor": self.width_factor,
        }


@_register
class RandomFlip(Layer):
    """Flips each image, with probability 1/2 per axis, while training.

    Args:
        mode: `"horizontal"` (left-right), `"vertical"` (up-down) or
            `"horizontal_and_vertical"` (each axis independently).
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> images = np.arange(8.0).reshape(2, 1, 4, 1)
    >>> np.asarray(RandomFlip("horizontal")(images, training=False)).ravel().tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    """

    _keras_base_factor = "refuse"  # Keras's image base takes `factor`

    _takes_bounding_box_format = True

    _MODES = ("horizontal", "vertical", "horizontal_and_vertical")

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        who = f"RandomFlip {self.name!r}"
        self.mode = _check_choice(who, "mode", mode, self._MODES)
        self.data_format = _data_format(who, data_format)
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)
        self.built = True

    def call(self, data, training=True):
        data = ops.cast(data, self.compute_dtype)
        _check_images(self, data.shape)
        if not training:
            return data
        images, restore = _as_batch(data)
        h_axis, w_axis = _hw_axes(4, self.data_format)
        axes = {"horizontal": [w_axis], "vertical": [h_axis]}.get(self.mode, [w_axis, h_axis])
        for axis in axes:
            draw = ops_random.uniform((images.shape[0], 1, 1, 1), seed=self.seed_generator)
            images = ops.where(draw < 0.5, ops.flip(images, axis=axis), images)
        return restore(images)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "mode": self.mode,
            "seed": self.seed,
            "data_format": self.data_format,
        }


@_register
class RandomContrast(Layer):
    """Scales each image's contrast by a random factor while training.

    Each channel of each image becomes `(x - mean) * c + mean`, with `mean` its mean over
    the pixels and `c` drawn from `[1 - lower, 1 + upper]`, then is clipped to
    `value_range`.

    Args:
        factor: `f` for `c` in `[1 - f, 1 + f]`, or a pair `(lower, upper)`; in [0, 1].
        value_range: the range of the pixel values, `(0, 255)` by default.
        seed: an int for reproducible draws.

    >>> import numpy as np
    >>> RandomContrast(0.5, seed=1)(np.full((2, 4, 4, 3), 100.0)).shape
    (2, 4, 4, 3)
    """

    _takes_bounding_box_format = True

    def __init__(self, factor, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        who = f"RandomContrast {self.name!r}"
        if isinstance(factor, (int, float)) and not isinstance(factor, bool):
            pair = (abs(float(factor)),) * 2
        elif isinstance(factor, (list, tuple)) and len(factor) == 2:
            pair = tuple(sorted(float(f) for f in factor))
        else:
            pair = None
        if pair is None or not (0 <= pair[0] and pair[1] <= 1):
            raise ValueError(
                f"{who}: factor must be a number or a pair of numbers in [0, 1]; received "
                f"{factor!r}."
            )
        self.factor = factor
        self._lower, self._upper = pair
        if len(value_range) != 2 or value_range[0] >= value_range[1]:
            raise ValueError(
                f"{who}: value_range must be (low, high) with low < high; received {value_range!r}."
            )
        self.value_range = tuple(value_range)
        self.data_format = _data_format(who, data_format)
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)
        self.built = True

    def call(self, data, training=True):
        data = ops.cast(data, self.compute_dtype)
        _check_images(self, data.shape)
        if not training:
            return data
        images, restore = _as_batch(data)
        h_axis, w_axis = _hw_axes(4, self.data_format)
        contrast = ops_random.uniform(
            (images.shape[0], 1, 1, 1),
            minval=1.0 - self._lower,
            maxval=1.0 + self._upper,
            seed=self.seed_generator,
        )
        mean = ops.mean(images, axis=(h_axis, w_axis), keepdims=True)
        out = (images - mean) * contrast + mean
        return restore(ops.clip(out, self.value_range[0], self.value_range[1]))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "value_range": list(self.value_range),
            "seed": self.seed,
            "data_format": self.data_format,
        }


def _crop_box(height, width, target_height, target_width):
    """The centered window of the target aspect ratio that fits inside the image."""
    crop_height = min(height, int(width * target_height / target_width))
    crop_width = min(width, int(height * target_width / target_height))
    return (height - crop_height) // 2, (width - crop_width) // 2, crop_height, crop_width


def _spatial_slice(images, h_axis, w_axis, top, left, height, width):
    index = [slice(None)] * len(images.shape)
    index[h_axis] = slice(top, top + height)
    index[w_axis] = slice(left, left + width)
    return images[tuple(index)]


@_register
class Resizing(Layer):
    """Resizes images to `(height, width)`.

    Args:
        height, width: the output size.
        interpolation: `"bilinear"` (default), `"nearest"`, `"bicubic"`, `"lanczos3"` or
            `"lanczos5"`.
        crop_to_aspect_ratio: first crop the largest centered window with the target
            aspect ratio, so the image is not distorted.
        pad_to_aspect_ratio: first pad the image evenly (with `fill_value`) to the target
            aspect ratio, so nothing is cropped or distorted.
        fill_mode: `"constant"`, the padding used by `pad_to_aspect_ratio`.
        fill_value: the padding value.
        antialias: smooth when downsampling.

    >>> import numpy as np
    >>> Resizing(2, 3)(np.ones((1, 4, 6, 3))).shape
    (1, 2, 3, 3)
    """

    _keras_base_factor = "refuse"  # Keras's image base takes `factor`

    _keeps_integer_dtype = True  # rounded and cast back, as in Keras

    _takes_bounding_box_format = True

    def __init__(
        self,
        height: int,
        width: int,
        interpolation: str = "bilinear",
        crop_to_aspect_ratio: bool = False,
        pad_to_aspect_ratio: bool = False,
        fill_mode: str = "constant",
        fill_value: float = 0.0,
        antialias: bool = False,
        data_format=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        who = f"Resizing {self.name!r}"
        if interpolation == "area":
            raise ValueError(
                f"{who}: interpolation 'area' is not available on the {backend.backend()!r} "
                "backend; use 'bilinear' with antialias=True for a similar downsampling."
            )
        self.interpolation = _check_choice(
            who, "interpolation", interpolation, _RESIZE_INTERPOLATIONS
        )
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError(
                f"{who}: crop_to_aspect_ratio and pad_to_aspect_ratio cannot both be True."
            )
        if fill_mode != "constant":
            raise ValueError(
                f"{who}: fill_mode must be 'constant' (padding with fill_value); received "
                f"{fill_mode!r}."
            )
        self.height, self.width = int(height), int(width)
        if self.height < 1 or self.width < 1:
            raise ValueError(f"{who}: height and width must be >= 1; received {height}x{width}.")
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_mode = fill_mode
        self.fill_value = float(fill_value)
        self.antialias = bool(antialias)
        self.data_format = _data_format(who, data_format)
        self.built = True

    def call(self, data):
        input_dtype = backend.standardize_dtype(ops.dtype(data))
        images = ops.cast(data, self.compute_dtype)
        resized = self._resize(images)
        if backend.is_int_dtype(input_dtype):
            # As Keras 3: an integer image stays one, rounded and saturated (bicubic
            # and lanczos overshoot the input's range).
            info = np.iinfo(input_dtype)
            resized = ops.clip(ops.round(resized), float(info.min), float(info.max))
            return ops.cast(resized, input_dtype)
        return resized

    def _resize(self, images):
        _check_images(self, images.shape)
        h_axis, w_axis = _hw_axes(len(images.shape), self.data_format)
        height, width = images.shape[h_axis], images.shape[w_axis]
        if self.crop_to_aspect_ratio:
            top, left, crop_h, crop_w = _crop_box(height, width, self.height, self.width)
            images = _spatial_slice(images, h_axis, w_axis, top, left, crop_h, crop_w)
        elif self.pad_to_aspect_ratio:
            pad_h = max(height, int(width * self.height / self.width))
            pad_w = max(width, int(height * self.width / self.height))
            top, left = (pad_h - height) // 2, (pad_w - width) // 2
            widths = [(0, 0)] * len(images.shape)
            widths[h_axis] = (top, pad_h - height - top)
            widths[w_axis] = (left, pad_w - width - left)
            images = ops.pad(images, widths, constant_values=self.fill_value)
        return ops_image.resize(
            images,
            (self.height, self.width),
            interpolation=self.interpolation,
            antialias=self.antialias,
            data_format=self.data_format,
        )

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        _check_images(self, shape)
        h_axis, w_axis = _hw_axes(len(shape), self.data_format)
        shape[h_axis], shape[w_axis] = self.height, self.width
        return tuple(shape)

    def get_config(self):
        return {
            **super().get_config(),
            "height": self.height,
            "width": self.width,
            "interpolation": self.interpolation,
            "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
            "pad_to_aspect_ratio": self.pad_to_aspect_ratio,
            "fill_mode": self.fill_mode,
            "fill_value": self.fill_value,
            "antialias": self.antialias,
            "data_format": self.data_format,
        }


@_register
class CenterCrop(Layer):
    """Crops the central `height x width` window of each image.

    An image smaller than the window is first cropped to the window's aspect ratio and
    resized (bilinear) up to it, as Keras does.

    Args:
        height, width: the output size.

    >>> import numpy as np
    >>> images = np.arange(16.0).reshape(1, 4, 4, 1)
    >>> np.asarray(CenterCrop(2, 2)(images))[0, :, :, 0].tolist()
    [[5.0, 6.0], [9.0, 10.0]]
    """

    _keras_base_factor = "refuse"  # Keras's image base takes `factor`

    _takes_bounding_box_format = True

    def __init__(self, height: int, width: int, data_format=None, **kwargs):
        super().__init__(**kwargs)
        who = f"CenterCrop {self.name!r}"
        self.height, self.width = int(height), int(width)
        if self.height < 1 or self.width < 1:
            raise ValueError(f"{who}: height and width must be >= 1; received {height}x{width}.")
        self.data_format = _data_format(who, data_format)
        self.built = True

    def call(self, data):
        images = ops.cast(data, self.compute_dtype)
        _check_images(self, images.shape)
        h_axis, w_axis = _hw_axes(len(images.shape), self.data_format)
        height, width = images.shape[h_axis], images.shape[w_axis]
        if height >= self.height and width >= self.width:
            top, left = (height - self.height) // 2, (width - self.width) // 2
            return _spatial_slice(images, h_axis, w_axis, top, left, self.height, self.width)
        top, left, crop_h, crop_w = _crop_box(height, width, self.height, self.width)
        images = _spatial_slice(images, h_axis, w_axis, top, left, crop_h, crop_w)
        return ops_image.resize(
            images,
            (self.height, self.width),
            interpolation="bilinear",
            data_format=self.data_format,
        )

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        _check_images(self, shape)
        h_axis, w_axis = _hw_axes(len(shape), self.data_format)
        shape[h_axis], shape[w_axis] = self.height, self.width
        return tuple(shape)

    def get_config(self):
        return {
            **super().get_config(),
            "height": self.height,
            "width": self.width,
            "data_format": self.data_format,
        }
