"""The symbolic graph: KerasTensor, Node, Operation, Function.

A *layer* is a reusable computation with state. A *Node* is one **call** of a layer (or
of an op) on symbolic tensors: the same layer called on two inputs has two nodes, which is
how sharing works. Every `KerasTensor` produced by a call carries
`_keras_history = (operation, node_index, tensor_index)`: the operation that made it,
which of that operation's inbound nodes, and which output of that call. Following
histories from the outputs back to the inputs recovers the whole directed acyclic graph;
`Function` maps it by depth and runs it on real arrays.
"""

from lamina.graph.function import Function, map_graph
from lamina.graph.keras_tensor import KerasHistory, KerasTensor, is_keras_tensor
from lamina.graph.node import Node
from lamina.graph.operation import (
    CallContext,
    FunctionOperation,
    Operation,
    any_symbolic,
    current_call_context,
    symbolic_call,
)

__all__ = [
    "CallContext",
    "Function",
    "FunctionOperation",
    "KerasHistory",
    "KerasTensor",
    "Node",
    "Operation",
    "any_symbolic",
    "current_call_context",
    "is_keras_tensor",
    "map_graph",
    "symbolic_call",
]
