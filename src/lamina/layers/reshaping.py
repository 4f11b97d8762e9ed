"""Reshaping layers: Flatten, Reshape, Permute, RepeatVector."""

from __future__ import annotations

import math

from lamina import backend, ops
from lamina.common import serialization
from lamina.layers.argument_validation import int_tuple, integer
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


@_register
class Flatten(Layer):
    """Flattens everything but the batch dimension: `(batch, 4, 5)` -> `(batch, 20)`.

    Args:
        data_format: `"channels_last"` (default) or `"channels_first"`; with channels
            first the channel axis is moved last before flattening, as Keras does.

    >>> import numpy as np
    >>> Flatten()(np.zeros((2, 3, 4))).shape
    (2, 12)
    """

    _keeps_integer_dtype = True  # an int input gives an int output

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = backend.standardize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        if self.data_format == "channels_first" and len(inputs.shape) > 2:
            rank = len(inputs.shape)
            inputs = ops.transpose(inputs, (0,) + tuple(range(2, rank)) + (1,))
        return ops.reshape(
            inputs,
            (inputs.shape[0], -1)
            if inputs.shape[0] is not None
            else (-1, self._flat(inputs.shape)),
        )

    @staticmethod
    def _flat(shape):
        rest = shape[1:]
        return None if any(d is None for d in rest) else math.prod(rest)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self._flat(input_shape))

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


@_register
class Reshape(Layer):
    """Reshapes all but the batch dimension to `target_shape` (one entry may be -1).

    >>> import numpy as np
    >>> Reshape((3, -1))(np.zeros((2, 12))).shape
    (2, 3, 4)
    """

    _keeps_integer_dtype = True  # an int input gives an int output

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = int_tuple(
            target_shape, len(tuple(target_shape)), "target_shape", "Reshape", minimum=-1
        )
        if sum(d == -1 for d in self.target_shape) > 1:
            raise ValueError(
                f"Reshape target_shape may contain at most one -1; received {self.target_shape}."
            )

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        target = list(self.target_shape)
        if -1 in target:
            known = math.prod(d for d in target if d != -1)
            if any(d is None for d in rest):
                target[target.index(-1)] = None
            else:
                total = math.prod(rest)
                if known == 0 or total % known:
                    raise ValueError(
                        f"Reshape {self.name!r} cannot reshape input of shape "
                        f"{tuple(input_shape)} to {self.target_shape}."
                    )
                target[target.index(-1)] = total // known
        elif not any(d is None for d in rest) and math.prod(rest) != math.prod(target):
            raise ValueError(
                f"Reshape {self.name!r}: the input shape {tuple(input_shape)} has "
                f"{math.prod(rest)} values per sample, the target shape {self.target_shape} "
                f"has {math.prod(target)}."
            )
        return (input_shape[0],) + tuple(target)

    def call(self, inputs):
        target = self.compute_output_shape(tuple(inputs.shape))[1:]
        return ops.reshape(inputs, (-1,) + tuple(-1 if d is None else d for d in target))

    def get_config(self):
        return {**super().get_config(), "target_shape": list(self.target_shape)}


@_register
class Permute(Layer):
    """Permutes the non-batch dimensions; `dims` are 1-indexed (`(2, 1)` swaps them).

    >>> import numpy as np
    >>> Permute((2, 1))(np.zeros((2, 3, 4))).shape
    (2, 4, 3)
    """

    _keeps_integer_dtype = True  # an int input gives an int output

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = int_tuple(dims, len(tuple(dims)), "dims", "Permute")
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(
                f"Permute dims must be a permutation of 1..{len(self.dims)}; received {self.dims}."
            )
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs):
        return ops.transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + tuple(input_shape[d] for d in self.dims)

    def get_config(self):
        return {**super().get_config(), "dims": list(self.dims)}


@_register
class RepeatVector(Layer):
    """Repeats a `(batch, features)` input `n` times: `(batch, n, features)`.

    >>> import numpy as np
    >>> RepeatVector(3)(np.zeros((2, 5))).shape
    (2, 3, 5)
    """

    _keeps_integer_dtype = True  # an int input gives an int output

    def __init__(self, n: int, **kwargs):
        super().__init__(**kwargs)
        self.n = integer(n, "n", "RepeatVector")
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        return ops.repeat(ops.expand_dims(inputs, 1), self.n, axis=1)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self):
        return {**super().get_config(), "n": self.n}
