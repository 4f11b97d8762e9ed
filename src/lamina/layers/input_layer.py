"""InputLayer and `Input`: where a functional graph starts."""

from __future__ import annotations

from lamina import backend
from lamina.backend.common.classic import classic_api
from lamina.common import serialization
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.node import Node
from lamina.layers.argument_validation import as_int, is_integer
from lamina.layers.layer import Layer


class InputLayer(Layer):
    """The layer behind `Input`: it has one node, no inputs, and one output tensor.

    Args:
        shape: shape without the batch dimension, e.g. `(32,)`.
        batch_size: optional fixed batch size.
        dtype: dtype of the input (default `floatx()`).
        batch_shape: full shape including the batch dimension (instead of `shape`).
        input_tensor: an existing KerasTensor to wrap instead of creating one; a
            computed tensor, a variable or an array feeds the input instead (see
            `Input`'s `tensor`).
        ragged: Keras's ragged-input flag. lamina has no ragged tensors: only
            `None`/`False` are accepted.
        name: the layer's (and its tensor's) name.

    >>> from lamina import Sequential, layers
    >>> model = Sequential([InputLayer(shape=(4,)), layers.Dense(2)])
    >>> model.input_shape, model.layers[0].name
    ((None, 4), 'dense')
    """

    def __init__(
        self,
        shape=None,
        batch_size=None,
        dtype=None,
        sparse=None,
        batch_shape=None,
        input_tensor=None,
        optional=False,
        name=None,
        ragged=None,
        **kwargs,
    ):
        _refuse_ragged(ragged)
        if "input_shape" in kwargs and shape is None:
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs and batch_shape is None:
            batch_shape = kwargs.pop("batch_input_shape")
        kwargs.pop("trainable", None)
        super().__init__(name=name, dtype=dtype, **kwargs)
        if shape is not None and batch_shape is not None:
            raise ValueError("Pass either `shape` or `batch_shape` to Input, not both.")
        if batch_shape is None:
            if shape is None and input_tensor is None:
                raise ValueError(
                    "Input needs a shape: pass `shape=(...)` (without the batch dimension) "
                    "or `batch_shape=(...)`."
                )
            if shape is not None:
                if is_integer(shape):
                    shape = (shape,)
                batch_shape = (batch_size,) + tuple(shape)
        source = None
        if input_tensor is not None and not isinstance(input_tensor, KerasTensor):
            input_tensor = _graph_tensor_of(input_tensor)
        if input_tensor is not None and _is_computed(input_tensor):
            # Keras 2's `Input(tensor=t)` with a computed `t` (from variables, constants
            # or other layers): the input is fed by `t`, so a new tensor stands for it,
            # made from `t` by this layer's node; `t` keeps its own history.
            source = input_tensor
            input_tensor = KerasTensor(source.shape, dtype=source.dtype, name=self.name)
        if input_tensor is None:
            for d in batch_shape:
                if d is not None and (not is_integer(d) or d < 0):
                    raise ValueError(
                        f"Input shape entries must be non-negative ints or None; received "
                        f"{tuple(batch_shape)}."
                    )
            batch_shape = tuple(None if d is None else as_int(d) for d in batch_shape)
            input_tensor = KerasTensor(batch_shape, dtype=self.dtype, name=self.name)
        self._batch_shape = tuple(input_tensor.shape)
        self.sparse = bool(sparse)
        self.optional = optional
        self.built = True
        self.source_tensor = source
        Node(self, call_args=() if source is None else (source,), outputs=input_tensor)

    @property
    def batch_shape(self) -> tuple:
        return self._batch_shape

    def call(self, inputs=None):
        return inputs

    def get_config(self) -> dict:
        return {
            "batch_shape": list(self._batch_shape),
            "dtype": self.dtype,
            "sparse": self.sparse,
            "ragged": False,
            "name": self.name,
        }


def _is_computed(tensor) -> bool:
    """A tensor with a history that did not start at an `Input` (a layer's or an op's
    output, an expression of classic-backend variables)."""
    history = tensor._keras_history
    return history is not None and not history.operation._inbound_nodes[history.node_index].is_input


def is_tensor_fed(tensor) -> bool:
    """True for the output of `Input(tensor=t)` with a computed `t`: the input is computed
    from `t` when the graph runs, so a model takes no data for it (Keras 2's
    non-placeholder inputs)."""
    history = getattr(tensor, "_keras_history", None)
    return (
        history is not None
        and getattr(history.operation, "source_tensor", None) is not None
        and history.node_index == 0
    )


def _graph_tensor_of(value) -> KerasTensor:
    """`Input(tensor=...)` of a variable or a concrete tensor: the graph tensor that reads
    the variable (or holds the constant) when the graph runs, from the classic API."""
    api = classic_api()
    converted = None if api is None else api._input_source(value)
    if converted is None:
        raise TypeError(
            "Input(tensor=...) takes a graph tensor (from `Input`, a layer, or an "
            "expression of `K.variable`s), a variable, or a concrete tensor or array; "
            f"received {type(value).__name__}."
        )
    return converted


def feed_inputs(inputs):
    """`inputs` without the tensor-fed ones (the inputs data is given for), in the same
    structure: a single tensor-fed input leaves an empty list."""
    if isinstance(inputs, KerasTensor):
        return [] if is_tensor_fed(inputs) else inputs
    if isinstance(inputs, dict):
        return {k: v for k, v in inputs.items() if not is_tensor_fed(v)}
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(x for x in inputs if not is_tensor_fed(x))
    return inputs


def _refuse_ragged(ragged) -> None:
    if ragged:
        raise ValueError(
            f"Input received ragged={ragged!r}, but lamina has no ragged tensors (Keras "
            "supports them on TensorFlow only). Pad the sequences to one length "
            "(`lamina.utils.pad_sequences`) and use `mask_zero=True` in the Embedding or a "
            "`Masking` layer, or bucket them by length with a `PyDataset`; then leave "
            "`ragged` unset."
        )


def Input(
    shape=None,
    batch_size=None,
    dtype=None,
    sparse=None,
    batch_shape=None,
    name=None,
    tensor=None,
    optional=False,
    ragged=None,
) -> KerasTensor:
    """A symbolic input tensor: the start of a functional model.

    Args:
        shape: shape without the batch dimension, e.g. `(32,)`; `None` entries are unknown.
        batch_size: optional fixed batch size.
        dtype: dtype of the data it stands for (default `floatx()`).
        batch_shape: full shape including the batch dimension (instead of `shape`).
        name: a name, unique in the model.
        tensor: an existing KerasTensor to start from instead of a new one. As in
            Keras 2, a computed tensor (an expression of `K.variable`s, a constant, a
            layer's output) or a variable or array feeds the input: the new input is
            computed from it whenever the graph runs, and a model built on it takes no
            data for it (`model.inputs` lists the inputs data is given for).
        optional: whether the input may be `None` when the model is called.
        ragged: Keras's ragged-input flag; lamina has no ragged tensors, so only
            `None`/`False` are accepted (`True` raises, saying what to do instead).

    >>> x = Input(shape=(32,), name="features")
    >>> x.shape, x._keras_history.tensor_index
    ((None, 32), 0)
    """
    _refuse_ragged(ragged)
    layer = InputLayer(
        shape=shape,
        batch_size=batch_size,
        dtype=dtype if dtype is not None else backend.floatx(),
        sparse=sparse,
        batch_shape=batch_shape,
        input_tensor=tensor,
        optional=optional,
        name=name,
    )
    return layer.output


serialization.register_builtin("layers", InputLayer)
