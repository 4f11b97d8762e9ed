"""Adaptive pooling layers: average or max pooling to a fixed output size (1-3 D).

Unlike `MaxPooling2D`, the window is not given: each output position `i` along an axis
of length `L` pools the input slice `[floor(i * L / n), ceil((i + 1) * L / n))`, where
`n` is the requested output size (PyTorch's bins, which Keras 3 also uses). Neighbouring
windows may overlap by one when `L` is not a multiple of `n`, and `n` may exceed `L`.
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.common import serialization
from lamina.layers.argument_validation import int_tuple, is_integer
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _output_size(value, rank, who):
    if not (is_integer(value) or isinstance(value, (tuple, list))):
        raise TypeError(
            f"{who} expects `output_size` to be an int or a tuple of {rank} int(s); "
            f"received {value!r} of type {type(value).__name__}."
        )
    return int_tuple(value, rank, "output_size", who)


class _AdaptivePooling(Layer):
    """Pools each spatial axis to `output_size`; subclasses set `rank` and `op`."""

    rank = None
    op = None  # "average" or "max"

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        who = type(self).__name__
        self.output_size = _output_size(output_size, self.rank, who)
        try:
            self.data_format = backend.standardize_data_format(data_format)
        except ValueError as error:
            raise ValueError(f"{who}: {error}") from None
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    def call(self, inputs):
        pool = ops.adaptive_average_pool if self.op == "average" else ops.adaptive_max_pool
        return pool(inputs, output_size=self.output_size, data_format=self.data_format)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.data_format == "channels_last":
            return (input_shape[0], *self.output_size, input_shape[-1])
        return (input_shape[0], input_shape[1], *self.output_size)

    def get_config(self):
        return {
            **super().get_config(),
            "output_size": self.output_size,
            "data_format": self.data_format,
        }


_ARGS = """

    Args:
        output_size: an int (the same size on every spatial axis) or a tuple of {rank}
            int(s): the output's spatial size, whatever the input's.
        data_format: `"channels_last"` (inputs `(batch, {axes}, channels)`) or
            `"channels_first"` (inputs `(batch, channels, {axes})`); default: the value
            of `lamina.config.image_data_format()`.

    Input shape: `(batch, {axes}, channels)` (channels last) or
    `(batch, channels, {axes})`.

    Output shape: the same with `{axes}` replaced by `output_size`.
"""


@_register
class AdaptiveAveragePooling1D(_AdaptivePooling):
    """Average pooling of a sequence to a fixed length `output_size`."""

    __doc__ += _ARGS.format(rank=1, axes="length")
    __doc__ += """
    >>> import numpy as np
    >>> x = np.arange(5.0).reshape(1, 5, 1)
    >>> AdaptiveAveragePooling1D(2)(x)[0, :, 0].tolist()
    [1.0, 3.0]
    """
    rank, op = 1, "average"


@_register
class AdaptiveAveragePooling2D(_AdaptivePooling):
    """Average pooling of images to a fixed `(height, width)`."""

    __doc__ += _ARGS.format(rank=2, axes="height, width")
    __doc__ += """
    >>> import numpy as np
    >>> AdaptiveAveragePooling2D((2, 3))(np.ones((1, 7, 5, 4))).shape
    (1, 2, 3, 4)
    """
    rank, op = 2, "average"


@_register
class AdaptiveAveragePooling3D(_AdaptivePooling):
    """Average pooling of volumes to a fixed `(depth, height, width)`."""

    __doc__ += _ARGS.format(rank=3, axes="depth, height, width")
    __doc__ += """
    >>> import numpy as np
    >>> AdaptiveAveragePooling3D(2)(np.ones((1, 3, 4, 5, 2))).shape
    (1, 2, 2, 2, 2)
    """
    rank, op = 3, "average"


@_register
class AdaptiveMaxPooling1D(_AdaptivePooling):
    """Max pooling of a sequence to a fixed length `output_size`."""

    __doc__ += _ARGS.format(rank=1, axes="length")
    __doc__ += """
    >>> import numpy as np
    >>> x = np.arange(5.0).reshape(1, 5, 1)
    >>> AdaptiveMaxPooling1D(2)(x)[0, :, 0].tolist()
    [2.0, 4.0]
    """
    rank, op = 1, "max"


@_register
class AdaptiveMaxPooling2D(_AdaptivePooling):
    """Max pooling of images to a fixed `(height, width)`."""

    __doc__ += _ARGS.format(rank=2, axes="height, width")
    __doc__ += """
    >>> import numpy as np
    >>> AdaptiveMaxPooling2D(3, data_format="channels_first")(np.ones((1, 4, 7, 5))).shape
    (1, 4, 3, 3)
    """
    rank, op = 2, "max"


@_register
class AdaptiveMaxPooling3D(_AdaptivePooling):
    """Max pooling of volumes to a fixed `(depth, height, width)`."""

    __doc__ += _ARGS.format(rank=3, axes="depth, height, width")
    __doc__ += """
    >>> import numpy as np
    >>> AdaptiveMaxPooling3D((1, 2, 3))(np.ones((1, 3, 4, 5, 2))).shape
    (1, 1, 2, 3, 2)
    """
    rank, op = 3, "max"
