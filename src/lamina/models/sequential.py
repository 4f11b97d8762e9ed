"""Sequential: a plain stack of layers, each feeding the next."""

from __future__ import annotations

import warnings

import numpy as np

from lamina import backend
from lamina.common import serialization
from lamina.graph.function import Function
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.node import Node
from lamina.layers.input_layer import Input, InputLayer
from lamina.layers.layer import Layer, _tuplify
from lamina.models import functional_config
from lamina.models.model import Model


def _is_text(x) -> bool:
    """A batch of strings (a NumPy text array, or a plain list of strings)."""
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "US"
    return isinstance(x, list) and bool(x) and all(isinstance(v, str) for v in x)


class Sequential(Model):
    """A model made of a stack of layers with one input and one output each.

    Start it with an `Input` (or give the first layer `input_shape=`) to build it at
    once; otherwise it builds on its first call, from the data's shape.

    Args:
        layers: optional list of layers to add.
        name: the model's name (default `"sequential"`).

    >>> from lamina import Input, layers
    >>> model = Sequential([Input((4,)), layers.Dense(8, activation="relu"), layers.Dense(1)])
    >>> [layer.name for layer in model.layers]
    ['dense', 'dense_1']
    >>> model.output_shape
    (None, 1)
    """

    _is_sequential = True  # what `summary` asks, as Keras asks `isinstance(m, Sequential)`

    def __init__(self, layers=None, trainable: bool = True, name: str | None = None):
        super().__init__(trainable=trainable, name=name)
        self._stack: list[Layer] = []
        self._chain: list[KerasTensor] = []
        self._chain_layers: list[Layer] = []
        self._graph_stale = True
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_build_graph()

    # Editing the stack ---------------------------------------------------------------
    def add(self, layer, rebuild: bool = True) -> None:
        """Append a layer (or an `Input` tensor) to the top of the stack."""
        if isinstance(layer, KerasTensor):
            history = layer._keras_history
            if history is None or not isinstance(history.operation, InputLayer):
                raise ValueError(
                    "Sequential.add accepts an `Input(...)` tensor or a layer; received a "
                    f"symbolic tensor {layer.name!r} that is not an Input."
                )
            layer = history.operation
        if not isinstance(layer, Layer):
            raise TypeError(
                f"Sequential.add expects a Layer instance; received {type(layer).__name__} "
                f"{layer!r}."
            )
        if isinstance(layer, InputLayer) and self._stack:
            raise ValueError(
                f"Sequential {self.name!r}: an InputLayer can only be the first layer; the "
                f"stack already holds {[lyr.name for lyr in self._stack]}."
            )
        names = {lyr.name for lyr in self._stack}
        if layer.name in names:
            raise ValueError(
                f"Sequential {self.name!r} already has a layer named {layer.name!r}; every "
                "layer name in a model must be unique."
            )
        self._stack.append(layer)
        self._invalidate()
        if rebuild:
            try:
                self._maybe_build_graph()
            except Exception:
                # A layer that cannot take the stack's output leaves the model as it was.
                self._stack.pop()
                self._invalidate()
                self._maybe_build_graph()
                raise

    def pop(self, rebuild: bool = True) -> Layer:
        """Remove and return the top layer."""
        layers = self.layers
        if not layers:
            raise ValueError(f"Sequential {self.name!r} has no layers to pop.")
        layer = self._stack.pop()
        self._invalidate()
        if rebuild:
            self._maybe_build_graph()
        return layer

    def _invalidate(self):
        self._function = None
        self._is_graph_network = False
        self._graph_stale = True
        own = getattr(self, "_own_node", None)
        if own is not None and own in self._inbound_nodes:
            self._inbound_nodes.remove(own)
        self._own_node = None
        self._reset_functions(structure=True)
        self.built = False

    # Building ------------------------------------------------------------------------
    def _input_batch_shape(self):
        if not self._stack:
            return None, None
        first = self._stack[0]
        if isinstance(first, InputLayer):
            return first.batch_shape, first.dtype
        if first._input_shape_arg is not None:
            return first._input_shape_arg, first.dtype
        function = getattr(first, "_function", None)
        if function is not None and len(function.inputs) == 1:
            # A built functional model first in the stack knows its input (as in Keras).
            return tuple(function.inputs[0].shape), function.inputs[0].dtype
        return None, None

    def _maybe_build_graph(self, batch_shape=None, dtype=None):
        """Connect the stack into a graph, calling each layer once.

        `_chain` holds the tensors already made: the input, then the output of each
        stacked layer in turn. Adding a layer calls only that layer on the last tensor,
        and popping drops the last tensor, so no layer gains a second inbound node (which
        would make its `output` ambiguous).
        """
        if not self._graph_stale:
            return
        if batch_shape is None:
            batch_shape, dtype = self._input_batch_shape()
        if batch_shape is None or not self.layers:
            return
        layers = self.layers
        kept = 0
        while (
            kept < min(len(self._chain_layers), len(layers))
            and self._chain_layers[kept] is layers[kept]
        ):
            kept += 1
        chain = self._chain[: kept + 1]
        chain_layers = self._chain_layers[:kept]
        if not chain:
            first = self._stack[0]
            if isinstance(first, InputLayer):
                x = first.output
            else:
                x = Input(batch_shape=batch_shape, dtype=dtype or backend.floatx())
                self._stack.insert(0, x._keras_history.operation)
            chain = [x]
        # Kept up to date as each layer succeeds, so a failing add does not redo them.
        self._chain, self._chain_layers = chain, chain_layers
        x = chain[-1]
        for layer in layers[len(chain) - 1 :]:
            with self._open_name_scope():  # Keras's paths: "sequential/dense/kernel"
                x = layer(x)
            if isinstance(x, (list, tuple)):
                raise ValueError(
                    f"Sequential layers must have one output each; {layer.name!r} returned "
                    f"{len(x)}. Use the functional API for multi-output layers."
                )
            chain.append(x)
            chain_layers.append(layer)
        inputs = chain[0]
        function = Function(inputs, x, name=self.name)
        self._function = function
        self._is_graph_network = True
        self._layers = [op for op in function.operations if isinstance(op, Layer)]
        self._graph_stale = False
        self.built = True
        self._build_shapes = tuple(inputs.shape)
        self._own_node = Node(
            self, call_args=(inputs,), call_kwargs={}, outputs=x, stamp_outputs=False
        )

    def build(self, input_shape=None):
        """Build the stack for inputs of `input_shape` (with batch dimension)."""
        if input_shape is None:
            input_shape, _ = self._input_batch_shape()
        if input_shape is None:
            raise ValueError(
                f"Sequential {self.name!r} cannot build without an input shape; pass "
                "build(input_shape) or start the model with an Input."
            )
        self._maybe_build_graph(tuple(input_shape))

    def __call__(self, *args, **kwargs):
        if self._function is None and args and _is_text(args[0]):
            # Text can only start a stack whose first layer runs on the host (such as
            # TextVectorization): build the graph from a string Input, so that the host
            # part takes the strings before anything is converted for the engine.
            self._maybe_build_graph((None,) + np.shape(args[0])[1:], "string")
        return super().__call__(*args, **kwargs)

    def _build_step_settled(self) -> bool:
        return self._function is not None and type(self)._maybe_build is Sequential._maybe_build

    def _maybe_build(self, inputs) -> None:
        if self._function is None:
            self._maybe_build_graph((None,) + tuple(inputs.shape[1:]), str(inputs.dtype))

    def call(self, inputs, training=None, mask=None):
        if self._function is None:
            self._maybe_build(inputs)
        return self._run_graph(inputs, training, mask)

    # Keras 2's prediction helpers (Keras 3 dropped them) ------------------------------
    def predict_proba(self, x, batch_size=32, verbose=0):
        """Deprecated (Keras 2): the model's outputs, `predict(x)`, read as class
        probabilities; warns when they fall outside [0, 1] (a last layer without softmax
        or sigmoid).

        >>> import warnings, numpy as np
        >>> from lamina import layers
        >>> model = Sequential([layers.Input((2,)), layers.Dense(3, activation="softmax")])
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", DeprecationWarning)
        ...     model.predict_proba(np.ones((4, 2))).shape
        (4, 3)
        """
        warnings.warn(
            "Sequential.predict_proba is Keras 2's API, removed in Keras 3: use "
            "`model.predict(x)`.",
            DeprecationWarning,
            stacklevel=2,
        )
        probabilities = self.predict(x, batch_size=batch_size, verbose=verbose)
        if np.min(probabilities) < 0.0 or np.max(probabilities) > 1.0:
            warnings.warn(
                f"{self.name!r} returns values outside [0, 1], which are not probabilities: "
                "its last layer may not normalize them (as softmax or sigmoid would).",
                stacklevel=2,
            )
        return probabilities

    def predict_classes(self, x, batch_size=32, verbose=0):
        """Deprecated (Keras 2): the predicted class of each sample: the argmax of the
        outputs, or for one output unit 1 where it exceeds 0.5 (shape `(samples, 1)`).

        >>> import warnings, numpy as np
        >>> from lamina import layers
        >>> model = Sequential([layers.Input((2,)), layers.Dense(3, activation="softmax")])
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", DeprecationWarning)
        ...     model.predict_classes(np.ones((4, 2))).shape
        (4,)
        """
        warnings.warn(
            "Sequential.predict_classes is Keras 2's API, removed in Keras 3: use "
            "`np.argmax(model.predict(x), axis=-1)` (softmax output) or "
            "`(model.predict(x) > 0.5).astype('int32')` (sigmoid output).",
            DeprecationWarning,
            stacklevel=2,
        )
        probabilities = self.predict(x, batch_size=batch_size, verbose=verbose)
        if probabilities.shape[-1] > 1:
            return probabilities.argmax(axis=-1)
        return (probabilities > 0.5).astype("int32")

    @property
    def layers(self) -> list[Layer]:
        """The stacked layers, without the InputLayer (as in Keras)."""
        return [layer for layer in self._stack if not isinstance(layer, InputLayer)]

    @layers.setter
    def layers(self, _):
        raise AttributeError("`model.layers` is read-only; use `add` / `pop`.")

    def _sublayers(self):
        return self.layers

    @property
    def input_shape(self):
        if self._function is None:
            raise AttributeError(
                f"Sequential {self.name!r} is not built, so it has no input shape."
            )
        return self._function.inputs[0].shape

    @property
    def output_shape(self):
        if self._function is None:
            raise AttributeError(
                f"Sequential {self.name!r} is not built, so it has no output shape."
            )
        return self._function.outputs[0].shape

    # Config --------------------------------------------------------------------------
    def _keras_serialized_names(self):
        if type(self) is Sequential:
            return "keras", "Sequential", None
        return super()._keras_serialized_names()

    def get_config(self) -> dict:
        layer_configs = [functional_config.serialize_layer(layer) for layer in self._stack]
        config = {"name": self.name, "trainable": self.trainable, "layers": layer_configs}
        if self._function is not None:
            config["build_input_shape"] = list(self._function.inputs[0].shape)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects=None, **kwargs):
        serialization.config_depth(config)
        with serialization.build_budget():
            model = cls(name=config.get("name"), trainable=config.get("trainable", True))
            for layer_data in config["layers"]:
                layer = serialization.deserialize_keras_object(
                    layer_data,
                    "layers",
                    custom_objects=custom_objects,
                    printable_module_name="layer",
                    **kwargs,
                )
                model.add(layer, rebuild=False)
            model._maybe_build_graph()
            if model._function is None and config.get("build_input_shape"):
                model.build(_tuplify(config["build_input_shape"]))
        return model


serialization.register_builtin("models", Sequential)
serialization.register_builtin("layers", Sequential)
