"""Recurrent layers: the generic `RNN` loop and the SimpleRNN, LSTM and GRU layers.

`RNN` runs a cell (see `layers/recurrent_cells.py`) over the time axis with `ops.scan` (a
Python loop only when `unroll=True`), and handles masks, `go_backwards`,
`initial_state`, `return_state` and `stateful`. The cells are re-exported here, so
`lamina.layers.recurrent.LSTMCell` and friends keep working.
"""

from __future__ import annotations

from lamina import backend, ops, tree
from lamina.common import serialization
from lamina.layers.input_spec import InputSpec, shapes_differ
from lamina.layers.layer import Layer
from lamina.layers.recurrent_cells import (
    DropoutRNNCell,
    GRUCell,
    LSTMCell,
    SimpleRNNCell,
    StackedRNNCells,
    _cell_call,
    _cell_output_size,
    _CellBase,
    _flat_sizes,
    _initial_state,
    _register,
)

__all__ = [
    "GRU",
    "LSTM",
    "RNN",
    "DropoutRNNCell",
    "GRUCell",
    "LSTMCell",
    "SimpleRNN",
    "SimpleRNNCell",
    "StackedRNNCells",
]


def _output_state_index(cell):
    """Index, in the flat state list, of the state that holds the cell's output."""
    if isinstance(cell, StackedRNNCells):
        last = cell.cells[-1]
        before = sum(len(_flat_sizes(c.state_size)) for c in cell.cells[:-1])
        inner = _output_state_index(last)
        return None if inner is None else before + inner
    return 0


def _state_template(cell):
    """The nesting Keras gives the states of a cell: a stack has one list per cell
    (`[h]` for SimpleRNN and GRU cells, `[h, c]` for an LSTM cell)."""
    if isinstance(cell, StackedRNNCells):
        return [_state_template(c) for c in cell.cells]
    return [0] * len(_flat_sizes(cell.state_size))


def _cells_of(cell):
    if isinstance(cell, StackedRNNCells):
        out = []
        for c in cell.cells:
            out.extend(_cells_of(c))
        return out
    return [cell]


@_register
class RNN(Layer):
    """Runs a recurrent cell over the time axis of a sequence.

    Args:
        cell: a cell (an object with `call(inputs, states)`, `state_size` and optionally
            `output_size`), or a list of cells (stacked with `StackedRNNCells`).
        return_sequences: return the output at every step, `(batch, timesteps, units)`,
            rather than only the last one.
        return_state: also return the final states, as `[output, *states]` (for
            stacked cells, one list per cell, as Keras: `[h]`, or `[h, c]` for LSTM).
        go_backwards: process the sequence in reverse (outputs come in reverse order).
        stateful: keep the final states of a batch as the initial states of the next
            (needs a fixed batch size); `reset_states()` zeroes them.
        unroll: unroll the loop in Python (short sequences only); otherwise `ops.scan`.
        zero_output_for_mask: output zeros at masked steps (only with
            `return_sequences`) instead of repeating the previous output (before the
            first unmasked step: the output part of the initial state).

    Call arguments:
        inputs: `(batch, timesteps, features)`.
        initial_state: optional list of initial state tensors, one per state; for
            stacked cells, Keras's nested form (one entry per cell, e.g. `[h, c]` for
            an LSTM cell) or the same tensors as a flat list.
        mask: optional boolean `(batch, timesteps)`; at a masked step the states are
            carried over unchanged.
        training: enables dropout in the cell.

    >>> import numpy as np
    >>> layer = RNN(SimpleRNNCell(4), return_sequences=True)
    >>> layer(np.ones((2, 5, 3))).shape
    (2, 5, 4)
    >>> out, h = RNN(SimpleRNNCell(4), return_state=True)(np.ones((2, 5, 3)))
    >>> out.shape, h.shape
    ((2, 4), (2, 4))
    """

    def __init__(
        self,
        cell,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        if kwargs.pop("time_major", False):
            # Keras 2 configs may carry time_major=False; batch-major is all lamina runs.
            raise ValueError(
                f"{type(self).__name__} does not support time_major=True; pass inputs as "
                "(batch, timesteps, features) and drop the argument."
            )
        super().__init__(**kwargs)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError(
                "RNN expects `cell` to have a `call` method and a `state_size` attribute; "
                f"received {cell!r}."
            )
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.zero_output_for_mask = zero_output_for_mask
        self.supports_masking = True
        self.input_spec = InputSpec(min_ndim=3)
        self._states = None

    # State -----------------------------------------------------------------------------
    @property
    def state_sizes(self):
        return _flat_sizes(self.cell.state_size)

    @property
    def states(self):
        """The current states of a stateful layer (None before its first call)."""
        if self._states is None:
            return None
        return [v.value for v in self._states.variables]

    def _runtime_state(self) -> list:
        return list(self._states.variables) if self._states is not None else []

    def get_initial_state(self, batch_size):
        return self._nest_states(_initial_state(self.cell, batch_size, self.compute_dtype))

    def _make_state_variables(self, batch_size):
        self._states = _StateHolder(
            [
                backend.Variable(
                    ops.zeros((batch_size, s), dtype=self.compute_dtype),
                    trainable=False,
                    name=f"state_{i}",
                )
                for i, s in enumerate(self.state_sizes)
            ]
        )

    def reset_states(self, states=None):
        """Zero the states of a stateful RNN (or set them to `states`)."""
        if not self.stateful:
            raise AttributeError("reset_states() is only available on a stateful RNN.")
        if self._states is None:
            return
        variables = self._states.variables
        if states is None:
            for v in variables:
                v.assign(ops.zeros(v.shape, dtype=v.dtype))
            return
        states = tree.flatten(states) if tree.is_nested(states) else [states]
        if len(states) != len(variables):
            raise ValueError(
                f"RNN {self.name!r} has {len(variables)} state(s); reset_states received "
                f"{len(states)}."
            )
        for v, s in zip(variables, states, strict=True):
            v.assign(s)

    reset_state = reset_states

    # Building --------------------------------------------------------------------------
    def build(self, input_shape):
        if isinstance(input_shape, list) and input_shape and isinstance(input_shape[0], tuple):
            input_shape = input_shape[0]
        input_shape = tuple(input_shape)
        step_shape = (input_shape[0],) + input_shape[2:]
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell._build_shapes = step_shape
            self.cell.build(step_shape)
            self.cell.built = True
        if self.stateful and input_shape[0] is not None:
            self._make_state_variables(input_shape[0])
        self.built = True

    # Calling ---------------------------------------------------------------------------
    def _nest_states(self, flat):
        """The flat states in Keras's structure (nested per cell for stacked cells)."""
        if not isinstance(self.cell, StackedRNNCells):
            return list(flat)
        return tree.pack_sequence_as(_state_template(self.cell), list(flat))

    def _validate_initial_state(self, initial_state, batch_size):
        # Stacked cells take Keras's nested form (`[[h1, c1], [h2, c2]]`) or a flat list.
        states = tree.flatten(initial_state) if tree.is_nested(initial_state) else [initial_state]
        sizes = self.state_sizes
        if len(states) != len(sizes):
            expected = self._nest_states(sizes)
            raise ValueError(
                f"RNN {self.name!r} expects {len(sizes)} initial state tensor(s), of sizes "
                f"{expected} (each `(batch, size)`); received {len(states)}. Pass one "
                "tensor per state, e.g. `[h, c]` for an LSTM."
            )
        out = []
        for i, (s, size) in enumerate(zip(states, sizes, strict=True)):
            s = ops.convert_to_tensor(s) if not ops.is_tensor(s) else s
            shape = tuple(s.shape)
            if len(shape) != 2 or shape[1] != size or shape[0] != batch_size:
                raise ValueError(
                    f"RNN {self.name!r}: initial state {i} must have shape "
                    f"({batch_size}, {size}); received {shape}."
                )
            if ops.dtype(s) != self.compute_dtype:
                s = ops.cast(s, self.compute_dtype)
            out.append(s)
        return out

    def call(self, sequences, initial_state=None, mask=None, training=False):
        if isinstance(sequences, (list, tuple)):
            if initial_state is None and len(sequences) > 1:
                initial_state = list(sequences[1:])
            sequences = sequences[0]
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        batch_size = sequences.shape[0]
        timesteps = sequences.shape[1]
        if mask is not None and shapes_differ(mask.shape, (batch_size, timesteps)):
            raise ValueError(
                f"{type(self).__name__} {self.name!r}: the mask must have shape (batch, "
                f"timesteps) = {(batch_size, timesteps)} for input shape "
                f"{tuple(sequences.shape)}; received mask shape {tuple(mask.shape)}."
            )

        use_state_vars = False
        if initial_state is not None:
            states = self._validate_initial_state(initial_state, batch_size)
        elif self.stateful:
            if self._states is None and not backend.in_stateless_scope():
                self._make_state_variables(batch_size)
            variables = self._states.variables if self._states is not None else None
            if variables is not None and tuple(variables[0].shape)[0] == batch_size:
                # Copies: the states are assigned below, and on torch an in-place write
                # to a tensor the backward pass still needs fails.
                states = [ops.copy(v.value) for v in variables]
                use_state_vars = True
            else:
                states = _initial_state(self.cell, batch_size, self.compute_dtype)
        else:
            states = _initial_state(self.cell, batch_size, self.compute_dtype)

        cells = [c for c in _cells_of(self.cell) if isinstance(c, DropoutRNNCell)]
        if training and cells:
            in_size, idx = sequences.shape[-1], 0
            for c in _cells_of(self.cell):
                if isinstance(c, DropoutRNNCell):
                    if c.dropout > 0:
                        c.get_dropout_mask(ops.zeros((batch_size, in_size), sequences.dtype))
                    if c.recurrent_dropout > 0:
                        c.get_recurrent_dropout_mask(states[idx])
                idx += len(_flat_sizes(c.state_size))
                in_size = _cell_output_size(c)
        try:
            outputs, last_output, new_states = self._loop(
                sequences, states, mask, training, timesteps
            )
        finally:
            for c in cells:
                c.reset_dropout_mask()
                c.reset_recurrent_dropout_mask()

        if use_state_vars:
            for v, s in zip(self._states.variables, new_states, strict=True):
                v.assign(s)
        output = outputs if self.return_sequences else last_output
        if self.return_state:
            return [output] + self._nest_states(new_states)
        return output

    def _loop(self, inputs, states, mask, training, timesteps):
        xs = ops.swapaxes(inputs, 0, 1)
        ms = None
        if mask is not None:
            ms = ops.swapaxes(ops.cast(mask, "bool"), 0, 1)
        if self.go_backwards:
            xs = ops.flip(xs, axis=0)
            if ms is not None:
                ms = ops.flip(ms, axis=0)
        out_size = _cell_output_size(self.cell)
        # A masked step repeats the previous output; before the first step that is the
        # output part of the initial state (Keras: the last cell's first state), so a
        # pre-padded sequence given an `initial_state` emits that state, as in Keras.
        prev_out = ops.zeros((inputs.shape[0], out_size), dtype=self.compute_dtype)
        first = _output_state_index(self.cell)
        if first is not None and first < len(states):
            if tuple(states[first].shape) == tuple(prev_out.shape):
                prev_out = ops.cast(states[first], self.compute_dtype)
        zero_out = self.zero_output_for_mask and self.return_sequences

        def step(carry, x_m):
            prev_o, st = carry
            x, m = x_m if ms is not None else (x_m, None)
            out, new = _cell_call(self.cell, x, list(st), training)
            new = [ops.cast(n, ops.dtype(s)) for n, s in zip(new, st, strict=True)]
            if m is not None:
                mm = ops.expand_dims(m, -1)
                new = [ops.where(mm, n, s) for n, s in zip(new, st, strict=True)]
                kept = ops.where(mm, out, prev_o)
                emitted = ops.where(mm, out, ops.zeros_like(out)) if zero_out else kept
                return (kept, new), emitted
            return (out, new), out

        seq = (xs, ms) if ms is not None else xs
        if self.unroll:
            if timesteps is None:
                raise ValueError("RNN with unroll=True needs a known number of timesteps.")
            carry = (prev_out, list(states))
            ys = []
            for t in range(timesteps):
                x_t = (xs[t], ms[t]) if ms is not None else xs[t]
                carry, y = step(carry, x_t)
                ys.append(y)
            ys = ops.stack(ys, axis=0)
        else:
            carry, ys = ops.scan(step, (prev_out, list(states)), seq)
        last_output, new_states = carry
        outputs = ops.swapaxes(ys, 0, 1)
        return outputs, last_output, list(new_states)

    # Shapes and masks ------------------------------------------------------------------
    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, list) and input_shape and isinstance(input_shape[0], tuple):
            input_shape = input_shape[0]
        batch = input_shape[0]
        out_size = _cell_output_size(self.cell)
        if self.return_sequences:
            out = (batch, input_shape[1], out_size)
        else:
            out = (batch, out_size)
        if self.return_state:
            return [out] + self._nest_states([(batch, s) for s in self.state_sizes])
        return out

    def compute_mask(self, inputs, previous_mask=None):
        if isinstance(previous_mask, (list, tuple)):
            previous_mask = previous_mask[0]
        out = previous_mask if self.return_sequences else None
        if self.return_state:
            return [out] + self._nest_states([None] * len(self.state_sizes))
        return out

    # Config ----------------------------------------------------------------------------
    def _rnn_config(self):
        return {
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "zero_output_for_mask": self.zero_output_for_mask,
        }

    def get_config(self):
        return {
            **super().get_config(),
            **self._rnn_config(),
            "cell": serialization.serialize_keras_object(self.cell, "layers"),
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["cell"] = serialization.deserialize_keras_object(
            config["cell"], "layers", custom_objects=custom_objects
        )
        return super().from_config(config)


class _StateHolder:
    """Holds the state variables of a stateful RNN outside the weight tracking."""

    def __init__(self, variables):
        self.variables = variables


class _SingleCellRNN(RNN):
    """SimpleRNN, LSTM and GRU: an RNN whose constructor takes the cell's arguments."""

    _cell_class = None

    def __init__(self, cell_kwargs, rnn_kwargs, activity_regularizer=None, **kwargs):
        kwargs.pop("use_cudnn", None)
        if "implementation" in kwargs:  # Keras 2 code (LSTM/GRU); the cell checks it
            cell_kwargs = {**cell_kwargs, "implementation": kwargs.pop("implementation")}
        base = {k: kwargs.pop(k) for k in ("dtype", "trainable") if k in kwargs}
        cell = self._cell_class(**cell_kwargs, **base)
        super().__init__(
            cell, activity_regularizer=activity_regularizer, **rnn_kwargs, **base, **kwargs
        )
        self.input_spec = InputSpec(ndim=3)

    def __getattr__(self, name):
        if name in _CELL_ATTRS:
            cell = self.__dict__.get("cell")
            if cell is not None:
                return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    def get_config(self):
        config = Layer.get_config(self)
        config.update(self.cell._cell_config())
        for key in ("unit_forget_bias", "reset_after"):
            if hasattr(self.cell, key):
                config[key] = getattr(self.cell, key)
        if self._cell_class is SimpleRNNCell:
            config.pop("recurrent_activation", None)
        config.update(self._rnn_config())
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return Layer.from_config.__func__(cls, config)


# Cell arguments an RNN layer exposes as its own attributes (`lstm.units`, ...).
_CELL_ATTRS = frozenset(_CellBase._cell_keys) | {"unit_forget_bias", "reset_after"}


@_register
class SimpleRNN(_SingleCellRNN):
    """A fully connected RNN whose output is fed back as the next step's state.

    Takes the arguments of `SimpleRNNCell` (units, activation="tanh", use_bias,
    initializers, regularizers, constraints, dropout, recurrent_dropout, seed) and of
    `RNN` (return_sequences, return_state, go_backwards, stateful, unroll), plus
    `activity_regularizer`.

    >>> import numpy as np
    >>> SimpleRNN(4)(np.ones((2, 5, 3))).shape
    (2, 4)
    """

    _cell_class = SimpleRNNCell

    def __init__(
        self,
        units,
        activation="tanh",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        seed=None,
        zero_output_for_mask=False,
        **kwargs,
    ):
        cell_kwargs = dict(
            units=units,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            seed=seed,
        )
        rnn_kwargs = dict(
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            zero_output_for_mask=zero_output_for_mask,
        )
        super().__init__(cell_kwargs, rnn_kwargs, activity_regularizer, **kwargs)


@_register
class LSTM(_SingleCellRNN):
    """Long Short-Term Memory layer (Hochreiter & Schmidhuber, 1997).

    Takes the arguments of `LSTMCell` (units, activation="tanh",
    recurrent_activation="sigmoid", use_bias, initializers, unit_forget_bias=True,
    regularizers, constraints, dropout, recurrent_dropout, seed) and of `RNN`
    (return_sequences, return_state, go_backwards, stateful, unroll), plus
    `activity_regularizer`. With `return_state` it returns `[output, h, c]`.

    >>> import numpy as np
    >>> out, h, c = LSTM(4, return_sequences=True, return_state=True)(np.ones((2, 5, 3)))
    >>> out.shape, h.shape, c.shape
    ((2, 5, 4), (2, 4), (2, 4))
    """

    _cell_class = LSTMCell

    def __init__(
        self,
        units,
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
        cell_kwargs = dict(
            units=units,
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
        )
        rnn_kwargs = dict(
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            zero_output_for_mask=zero_output_for_mask,
        )
        super().__init__(cell_kwargs, rnn_kwargs, activity_regularizer, **kwargs)


@_register
class GRU(_SingleCellRNN):
    """Gated Recurrent Unit layer (Cho et al., 2014).

    Takes the arguments of `GRUCell` (units, activation="tanh",
    recurrent_activation="sigmoid", use_bias, initializers, regularizers, constraints,
    dropout, recurrent_dropout, reset_after=True, seed) and of `RNN`
    (return_sequences, return_state, go_backwards, stateful, unroll), plus
    `activity_regularizer`.

    >>> import numpy as np
    >>> GRU(4, return_sequences=True)(np.ones((2, 5, 3))).shape
    (2, 5, 4)
    """

    _cell_class = GRUCell

    def __init__(
        self,
        units,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
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
        reset_after=True,
        zero_output_for_mask=False,
        **kwargs,
    ):
        cell_kwargs = dict(
            units=units,
            activation=activation,
            recurrent_activation=recurrent_activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            reset_after=reset_after,
            seed=seed,
        )
        rnn_kwargs = dict(
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            zero_output_for_mask=zero_output_for_mask,
        )
        super().__init__(cell_kwargs, rnn_kwargs, activity_regularizer, **kwargs)
