"""Layer wrappers: Bidirectional (an RNN run both ways) and TimeDistributed."""

from __future__ import annotations

from lamina import ops
from lamina.common import serialization
from lamina.layers.layer import Layer
from lamina.layers.wrapper_base import Wrapper

_MERGE_MODES = ("concat", "sum", "mul", "ave", None)


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _copy_layer(layer, name=None, **overrides):
    config = serialization.serialize_keras_object(layer, "layers")
    config["config"] = dict(config["config"])
    if name is not None:
        config["config"]["name"] = name
    config["config"].update(overrides)
    return serialization.deserialize_keras_object(config, "layers")


def _strip(name, prefix):
    return name[len(prefix) :] if name.startswith(prefix) else name


@_register
class Bidirectional(Layer):
    """Runs a recurrent layer forwards and backwards and merges the two outputs.

    Args:
        layer: an `RNN` instance (e.g. `LSTM`); a copy runs forwards.
        merge_mode: how to combine the two outputs: `"concat"` (default), `"sum"`,
            `"mul"`, `"ave"`, or `None` (return both as a list).
        backward_layer: optional layer for the backward direction; by default a copy of
            `layer` with `go_backwards` flipped. Its `return_sequences` and
            `return_state` must match `layer`'s and its `go_backwards` must differ.

    Call arguments:
        inputs: `(batch, timesteps, features)`.
        initial_state: optional list of states: the forward layer's, then the backward's.
        mask, training: passed to both layers.

    With `return_sequences`, the backward output is reversed back to the input's time
    order before merging, and both directions output zeros at masked steps (as Keras,
    which sets their `zero_output_for_mask`). With `return_state`, the result is
    `[merged_output, *forward_states, *backward_states]`.

    >>> import numpy as np
    >>> from lamina.layers.recurrent import LSTM
    >>> Bidirectional(LSTM(4, return_sequences=True))(np.ones((2, 5, 3))).shape
    (2, 5, 8)
    """

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Bidirectional expects a Layer instance; received {layer!r}.")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(
                f"Invalid merge_mode {merge_mode!r}; expected one of {list(_MERGE_MODES)}."
            )
        super().__init__(**kwargs)
        for attr in ("return_sequences", "return_state", "go_backwards"):
            if not hasattr(layer, attr):
                raise ValueError(
                    f"Bidirectional expects a recurrent layer (with `{attr}`); received "
                    f"{type(layer).__name__}."
                )
        self.forward_layer = _copy_layer(layer, name="forward_" + _strip(layer.name, "forward_"))
        if backward_layer is None:
            self.backward_layer = _copy_layer(
                layer,
                name="backward_" + _strip(layer.name, "backward_"),
                go_backwards=not layer.go_backwards,
            )
        else:
            if not isinstance(backward_layer, Layer):
                raise ValueError(
                    f"`backward_layer` must be a Layer instance; received {backward_layer!r}."
                )
            for attr in ("return_sequences", "return_state"):
                if getattr(backward_layer, attr, None) != getattr(layer, attr):
                    raise ValueError(
                        f"Forward layer and `backward_layer` must have the same `{attr}`; "
                        f"received {getattr(layer, attr)} and "
                        f"{getattr(backward_layer, attr, None)}."
                    )
            if getattr(backward_layer, "go_backwards", None) == layer.go_backwards:
                raise ValueError(
                    "`backward_layer` must have the opposite `go_backwards` of `layer`."
                )
            self.backward_layer = backward_layer
        # As Keras: the two directions' sequences output zeros at masked steps, so a
        # padded step is zero in the merged output rather than a stale state.
        for inner in (self.forward_layer, self.backward_layer):
            if hasattr(inner, "zero_output_for_mask"):
                inner.zero_output_for_mask = inner.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.stateful = getattr(layer, "stateful", False)
        self.supports_masking = True
        if weights is not None:
            self._initial_weights = list(weights)

    def build(self, input_shape):
        for layer in (self.forward_layer, self.backward_layer):
            if not layer.built:
                layer._build_shapes = input_shape
                layer.build(input_shape)
                layer.built = True
        self.built = True

    def _merge(self, y, y_rev):
        mode = self.merge_mode
        if mode == "concat":
            return ops.concatenate([y, y_rev], axis=-1)
        if mode == "sum":
            return ops.add(y, y_rev)
        if mode == "ave":
            return ops.multiply(ops.add(y, y_rev), 0.5)
        if mode == "mul":
            return ops.multiply(y, y_rev)
        return [y, y_rev]

    def call(self, sequences, initial_state=None, mask=None, training=None):
        fw_kwargs, bw_kwargs = {}, {}
        if mask is not None:
            fw_kwargs["mask"] = bw_kwargs["mask"] = mask
        if training is not None:
            fw_kwargs["training"] = bw_kwargs["training"] = training
        if initial_state is not None:
            states = list(initial_state)
            if len(states) % 2:
                raise ValueError(
                    "Bidirectional expects an even number of initial states (the forward "
                    f"layer's, then the backward layer's); received {len(states)}."
                )
            half = len(states) // 2
            fw_kwargs["initial_state"] = states[:half]
            bw_kwargs["initial_state"] = states[half:]
        y = self.forward_layer(sequences, **fw_kwargs)
        y_rev = self.backward_layer(sequences, **bw_kwargs)
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = ops.flip(y_rev, axis=1)
        output = self._merge(y, y_rev)
        if self.return_state:
            if self.merge_mode is None:
                return list(output) + states
            return [output] + states
        return output

    def compute_output_shape(self, input_shape):
        shapes = self.forward_layer.compute_output_shape(input_shape)
        if self.return_state:
            out, states = tuple(shapes[0]), [tuple(s) for s in shapes[1:]]
        else:
            out, states = tuple(shapes), []
        if self.merge_mode == "concat":
            last = None if out[-1] is None else 2 * out[-1]
            merged = [out[:-1] + (last,)]
        elif self.merge_mode is None:
            merged = [out, out]
        else:
            merged = [out]
        if self.return_state:
            return merged + states + states
        return merged[0] if len(merged) == 1 else merged

    def compute_mask(self, inputs, previous_mask=None):
        if isinstance(previous_mask, (list, tuple)):
            previous_mask = previous_mask[0]
        out = previous_mask if self.return_sequences else None
        outs = [out, out] if self.merge_mode is None else [out]
        if self.return_state:
            # The states keep their structure (nested per cell for stacked cells).
            states = list(self.forward_layer.compute_mask(inputs, previous_mask)[1:])
            return outs + states + states
        return outs[0] if len(outs) == 1 else outs

    def reset_states(self, states=None):
        if states is None:
            self.forward_layer.reset_states()
            self.backward_layer.reset_states()
            return
        states = list(states)
        half = len(states) // 2
        self.forward_layer.reset_states(states[:half])
        self.backward_layer.reset_states(states[half:])

    def get_config(self):
        return {
            **super().get_config(),
            "merge_mode": self.merge_mode,
            "layer": serialization.serialize_keras_object(self.forward_layer, "layers"),
            "backward_layer": serialization.serialize_keras_object(self.backward_layer, "layers"),
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["layer"] = serialization.deserialize_keras_object(
            config["layer"], "layers", custom_objects=custom_objects
        )
        if config.get("backward_layer") is not None:
            config["backward_layer"] = serialization.deserialize_keras_object(
                config["backward_layer"], "layers", custom_objects=custom_objects
            )
        return super().from_config(config)


@_register
class TimeDistributed(Wrapper):
    """Applies a layer to every time step (axis 1) of its input independently.

    A `Wrapper`, as in Keras (`Bidirectional` is not one, in Keras either).

    Args:
        layer: the layer to apply; its weights are shared across the time steps.

    Input shape: `(batch, timesteps, ...)`. The wrapped layer sees `(batch, ...)`.

    >>> import numpy as np
    >>> from lamina.layers.core import Dense
    >>> TimeDistributed(Dense(4))(np.ones((2, 5, 3))).shape
    (2, 5, 4)
    """

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"TimeDistributed expects a Layer instance; received {layer!r}.")
        super().__init__(layer, **kwargs)
        self.supports_masking = True

    def _inner_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if len(input_shape) < 3:
            raise ValueError(
                "TimeDistributed expects an input of rank >= 3 (batch, timesteps, ...); "
                f"received shape {input_shape}."
            )
        return (None,) + input_shape[2:]

    def build(self, input_shape):
        inner = self._inner_shape(input_shape)
        if not self.layer.built:
            self.layer._build_shapes = inner
            self.layer.build(inner)
            self.layer.built = True
        self.built = True

    def compute_output_shape(self, input_shape):
        inner = self.layer.compute_output_shape(self._inner_shape(input_shape))
        return (input_shape[0], input_shape[1]) + tuple(inner[1:])

    def call(self, inputs, training=None, mask=None):
        shape = tuple(inputs.shape)
        self._inner_shape(shape)
        batch, steps = shape[0], shape[1]
        flat = ops.reshape(inputs, (batch * steps,) + shape[2:])
        kwargs = {}
        if training is not None:
            kwargs["training"] = training
        if mask is not None and getattr(self.layer, "_call_has_mask_arg", False):
            kwargs["mask"] = ops.reshape(mask, (batch * steps,) + tuple(mask.shape[2:]))
        out = self.layer(flat, **kwargs)
        return ops.reshape(out, (batch, steps) + tuple(out.shape[1:]))

    def compute_mask(self, inputs, previous_mask=None):
        return previous_mask

    def get_config(self):
        return {
            **super().get_config(),
            "layer": serialization.serialize_keras_object(self.layer, "layers"),
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["layer"] = serialization.deserialize_keras_object(
            config["layer"], "layers", custom_objects=custom_objects
        )
        # `Layer.from_config`, past `Wrapper.from_config` (which would deserialize the
        # inner layer a second time and build it from a nested build config).
        return super(Wrapper, cls).from_config(config)
