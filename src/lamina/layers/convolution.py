"""Convolution layers: Conv, ConvTranspose, DepthwiseConv and SeparableConv in 1-3 D.

One base class, `BaseConv`, holds the shared arguments, checks and shape arithmetic;
the transposed, depthwise and separable variants override how weights are made and
how the output is computed. Each public class only sets the rank.
"""

from __future__ import annotations

from lamina import activations, backend, constraints, initializers, ops, regularizers
from lamina.common import serialization
from lamina.layers import lora
from lamina.layers.argument_validation import int_tuple, integer
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _conv_output_length(length, kernel_size, stride, padding, dilation):
    if length is None:
        return None
    k = (kernel_size - 1) * dilation + 1
    if padding == "valid":
        return (length - k) // stride + 1
    return (length + stride - 1) // stride  # "same" and "causal"


class BaseConv(Layer):
    """The shared base of the convolution layers, parameterized by `rank` (1, 2 or 3).

    Subclasses set `rank`; `BaseConv` itself computes a plain (grouped) convolution,
    with LoRA (`lora_rank=`, `enable_lora`) as in Keras; the transposed, depthwise and
    separable variants have no LoRA.
    Input shape: `(batch, *spatial, channels)` for `"channels_last"`, or
    `(batch, channels, *spatial)` for `"channels_first"`.
    """

    rank = None
    _allowed_padding = ("valid", "same")
    _causal_ok = True
    _requires_filters = True

    @property
    def _spatial_convolution(self) -> bool:
        """An image or volume convolution (rank 2 or 3): an engine may compile the
        steps of a model holding one differently (`backend.jax.compilation`)."""
        return self.rank >= 2

    def __init__(
        self,
        filters=None,
        kernel_size=None,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        groups=1,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        lora_rank=None,
        lora_alpha=None,
        **kwargs,
    ):
        lora.init_lora(self, lora_rank, lora_alpha, dtype=kwargs.get("dtype"))
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        who = self._who
        rank = self.rank
        if filters is not None or self._requires_filters:
            filters = integer(filters, "filters", who)
        if kernel_size is None:
            raise ValueError(f"{who} requires a `kernel_size`.")
        self.filters = filters
        self.kernel_size = int_tuple(kernel_size, rank, "kernel_size", who)
        self.strides = int_tuple(strides, rank, "strides", who)
        self.dilation_rate = int_tuple(dilation_rate, rank, "dilation_rate", who)
        allowed = self._allowed_padding + (("causal",) if rank == 1 and self._causal_ok else ())
        self.padding = str(padding).lower()
        if self.padding not in allowed:
            raise ValueError(
                f"{who} expects `padding` to be one of {list(allowed)}; received {padding!r}."
            )
        try:
            self.data_format = backend.standardize_data_format(data_format)
        except ValueError as e:
            raise ValueError(f"{who}: {e}") from None
        self.groups = groups = integer(groups, "groups", who)
        if filters is not None and filters % groups:
            raise ValueError(
                f"{who}: `filters` ({filters}) must be divisible by `groups` ({groups})."
            )
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"{who} does not support `strides` > 1 together with `dilation_rate` > 1; "
                f"received strides={self.strides}, dilation_rate={self.dilation_rate}."
            )
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(ndim=rank + 2)

    # LoRA, written once for the layers that have it
    # (`lora.py`).
    _lora_weight = "kernel"
    _lora_supported = True
    lora_rank = lora_alpha = None
    lora_enabled = False
    kernel = lora.lora_weight_property("kernel")
    enable_lora = lora.enable_lora
    from_config = classmethod(lora.from_config)
    _own_weights = lora.own_weights
    _saved_variables = lora.saved_variables
    # Keras files only kernel and bias for Conv1D-3D; its transposed and depthwise
    # convolutions file all their own weights.
    _float_file_order = ("kernel", "bias")

    @property
    def _who(self) -> str:
        return type(self).__name__

    @property
    def _channel_axis(self) -> int:
        return -1 if self.data_format == "channels_last" else 1

    def _spatial(self, input_shape):
        shape = tuple(input_shape)
        return shape[1:-1] if self.data_format == "channels_last" else shape[2:]

    def _with_channels(self, batch, spatial, channels):
        if self.data_format == "channels_last":
            return (batch,) + tuple(spatial) + (channels,)
        return (batch, channels) + tuple(spatial)

    def _check_input(self, input_shape):
        """Validate rank and channels; return the number of input channels."""
        input_shape = tuple(input_shape)
        if len(input_shape) != self.rank + 2:
            raise ValueError(
                f"{self._who} {self.name!r} expects inputs of rank {self.rank + 2} "
                f"(batch, spatial x{self.rank}, channels); received shape {input_shape}."
            )
        channels = input_shape[self._channel_axis]
        if channels is None:
            raise ValueError(
                f"{self._who} {self.name!r} needs the channel dimension of its input to be "
                f"known ({self.data_format}); received shape {input_shape}."
            )
        return channels

    def _output_spatial(self, input_shape):
        out = []
        for size, k, s, d in zip(
            self._spatial(input_shape),
            self.kernel_size,
            self.strides,
            self.dilation_rate,
            strict=True,
        ):
            length = _conv_output_length(size, k, s, self.padding, d)
            if length is not None and length <= 0:
                raise ValueError(
                    f"{self._who} {self.name!r}: the kernel (kernel_size={self.kernel_size}, "
                    f"dilation_rate={self.dilation_rate}) is larger than the input with "
                    f"padding='valid'; received input shape {tuple(input_shape)}."
                )
            out.append(length)
        return out

    def _add_bias(self, x):
        if self.bias is None:
            return x
        if self.data_format == "channels_first":
            return ops.add(x, ops.reshape(self.bias, (-1,) + (1,) * self.rank))
        return ops.add(x, self.bias)

    def _finish(self, x):
        x = self._add_bias(x)
        return self.activation(x) if self.activation is not None else x

    def _make_bias(self, size):
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(size,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )

    # Plain convolution -----------------------------------------------------------------
    def build(self, input_shape):
        channels = self._check_input(input_shape)
        if channels % self.groups:
            raise ValueError(
                f"{self._who} {self.name!r}: the number of input channels ({channels}) must "
                f"be divisible by `groups` ({self.groups}); received input shape "
                f"{tuple(input_shape)}."
            )
        self._output_spatial(input_shape)
        self.kernel = self.add_weight(
            shape=self.kernel_size + (channels // self.groups, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self.kernel._store_for("conv")
        self._make_bias(self.filters)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True
        lora.build_lora(self)

    def call(self, inputs):
        options = {
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
        }
        if self.bias is not None:
            # The engine's convolution with its bias, where it has one (torch).
            x = backend.nn.fused_conv(inputs, self.kernel, self.bias, **options)
            if x is not None:
                return self.activation(x) if self.activation is not None else x
        return self._finish(ops.conv(inputs, self.kernel, **options))

    def compute_output_shape(self, input_shape):
        self._check_input(input_shape)
        spatial = self._output_spatial(input_shape)
        return self._with_channels(input_shape[0], spatial, self.filters)

    def _base_config(self):
        return {
            **Layer.get_config(self),
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }

    def get_config(self):
        return {
            **self._base_config(),
            "filters": self.filters,
            "groups": self.groups,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            **lora.lora_config(self),
        }


class BaseConvTranspose(BaseConv):
    """The base of the transposed convolutions; kernel `(*kernel_size, filters, channels)`."""

    _causal_ok = False
    _lora_supported = False
    _float_file_order = None  # all its own weights, as Keras files them

    def __init__(
        self,
        filters=None,
        kernel_size=None,
        strides=1,
        padding="valid",
        output_padding=None,
        data_format=None,
        dilation_rate=1,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            filters=filters,
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            **kwargs,
        )
        self.output_padding = None
        if output_padding is not None:
            self.output_padding = int_tuple(
                output_padding, self.rank, "output_padding", self._who, minimum=0
            )
            for op, s in zip(self.output_padding, self.strides, strict=True):
                if op >= s:
                    raise ValueError(
                        f"{self._who}: each `output_padding` must be smaller than its stride; "
                        f"received output_padding={self.output_padding}, "
                        f"strides={self.strides}."
                    )

    def build(self, input_shape):
        channels = self._check_input(input_shape)
        self.kernel = self.add_weight(
            shape=self.kernel_size + (self.filters, channels),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self._make_bias(self.filters)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True

    def call(self, inputs):
        x = ops.conv_transpose(
            inputs,
            self.kernel,
            strides=self.strides,
            padding=self.padding,
            output_padding=self.output_padding,
            data_format=self.data_format,
            dilation_rate=self.dilation_rate,
        )
        return self._finish(x)

    def compute_output_shape(self, input_shape):
        self._check_input(input_shape)
        out_pad = self.output_padding or (None,) * self.rank
        spatial = []
        for size, k, s, d, op in zip(
            self._spatial(input_shape),
            self.kernel_size,
            self.strides,
            self.dilation_rate,
            out_pad,
            strict=True,
        ):
            if size is None:
                spatial.append(None)
                continue
            k_eff = (k - 1) * d + 1
            if op is None:
                length = size * s + (max(k_eff - s, 0) if self.padding == "valid" else 0)
            else:
                pad = k_eff // 2 if self.padding == "same" else 0
                length = (size - 1) * s + k_eff - 2 * pad + op
            spatial.append(length)
        return self._with_channels(input_shape[0], spatial, self.filters)

    def get_config(self):
        config = super().get_config()
        del config["groups"]
        config["output_padding"] = self.output_padding
        return config


class BaseDepthwiseConv(BaseConv):
    """The base of the depthwise convolutions; kernel `(*kernel_size, channels, multiplier)`."""

    _requires_filters = False
    _lora_supported = False
    _float_file_order = None  # all its own weights, as Keras files them

    def __init__(
        self,
        kernel_size=None,
        strides=1,
        padding="valid",
        depth_multiplier=1,
        data_format=None,
        dilation_rate=1,
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            bias_initializer=bias_initializer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            bias_constraint=bias_constraint,
            **kwargs,
        )
        self.depth_multiplier = integer(depth_multiplier, "depth_multiplier", self._who)
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)

    def _depthwise_weight(self, channels, name):
        return self.add_weight(
            shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
            name=name,
        )

    def build(self, input_shape):
        channels = self._check_input(input_shape)
        self._output_spatial(input_shape)
        self.kernel = self._depthwise_weight(channels, "kernel")
        self._make_bias(channels * self.depth_multiplier)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True

    def call(self, inputs):
        x = ops.depthwise_conv(
            inputs,
            self.kernel,
            strides=self.strides,
            padding=self.padding,
            data_format=self.data_format,
            dilation_rate=self.dilation_rate,
        )
        return self._finish(x)

    def _out_channels(self, channels):
        return channels * self.depth_multiplier

    def compute_output_shape(self, input_shape):
        channels = self._check_input(input_shape)
        spatial = self._output_spatial(input_shape)
        return self._with_channels(input_shape[0], spatial, self._out_channels(channels))

    def get_config(self):
        return {
            **self._base_config(),
            "depth_multiplier": self.depth_multiplier,
            "depthwise_initializer": initializers.serialize(self.depthwise_initializer),
            "depthwise_regularizer": regularizers.serialize(self.depthwise_regularizer),
            "depthwise_constraint": constraints.serialize(self.depthwise_constraint),
        }


class BaseSeparableConv(BaseDepthwiseConv):
    """The base of the separable convolutions: depthwise, then a pointwise convolution."""

    def __init__(
        self,
        filters=None,
        kernel_size=None,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        depth_multiplier=1,
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        pointwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            depth_multiplier=depth_multiplier,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            depthwise_initializer=depthwise_initializer,
            bias_initializer=bias_initializer,
            depthwise_regularizer=depthwise_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint,
            bias_constraint=bias_constraint,
            **kwargs,
        )
        self.filters = integer(filters, "filters", self._who)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape):
        channels = self._check_input(input_shape)
        self._output_spatial(input_shape)
        self.depthwise_kernel = self._depthwise_weight(channels, "depthwise_kernel")
        self.pointwise_kernel = self.add_weight(
            shape=(1,) * self.rank + (channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
            name="pointwise_kernel",
        )
        self._make_bias(self.filters)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True

    def call(self, inputs):
        x = ops.separable_conv(
            inputs,
            self.depthwise_kernel,
            self.pointwise_kernel,
            strides=self.strides,
            padding=self.padding,
            data_format=self.data_format,
            dilation_rate=self.dilation_rate,
        )
        return self._finish(x)

    def _out_channels(self, channels):
        return self.filters

    def get_config(self):
        return {
            **super().get_config(),
            "filters": self.filters,
            "pointwise_initializer": initializers.serialize(self.pointwise_initializer),
            "pointwise_regularizer": regularizers.serialize(self.pointwise_regularizer),
            "pointwise_constraint": constraints.serialize(self.pointwise_constraint),
        }


@_register
class Conv1D(BaseConv):
    """1-D convolution (temporal convolution) over `(batch, steps, channels)` inputs.

    `padding="causal"` pads only on the left, so output step `t` depends only on input
    steps `<= t`.

    Args:
        filters, kernel_size, strides, padding, data_format, dilation_rate, groups,
        activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
        bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint,
        lora_rank, lora_alpha: see `Conv2D`; `padding` may also be `"causal"`.

    Kernel shape: `(kernel_size, channels // groups, filters)`.

    >>> Conv1D(4, 3, padding="causal").compute_output_shape((2, 10, 3))
    (2, 10, 4)
    """

    rank = 1


@_register
class Conv2D(BaseConv):
    """2-D convolution over `(batch, height, width, channels)` inputs.

    Args:
        filters: number of output channels.
        kernel_size: int or tuple of 2, the size of the convolution window.
        strides: int or tuple of 2 (strides > 1 and dilation_rate > 1 cannot combine).
        padding: `"valid"` (no padding) or `"same"` (output size `ceil(input / stride)`).
        data_format: `"channels_last"` or `"channels_first"` (default: the global
            `image_data_format()`).
        dilation_rate: int or tuple of 2, the spacing between kernel elements.
        groups: split the channels into `groups` groups convolved separately; both the
            input channels and `filters` must be divisible by it.
        activation: activation function or its name (default: none).
        use_bias: whether to add a bias vector.
        kernel_initializer, bias_initializer: initializers.
        kernel_regularizer, bias_regularizer, activity_regularizer: regularizers.
        kernel_constraint, bias_constraint: constraints.
        lora_rank: if set, LoRA is enabled when the layer is built: the kernel is frozen
            and a trainable low-rank update of this rank is learned instead (see
            `enable_lora`).
        lora_alpha: scales the LoRA update by `lora_alpha / lora_rank` (default: the rank).

    Kernel shape: `(*kernel_size, channels // groups, filters)`.

    >>> Conv2D(8, 3, strides=2, padding="same").compute_output_shape((1, 9, 9, 3))
    (1, 5, 5, 8)
    """

    rank = 2


@_register
class Conv3D(BaseConv):
    """3-D convolution over `(batch, depth, height, width, channels)` inputs.

    Args: as `Conv2D`, with tuples of 3.

    >>> Conv3D(2, 2).compute_output_shape((1, 4, 5, 6, 3))
    (1, 3, 4, 5, 2)
    """

    rank = 3


@_register
class Conv1DTranspose(BaseConvTranspose):
    """1-D transposed convolution (the gradient of `Conv1D` with respect to its input).

    Args:
        filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
        use_bias, initializers, regularizers, constraints: as `Conv1D` (no `groups`;
            `padding` is `"valid"` or `"same"`).
        output_padding: int or tuple, extra size added to one side of each output
            spatial dimension; each value must be smaller than its stride. `None` lets
            the size be inferred (`input * stride` for `"same"`).

    Kernel shape: `(kernel_size, filters, channels)`.

    >>> Conv1DTranspose(4, 3, strides=2, padding="same").compute_output_shape((2, 5, 3))
    (2, 10, 4)
    """

    rank = 1


@_register
class Conv2DTranspose(BaseConvTranspose):
    """2-D transposed convolution (sometimes called deconvolution).

    Args: as `Conv1DTranspose`, with tuples of 2.

    >>> Conv2DTranspose(4, 3, strides=2).compute_output_shape((1, 5, 5, 3))
    (1, 11, 11, 4)
    """

    rank = 2


@_register
class Conv3DTranspose(BaseConvTranspose):
    """3-D transposed convolution.

    Args: as `Conv1DTranspose`, with tuples of 3.

    >>> Conv3DTranspose(2, 2, strides=2).compute_output_shape((1, 2, 3, 4, 3))
    (1, 4, 6, 8, 2)
    """

    rank = 3


@_register
class DepthwiseConv1D(BaseDepthwiseConv):
    """1-D depthwise convolution: each input channel is convolved with its own filters.

    Args:
        kernel_size, strides, padding (`"valid"`, `"same"` or `"causal"`), data_format,
        dilation_rate, activation, use_bias: as `Conv1D`.
        depth_multiplier: output channels per input channel.
        depthwise_initializer, depthwise_regularizer, depthwise_constraint: for the
            `(kernel_size, channels, depth_multiplier)` kernel.
        bias_initializer, bias_regularizer, bias_constraint, activity_regularizer.

    Output channels: `channels * depth_multiplier`.

    >>> DepthwiseConv1D(3, depth_multiplier=2).compute_output_shape((2, 10, 3))
    (2, 8, 6)
    """

    rank = 1


@_register
class DepthwiseConv2D(BaseDepthwiseConv):
    """2-D depthwise convolution.

    Args: as `DepthwiseConv1D`, with tuples of 2 (`padding` `"valid"` or `"same"`).

    >>> DepthwiseConv2D(3, padding="same").compute_output_shape((1, 6, 6, 4))
    (1, 6, 6, 4)
    """

    rank = 2


@_register
class SeparableConv1D(BaseSeparableConv):
    """1-D separable convolution: a depthwise convolution, then a pointwise one.

    Args:
        filters, kernel_size, strides, padding, data_format, dilation_rate,
        depth_multiplier, activation, use_bias: as `DepthwiseConv1D` and `Conv1D`.
        depthwise_initializer, pointwise_initializer, bias_initializer: initializers.
        depthwise_regularizer, pointwise_regularizer, bias_regularizer,
        activity_regularizer: regularizers.
        depthwise_constraint, pointwise_constraint, bias_constraint: constraints.

    Weights: `depthwise_kernel` `(kernel_size, channels, depth_multiplier)`,
    `pointwise_kernel` `(1, channels * depth_multiplier, filters)`, `bias`.

    >>> SeparableConv1D(5, 3).compute_output_shape((2, 10, 3))
    (2, 8, 5)
    """

    rank = 1


@_register
class SeparableConv2D(BaseSeparableConv):
    """2-D separable convolution: a depthwise convolution, then a pointwise one.

    Args: as `SeparableConv1D`, with tuples of 2 (`padding` `"valid"` or `"same"`).

    >>> SeparableConv2D(5, 3, depth_multiplier=2).compute_output_shape((1, 7, 7, 3))
    (1, 5, 5, 5)
    """

    rank = 2


# Keras aliases.
Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D
Convolution1DTranspose = Conv1DTranspose
Convolution2DTranspose = Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose
SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D
