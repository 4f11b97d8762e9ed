"""Convolutional LSTM layers: ConvLSTM1D, ConvLSTM2D and ConvLSTM3D (Shi et al., 2015).

An LSTM whose input and recurrent transformations are convolutions, so its states are
feature maps (`(rows, cols, filters)` for 2D) rather than vectors. The layers run on the
generic `RNN` loop of `layers/recurrent.py`, whose contract is one `(batch, size)` tensor
per state. The cell therefore carries its two feature-map states flattened to
`(batch, prod(state_shape))` between steps and reshapes them inside each step; the layer
reshapes outputs, returned states, `initial_state` and `states` to and from feature maps,
so users only ever see feature maps. Masks, `go_backwards`, `stateful`, `unroll` and
dropout come from `RNN` unchanged.
"""

from __future__ import annotations

import math

from lamina import activations, backend, constraints, initializers, ops, regularizers, tree
from lamina.common import serialization
from lamina.layers.argument_validation import int_tuple, integer
from lamina.layers.convolution import _conv_output_length
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer
from lamina.layers.recurrent import RNN, DropoutRNNCell
from lamina.ops import random as ops_random


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


# The four gates share one kernel, in this order along its last axis (as Keras's LSTM).
_GATES = 4


class ConvLSTMCell(DropoutRNNCell, Layer):
    """One step of a convolutional LSTM of rank 1, 2 or 3 (the cell of `ConvLSTM{1,2,3}D`).

    Weights, named and shaped as Keras's: `kernel` `kernel_size + (channels, 4 * filters)`,
    `recurrent_kernel` `kernel_size + (filters, 4 * filters)` and `bias` `(4 * filters,)`,
    the gates in the order input, forget, cell, output. The input convolution uses
    `strides`, `padding` and `dilation_rate`; the recurrent one is a stride-1 `"same"`
    convolution of the previous output.

    Args:
        rank: 1, 2 or 3, the number of spatial dimensions.
        filters, kernel_size, strides, padding, data_format, dilation_rate: as for
            `ConvLSTM2D`.
        activation, recurrent_activation, use_bias, kernel_initializer,
        recurrent_initializer, bias_initializer, unit_forget_bias, kernel_regularizer,
        recurrent_regularizer, bias_regularizer, kernel_constraint,
        recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed: as for
        `ConvLSTM2D`.

    Call arguments: `inputs` one step, `(batch, *spatial, channels)` (channels first
    with `"channels_first"`); `states` `[h, c]`, each a feature map
    `(batch, *state_shape)` or, as `RNN` carries them, flattened to
    `(batch, prod(state_shape))`. Returns `(h, [h, c])` in the form the states came in.

    >>> import numpy as np
    >>> cell = ConvLSTMCell(2, filters=3, kernel_size=3, padding="same")
    >>> zeros = np.zeros((1, 4, 4, 3), "float32")
    >>> h, (h2, c) = cell(np.ones((1, 4, 4, 2), "float32"), [zeros, zeros])
    >>> h.shape, tuple(cell.kernel.shape), tuple(cell.recurrent_kernel.shape)
    ((1, 4, 4, 3), (3, 3, 2, 12), (3, 3, 3, 12))
    """

    def __init__(
        self,
        rank,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        unit_forget_bias=True,
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        who = f"ConvLSTM{rank}D"
        if rank not in (1, 2, 3):
            raise ValueError(f"ConvLSTM supports rank 1, 2 or 3 convolutions; received {rank!r}.")
        self.rank = rank
        self.filters = integer(filters, "filters", who)
        self.kernel_size = int_tuple(kernel_size, rank, "kernel_size", who)
        self.strides = int_tuple(strides, rank, "strides", who)
        self.dilation_rate = int_tuple(dilation_rate, rank, "dilation_rate", who)
        self.padding = str(padding).lower()
        if self.padding not in ("valid", "same"):
            raise ValueError(
                f"{who} expects `padding` to be 'valid' or 'same'; received {padding!r}."
            )
        try:
            self.data_format = backend.standardize_data_format(data_format)
        except ValueError as e:
            raise ValueError(f"{who}: {e}") from None
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"{who} does not support `strides` > 1 together with `dilation_rate` > 1; "
                f"received strides={self.strides}, dilation_rate={self.dilation_rate}."
            )
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self._init_dropout(dropout, recurrent_dropout, seed)
        self.input_spec = InputSpec(ndim=rank + 2)
        self.input_step_shape = None  # one step without the batch, known after build
        self.state_shape = None  # one state without the batch, known after build

    # Sizes ------------------------------------------------------------------------------
    @property
    def _channel_axis(self) -> int:
        return -1 if self.data_format == "channels_last" else 1

    @property
    def state_size(self):
        # RNN carries each state flattened; -1 (Keras's placeholder) until built.
        size = math.prod(self.state_shape) if self.state_shape is not None else -1
        return [size, size]

    @property
    def output_size(self):
        return self.state_size[0]

    def compute_state_shape(self, step_shape):
        """The shape of `h` (and `c`) for one step of shape `(batch, *spatial, channels)`."""
        step_shape = tuple(step_shape)
        spatial = step_shape[1:-1] if self.data_format == "channels_last" else step_shape[2:]
        out = []
        for size, k, s, d in zip(
            spatial, self.kernel_size, self.strides, self.dilation_rate, strict=True
        ):
            length = _conv_output_length(size, k, s, self.padding, d)
            if length is not None and length <= 0:
                raise ValueError(
                    f"ConvLSTM{self.rank}D: the kernel (kernel_size={self.kernel_size}, "
                    f"dilation_rate={self.dilation_rate}) is larger than the input with "
                    f"padding='valid'; received step shape {step_shape}."
                )
            out.append(length)
        if self.data_format == "channels_last":
            return (step_shape[0], *out, self.filters)
        return (step_shape[0], self.filters, *out)

    # Building ---------------------------------------------------------------------------
    def build(self, input_shape):
        shape = tuple(input_shape)
        if len(shape) != self.rank + 2:
            raise ValueError(
                f"ConvLSTM{self.rank}D cell {self.name!r} expects steps of rank "
                f"{self.rank + 2} (batch, spatial x{self.rank}, channels); received shape "
                f"{shape}."
            )
        spatial = shape[1:-1] if self.data_format == "channels_last" else shape[2:]
        channels = shape[self._channel_axis]
        if None in spatial or channels is None:
            raise ValueError(
                f"ConvLSTM{self.rank}D {self.name!r} needs the spatial and channel "
                f"dimensions of its input to be known ({self.data_format}); received step "
                f"shape {shape}. Give the Input a full shape, e.g. (timesteps, 32, 32, 3)."
            )
        self.input_step_shape = shape[1:]
        self.state_shape = self.compute_state_shape(shape)[1:]
        f = self.filters
        self.kernel = self.add_weight(
            shape=self.kernel_size + (channels, _GATES * f),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self.recurrent_kernel = self.add_weight(
            shape=self.kernel_size + (f, _GATES * f),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
            name="recurrent_kernel",
        )
        self.bias = None
        if self.use_bias:
            bias_init = self.bias_initializer
            if self.unit_forget_bias:
                base = self.bias_initializer

                def bias_init(shape, dtype=None):
                    return ops.concatenate(
                        [
                            base((f,), dtype=dtype),
                            ops.ones((f,), dtype=dtype),
                            base((2 * f,), dtype=dtype),
                        ]
                    )

            self.bias = self.add_weight(
                shape=(_GATES * f,),
                initializer=bias_init,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
        self.built = True

    # Dropout ----------------------------------------------------------------------------
    # Keras draws one mask per gate. The masks are shaped from the known step and state
    # shapes, so `RNN` may ask for them with any tensor that has the batch size first.
    def _masks(self, batch, shape, rate):
        # One draw for the four masks: each draw is a separate random program to compile.
        ones = ops.ones((_GATES, batch) + tuple(shape), dtype=self.compute_dtype)
        masks = ops_random.dropout(ones, rate, seed=self.seed_generator)
        return [masks[g] for g in range(_GATES)]

    def get_dropout_mask(self, step_input):
        if self._dropout_mask is None and 0.0 < self.dropout < 1.0:
            self._dropout_mask = self._masks(
                step_input.shape[0], self.input_step_shape, self.dropout
            )
        return self._dropout_mask

    def get_recurrent_dropout_mask(self, step_state):
        if self._recurrent_dropout_mask is None and 0.0 < self.recurrent_dropout < 1.0:
            self._recurrent_dropout_mask = self._masks(
                step_state.shape[0], self.state_shape, self.recurrent_dropout
            )
        return self._recurrent_dropout_mask

    # Calling ----------------------------------------------------------------------------
    def _conv(self, x, kernel, strides, padding, dilation_rate):
        return ops.conv(
            x,
            kernel,
            strides=strides,
            padding=padding,
            data_format=self.data_format,
            dilation_rate=dilation_rate,
        )

    def _gate_parts(self, x, kernel, masks, strides, padding, dilation_rate):
        """The four gates' convolutions of `x`, as one convolution with the whole kernel.

        When each gate sees its own dropout mask, the four masked copies of `x` are
        stacked along the channels and convolved as four groups: group g pairs copy g
        with gate g's slice of the kernel (one convolution rather than four)."""
        if masks is not None:
            x = ops.concatenate([ops.multiply(x, m) for m in masks], axis=self._channel_axis)
        out = self._conv(x, kernel, strides, padding, dilation_rate)
        return ops.split(out, _GATES, axis=self._channel_axis)

    def call(self, inputs, states, training=False):
        h_tm1, c_tm1 = states[0], states[1]
        flat = len(h_tm1.shape) == 2
        if flat:
            h_tm1 = ops.reshape(h_tm1, (-1,) + self.state_shape)
            c_tm1 = ops.reshape(c_tm1, (-1,) + self.state_shape)
        in_masks = rec_masks = None
        if training and 0.0 < self.dropout < 1.0:
            in_masks = self.get_dropout_mask(inputs)
        if training and 0.0 < self.recurrent_dropout < 1.0:
            rec_masks = self.get_recurrent_dropout_mask(h_tm1)
        ones = (1,) * self.rank
        x_parts = self._gate_parts(
            inputs, self.kernel, in_masks, self.strides, self.padding, self.dilation_rate
        )
        h_parts = self._gate_parts(h_tm1, self.recurrent_kernel, rec_masks, ones, "same", ones)
        if self.bias is not None:
            bias_shape = (
                (self.filters,) if self.data_format == "channels_last" else (self.filters,) + ones
            )
            biases = [ops.reshape(b, bias_shape) for b in ops.split(self.bias, _GATES)]
            x_parts = [ops.add(x, b) for x, b in zip(x_parts, biases, strict=True)]
        z_i, z_f, z_c, z_o = (ops.add(x, h) for x, h in zip(x_parts, h_parts, strict=True))
        i = self._ract(z_i)
        f = self._ract(z_f)
        c = ops.add(ops.multiply(f, c_tm1), ops.multiply(i, self._act(z_c)))
        o = self._ract(z_o)
        h = ops.multiply(o, self._act(c))
        if flat:
            size = self.state_size[0]
            h, c = ops.reshape(h, (-1, size)), ops.reshape(c, (-1, size))
        return h, [h, c]

    def _act(self, x):
        return self.activation(x) if self.activation is not None else x

    def _ract(self, x):
        return self.recurrent_activation(x) if self.recurrent_activation is not None else x

    def get_initial_state(self, batch_size=None):
        """Zero states in the flat form `RNN` carries: `[h, c]`, each `(batch, size)`."""
        return [ops.zeros((batch_size, s), dtype=self.compute_dtype) for s in self.state_size]

    # Config -----------------------------------------------------------------------------
    def _cell_config(self):
        return {
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation),
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": initializers.serialize(self.recurrent_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "unit_forget_bias": self.unit_forget_bias,
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "recurrent_regularizer": regularizers.serialize(self.recurrent_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "recurrent_constraint": constraints.serialize(self.recurrent_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        }

    def get_config(self):
        return {**Layer.get_config(self), "rank": self.rank, **self._cell_config()}


_CELL_ATTRS = frozenset(
    {
        "filters",
        "kernel_size",
        "strides",
        "padding",
        "data_format",
        "dilation_rate",
        "activation",
        "recurrent_activation",
        "use_bias",
        "kernel_initializer",
        "recurrent_initializer",
        "bias_initializer",
        "unit_forget_bias",
        "kernel_regularizer",
        "recurrent_regularizer",
        "bias_regularizer",
        "kernel_constraint",
        "recurrent_constraint",
        "bias_constraint",
        "dropout",
        "recurrent_dropout",
        "seed",
    }
)


class _ConvLSTM(RNN):
    """The shared body of ConvLSTM1D/2D/3D; each public class only sets `rank`."""

    rank = None

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        unit_forget_bias=True,
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        base = {k: kwargs[k] for k in ("dtype", "trainable") if k in kwargs}
        cell = ConvLSTMCell(
            rank=self.rank,
            filters=filters,
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            recurrent_activation=recurrent_activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            seed=seed,
            name="conv_lstm_cell",
            **base,
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            zero_output_for_mask=zero_output_for_mask,
            activity_regularizer=activity_regularizer,
            **kwargs,
        )
        self.input_spec = InputSpec(ndim=self.rank + 3)

    def __getattr__(self, name):
        if name in _CELL_ATTRS:
            cell = self.__dict__.get("cell")
            if cell is not None:
                return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    # Shapes -----------------------------------------------------------------------------
    def _check_input_shape(self, shape):
        shape = tuple(shape)
        if len(shape) != self.rank + 3:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} expects inputs of rank {self.rank + 3} "
                f"(batch, timesteps, spatial x{self.rank}, channels); received shape {shape}."
            )
        return shape

    def build(self, input_shape):
        if isinstance(input_shape, list) and input_shape and isinstance(input_shape[0], tuple):
            input_shape = input_shape[0]
        shape = self._check_input_shape(input_shape)
        super().build(shape)
        # The states' feature maps are sized by the first input: later inputs must match
        # it in every axis but the batch and the time.
        self.input_spec = InputSpec(shape=(None, None) + shape[2:])

    def _state_shape(self, batch):
        return (batch,) + tuple(self.cell.state_shape)

    def compute_output_shape(self, input_shape, initial_state_shape=None):
        if isinstance(input_shape, list) and input_shape and isinstance(input_shape[0], tuple):
            input_shape = input_shape[0]
        shape = self._check_input_shape(input_shape)
        state = self.cell.compute_state_shape((shape[0],) + shape[2:])
        out = (shape[0], shape[1]) + state[1:] if self.return_sequences else state
        if self.return_state:
            return [out, state, state]
        return out

    # States -----------------------------------------------------------------------------
    def _flatten_states(self, states, what):
        states = tree.flatten(states) if tree.is_nested(states) else [states]
        if len(states) != 2:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} has 2 states, [h, c]; {what} received "
                f"{len(states)}."
            )
        expected = self.cell.state_shape
        out = []
        for i, s in enumerate(states):
            s = s if ops.is_tensor(s) else ops.convert_to_tensor(s)
            if tuple(s.shape[1:]) != tuple(expected):
                raise ValueError(
                    f"{type(self).__name__} {self.name!r}: state {i} passed to {what} must "
                    f"have shape (batch, {', '.join(str(d) for d in expected)}); received "
                    f"{tuple(s.shape)}."
                )
            out.append(ops.reshape(s, (s.shape[0], math.prod(expected))))
        return out

    @property
    def states(self):
        """The current `[h, c]` feature maps of a stateful layer (None before its first call)."""
        flat = RNN.states.fget(self)
        if flat is None:
            return None
        return [ops.reshape(s, self._state_shape(s.shape[0])) for s in flat]

    def reset_states(self, states=None):
        """Zero the states of a stateful layer (or set them to the feature maps `states`)."""
        if states is not None and self.cell.state_shape is not None:
            states = self._flatten_states(states, "reset_states")
        super().reset_states(states)

    reset_state = reset_states

    def get_initial_state(self, batch_size):
        return [
            ops.zeros(self._state_shape(batch_size), dtype=self.compute_dtype) for _ in range(2)
        ]

    # Calling ----------------------------------------------------------------------------
    def call(self, sequences, initial_state=None, mask=None, training=False):
        if isinstance(sequences, (list, tuple)):
            if initial_state is None and len(sequences) > 1:
                initial_state = list(sequences[1:])
            sequences = sequences[0]
        if initial_state is not None:
            initial_state = self._flatten_states(initial_state, "initial_state")
        result = super().call(sequences, initial_state=initial_state, mask=mask, training=training)
        if self.return_state:
            output, states = result[0], result[1:]
        else:
            output, states = result, []
        output = ops.reshape(output, tuple(output.shape[:-1]) + tuple(self.cell.state_shape))
        states = [ops.reshape(s, self._state_shape(s.shape[0])) for s in states]
        return [output] + states if self.return_state else output

    # Config -----------------------------------------------------------------------------
    def get_config(self):
        return {
            **Layer.get_config(self),
            **self._rnn_config(),
            **self.cell._cell_config(),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return Layer.from_config.__func__(cls, config)


_DOC_ARGS = """
    Args:
        filters: the number of output filters of the convolutions (the channels of the
            states and the output).
        kernel_size: an int or a tuple of {ints}, the convolution window.
        strides: an int or a tuple of {ints}, the strides of the input
            convolution (the recurrent one always has stride 1). `strides` > 1 cannot be
            combined with `dilation_rate` > 1.
        padding: `"valid"` (no padding) or `"same"` (output as large as the input when
            `strides` is 1), case-insensitive, for the input convolution; the recurrent
            convolution always pads `"same"`.
        data_format: `"channels_last"` or `"channels_first"`, the layout of the inputs
            (see Input shape); default `lamina.backend.image_data_format()`.
        dilation_rate: an int or a tuple of {ints}, the dilation of the input
            convolution.
        activation: activation of the candidate cell state and of the output (default
            `"tanh"`).
        recurrent_activation: activation of the gates (default `"sigmoid"`).
        use_bias: whether the gates have a bias.
        kernel_initializer, recurrent_initializer, bias_initializer: initializers of
            `kernel`, `recurrent_kernel` and `bias` (defaults `"glorot_uniform"`,
            `"orthogonal"`, `"zeros"`).
        unit_forget_bias: add 1 to the forget gate's bias at initialization (use with
            `bias_initializer="zeros"`), as Jozefowicz et al. (2015) recommend.
        kernel_regularizer, recurrent_regularizer, bias_regularizer: regularizers of
            the weights.
        activity_regularizer: regularizer of the layer's output.
        kernel_constraint, recurrent_constraint, bias_constraint: constraints of the
            weights.
        dropout: fraction of the input to drop, during training, for the input
            convolutions (one mask per gate, the same at every step).
        recurrent_dropout: fraction of the previous output to drop, during training,
            for the recurrent convolutions.
        seed: seed of the dropout masks.
        return_sequences: return the output of every step rather than only the last.
        return_state: also return the last states, as `[output, h, c]`.
        go_backwards: process the sequence in reverse (and return the outputs in that
            reversed order).
        stateful: keep each batch's last states as the next batch's initial states
            (needs a fixed batch size); `reset_states()` zeroes them.
        unroll: run the time loop in Python rather than as one scan (short sequences).
        zero_output_for_mask: output zeros at masked steps (with `return_sequences`)
            rather than repeating the previous output.

    Call arguments:
        inputs: a {ndim}D tensor `(batch, timesteps, ...)`, laid out as above.
        mask: optional boolean `(batch, timesteps)`; a masked step leaves the states
            unchanged.
        training: enables dropout.
        initial_state: optional list `[h, c]` of initial states, each shaped like
            the output of one step.

    Input shape: `(batch, timesteps, {last_in})` with `"channels_last"`, or
    `(batch, timesteps, {first_in})` with `"channels_first"`.

    Output shape: the last output `(batch, {last_out})` (channels first:
    `(batch, {first_out})`), or `(batch, timesteps, ...)` with `return_sequences`;
    with `return_state`, a list `[output, h, c]` where `h` and `c` have the shape of
    the last output. The spatial sizes shrink with `padding="valid"` and `strides`.
"""


@_register
class ConvLSTM1D(_ConvLSTM):
    """1D convolutional LSTM: an LSTM whose transformations are 1D convolutions.

    Use it on sequences of 1D signals (e.g. a series of spectra), where each step's
    input and the states are `(steps, channels)` feature maps.
    {args}
    >>> import numpy as np
    >>> layer = ConvLSTM1D(2, 3, padding="same", return_sequences=True)
    >>> layer(np.ones((1, 4, 6, 3), "float32")).shape
    (1, 4, 6, 2)
    """

    rank = 1


@_register
class ConvLSTM2D(_ConvLSTM):
    """2D convolutional LSTM (Shi et al., 2015): an LSTM whose transformations are 2D
    convolutions.

    Use it on sequences of images (video frames, radar maps): each step's input and the
    states are images, so the layer learns spatio-temporal patterns. (As in Keras, there
    are no peephole connections from the cell state to the gates.)
    {args}
    >>> import numpy as np
    >>> out, h, c = ConvLSTM2D(2, 3, return_state=True)(np.ones((1, 4, 5, 5, 3), "float32"))
    >>> out.shape, h.shape, c.shape
    ((1, 3, 3, 2), (1, 3, 3, 2), (1, 3, 3, 2))
    """

    rank = 2


@_register
class ConvLSTM3D(_ConvLSTM):
    """3D convolutional LSTM: an LSTM whose transformations are 3D convolutions.

    Use it on sequences of volumes (e.g. a time series of 3D scans).
    {args}
    >>> import numpy as np
    >>> ConvLSTM3D(2, 2, padding="same")(np.ones((1, 2, 3, 3, 3, 1), "float32")).shape
    (1, 3, 3, 3, 2)
    """

    rank = 3


def _fill_docs():
    shapes = {
        1: ("steps, channels", "channels, steps", "new_steps, filters", "filters, new_steps"),
        2: (
            "rows, cols, channels",
            "channels, rows, cols",
            "new_rows, new_cols, filters",
            "filters, new_rows, new_cols",
        ),
        3: (
            "dim1, dim2, dim3, channels",
            "channels, dim1, dim2, dim3",
            "new_dim1, new_dim2, new_dim3, filters",
            "filters, new_dim1, new_dim2, new_dim3",
        ),
    }
    for cls in (ConvLSTM1D, ConvLSTM2D, ConvLSTM3D):
        last_in, first_in, last_out, first_out = shapes[cls.rank]
        args = _DOC_ARGS.format(
            rank=cls.rank,
            ints="1 int" if cls.rank == 1 else f"{cls.rank} ints",
            ndim=cls.rank + 3,
            last_in=last_in,
            first_in=first_in,
            last_out=last_out,
            first_out=first_out,
        )
        cls.__doc__ = cls.__doc__.replace("    {args}\n", args + "\n")


_fill_docs()
