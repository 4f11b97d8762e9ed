"""Locally-connected layers: LocallyConnected1D, LocallyConnected2D (classic Keras's
`keras.layers.local`; Keras 3 dropped them).

A locally-connected layer is a convolution whose filters are not shared: every output
position has its own kernel. It is computed as one batched contraction: the input
patches of every output position are gathered (with index arrays fixed at build time),
flattened, and contracted with a kernel of shape `(positions, patch_size, filters)` —
classic Keras's kernel layout, so weights move between the two.
"""

from __future__ import annotations

import numpy as np

from lamina import activations, backend, constraints, initializers, ops, regularizers
from lamina.common import serialization
from lamina.layers.argument_validation import int_tuple, integer
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


class _LocallyConnected(Layer):
    """Shared code of the 1D and 2D layers; `rank` is the number of spatial axes."""

    rank = 0

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        implementation=1,
        **kwargs,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        who = type(self).__name__
        self.filters = integer(filters, "filters", who)
        self.kernel_size = int_tuple(kernel_size, self.rank, "kernel_size", who)
        self.strides = int_tuple(strides, self.rank, "strides", who)
        if str(padding).lower() != "valid":
            raise ValueError(
                f"{who} supports only padding='valid' (as classic Keras did); received "
                f"{padding!r}. Pad the input first with a ZeroPadding layer."
            )
        self.padding = "valid"
        self.data_format = backend.standardize_data_format(data_format)
        if self.rank == 1 and self.data_format != "channels_last":
            raise ValueError(f"{who} supports only data_format='channels_last'.")
        # Classic Keras offered three implementations of the same function; one serves.
        self.implementation = integer(implementation, "implementation", who)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _spatial_and_channels(self, input_shape):
        if self.data_format == "channels_last":
            return tuple(input_shape[1:-1]), input_shape[-1]
        return tuple(input_shape[2:]), input_shape[1]

    def _output_spatial(self, spatial):
        out = []
        for size, k, s in zip(spatial, self.kernel_size, self.strides, strict=True):
            if size is None:
                raise ValueError(
                    f"{type(self).__name__} {self.name!r} needs fully known spatial "
                    f"dimensions (each output position has its own kernel); received {spatial}."
                )
            out.append((size - k) // s + 1)
        if any(o < 1 for o in out):
            raise ValueError(
                f"{type(self).__name__} {self.name!r}: kernel_size {self.kernel_size} is larger "
                f"than the input's spatial shape {spatial}."
            )
        return tuple(out)

    def build(self, input_shape):
        spatial, channels = self._spatial_and_channels(input_shape)
        if channels is None:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} needs a known channel dimension; "
                f"received input shape {tuple(input_shape)}."
            )
        self._out_spatial = self._output_spatial(spatial)
        positions = int(np.prod(self._out_spatial))
        patch = int(np.prod(self.kernel_size)) * channels
        self.kernel = self.add_weight(
            shape=(positions, patch, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=self._out_spatial + (self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
        # Which input index each (output position, kernel offset) reads, per axis.
        self._indices = [
            (np.arange(o)[:, None] * s + np.arange(k)[None, :]).reshape(-1)
            for o, k, s in zip(self._out_spatial, self.kernel_size, self.strides, strict=True)
        ]
        channel_axis = -1 if self.data_format == "channels_last" else 1
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={channel_axis: channels})
        self.built = True

    def call(self, inputs):
        x = inputs
        if self.data_format == "channels_first":
            x = ops.moveaxis(x, 1, -1)
        # Gather axis by axis: (b, o1*k1, s2, c) -> (b, o1, k1, o2*k2, c) -> ...
        for axis, (index, o, k) in enumerate(
            zip(self._indices, self._out_spatial, self.kernel_size, strict=True)
        ):
            position = 1 + 2 * axis
            x = ops.take(x, index, axis=position)
            shape = tuple(x.shape)
            x = ops.reshape(x, (-1,) + shape[1:position] + (o, k) + shape[position + 1 :])
        # (b, o1, k1, o2, k2, c) -> (b, o1, o2, <patch>): the patch is (k1, k2, c) read
        # channels-last and (c, k1, k2) channels-first, as classic Keras flattened it.
        outs = [1 + 2 * i for i in range(self.rank)]
        ks = [2 + 2 * i for i in range(self.rank)]
        channel = 1 + 2 * self.rank
        patch_order = ks + [channel] if self.data_format == "channels_last" else [channel] + ks
        x = ops.transpose(x, [0] + outs + patch_order)
        positions, patch, _ = self.kernel.shape
        x = ops.reshape(x, (-1, positions, patch))
        y = ops.einsum("bpf,pfo->bpo", x, self.kernel)
        y = ops.reshape(y, (-1,) + self._out_spatial + (self.filters,))
        if self.bias is not None:
            y = y + self.bias
        if self.data_format == "channels_first":
            y = ops.moveaxis(y, -1, 1)
        return self.activation(y) if self.activation is not None else y

    def compute_output_shape(self, input_shape):
        spatial, _ = self._spatial_and_channels(input_shape)
        out = self._output_spatial(spatial)
        if self.data_format == "channels_last":
            return (input_shape[0],) + out + (self.filters,)
        return (input_shape[0], self.filters) + out

    def get_config(self):
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": list(self.kernel_size),
            "strides": list(self.strides),
            "padding": self.padding,
            "data_format": self.data_format,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "implementation": self.implementation,
        }


@_register
class LocallyConnected1D(_LocallyConnected):
    """A 1D convolution with unshared weights: each output step has its own kernel.

    Args:
        filters: the number of output channels.
        kernel_size: the window length (an int or a 1-tuple).
        strides: the step between windows.
        padding: only `"valid"`.
        data_format: only `"channels_last"` (inputs `(batch, steps, channels)`).
        activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
            bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint:
            as for `Conv1D`.
        implementation: accepted for classic Keras's signature (1, 2 or 3 computed the
            same function there); lamina has one implementation.

    Input shape: `(batch, steps, channels)`. Output shape: `(batch, new_steps, filters)`.
    Weights: `kernel` `(new_steps, kernel_size * channels, filters)`, `bias`
    `(new_steps, filters)`.

    >>> import numpy as np
    >>> LocallyConnected1D(4, 3)(np.ones((2, 10, 5))).shape
    (2, 8, 4)
    """

    rank = 1


@_register
class LocallyConnected2D(_LocallyConnected):
    """A 2D convolution with unshared weights: each output pixel has its own kernel.

    Args:
        filters: the number of output channels.
        kernel_size: an int or a pair `(rows, cols)`.
        strides: an int or a pair.
        padding: only `"valid"`.
        data_format: `"channels_last"` (default) or `"channels_first"`.
        activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
            bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint:
            as for `Conv2D`.
        implementation: accepted for classic Keras's signature; one implementation.

    Input shape: `(batch, rows, cols, channels)` (channels last). Output shape:
    `(batch, new_rows, new_cols, filters)`. Weights: `kernel`
    `(new_rows * new_cols, rows_k * cols_k * channels, filters)`, `bias`
    `(new_rows, new_cols, filters)`.

    >>> import numpy as np
    >>> LocallyConnected2D(2, (3, 3))(np.ones((1, 6, 5, 3))).shape
    (1, 4, 3, 2)
    """

    rank = 2


__all__ = ["LocallyConnected1D", "LocallyConnected2D"]
