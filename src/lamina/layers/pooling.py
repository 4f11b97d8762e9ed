"""Pooling layers: max and average pooling (1-3 D), and their global forms.

`BasePooling` and `BaseGlobalPooling` hold everything, parameterized by `rank` and the
reduction; each public class only sets those.
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.common import serialization
from lamina.layers.argument_validation import int_tuple
from lamina.layers.input_spec import InputSpec, shapes_differ
from lamina.layers.layer import Layer


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _data_format(data_format, who):
    try:
        return backend.standardize_data_format(data_format)
    except ValueError as e:
        raise ValueError(f"{who}: {e}") from None


class BasePooling(Layer):
    """Windowed pooling over the spatial axes, parameterized by `rank` and `pool_mode`."""

    rank = None
    pool_mode = None  # "max" or "average"

    def __init__(
        self, pool_size=2, strides=None, padding="valid", data_format=None, name=None, **kwargs
    ):
        # `name` is the fifth positional argument, as in Keras.
        super().__init__(name=name, **kwargs)
        who = type(self).__name__
        self.pool_size = int_tuple(pool_size, self.rank, "pool_size", who)
        self.strides = (
            self.pool_size if strides is None else int_tuple(strides, self.rank, "strides", who)
        )
        self.padding = str(padding).lower()
        if self.padding not in ("valid", "same"):
            raise ValueError(
                f"{who} expects `padding` to be 'valid' or 'same'; received {padding!r}."
            )
        self.data_format = _data_format(data_format, who)
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    def call(self, inputs):
        self.compute_output_shape(tuple(inputs.shape))  # a window past the input: clear error
        fn = ops.max_pool if self.pool_mode == "max" else ops.average_pool
        return fn(
            inputs,
            pool_size=self.pool_size,
            strides=self.strides,
            padding=self.padding,
            data_format=self.data_format,
        )

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.data_format == "channels_last":
            spatial = input_shape[1:-1]
        else:
            spatial = input_shape[2:]
        out = []
        for size, p, s in zip(spatial, self.pool_size, self.strides, strict=True):
            if size is None:
                out.append(None)
            elif self.padding == "same":
                out.append((size + s - 1) // s)
            else:
                length = (size - p) // s + 1
                if length <= 0:
                    raise ValueError(
                        f"{type(self).__name__} {self.name!r}: pool_size {self.pool_size} is "
                        f"larger than the input with padding='valid'; received input shape "
                        f"{input_shape}."
                    )
                out.append(length)
        if self.data_format == "channels_last":
            return (input_shape[0],) + tuple(out) + (input_shape[-1],)
        return input_shape[:2] + tuple(out)

    def get_config(self):
        return {
            **super().get_config(),
            "pool_size": self.pool_size,
            "padding": self.padding,
            "strides": self.strides,
            "data_format": self.data_format,
        }


class BaseGlobalPooling(Layer):
    """Pooling over all spatial axes, parameterized by `rank` and `pool_mode`."""

    rank = None
    pool_mode = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format, type(self).__name__)
        self.keepdims = bool(keepdims)
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    @property
    def _axes(self):
        if self.data_format == "channels_last":
            return tuple(range(1, self.rank + 1))
        return tuple(range(2, self.rank + 2))

    def call(self, inputs):
        fn = ops.max if self.pool_mode == "max" else ops.mean
        return fn(inputs, axis=self._axes, keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.keepdims:
            return tuple(1 if i in self._axes else d for i, d in enumerate(input_shape))
        return tuple(d for i, d in enumerate(input_shape) if i not in self._axes)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


@_register
class MaxPooling1D(BasePooling):
    """Max pooling over the steps of `(batch, steps, channels)` inputs.

    Args:
        pool_size: int, the window size (default 2).
        strides: int, the step of the window (default: `pool_size`).
        padding: `"valid"` or `"same"` (output size `ceil(steps / strides)`).
        data_format: `"channels_last"` or `"channels_first"` (default: the global
            `image_data_format()`).

    >>> import numpy as np
    >>> MaxPooling1D(2)(np.ones((2, 7, 3))).shape
    (2, 3, 3)
    """

    rank, pool_mode = 1, "max"


@_register
class MaxPooling2D(BasePooling):
    """Max pooling over the height and width of 4-D inputs.

    Args: as `MaxPooling1D`, with ints or tuples of 2.

    >>> import numpy as np
    >>> MaxPooling2D(2, padding="same")(np.ones((1, 5, 5, 3))).shape
    (1, 3, 3, 3)
    """

    rank, pool_mode = 2, "max"


@_register
class MaxPooling3D(BasePooling):
    """Max pooling over the three spatial axes of 5-D inputs.

    Args: as `MaxPooling1D`, with ints or tuples of 3.

    >>> import numpy as np
    >>> MaxPooling3D(2)(np.ones((1, 4, 4, 4, 2))).shape
    (1, 2, 2, 2, 2)
    """

    rank, pool_mode = 3, "max"


@_register
class AveragePooling1D(BasePooling):
    """Average pooling over the steps of `(batch, steps, channels)` inputs.

    With `padding="same"`, windows overlapping the border average only the elements
    inside the input.

    Args: as `MaxPooling1D`.

    >>> import numpy as np
    >>> AveragePooling1D(3, strides=2, padding="same")(np.ones((2, 7, 3))).shape
    (2, 4, 3)
    """

    rank, pool_mode = 1, "average"


@_register
class AveragePooling2D(BasePooling):
    """Average pooling over the height and width of 4-D inputs.

    Args: as `AveragePooling1D`, with ints or tuples of 2.

    >>> import numpy as np
    >>> AveragePooling2D((2, 3))(np.ones((1, 6, 6, 3))).shape
    (1, 3, 2, 3)
    """

    rank, pool_mode = 2, "average"


@_register
class AveragePooling3D(BasePooling):
    """Average pooling over the three spatial axes of 5-D inputs.

    Args: as `AveragePooling1D`, with ints or tuples of 3.

    >>> import numpy as np
    >>> AveragePooling3D(2)(np.ones((1, 4, 4, 4, 2))).shape
    (1, 2, 2, 2, 2)
    """

    rank, pool_mode = 3, "average"


@_register
class GlobalMaxPooling1D(BaseGlobalPooling):
    """The maximum over the steps of `(batch, steps, channels)` inputs.

    Args:
        data_format: `"channels_last"` or `"channels_first"`.
        keepdims: keep the pooled axis with size 1.

    >>> import numpy as np
    >>> GlobalMaxPooling1D()(np.ones((2, 7, 3))).shape
    (2, 3)
    """

    rank, pool_mode = 1, "max"


@_register
class GlobalMaxPooling2D(BaseGlobalPooling):
    """The maximum over the height and width of 4-D inputs.

    Args: as `GlobalMaxPooling1D`.

    >>> import numpy as np
    >>> GlobalMaxPooling2D(keepdims=True)(np.ones((2, 4, 5, 3))).shape
    (2, 1, 1, 3)
    """

    rank, pool_mode = 2, "max"


@_register
class GlobalMaxPooling3D(BaseGlobalPooling):
    """The maximum over the three spatial axes of 5-D inputs.

    Args: as `GlobalMaxPooling1D`.

    >>> import numpy as np
    >>> GlobalMaxPooling3D()(np.ones((2, 3, 4, 5, 3))).shape
    (2, 3)
    """

    rank, pool_mode = 3, "max"


@_register
class GlobalAveragePooling1D(BaseGlobalPooling):
    """The mean over the steps of `(batch, steps, channels)` inputs.

    With a mask (e.g. from `Embedding(mask_zero=True)`), the mean is taken over the
    unmasked steps only; the output carries no mask.

    Args:
        data_format: `"channels_last"` or `"channels_first"`.
        keepdims: keep the pooled axis with size 1.

    Call arguments:
        inputs: a 3-D tensor. mask: optional boolean `(batch, steps)` tensor.

    >>> import numpy as np
    >>> x = np.array([[[1.0], [3.0], [100.0]]])
    >>> np.asarray(GlobalAveragePooling1D()(x, mask=np.array([[True, True, False]])))
    array([[2.]], dtype=float32)
    """

    rank, pool_mode = 1, "average"

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(data_format=data_format, keepdims=keepdims, **kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        steps_axis = self._axes[0]
        expected = (inputs.shape[0], inputs.shape[steps_axis])
        if shapes_differ(mask.shape, expected):
            raise ValueError(
                f"GlobalAveragePooling1D {self.name!r}: the mask must have shape (batch, "
                f"steps) = {expected} for input shape {tuple(inputs.shape)}; received mask "
                f"shape {tuple(mask.shape)}."
            )
        mask = ops.cast(mask, inputs.dtype)
        mask = ops.expand_dims(mask, 2 if self.data_format == "channels_last" else 1)
        total = ops.sum(ops.multiply(inputs, mask), axis=steps_axis, keepdims=self.keepdims)
        count = ops.sum(mask, axis=steps_axis, keepdims=self.keepdims)
        return ops.divide(total, count)

    def compute_mask(self, inputs, previous_mask=None):
        return None


@_register
class GlobalAveragePooling2D(BaseGlobalPooling):
    """The mean over the height and width of 4-D inputs.

    Args: as `GlobalAveragePooling1D` (no mask).

    >>> import numpy as np
    >>> GlobalAveragePooling2D()(np.ones((2, 4, 5, 3))).shape
    (2, 3)
    """

    rank, pool_mode = 2, "average"


@_register
class GlobalAveragePooling3D(BaseGlobalPooling):
    """The mean over the three spatial axes of 5-D inputs.

    Args: as `GlobalAveragePooling1D` (no mask).

    >>> import numpy as np
    >>> GlobalAveragePooling3D(data_format="channels_first")(np.ones((2, 3, 4, 5, 6))).shape
    (2, 3)
    """

    rank, pool_mode = 3, "average"


# Keras aliases.
MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
MaxPool3D = MaxPooling3D
AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
AvgPool3D = AveragePooling3D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalMaxPool3D = GlobalMaxPooling3D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalAvgPool3D = GlobalAveragePooling3D
