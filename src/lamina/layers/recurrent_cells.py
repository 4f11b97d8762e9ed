"""Recurrent cells: one time step each (SimpleRNNCell, LSTMCell, GRUCell), a stack of
cells (StackedRNNCells), and the `DropoutRNNCell` mixin that gives a cell its dropout masks.

A cell computes one time step: `output, new_states = cell.call(x_t, states)`; the `RNN`
layer of `layers/recurrent.py` runs it over the time axis. Every name here is also
importable from `lamina.layers.recurrent` and `lamina.layers`.
"""

from __future__ import annotations

from lamina import activations, constraints, initializers, ops, regularizers, tree
from lamina.common import serialization
from lamina.layers.argument_validation import integer
from lamina.layers.layer import Layer
from lamina.ops import random as ops_random


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _check_rate(name, value):
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"`{name}` must be in [0, 1]; received {value!r}.")
    return min(1.0, max(0.0, float(value)))


def _as_list(x):
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _flat_sizes(state_size) -> list:
    """A cell's `state_size` as a flat list of ints (a stack nests one entry per cell)."""
    if isinstance(state_size, (list, tuple)):
        return [s for item in state_size for s in _flat_sizes(item)]
    return [state_size]


def _cell_output_size(cell):
    if getattr(cell, "output_size", None) is not None:
        return cell.output_size
    return _flat_sizes(cell.state_size)[0]


def _initial_state(cell, batch_size, dtype):
    if hasattr(cell, "get_initial_state"):
        return _as_list(cell.get_initial_state(batch_size))
    return [ops.zeros((batch_size, s), dtype=dtype) for s in _flat_sizes(cell.state_size)]


def _cell_call(cell, x, states, training):
    if getattr(cell, "_call_has_training_arg", False):
        out, new = cell.call(x, states, training=training)
    else:
        out, new = cell.call(x, states)
    return out, _as_list(new)


def _implementation(value, who: str) -> int:
    if value not in (1, 2):
        raise ValueError(
            f"{who} expects `implementation` to be 1 or 2 (Keras's modes); received {value!r}."
        )
    return int(value)


class DropoutRNNCell:
    """Mixin giving a cell one dropout mask per sequence for inputs and for states.

    `RNN` creates the masks before the time loop (so that the loop stays pure) and clears
    them afterwards; a cell used on its own creates them on demand.
    """

    def _init_dropout(self, dropout, recurrent_dropout, seed):
        self.dropout = _check_rate("dropout", dropout)
        self.recurrent_dropout = _check_rate("recurrent_dropout", recurrent_dropout)
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)
        self._dropout_mask = None
        self._recurrent_dropout_mask = None

    def get_dropout_mask(self, step_input):
        if self._dropout_mask is None and self.dropout > 0:
            ones = ops.ones_like(step_input)
            self._dropout_mask = ops_random.dropout(ones, self.dropout, seed=self.seed_generator)
        return self._dropout_mask

    def get_recurrent_dropout_mask(self, step_state):
        if self._recurrent_dropout_mask is None and self.recurrent_dropout > 0:
            ones = ops.ones_like(step_state)
            self._recurrent_dropout_mask = ops_random.dropout(
                ones, self.recurrent_dropout, seed=self.seed_generator
            )
        return self._recurrent_dropout_mask

    def reset_dropout_mask(self):
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self):
        self._recurrent_dropout_mask = None

    def _apply_dropout(self, inputs, h_tm1, training):
        if training and self.dropout > 0:
            inputs = ops.multiply(inputs, self.get_dropout_mask(inputs))
        if training and self.recurrent_dropout > 0:
            h_tm1 = ops.multiply(h_tm1, self.get_recurrent_dropout_mask(h_tm1))
        return inputs, h_tm1


class _CellBase(DropoutRNNCell, Layer):
    """Shared argument handling of the three built-in cells."""

    _cell_keys = (
        "units",
        "activation",
        "recurrent_activation",
        "use_bias",
        "kernel_initializer",
        "recurrent_initializer",
        "bias_initializer",
        "kernel_regularizer",
        "recurrent_regularizer",
        "bias_regularizer",
        "kernel_constraint",
        "recurrent_constraint",
        "bias_constraint",
        "dropout",
        "recurrent_dropout",
        "seed",
    )

    def _init_common(
        self,
        units,
        activation,
        recurrent_activation,
        use_bias,
        kernel_initializer,
        recurrent_initializer,
        bias_initializer,
        kernel_regularizer,
        recurrent_regularizer,
        bias_regularizer,
        kernel_constraint,
        recurrent_constraint,
        bias_constraint,
        dropout,
        recurrent_dropout,
        seed,
    ):
        self.units = integer(units, "units", type(self).__name__)
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self._init_dropout(dropout, recurrent_dropout, seed)

    def _act(self, x):
        return self.activation(x) if self.activation is not None else x

    def _ract(self, x):
        return self.recurrent_activation(x) if self.recurrent_activation is not None else x

    def _build_kernels(self, input_shape, n_gates, bias_shape, bias_initializer=None):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} needs the last input dimension to be "
                f"known; received shape {tuple(input_shape)}."
            )
        self.kernel = self.add_weight(
            shape=(input_dim, n_gates * self.units),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, n_gates * self.units),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
            name="recurrent_kernel",
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=bias_shape,
                initializer=bias_initializer or self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
        self.built = True

    def get_initial_state(self, batch_size=None):
        return [
            ops.zeros((batch_size, s), dtype=self.compute_dtype)
            for s in _flat_sizes(self.state_size)
        ]

    def _cell_config(self):
        return {
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": initializers.serialize(self.recurrent_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
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
        return {**Layer.get_config(self), **self._cell_config()}


@_register
class SimpleRNNCell(_CellBase):
    """One step of a fully connected RNN: `h = activation(x @ kernel + h_prev @ recurrent_kernel + bias)`.

    Args:
        units: size of the output and the state.
        activation: activation (default `"tanh"`).
        use_bias: whether to add a bias.
        kernel_initializer, recurrent_initializer, bias_initializer: initializers
            (defaults `"glorot_uniform"`, `"orthogonal"`, `"zeros"`).
        kernel_regularizer, recurrent_regularizer, bias_regularizer: regularizers.
        kernel_constraint, recurrent_constraint, bias_constraint: constraints.
        dropout, recurrent_dropout: fractions of the inputs / states to drop in training.
        seed: seed of the dropout masks.

    Call arguments: `inputs` `(batch, features)`, `states` a list `[h]` of `(batch, units)`.
    Returns `(output, [new_h])`.

    >>> import numpy as np
    >>> cell = SimpleRNNCell(4)
    >>> out, states = cell(np.ones((2, 3)), [np.zeros((2, 4))])
    >>> out.shape, [tuple(w.shape) for w in cell.weights]
    ((2, 4), [(3, 4), (4, 4), (4,)])
    """

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
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self._init_common(
            units,
            activation,
            None,
            use_bias,
            kernel_initializer,
            recurrent_initializer,
            bias_initializer,
            kernel_regularizer,
            recurrent_regularizer,
            bias_regularizer,
            kernel_constraint,
            recurrent_constraint,
            bias_constraint,
            dropout,
            recurrent_dropout,
            seed,
        )
        self.state_size = units
        self.output_size = units

    def build(self, input_shape):
        self._build_kernels(input_shape, 1, (self.units,))

    def call(self, sequence, states, training=False):
        prev = states[0] if isinstance(states, (list, tuple)) else states
        sequence, prev = self._apply_dropout(sequence, prev, training)
        h = ops.matmul(sequence, self.kernel)
        if self.bias is not None:
            h = ops.add(h, self.bias)
        output = self._act(ops.add(h, ops.matmul(prev, self.recurrent_kernel)))
        new_state = [output] if isinstance(states, (list, tuple)) else output
        return output, new_state

    def get_config(self):
        config = super().get_config()
        config.pop("recurrent_activation")
        return config


@_register
class LSTMCell(_CellBase):
    """One step of a Long Short-Term Memory layer (Hochreiter & Schmidhuber, 1997).

    Weights: `kernel` `(input_dim, 4 * units)`, `recurrent_kernel` `(units, 4 * units)`
    and `bias` `(4 * units,)`, with the gates in the order input, forget, cell, output.

    Args:
        units: size of the output and of each state.
        activation: activation of the candidate and of the output (default `"tanh"`).
        recurrent_activation: activation of the gates (default `"sigmoid"`).
        use_bias: whether to add a bias.
        kernel_initializer, recurrent_initializer, bias_initializer: initializers.
        unit_forget_bias: add 1 to the forget gate's bias at initialization.
        kernel_regularizer, recurrent_regularizer, bias_regularizer: regularizers.
        kernel_constraint, recurrent_constraint, bias_constraint: constraints.
        dropout, recurrent_dropout: fractions of the inputs / states to drop in training.
        seed: seed of the dropout masks.

    Call arguments: `inputs` `(batch, features)`, `states` `[h, c]`. Returns
    `(h, [h, c])`.

    >>> import numpy as np
    >>> cell = LSTMCell(2)
    >>> h, (h2, c) = cell(np.ones((1, 3)), [np.zeros((1, 2)), np.zeros((1, 2))])
    >>> h.shape, c.shape, tuple(cell.kernel.shape)
    ((1, 2), (1, 2), (3, 8))
    """

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
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        implementation = _implementation(kwargs.pop("implementation", 2), type(self).__name__)
        super().__init__(**kwargs)
        # Keras's 1 (small matrix products, one dropout mask per gate) or 2 (one product
        # per step, the default): the same outputs; lamina computes every step the
        # second way, and draws one dropout mask shared by the gates.
        self.implementation = implementation
        self._init_common(
            units,
            activation,
            recurrent_activation,
            use_bias,
            kernel_initializer,
            recurrent_initializer,
            bias_initializer,
            kernel_regularizer,
            recurrent_regularizer,
            bias_regularizer,
            kernel_constraint,
            recurrent_constraint,
            bias_constraint,
            dropout,
            recurrent_dropout,
            seed,
        )
        self.unit_forget_bias = unit_forget_bias
        self.state_size = [units, units]
        self.output_size = units

    def build(self, input_shape):
        bias_init = None
        if self.unit_forget_bias:
            base = self.bias_initializer
            units = self.units

            def bias_init(shape, dtype=None):
                return ops.concatenate(
                    [
                        base((units,), dtype=dtype),
                        ops.ones((units,), dtype=dtype),
                        base((2 * units,), dtype=dtype),
                    ]
                )

        self._build_kernels(input_shape, 4, (4 * self.units,), bias_init)

    def call(self, inputs, states, training=False):
        h_tm1, c_tm1 = states[0], states[1]
        inputs, h_tm1 = self._apply_dropout(inputs, h_tm1, training)
        z = ops.add(ops.matmul(inputs, self.kernel), ops.matmul(h_tm1, self.recurrent_kernel))
        if self.bias is not None:
            z = ops.add(z, self.bias)
        z0, z1, z2, z3 = ops.split(z, 4, axis=-1)
        i = self._ract(z0)
        f = self._ract(z1)
        c = ops.add(ops.multiply(f, c_tm1), ops.multiply(i, self._act(z2)))
        o = self._ract(z3)
        h = ops.multiply(o, self._act(c))
        return h, [h, c]

    def get_config(self):
        return {**super().get_config(), "unit_forget_bias": self.unit_forget_bias}


@_register
class GRUCell(_CellBase):
    """One step of a Gated Recurrent Unit (Cho et al., 2014).

    Weights: `kernel` `(input_dim, 3 * units)`, `recurrent_kernel` `(units, 3 * units)`
    (gates in the order update z, reset r, candidate h) and `bias`: `(2, 3 * units)`
    (input and recurrent biases) when `reset_after`, else `(3 * units,)`.

    Args:
        units: size of the output and the state.
        activation: candidate activation (default `"tanh"`).
        recurrent_activation: gate activation (default `"sigmoid"`).
        use_bias: whether to add biases.
        kernel_initializer, recurrent_initializer, bias_initializer: initializers.
        kernel_regularizer, recurrent_regularizer, bias_regularizer: regularizers.
        kernel_constraint, recurrent_constraint, bias_constraint: constraints.
        dropout, recurrent_dropout: fractions of the inputs / states to drop in training.
        reset_after: apply the reset gate after the recurrent matrix product
            (Keras / CuDNN convention, default True).
        seed: seed of the dropout masks.

    >>> import numpy as np
    >>> cell = GRUCell(2)
    >>> h, _ = cell(np.ones((1, 3)), [np.zeros((1, 2))])
    >>> h.shape, tuple(cell.bias.shape)
    ((1, 2), (2, 6))
    """

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
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        reset_after=True,
        seed=None,
        **kwargs,
    ):
        implementation = _implementation(kwargs.pop("implementation", 2), type(self).__name__)
        super().__init__(**kwargs)
        # Keras's 1 (small matrix products, one dropout mask per gate) or 2 (one product
        # per step, the default): the same outputs; lamina computes every step the
        # second way, and draws one dropout mask shared by the gates.
        self.implementation = implementation
        self._init_common(
            units,
            activation,
            recurrent_activation,
            use_bias,
            kernel_initializer,
            recurrent_initializer,
            bias_initializer,
            kernel_regularizer,
            recurrent_regularizer,
            bias_regularizer,
            kernel_constraint,
            recurrent_constraint,
            bias_constraint,
            dropout,
            recurrent_dropout,
            seed,
        )
        self.reset_after = reset_after
        self.state_size = units
        self.output_size = units

    def build(self, input_shape):
        shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
        self._build_kernels(input_shape, 3, shape)

    def call(self, inputs, states, training=False):
        h_tm1 = states[0] if isinstance(states, (list, tuple)) else states
        u = self.units
        inputs, h_rec = self._apply_dropout(inputs, h_tm1, training)
        if self.bias is not None:
            if self.reset_after:
                input_bias, recurrent_bias = self.bias[0], self.bias[1]
            else:
                input_bias, recurrent_bias = self.bias, None
        else:
            input_bias = recurrent_bias = None
        x = ops.matmul(inputs, self.kernel)
        if input_bias is not None:
            x = ops.add(x, input_bias)
        x_z, x_r, x_h = ops.split(x, 3, axis=-1)
        rk = self.recurrent_kernel
        if self.reset_after:
            inner = ops.matmul(h_rec, rk)
            if recurrent_bias is not None:
                inner = ops.add(inner, recurrent_bias)
            rec_z, rec_r, rec_h = ops.split(inner, 3, axis=-1)
        else:
            rec_z = ops.matmul(h_rec, rk[:, :u])
            rec_r = ops.matmul(h_rec, rk[:, u : 2 * u])
        z = self._ract(ops.add(x_z, rec_z))
        r = self._ract(ops.add(x_r, rec_r))
        if self.reset_after:
            rec_h = ops.multiply(r, rec_h)
        else:
            rec_h = ops.matmul(ops.multiply(r, h_rec), rk[:, 2 * u :])
        hh = self._act(ops.add(x_h, rec_h))
        h = ops.add(ops.multiply(z, h_tm1), ops.multiply(ops.subtract(1.0, z), hh))
        new_state = [h] if isinstance(states, (list, tuple)) else h
        return h, new_state

    def get_config(self):
        return {**super().get_config(), "reset_after": self.reset_after}


@_register
class StackedRNNCells(Layer):
    """Several cells run as one: each cell's output is the next cell's input.

    Its `state_size` has one entry per cell, as in Keras; inside, the states run as the
    concatenation of the cells' state lists.

    Args:
        cells: a list of cells.

    >>> import numpy as np
    >>> cells = StackedRNNCells([SimpleRNNCell(3), LSTMCell(2)])
    >>> cells.state_size, cells.output_size
    ([3, [2, 2]], 2)
    """

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        cells = list(cells)
        for cell in cells:
            if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
                raise ValueError(
                    "StackedRNNCells expects cells with `call` and `state_size`; received "
                    f"{cell!r}."
                )
        self.cells = cells

    @property
    def state_size(self):
        return [cell.state_size for cell in self.cells]

    @property
    def output_size(self):
        last = self.cells[-1]
        if hasattr(last, "output_size"):
            return last.output_size
        return _flat_sizes(last.state_size)[0]

    def _splits(self):
        out, start = [], 0
        for cell in self.cells:
            n = len(_flat_sizes(cell.state_size))
            out.append((start, start + n))
            start += n
        return out

    def build(self, input_shape):
        shape = tuple(input_shape)
        for cell in self.cells:
            if not cell.built:
                cell._build_shapes = shape
                cell.build(shape)
                cell.built = True
            shape = shape[:-1] + (_cell_output_size(cell),)
        self.built = True

    def get_initial_state(self, batch_size=None):
        out = []
        for cell in self.cells:
            out.extend(_initial_state(cell, batch_size, self.compute_dtype))
        return out

    def call(self, inputs, states, training=False):
        states = tree.flatten(states)  # flat, or nested per cell as Keras passes them
        new_states = []
        x = inputs
        for cell, (a, b) in zip(self.cells, self._splits(), strict=True):
            cell_states = states[a:b]
            x, ns = _cell_call(cell, x, cell_states, training)
            new_states.extend(_as_list(ns))
        return x, new_states

    def get_config(self):
        return {
            **super().get_config(),
            "cells": [serialization.serialize_keras_object(c, "layers") for c in self.cells],
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["cells"] = [
            serialization.deserialize_keras_object(c, "layers", custom_objects=custom_objects)
            for c in config["cells"]
        ]
        return super().from_config(config)
