"""Walking a functional graph from a tensor back to the inputs it is computed from."""

from __future__ import annotations

from lamina import tree


def get_source_inputs(tensor) -> list:
    """The `Input` tensors that `tensor` is computed from, as Keras's `get_source_inputs`.

    Follows each tensor's `_keras_history` (the layer call that made it) back through
    the graph, each source listed once, in the order first met.

    Args:
        tensor: a KerasTensor of a functional graph. Anything without a history is
            returned as it is, as Keras does.

    Returns:
        A list of the input KerasTensors `tensor` depends on (`[tensor]` for an input).

    >>> from lamina import Input, layers
    >>> a, b = Input((2,), name="a"), Input((2,), name="b")
    >>> out = layers.Dense(1)(layers.Add()([a, b]))
    >>> [t.name for t in get_source_inputs(out)]
    ['a', 'b']
    """
    history = getattr(tensor, "_keras_history", None)
    if history is None:
        return tensor
    operation, node_index = history[0], history[1]
    if not operation or not operation._inbound_nodes:
        return [tensor]
    node = operation._inbound_nodes[node_index]
    if node.is_input:
        return tree.flatten(node.output_tensors)
    sources: list = []
    for parent in node.input_tensors:
        for source in get_source_inputs(parent):
            if all(source is not known for known in sources):
                sources.append(source)
    return sources
