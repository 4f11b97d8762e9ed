"""Spatial reshaping layers: Cropping1D/2D/3D, UpSampling1D/2D/3D, ZeroPadding1D/2D/3D."""

from __future__ import annotations

from lamina import backend, ops
from lamina.common import serialization
from lamina.layers.argument_validation import int_pairs, int_tuple
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer
from lamina.ops import image as ops_image


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _data_format(data_format, who):
    try:
        return backend.standardize_data_format(data_format)
    except ValueError as e:
        raise ValueError(f"{who}: {e}") from None


def _spatial_axes(rank, data_format):
    if data_format == "channels_last":
        return tuple(range(1, rank + 1))
    return tuple(range(2, rank + 2))


def _pairs_config(pairs):
    return tuple(tuple(p) for p in pairs)


class _Cropping(Layer):
    _keeps_integer_dtype = True  # an int input gives an int output
    rank = None

    def __init__(self, cropping, data_format=None, **kwargs):
        super().__init__(**kwargs)
        who = type(self).__name__
        self.cropping = int_pairs(cropping, self.rank, "cropping", who)
        self.data_format = _data_format(data_format, who)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        for axis, (a, b) in zip(
            _spatial_axes(self.rank, self.data_format), self.cropping, strict=True
        ):
            dim = shape[axis]
            if dim is None:
                continue
            if a + b >= dim:
                raise ValueError(
                    f"{type(self).__name__} {self.name!r}: cropping {(a, b)} removes all of "
                    f"axis {axis} (size {dim}) of input shape {tuple(input_shape)}; the "
                    "cropping must be smaller than the input."
                )
            shape[axis] = dim - a - b
        return tuple(shape)

    def call(self, inputs):
        shape = tuple(inputs.shape)
        out_shape = self.compute_output_shape(shape)
        start = [0] * len(shape)
        for axis, (a, _) in zip(
            _spatial_axes(self.rank, self.data_format), self.cropping, strict=True
        ):
            start[axis] = a
        return ops.slice(inputs, tuple(start), out_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "cropping": _pairs_config(self.cropping),
            "data_format": self.data_format,
        }


@_register
class Cropping1D(_Cropping):
    """Crops along the time axis of `(batch, steps, features)` inputs.

    Args:
        cropping: an int or a pair `(start, end)`: how many steps to remove at each end.

    >>> import numpy as np
    >>> Cropping1D((1, 2))(np.ones((2, 6, 3))).shape
    (2, 3, 3)
    """

    rank = 1

    def __init__(self, cropping=(1, 1), **kwargs):
        kwargs.pop("data_format", None)
        super().__init__(cropping, data_format="channels_last", **kwargs)

    def get_config(self):
        config = super().get_config()
        config.pop("data_format")
        config["cropping"] = self.cropping[0]
        return config


@_register
class Cropping2D(_Cropping):
    """Crops the height and width of images.

    Args:
        cropping: an int, a pair `(rows, cols)` (symmetric), or
            `((top, bottom), (left, right))`.
        data_format: `"channels_last"` or `"channels_first"` (default: the global
            `image_data_format()`).

    >>> import numpy as np
    >>> Cropping2D(((1, 0), (2, 1)))(np.ones((1, 5, 6, 3))).shape
    (1, 4, 3, 3)
    """

    rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format=data_format, **kwargs)


@_register
class Cropping3D(_Cropping):
    """Crops the three spatial axes of volumes.

    Args:
        cropping: an int, a triple of ints (symmetric), or a triple of pairs.
        data_format: `"channels_last"` or `"channels_first"`.

    >>> import numpy as np
    >>> Cropping3D(1)(np.ones((1, 4, 4, 4, 2))).shape
    (1, 2, 2, 2, 2)
    """

    rank = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format=data_format, **kwargs)


class _ZeroPadding(Layer):
    _keeps_integer_dtype = True  # an int input gives an int output
    rank = None

    def __init__(self, padding, data_format=None, **kwargs):
        super().__init__(**kwargs)
        who = type(self).__name__
        self.padding = int_pairs(padding, self.rank, "padding", who)
        self.data_format = _data_format(data_format, who)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _pad_width(self):
        width = [(0, 0)] * (self.rank + 2)
        for axis, pair in zip(
            _spatial_axes(self.rank, self.data_format), self.padding, strict=True
        ):
            width[axis] = pair
        return tuple(width)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        for axis, (a, b) in zip(
            _spatial_axes(self.rank, self.data_format), self.padding, strict=True
        ):
            if shape[axis] is not None:
                shape[axis] = shape[axis] + a + b
        return tuple(shape)

    def call(self, inputs):
        return ops.pad(inputs, self._pad_width())

    def get_config(self):
        return {
            **super().get_config(),
            "padding": _pairs_config(self.padding),
            "data_format": self.data_format,
        }


@_register
class ZeroPadding1D(_ZeroPadding):
    """Pads the time axis with zeros.

    Args:
        padding: an int or a pair `(start, end)`.
        data_format: `"channels_last"` (`(batch, steps, features)`) or
            `"channels_first"` (`(batch, features, steps)`).

    >>> import numpy as np
    >>> ZeroPadding1D((1, 2))(np.ones((2, 3, 4))).shape
    (2, 6, 4)
    """

    rank = 1

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(padding, data_format=data_format, **kwargs)

    def get_config(self):
        config = super().get_config()
        config["padding"] = self.padding[0]
        return config


@_register
class ZeroPadding2D(_ZeroPadding):
    """Pads the height and width of images with zeros.

    Args:
        padding: an int, a pair `(rows, cols)` (symmetric), or
            `((top, bottom), (left, right))`.
        data_format: `"channels_last"` or `"channels_first"`.

    >>> import numpy as np
    >>> ZeroPadding2D(((1, 0), (2, 1)))(np.ones((1, 2, 2, 3))).shape
    (1, 3, 5, 3)
    """

    rank = 2

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format=data_format, **kwargs)


@_register
class ZeroPadding3D(_ZeroPadding):
    """Pads the three spatial axes of volumes with zeros.

    Args:
        padding: an int, a triple of ints (symmetric), or a triple of pairs.
        data_format: `"channels_last"` or `"channels_first"`.

    >>> import numpy as np
    >>> ZeroPadding3D(1)(np.ones((1, 2, 2, 2, 3))).shape
    (1, 4, 4, 4, 3)
    """

    rank = 3

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(padding, data_format=data_format, **kwargs)


class _UpSampling(Layer):
    _keeps_integer_dtype = True  # an int input gives an int output
    rank = None
    _interpolations = ("nearest",)

    def __init__(self, size, data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        who = type(self).__name__
        self.size = int_tuple(size, self.rank, "size", who)
        self.data_format = _data_format(data_format, who)
        if interpolation not in self._interpolations:
            raise ValueError(
                f"{who} expects `interpolation` to be one of {list(self._interpolations)}; "
                f"received {interpolation!r}."
            )
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        for axis, s in zip(_spatial_axes(self.rank, self.data_format), self.size, strict=True):
            if shape[axis] is not None:
                shape[axis] = shape[axis] * s
        return tuple(shape)

    def call(self, inputs):
        if self.interpolation == "nearest":
            x = inputs
            for axis, s in zip(_spatial_axes(self.rank, self.data_format), self.size, strict=True):
                if s != 1:
                    x = ops.repeat(x, s, axis=axis)
            return x
        out_shape = self.compute_output_shape(tuple(inputs.shape))
        size = tuple(out_shape[a] for a in _spatial_axes(self.rank, self.data_format))
        return ops_image.resize(
            inputs, size, interpolation=self.interpolation, data_format=self.data_format
        )

    def get_config(self):
        return {
            **super().get_config(),
            "size": self.size,
            "data_format": self.data_format,
            "interpolation": self.interpolation,
        }


@_register
class UpSampling1D(_UpSampling):
    """Repeats each timestep `size` times: `(batch, steps, features)` ->
    `(batch, steps * size, features)`.

    Args:
        size: the repetition factor.

    >>> import numpy as np
    >>> UpSampling1D(3)(np.ones((2, 4, 5))).shape
    (2, 12, 5)
    """

    rank = 1

    def __init__(self, size=2, **kwargs):
        super().__init__(size, data_format="channels_last", **kwargs)

    def get_config(self):
        config = super().get_config()
        config.pop("data_format")
        config.pop("interpolation")
        config["size"] = self.size[0]
        return config


@_register
class UpSampling2D(_UpSampling):
    """Upsamples images by `size` along height and width.

    Args:
        size: an int or a pair `(rows, cols)` of upsampling factors.
        data_format: `"channels_last"` or `"channels_first"` (default: the global
            `image_data_format()`).
        interpolation: `"nearest"` (repeat rows and columns), `"bilinear"` or `"bicubic"`
            (resampling with half-pixel centers, as `lamina.ops.image.resize`).

    >>> import numpy as np
    >>> UpSampling2D((2, 3))(np.ones((1, 2, 2, 4))).shape
    (1, 4, 6, 4)
    """

    rank = 2
    _interpolations = ("nearest", "bilinear", "bicubic")

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(size, data_format=data_format, interpolation=interpolation, **kwargs)


@_register
class UpSampling3D(_UpSampling):
    """Repeats each voxel `size` times along the three spatial axes.

    Args:
        size: an int or a triple of upsampling factors.
        data_format: `"channels_last"` or `"channels_first"`.

    >>> import numpy as np
    >>> UpSampling3D(2)(np.ones((1, 1, 2, 3, 4))).shape
    (1, 2, 4, 6, 4)
    """

    rank = 3

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(size, data_format=data_format, **kwargs)

    def get_config(self):
        config = super().get_config()
        config.pop("interpolation")
        return config
