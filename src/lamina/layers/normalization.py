"""Normalization layers: BatchNormalization, LayerNormalization, GroupNormalization,
UnitNormalization, RMSNormalization."""

from __future__ import annotations

import warnings

from lamina import backend, constraints, initializers, ops, regularizers
from lamina.common import serialization
from lamina.layers.argument_validation import as_int, int_or_ints, is_integer
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _axes(axis, ndim, who):
    """Normalize an int or a list of ints to sorted, non-negative axes of a rank-`ndim` input."""
    axes = [axis] if is_integer(axis) else list(axis)
    out = []
    for a in axes:
        if not is_integer(a) or not -ndim <= a < ndim:
            raise ValueError(
                f"{who} received axis {axis!r}, which is out of range for inputs of rank {ndim}."
            )
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{who} received duplicate axes {axis!r}.")
    return tuple(sorted(out))


def _axis_config(axis):
    return int_or_ints(axis, "axis", "normalization")


def _known(input_shape, axes, who):
    dims = []
    for a in axes:
        d = input_shape[a]
        if d is None:
            raise ValueError(
                f"{who} needs axis {a} of its input to be known; received shape "
                f"{tuple(input_shape)}."
            )
        dims.append(int(d))
    return dims


def _broadcast_shape(ndim, axes, dims):
    shape = [1] * ndim
    for a, d in zip(axes, dims, strict=True):
        shape[a] = d
    return tuple(shape)


class _AffineMixin:
    """Shared storage of the gamma/beta initializers, regularizers and constraints."""

    def _init_affine(
        self,
        beta_initializer,
        gamma_initializer,
        beta_regularizer,
        gamma_regularizer,
        beta_constraint,
        gamma_constraint,
    ):
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def _affine_config(self):
        return {
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer),
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
            "beta_constraint": constraints.serialize(self.beta_constraint),
            "gamma_constraint": constraints.serialize(self.gamma_constraint),
        }

    def _add_gamma_beta(self, shape, gamma: bool, beta: bool):
        self.gamma = None
        self.beta = None
        if gamma:
            self.gamma = self.add_weight(
                shape=shape,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
                name="gamma",
            )
        if beta:
            self.beta = self.add_weight(
                shape=shape,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
                name="beta",
            )


@_register
class BatchNormalization(_AffineMixin, Layer):
    """Normalizes its inputs with batch statistics in training, moving statistics otherwise.

    In training (`training=True`, as in `fit`) the output is
    `gamma * (x - mean(x)) / sqrt(var(x) + epsilon) + beta` over the batch (all axes but
    `axis`), and the moving statistics are updated as
    `moving = moving * momentum + batch * (1 - momentum)`. In inference the moving mean
    and variance are used instead. With `layer.trainable = False` the layer always runs in
    inference mode (and its moving statistics stay fixed), as in Keras.

    Args:
        axis: the features axis (typically -1, or 1 for `channels_first` images).
        momentum: momentum of the moving averages.
        epsilon: small float added to the variance.
        center: whether to add the offset `beta`.
        scale: whether to multiply by `gamma`.
        beta_initializer, gamma_initializer, moving_mean_initializer,
            moving_variance_initializer: initializers.
        beta_regularizer, gamma_regularizer: regularizers.
        beta_constraint, gamma_constraint: constraints.
        synchronized: accepted for Keras compatibility (a no-op on a single device).
        renorm, renorm_clipping, renorm_momentum: Keras's batch renormalization
            arguments, accepted at their defaults (`False`, `None`, `0.99`) so Keras
            configs load; `renorm=True` is not supported and raises a ValueError.

    Call arguments:
        inputs: a tensor. training: whether to use (and update) batch statistics.
        mask: optional boolean mask broadcastable to the input; masked entries are left
            out of the batch statistics.

    >>> import numpy as np
    >>> bn = BatchNormalization()
    >>> bn(np.ones((2, 3)), training=True).shape
    (2, 3)
    >>> [w.name for w in bn.weights]
    ['gamma', 'beta', 'moving_mean', 'moving_variance']
    """

    def __init__(
        self,
        axis=-1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        moving_mean_initializer="zeros",
        moving_variance_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        synchronized: bool = False,
        renorm: bool = False,
        renorm_clipping=None,
        renorm_momentum: float = 0.99,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if not is_integer(axis):
            raise TypeError(f"BatchNormalization expects `axis` to be an int; received {axis!r}.")
        axis = as_int(axis)
        if renorm:
            raise ValueError(
                f"BatchNormalization received renorm={renorm!r}; batch renormalization is not "
                "supported by lamina. Use renorm=False (the default)."
            )
        if renorm_clipping is not None and not isinstance(renorm_clipping, dict):
            raise TypeError(
                "BatchNormalization expects `renorm_clipping` to be None or a dict; "
                f"received {renorm_clipping!r}."
            )
        self.renorm = False
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = float(renorm_momentum)
        self.axis = axis
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self._init_affine(
            beta_initializer,
            gamma_initializer,
            beta_regularizer,
            gamma_regularizer,
            beta_constraint,
            gamma_constraint,
        )
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.synchronized = bool(synchronized)
        self.supports_masking = True

    def build(self, input_shape):
        ndim = len(input_shape)
        (axis,) = _axes(self.axis, ndim, "BatchNormalization")
        (dim,) = _known(input_shape, (axis,), "BatchNormalization")
        self._axis = axis
        self._reduction_axes = tuple(a for a in range(ndim) if a != axis)
        self._add_gamma_beta((dim,), self.scale, self.center)
        self.moving_mean = self.add_weight(
            shape=(dim,),
            initializer=self.moving_mean_initializer,
            trainable=False,
            name="moving_mean",
        )
        self.moving_variance = self.add_weight(
            shape=(dim,),
            initializer=self.moving_variance_initializer,
            trainable=False,
            name="moving_variance",
        )
        self.input_spec = InputSpec(ndim=ndim, axes={axis: dim})
        self.built = True

    def _moments(self, inputs, mask):
        axes = self._reduction_axes
        if mask is None:
            return ops.moments(inputs, axes=axes, keepdims=True)
        weights = ops.cast(mask, inputs.dtype)
        while len(weights.shape) < len(inputs.shape):
            weights = ops.expand_dims(weights, -1)
        weights = ops.broadcast_to(weights, ops.shape(inputs))
        total = ops.maximum(ops.sum(weights, axis=axes, keepdims=True), backend.epsilon())
        mean = ops.divide(ops.sum(ops.multiply(inputs, weights), axis=axes, keepdims=True), total)
        diff = ops.subtract(inputs, ops.stop_gradient(mean))
        variance = ops.divide(
            ops.sum(ops.multiply(ops.square(diff), weights), axis=axes, keepdims=True), total
        )
        return mean, variance

    def _fused(self, inputs, mean=None, variance=None):
        """The engine's own batch-norm kernel where it has one (torch), with the batch's
        statistics or, given them, the moving ones; None elsewhere."""
        return backend.nn.fused_batch_norm(
            inputs,
            self._axis,
            None if self.gamma is None else self.gamma.value,
            None if self.beta is None else self.beta.value,
            self.epsilon,
            mean=mean,
            variance=variance,
        )

    def call(self, inputs, training=None, mask=None):
        if not self.trainable:
            training = False
        bshape = [1] * len(inputs.shape)
        bshape[self._axis] = inputs.shape[self._axis]
        bshape = tuple(bshape)
        fused = None
        if training and mask is None:
            fused = self._fused(inputs)  # the batch's statistics
        if training:
            if fused is not None:
                outputs, flat_mean, flat_var = fused
            else:
                mean, variance = self._moments(inputs, mask)
                flat_mean = ops.reshape(mean, (-1,))
                flat_var = ops.reshape(variance, (-1,))
            m = self.momentum
            self.moving_mean.assign(
                ops.add(
                    ops.multiply(self.moving_mean.value, m),
                    ops.multiply(ops.cast(flat_mean, self.moving_mean.dtype), 1.0 - m),
                )
            )
            self.moving_variance.assign(
                ops.add(
                    ops.multiply(self.moving_variance.value, m),
                    ops.multiply(ops.cast(flat_var, self.moving_variance.dtype), 1.0 - m),
                )
            )
            if fused is not None:
                return outputs
        else:
            fused = self._fused(inputs, self.moving_mean.value, self.moving_variance.value)
            if fused is not None:
                return fused[0]
            mean = ops.reshape(ops.cast(self.moving_mean.value, inputs.dtype), bshape)
            variance = ops.reshape(ops.cast(self.moving_variance.value, inputs.dtype), bshape)
        inv = ops.rsqrt(ops.add(variance, self.epsilon))
        if self.gamma is not None:
            inv = ops.multiply(inv, ops.reshape(ops.cast(self.gamma.value, inputs.dtype), bshape))
        outputs = ops.multiply(ops.subtract(inputs, mean), inv)
        if self.beta is not None:
            outputs = ops.add(outputs, ops.reshape(ops.cast(self.beta.value, inputs.dtype), bshape))
        return outputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            **self._affine_config(),
            "moving_mean_initializer": initializers.serialize(self.moving_mean_initializer),
            "moving_variance_initializer": initializers.serialize(self.moving_variance_initializer),
            "synchronized": self.synchronized,
            "renorm": self.renorm,
            "renorm_clipping": self.renorm_clipping,
            "renorm_momentum": self.renorm_momentum,
        }


# Keras 3 warns with this opening too (tests filter the two alike).
_RMS_SCALING_DEPRECATED = (
    "You passed `rms_scaling=True` to LayerNormalization, which is deprecated (as in "
    "Keras 3): it divides the inputs by their standard deviation, without centering, not "
    "by their root mean square. lamina computes what Keras computes, so saved models give "
    "the same outputs. For RMS normalization use `layers.RMSNormalization` instead."
)


@_register
class LayerNormalization(_AffineMixin, Layer):
    """Normalizes each example over `axis`: `gamma * (x - mean) / sqrt(var + eps) + beta`.

    The statistics are computed per example (over `axis`), so training and inference
    behave alike.

    Args:
        axis: an int or a list of ints: the axes to normalize over (and the shape of
            `gamma` and `beta`).
        epsilon: small float added to the variance.
        center: whether to add the offset `beta`.
        scale: whether to multiply by `gamma`.
        rms_scaling: deprecated, as in Keras 3 (it warns): if True, `center` and `scale`
            are ignored, there is no `beta`, and the output is
            `gamma * x / sqrt(var(x) + epsilon)`: Keras's formula, which divides by the
            standard deviation without centering (not by the root mean square), kept so
            that models saved with it give the same outputs in lamina and in Keras. For
            RMS normalization use `RMSNormalization`.
        beta_initializer, gamma_initializer, beta_regularizer, gamma_regularizer,
            beta_constraint, gamma_constraint: for the weights.

    >>> import numpy as np
    >>> ln = LayerNormalization()
    >>> ln(np.arange(6.0).reshape(2, 3)).shape
    (2, 3)
    """

    def __init__(
        self,
        axis=-1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        rms_scaling: bool = False,
        beta_initializer="zeros",
        gamma_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if rms_scaling:
            warnings.warn(_RMS_SCALING_DEPRECATED, UserWarning, stacklevel=2)
        self.axis = _axis_config(axis)
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.rms_scaling = bool(rms_scaling)
        self._init_affine(
            beta_initializer,
            gamma_initializer,
            beta_regularizer,
            gamma_regularizer,
            beta_constraint,
            gamma_constraint,
        )
        self.supports_masking = True

    def build(self, input_shape):
        ndim = len(input_shape)
        axes = _axes(self.axis, ndim, "LayerNormalization")
        dims = _known(input_shape, axes, "LayerNormalization")
        self._axes_list = axes
        self._bshape = _broadcast_shape(ndim, axes, dims)
        self._add_gamma_beta(
            tuple(dims),
            self.scale or self.rms_scaling,
            self.center and not self.rms_scaling,
        )
        self.built = True

    def call(self, inputs):
        axes = self._axes_list
        if self.rms_scaling:
            variance = ops.var(inputs, axis=axes, keepdims=True)
            outputs = ops.multiply(inputs, ops.rsqrt(ops.add(variance, self.epsilon)))
            return ops.multiply(
                outputs, ops.reshape(ops.cast(self.gamma.value, inputs.dtype), self._bshape)
            )
        mean, variance = ops.moments(inputs, axes=axes, keepdims=True)
        inv = ops.rsqrt(ops.add(variance, self.epsilon))
        if self.gamma is not None:
            inv = ops.multiply(
                inv, ops.reshape(ops.cast(self.gamma.value, inputs.dtype), self._bshape)
            )
        outputs = ops.multiply(ops.subtract(inputs, mean), inv)
        if self.beta is not None:
            outputs = ops.add(
                outputs, ops.reshape(ops.cast(self.beta.value, inputs.dtype), self._bshape)
            )
        return outputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "rms_scaling": self.rms_scaling,
            **self._affine_config(),
        }


@_register
class GroupNormalization(_AffineMixin, Layer):
    """Splits the channels (`axis`) into `groups` and normalizes each group per example.

    With `groups=1` it matches LayerNormalization over all non-batch axes; with `groups`
    equal to the number of channels (or `-1`) it is instance normalization.

    Args:
        groups: number of groups; must divide the number of channels. `-1` means one
            group per channel.
        axis: the channels axis.
        epsilon: small float added to the variance.
        center, scale: whether to add `beta` / multiply by `gamma` (per channel).
        beta_initializer, gamma_initializer, beta_regularizer, gamma_regularizer,
            beta_constraint, gamma_constraint: for the weights.

    >>> import numpy as np
    >>> GroupNormalization(groups=2)(np.ones((2, 5, 4))).shape
    (2, 5, 4)
    """

    def __init__(
        self,
        groups: int = 32,
        axis: int = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if not is_integer(groups) or (groups < 1 and groups != -1):
            raise ValueError(
                f"GroupNormalization expects `groups` to be a positive int or -1; "
                f"received {groups!r}."
            )
        self.groups = as_int(groups)
        self.axis = as_int(axis)
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self._init_affine(
            beta_initializer,
            gamma_initializer,
            beta_regularizer,
            gamma_regularizer,
            beta_constraint,
            gamma_constraint,
        )
        self.supports_masking = True

    def build(self, input_shape):
        ndim = len(input_shape)
        if ndim < 2:
            raise ValueError(
                f"GroupNormalization needs inputs of rank >= 2; received shape {tuple(input_shape)}."
            )
        (axis,) = _axes(self.axis, ndim, "GroupNormalization")
        (dim,) = _known(input_shape, (axis,), "GroupNormalization")
        groups = dim if self.groups == -1 else self.groups
        if groups > dim:
            raise ValueError(
                f"GroupNormalization: the number of groups ({groups}) cannot exceed the number "
                f"of channels ({dim})."
            )
        if dim % groups:
            raise ValueError(
                f"GroupNormalization: the number of groups ({groups}) must divide the number of "
                f"channels ({dim})."
            )
        self._axis = axis
        self._groups = groups
        self._add_gamma_beta((dim,), self.scale, self.center)
        self.input_spec = InputSpec(ndim=ndim, axes={axis: dim})
        self.built = True

    def call(self, inputs):
        ndim = len(inputs.shape)
        x = ops.moveaxis(inputs, self._axis, -1)
        shape = tuple(ops.shape(x))
        dim = shape[-1]
        g = self._groups
        x = ops.reshape(x, shape[:-1] + (g, dim // g))
        axes = tuple(range(1, ndim - 1)) + (ndim,)
        mean, variance = ops.moments(x, axes=axes, keepdims=True)
        x = ops.multiply(ops.subtract(x, mean), ops.rsqrt(ops.add(variance, self.epsilon)))
        x = ops.reshape(x, shape)
        if self.gamma is not None:
            x = ops.multiply(x, ops.cast(self.gamma.value, x.dtype))
        if self.beta is not None:
            x = ops.add(x, ops.cast(self.beta.value, x.dtype))
        return ops.moveaxis(x, -1, self._axis)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "groups": self.groups,
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            **self._affine_config(),
        }


@_register
class UnitNormalization(Layer):
    """Scales each example to unit L2 norm over `axis`: `x / sqrt(max(sum(x ** 2), 1e-12))`.

    Args:
        axis: an int or a list of ints.

    >>> import numpy as np
    >>> np.asarray(UnitNormalization()(np.array([[3.0, 4.0]]))).astype(float).round(3).tolist()
    [[0.6, 0.8]]
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = _axis_config(axis)
        self.supports_masking = True
        self.built = True

    def call(self, inputs):
        axes = _axes(self.axis, len(inputs.shape), "UnitNormalization")
        sq = ops.sum(ops.square(inputs), axis=axes, keepdims=True)
        return ops.multiply(inputs, ops.rsqrt(ops.maximum(sq, 1e-12)))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


@_register
class RMSNormalization(Layer):
    """Root-mean-square normalization: `x * scale / sqrt(mean(x ** 2, axis) + epsilon)`.

    Args:
        axis: an int or a list of ints: the axes to normalize over (and the shape of
            the learned `scale`, initialized to ones).
        epsilon: small float added to the mean square.

    >>> import numpy as np
    >>> layer = RMSNormalization()
    >>> layer(np.ones((2, 3))).shape, [w.name for w in layer.weights]
    ((2, 3), ['scale'])
    """

    def __init__(self, axis=-1, epsilon: float = 1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = _axis_config(axis)
        self.epsilon = float(epsilon)
        self.supports_masking = True

    def build(self, input_shape):
        ndim = len(input_shape)
        axes = _axes(self.axis, ndim, "RMSNormalization")
        dims = _known(input_shape, axes, "RMSNormalization")
        self._axes_list = axes
        self._bshape = _broadcast_shape(ndim, axes, dims)
        self.scale = self.add_weight(shape=tuple(dims), initializer="ones", name="scale")
        self.built = True

    def call(self, x):
        ms = ops.mean(ops.square(x), axis=self._axes_list, keepdims=True)
        outputs = ops.multiply(x, ops.rsqrt(ops.add(ms, self.epsilon)))
        return ops.multiply(outputs, ops.reshape(ops.cast(self.scale.value, x.dtype), self._bshape))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}
