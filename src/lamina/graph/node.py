"""Node: one call of an operation (a layer or an op) on symbolic tensors."""

from __future__ import annotations

from lamina import tree
from lamina.graph.keras_tensor import KerasHistory, KerasTensor


class Node:
    """Records one call of `outbound_layer` on KerasTensors.

    A layer is not a node: a layer shared by two inputs is called twice and so has two
    inbound nodes. Each input of this call is found by its history coordinates, so that
    `inbound_layers[i]._inbound_nodes[node_indices[i]].output_tensors[tensor_indices[i]]`
    is `input_tensors[i]`.

    Args:
        operation: the layer or op that was called.
        call_args: the positional arguments of the call, KerasTensors in place.
        call_kwargs: the keyword arguments of the call.
        outputs: the KerasTensor(s) the call returned.
        stamp_outputs: give the outputs a `_keras_history` pointing here. A functional
            model's own node 0 links its inputs to its outputs without restamping them.

    >>> import lamina
    >>> x = lamina.Input((3,))
    >>> y = lamina.layers.Dense(2, name="d")(x)
    >>> node = y._keras_history.operation._inbound_nodes[0]
    >>> node.operation.name, [t.shape for t in node.input_tensors], node.output_tensors[0].shape
    ('d', [(None, 3)], (None, 2))
    """

    def __init__(self, operation, call_args=(), call_kwargs=None, outputs=None, stamp_outputs=True):
        self.operation = operation
        self.call_args = tuple(call_args)
        self.call_kwargs = dict(call_kwargs or {})
        self.outputs = outputs
        self.input_tensors = [
            x
            for x in tree.flatten((self.call_args, self.call_kwargs))
            if isinstance(x, KerasTensor)
        ]
        self.output_tensors = [x for x in tree.flatten(outputs) if isinstance(x, KerasTensor)]
        if any(not x.record_history for x in self.input_tensors):
            stamp_outputs = False  # Keras's `record_history=False`: no history from here on
        self.arguments = {
            k: v
            for k, v in self.call_kwargs.items()
            if not tree.any_leaf(lambda x: isinstance(x, KerasTensor), v)
        }
        self.input_shapes = [x.shape for x in self.input_tensors]
        self.output_shapes = [x.shape for x in self.output_tensors]

        self.inbound_layers, self.node_indices, self.tensor_indices = [], [], []
        self.parent_nodes: list[Node] = []
        if stamp_outputs:
            for x in self.input_tensors:
                history = x._keras_history
                if history is None:
                    continue
                self.inbound_layers.append(history.operation)
                self.node_indices.append(history.node_index)
                self.tensor_indices.append(history.tensor_index)
                parent = history.operation._inbound_nodes[history.node_index]
                if parent not in self.parent_nodes:
                    self.parent_nodes.append(parent)

        operation._inbound_nodes.append(self)
        for layer in self.inbound_layers:
            if self not in layer._outbound_nodes:
                layer._outbound_nodes.append(self)
        if stamp_outputs:
            node_index = len(operation._inbound_nodes) - 1
            for i, x in enumerate(self.output_tensors):
                x._keras_history = KerasHistory(operation, node_index, i)

    @property
    def outbound_layer(self):
        """The layer (or op) this node is a call of; classic Keras's name for it."""
        return self.operation

    @property
    def is_input(self) -> bool:
        """True for the node of an `InputLayer`: a call with no inputs (a source
        operation, such as a classic-backend variable read, computes without inputs
        and is not one)."""
        return not self.input_tensors and not getattr(self.operation, "_graph_source", False)

    def __repr__(self) -> str:
        return f"<Node of {self.operation.name!r}: {len(self.input_tensors)} in, {len(self.output_tensors)} out>"
