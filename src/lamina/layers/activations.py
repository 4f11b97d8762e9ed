"""Activation layers: ReLU, LeakyReLU, ELU, PReLU, Softmax, ThresholdedReLU."""

from __future__ import annotations

import lamina.activations as activations
from lamina import backend, constraints, initializers, ops, regularizers
from lamina.common import serialization
from lamina.layers.argument_validation import int_or_ints
from lamina.layers.layer import Layer


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


class _Elementwise(Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.built = True

    def compute_output_shape(self, input_shape):
        return input_shape


@_register
class ReLU(_Elementwise):
    """Rectified linear unit: `max(x, 0)`, with optional cap, slope and threshold.

    Args:
        max_value: cap on the output (None for no cap).
        negative_slope: slope below the threshold.
        threshold: values below it are scaled by `negative_slope`.

    >>> import numpy as np
    >>> np.asarray(ReLU(max_value=1.0)(np.array([-1.0, 0.5, 3.0]))).tolist()
    [0.0, 0.5, 1.0]
    """

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0:
            raise ValueError(f"ReLU max_value must be >= 0; received {max_value}.")
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"ReLU negative_slope must be >= 0; received {negative_slope}.")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs):
        return activations.relu(
            inputs,
            negative_slope=self.negative_slope,
            max_value=self.max_value,
            threshold=self.threshold,
        )

    def get_config(self):
        return {
            **super().get_config(),
            "max_value": self.max_value,
            "negative_slope": self.negative_slope,
            "threshold": self.threshold,
        }


@_register
class LeakyReLU(_Elementwise):
    """Leaky ReLU: `x` if `x >= 0` else `negative_slope * x` (default slope 0.3).

    >>> import numpy as np
    >>> LeakyReLU(negative_slope=0.1)(np.array([-10.0, 0.0, 5.0])).tolist()
    [-1.0, 0.0, 5.0]
    """

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"LeakyReLU negative_slope must be >= 0; received {negative_slope}.")
        self.negative_slope = negative_slope

    def call(self, inputs):
        return ops.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self):
        return {**super().get_config(), "negative_slope": self.negative_slope}


@_register
class ThresholdedReLU(_Elementwise):
    """Thresholded ReLU: `x` where `x > theta`, else 0 (classic Keras's layer; Keras 3
    dropped it, `ReLU(threshold=theta)` differs by giving `x` only where `x >= theta`).

    Args:
        theta: the threshold, a float >= 0 (default 1.0).

    >>> import numpy as np
    >>> np.asarray(ThresholdedReLU(theta=1.0)(np.array([0.5, 1.0, 2.0]))).tolist()
    [0.0, 0.0, 2.0]
    """

    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        if theta is None or theta < 0:
            raise ValueError(f"ThresholdedReLU theta must be a float >= 0; received {theta!r}.")
        self.theta = float(theta)

    def call(self, inputs):
        return ops.where(ops.greater(inputs, self.theta), inputs, ops.zeros_like(inputs))

    def get_config(self):
        return {**super().get_config(), "theta": self.theta}


@_register
class ELU(_Elementwise):
    """Exponential linear unit: `x` if `x > 0` else `alpha * (exp(x) - 1)`.

    >>> import numpy as np
    >>> [round(float(v), 4) for v in ELU(alpha=1.0)(np.array([-1.0, 0.0, 2.0]))]
    [-0.6321, 0.0, 2.0]
    """

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        return ops.elu(inputs, alpha=self.alpha)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


@_register
class PReLU(Layer):
    """Parametric ReLU: `x` if `x >= 0` else `alpha * x`, with `alpha` learned.

    Args:
        alpha_initializer, alpha_regularizer, alpha_constraint: for the `alpha` weights.
        shared_axes: axes (1-indexed, excluding batch) along which `alpha` is shared.

    >>> import numpy as np
    >>> layer = PReLU(alpha_initializer="zeros")
    >>> layer(np.array([[-2.0, 3.0]])).tolist()  # the slope starts at 0 and is learned
    [[0.0, 3.0]]
    >>> layer.alpha.shape
    (2,)
    """

    def __init__(
        self,
        alpha_initializer="zeros",
        alpha_regularizer=None,
        alpha_constraint=None,
        shared_axes=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        else:
            axes = int_or_ints(shared_axes, "shared_axes", "PReLU")
            self.shared_axes = axes if isinstance(axes, list) else [axes]

    def build(self, input_shape):
        param_shape = list(input_shape[1:])
        for axis in self.shared_axes or []:
            param_shape[axis - 1] = 1
        self.alpha = self.add_weight(
            shape=param_shape,
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
            name="alpha",
        )
        self.built = True

    def call(self, inputs):
        pos = ops.relu(inputs)
        neg = -self.alpha * ops.relu(-inputs)
        return pos + neg

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "alpha_initializer": initializers.serialize(self.alpha_initializer),
            "alpha_regularizer": regularizers.serialize(self.alpha_regularizer),
            "alpha_constraint": constraints.serialize(self.alpha_constraint),
            "shared_axes": self.shared_axes,
        }


def large_negative_number(dtype) -> float:
    """What a masked logit becomes before a softmax, as in Keras: -3e4 in float16 (whose
    range ends at 65504), else -1e9."""
    return -3e4 if backend.standardize_dtype(dtype) == "float16" else -1e9


@_register
class Softmax(_Elementwise):
    """Softmax over `axis`; masked positions (mask False) get probability 0.

    As in Keras 3: the masked logits become a large negative number (-1e9, -3e4 in
    float16) and their probabilities are then set to 0, so a row whose every position is
    masked gives zeros. A mask that is not boolean keeps the positions above 0.5.

    Call arguments:
        inputs: the logits. mask: optional mask broadcastable to `inputs`.

    >>> import numpy as np
    >>> [round(float(v), 3) for v in Softmax()(np.array([[0.0, 0.0, np.log(2.0)]]))[0]]
    [0.25, 0.25, 0.5]
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = int_or_ints(axis, "axis", "Softmax")

    def call(self, inputs, mask=None):
        if mask is not None:
            mask = self._checked_mask(inputs, mask)
            negative = ops.cast(large_negative_number(inputs.dtype), inputs.dtype)
            inputs = ops.where(mask, inputs, negative)
        axis = self.axis
        if isinstance(axis, (list, tuple)) and len(axis) == 1:
            axis = axis[0]
        if isinstance(axis, (list, tuple)):
            outputs = ops.exp(inputs - ops.logsumexp(inputs, axis=tuple(axis), keepdims=True))
        else:
            outputs = ops.softmax(inputs, axis=axis)
        if mask is not None:
            outputs = ops.where(mask, outputs, ops.cast(0.0, outputs.dtype))
        return outputs

    def _checked_mask(self, inputs, mask):
        if not hasattr(mask, "shape"):  # a nested list of booleans
            mask = ops.convert_to_tensor(mask)
        shape, mask_shape = tuple(inputs.shape), tuple(mask.shape)
        broadcastable = len(mask_shape) <= len(shape) and all(
            m in (1, None) or i is None or m == i
            for m, i in zip(mask_shape[::-1], shape[::-1], strict=False)
        )
        if not broadcastable:
            raise ValueError(
                f"Softmax {self.name!r}: the mask must be broadcastable to the inputs; "
                f"received a mask of shape {mask_shape} for inputs of shape {shape}. Give "
                "a mask of the inputs' shape, or with 1 for the axes it does not vary on."
            )
        if ops.dtype(mask) != "bool":
            return ops.greater(mask, ops.cast(0.5, ops.dtype(mask)))  # as Keras reads one
        return mask

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}
