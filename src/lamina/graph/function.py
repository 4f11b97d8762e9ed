"""Function: maps the DAG between some input and output KerasTensors, and runs it.

Mapping walks back from the outputs by depth-first search over nodes (each tensor's
`_keras_history` names the node that made it), refusing cycles, then gives every node
a depth: outputs' nodes are at depth 0, and a node is one deeper than its deepest
consumer. A shared layer takes the depth of its deepest use. Running visits depths from
the deepest to 0, feeding each node the values (and masks) of its inputs.
"""

from __future__ import annotations

import threading

from lamina import tree
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.masks import get_mask, set_mask
from lamina.graph.node import Node
from lamina.graph.operation import current_call_context


def _describe(x) -> str:
    return f"{type(x).__name__} {x!r}"[:200]


def map_graph(inputs: list, outputs: list):
    """Nodes, depths and operations of the graph from `inputs` to `outputs`.

    Returns `(nodes, nodes_by_depth, operations, operations_by_depth)` where `nodes` is in
    traversal order (parents first) and `operations` sorted by decreasing depth, ties in
    traversal order.
    """
    input_ids = {id(x) for x in inputs}
    finished, in_progress = set(), set()
    ordered_nodes: list = []
    operation_indices: dict = {}

    def build_map(tensor):
        operation, node_index, _ = tensor._keras_history
        node = operation._inbound_nodes[node_index]
        if node in finished:
            return
        if id(tensor) in input_ids and not node.is_input:
            # An intermediate tensor given as an input: what made it lies upstream of
            # this graph, so neither its node nor its layer belongs here.
            finished.add(node)
            return
        if node in in_progress:
            raise ValueError(
                f"The graph has a cycle: tensor {tensor.name!r} depends on itself through "
                f"{type(operation).__name__} {operation.name!r}."
            )
        operation_indices.setdefault(operation, len(operation_indices))
        in_progress.add(node)
        if id(tensor) not in input_ids:
            for x in node.input_tensors:
                if x._keras_history is None:
                    raise ValueError(
                        f"Tensor {x.name!r} (input of {operation.name!r}) has no history: "
                        "it was not created by `Input` or a layer call."
                    )
                build_map(x)
        in_progress.discard(node)
        finished.add(node)
        ordered_nodes.append(node)

    for x in outputs:
        build_map(x)

    node_set = set(ordered_nodes)
    node_depths: dict = {}
    operation_depths: dict = {}
    for node in reversed(ordered_nodes):
        depth = node_depths.setdefault(node, 0)
        depth = max(depth, operation_depths.get(node.operation, 0))
        operation_depths[node.operation] = depth
        node_depths[node] = depth
        for parent in node.parent_nodes:
            if parent in node_set:
                node_depths[parent] = max(depth + 1, node_depths.get(parent, 0))

    # An Input that no output uses is still part of the model (Keras keeps it: it may
    # feed a loss or a metric), at depth 0 before the other operations of that depth.
    unused = []
    for x in inputs:
        operation, node_index, _ = x._keras_history
        node = operation._inbound_nodes[node_index]
        if node.is_input and operation not in operation_depths:
            operation_depths[operation] = 0
            operation_indices[operation] = -1
            node_depths[node] = 0
            unused.append(node)
    ordered_nodes = unused + ordered_nodes

    nodes_by_depth: dict = {}
    for node in ordered_nodes:
        nodes_by_depth.setdefault(node_depths[node], []).append(node)
    operations_by_depth: dict = {}
    for op, depth in operation_depths.items():
        operations_by_depth.setdefault(depth, []).append(op)
    operations = []
    for depth in sorted(operations_by_depth, reverse=True):
        ops_at_depth = sorted(operations_by_depth[depth], key=lambda o: operation_indices[o])
        operations_by_depth[depth] = ops_at_depth
        operations.extend(ops_at_depth)
    return ordered_nodes, nodes_by_depth, operations, operations_by_depth


def _is_input_tensor(x) -> bool:
    operation, node_index, _ = x._keras_history
    return operation._inbound_nodes[node_index].is_input


def clone_graph_nodes(inputs, outputs, make_input):
    """Give a graph that starts at intermediate tensors Inputs of its own.

    Each input that was not made by an `Input` is replaced by `make_input(tensor)`, and
    every call between the inputs and the outputs is recorded again (a new Node on the
    same layer) on copies of the tensors, as Keras does. The original tensors keep their
    history, so the graph they came from is unchanged.

    Returns the new `(inputs, outputs)` in the structures given.
    """
    flat_inputs, flat_outputs = tree.flatten(inputs), tree.flatten(outputs)
    nodes = map_graph(flat_inputs, flat_outputs)[0]
    mapping: dict = {}
    new_inputs = []
    for x in flat_inputs:
        new = x if _is_input_tensor(x) else make_input(x)
        mapping[id(x)] = new
        new_inputs.append(new)

    def swap(x):
        if not isinstance(x, KerasTensor):
            return x
        if id(x) not in mapping:
            copy = KerasTensor(x.shape, x.dtype, name=f"{x.name}_clone", sparse=x.sparse)
            copy._keras_mask = x._keras_mask
            mapping[id(x)] = copy
        return mapping[id(x)]

    for node in nodes:
        if node.is_input:
            continue
        Node(
            node.operation,
            call_args=tree.map_structure(swap, node.call_args),
            call_kwargs=tree.map_structure(swap, node.call_kwargs),
            outputs=tree.map_structure(swap, node.outputs),
        )
    return (
        tree.pack_sequence_as(inputs, new_inputs),
        tree.pack_sequence_as(outputs, [swap(x) for x in flat_outputs]),
    )


class Function:
    """A callable graph from input KerasTensors to output KerasTensors.

    Args:
        inputs: a KerasTensor, or a list/tuple/dict of them.
        outputs: a KerasTensor, or a list/tuple/dict of them, computed from `inputs`.

    >>> import numpy as np, lamina
    >>> from lamina.graph import Function
    >>> x = lamina.Input((2,))
    >>> f = Function(x, lamina.ops.relu(x) + 1.0)
    >>> np.asarray(f(np.array([[-1.0, 2.0]]))).tolist()
    [[1.0, 3.0]]
    """

    def __init__(self, inputs, outputs, name: str | None = None):
        self.name = name
        self._inputs_struct = inputs
        self._outputs_struct = outputs
        self.inputs = tree.flatten(inputs)
        self.outputs = tree.flatten(outputs)
        self._check_tensors()
        (
            self.nodes,
            self.nodes_by_depth,
            self.operations,
            self.operations_by_depth,
        ) = map_graph(self.inputs, self.outputs)
        self._plan = self._check_connected_and_plan()
        self._steps = [_NodeStep(node) for node in self._plan]
        self._check_unique_names()

    def _check_tensors(self):
        for role, tensors in (("input", self.inputs), ("output", self.outputs)):
            for x in tensors:
                if not isinstance(x, KerasTensor):
                    raise TypeError(
                        f"Every model {role} must be a symbolic tensor (a KerasTensor from "
                        f"`Input` or a layer call); received {_describe(x)}."
                    )
                if x._keras_history is None:
                    raise ValueError(
                        f"Model {role} {x.name!r} was not created by `Input` or a layer "
                        "call, so it has no place in a graph."
                    )
        seen = set()
        for x in self.inputs:
            if id(x) in seen:
                raise ValueError(
                    f"Input tensor {x.name!r} is listed more than once in the model inputs; "
                    "list each input once."
                )
            seen.add(id(x))

    def _check_connected_and_plan(self) -> list:
        computable = {id(x) for x in self.inputs}
        accessed: list[str] = []
        plan = []
        for depth in sorted(self.nodes_by_depth, reverse=True):
            for node in self.nodes_by_depth[depth]:
                if any(id(x) in computable for x in node.output_tensors):
                    continue  # this node made a given input: the graph starts after it
                if node.is_input:
                    continue  # an Input that was not given: flagged where it is used
                for x in node.input_tensors:
                    if id(x) not in computable:
                        source = x._keras_history.operation
                        if _is_input_tensor(x):
                            origin, fix = f"Input {source.name!r}", f"Input {source.name!r}"
                        else:
                            origin, fix = f"{source.name!r}", "the Input it comes from"
                        raise ValueError(
                            f"Graph disconnected: layer {node.operation.name!r} needs tensor "
                            f"{x.name!r} (shape {x.shape}, from {origin}), which cannot be "
                            f"computed from the model inputs {[i.name for i in self.inputs]}. "
                            f"Layers reached without issue so far: {accessed}. Add {fix} to "
                            "the model's inputs."
                        )
                computable.update(id(x) for x in node.output_tensors)
                accessed.append(node.operation.name)
                plan.append(node)
        for x in self.outputs:
            if id(x) not in computable:
                raise ValueError(
                    f"Graph disconnected: output {x.name!r} cannot be computed from the "
                    f"given inputs {[i.name for i in self.inputs]}."
                )
        return plan

    def _check_unique_names(self):
        by_name: dict = {}
        for op in self.operations:
            other = by_name.setdefault(op.name, op)
            if other is not op:
                raise ValueError(
                    f"The name {op.name!r} is used by two different layers in one model "
                    f"({type(other).__name__} and {type(op).__name__}). Every layer name "
                    "must be unique: rename one of them with `name=`."
                )

    # Running ---------------------------------------------------------------------------
    def _flatten_values(self, inputs) -> list:
        if type(inputs) is list and len(inputs) == len(self.inputs) == 1:
            if not tree.is_nested(inputs[0]):
                return inputs  # already flat, in graph order (a model's conformed inputs)
        if isinstance(self._inputs_struct, dict) and isinstance(inputs, dict):
            return [inputs[k] for k in sorted(self._inputs_struct)]
        if len(self.inputs) == 1 and not isinstance(inputs, (list, tuple, dict)):
            return [inputs]
        flat = tree.flatten(inputs)
        if len(flat) != len(self.inputs):
            raise ValueError(
                f"Expected {len(self.inputs)} input(s) {[x.name for x in self.inputs]}, "
                f"received {len(flat)}."
            )
        return flat

    def __call__(self, inputs, training=None, mask=None):
        return self.run(inputs, training=training, mask=mask)[0]

    def run(self, inputs, training=None, mask=None):
        """Compute the outputs (and their masks) of the graph on concrete `inputs`.

        Returns `(outputs, output_masks)`, both in the structure of the outputs.
        """
        flat_values = self._flatten_values(inputs)
        if mask is not None:
            # Masks ride on the values (`lamina.graph.masks`): each layer's call takes
            # its input's and leaves its output's, as when it is called on its own.
            for v, m in zip(flat_values, self._flatten_values(mask), strict=True):
                if m is not None:
                    set_mask(v, m)
        values: dict = {}
        for x, v in zip(self.inputs, flat_values, strict=True):
            values[id(x)] = v
        if training is None:
            context = current_call_context()
            training = context.training if context is not None else None
        frames = _running_frames()
        frames.append((self, values, {}))
        try:
            return self._run_steps(values, training)
        finally:
            frames.pop()

    def _run_steps(self, values: dict, training):
        for step in self._steps:
            if step.lean is not None:
                # One tensor in, one tensor out: the eager engine's common node,
                # without the general bookkeeping below.
                kwargs = dict(step.kwarg_constants) if step.kwarg_constants else {}
                if training is not None and step.takes_training and "training" not in kwargs:
                    kwargs["training"] = training
                source, target = step.lean
                outputs = step.graph_call(values[id(source)], kwargs)
                if tree.is_nested(outputs):  # one tensor in a structure, as `call` gave it
                    (outputs,) = tree.flatten(outputs)
                values[id(target)] = outputs
                continue
            node, op = step.node, step.operation
            if step.arg_tensors is None:
                lookup = lambda t: values[id(t)] if isinstance(t, KerasTensor) else t  # noqa: E731
                args = tree.map_structure(lookup, node.call_args)
                kwargs = tree.map_structure(lookup, node.call_kwargs)
            else:
                args = [c if t is None else values[id(t)] for t, c in step.arg_tensors]
                kwargs = dict(step.kwarg_constants) if step.kwarg_constants else {}
                for name, t in step.kwarg_tensors:
                    kwargs[name] = values[id(t)]
            if (
                training is not None
                and "training" not in kwargs
                and getattr(op, "_call_has_training_arg", False)
            ):
                kwargs["training"] = training
            if step.graph_call is not None:
                outputs = step.graph_call(args[0], kwargs)
            else:
                outputs = op(*args, **kwargs)
            if tree.is_nested(outputs):
                for t, v in zip(node.output_tensors, tree.flatten(outputs), strict=True):
                    values[id(t)] = v
            else:
                (t,) = node.output_tensors
                values[id(t)] = outputs

        if not tree.is_nested(self._outputs_struct):
            out = values[id(self.outputs[0])]
            return out, get_mask(out)
        outs = [values[id(x)] for x in self.outputs]
        out_masks = [get_mask(v) for v in outs]
        return (
            tree.pack_sequence_as(self._outputs_struct, outs),
            tree.pack_sequence_as(self._outputs_struct, out_masks),
        )

    def tensor_with_value(self, value, values: dict):
        """The tensor of this graph whose value in a run (`values`) is `value` itself."""
        keys = [key for key, computed in values.items() if computed is value]
        if not keys:
            return None
        for x in self.inputs:
            if id(x) in keys:
                return x
        for node in self.nodes:
            for x in node.output_tensors:
                if id(x) in keys:
                    return x
        return None


_RUNNING = threading.local()


def _running_frames() -> list:
    frames = getattr(_RUNNING, "frames", None)
    if frames is None:
        frames = _RUNNING.frames = []
    return frames


def running_tensor(value):
    """`(tensor, function, values)` for the graph tensor whose value, in the innermost
    graph running now that computed `value`, is `value` itself; None if none did.

    Code called by a node on the values of a run (a `Lambda`'s function) may so ask
    which tensors of the graph it was given (the classic `K.gradients` of one graph
    tensor with respect to another, inside a layer).
    """
    for function, values, _ in reversed(_running_frames()):
        tensor = function.tensor_with_value(value, values)
        if tensor is not None:
            return tensor, function, values
    return None


def running() -> bool:
    """Whether a graph is running on this thread now (code a node called on a run's
    values is running)."""
    return bool(_running_frames())


def note_reduction(result, source, scale: float) -> None:
    """Note that `result`, computed by code a node called on a run's values, is `scale`
    times a sum of `source`'s elements over some of its axes (`K.sum(t)`, `K.mean(t)`
    inside a `Lambda`), where `source` is the value of a tensor of a graph running now
    or such a result itself. `reduced_tensor` reads it back while the run lasts; outside
    a run nothing is noted."""
    frames = _running_frames()
    if not frames:
        return
    found = running_tensor(source)
    if found is not None:
        base = (*found, 1.0)
    else:
        base = reduced_tensor(source)
        if base is None:
            return
    tensor, function, values, inner = base
    frames[-1][2][id(result)] = (result, tensor, function, values, inner * scale)


def reduced_tensor(value):
    """`(tensor, function, values, scale)` when `value` was noted by `note_reduction`
    in a run still going: `value` is `scale` times a sum of that graph tensor's elements
    in that run; None otherwise."""
    for *_, reductions in reversed(_running_frames()):
        entry = reductions.get(id(value))
        if entry is not None and entry[0] is value:
            return entry[1:]
    return None


class _NodeStep:
    """How `Function.run` feeds one node, worked out once: its tensor arguments beside
    its constant ones, when no argument is a structure (else `arg_tensors` is None and
    the arguments are mapped as trees). It holds the tensors, not their ids, so that a
    copied graph's steps name the copied tensors."""

    __slots__ = (
        "node",
        "operation",
        "arg_tensors",
        "kwarg_tensors",
        "kwarg_constants",
        "graph_call",
        "takes_training",
        "lean",
    )

    def __init__(self, node):
        self.node = node
        self.operation = node.operation
        flat = not any(tree.is_nested(a) for a in node.call_args) and not any(
            tree.is_nested(v) for v in node.call_kwargs.values()
        )
        self.arg_tensors = self.kwarg_tensors = self.kwarg_constants = None
        self.graph_call = None
        self.takes_training = bool(getattr(self.operation, "_call_has_training_arg", False))
        self.lean = None
        if flat:
            self.arg_tensors = [
                (a, None) if isinstance(a, KerasTensor) else (None, a) for a in node.call_args
            ]
            # Sorted keys, the order `tree.map_structure` gives a dict.
            self.kwarg_tensors, self.kwarg_constants = [], {}
            for name in sorted(node.call_kwargs):
                value = node.call_kwargs[name]
                if isinstance(value, KerasTensor):
                    self.kwarg_tensors.append((name, value))
                    self.kwarg_constants[name] = None  # keeps the key order
                else:
                    self.kwarg_constants[name] = value
            if (
                len(self.arg_tensors) == 1
                and self.arg_tensors[0][0] is not None
                and not self.kwarg_tensors
            ):
                # A layer on one tensor: its repeat calls may skip the checks they
                # passed (`Layer._graph_call`).
                self.graph_call = getattr(self.operation, "_graph_call", None)
                outs = node.output_tensors
                if self.graph_call is not None and len(outs) == 1 and outs[0]._keras_mask is None:
                    # `(input tensor, output tensor)`: `Function.run`'s lean step.
                    self.lean = (self.arg_tensors[0][0], outs[0])
