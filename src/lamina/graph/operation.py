"""Operation: anything that can be called on tensors and recorded in the graph."""

from __future__ import annotations

import threading

from lamina import tree
from lamina.backend import core as backend_core
from lamina.backend.common.global_state import to_snake_case, unique_name
from lamina.backend.common.symbolic_scope import SymbolicScope
from lamina.backend.common.variables import Variable
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.node import Node


def any_symbolic(args, kwargs=None) -> bool:
    """True if a KerasTensor sits anywhere in `args` / `kwargs` (fast path first)."""
    for a in args:
        if isinstance(a, KerasTensor):
            return True
        if isinstance(a, (list, tuple, dict)) and tree.any_leaf(
            lambda x: isinstance(x, KerasTensor), a
        ):
            return True
    if kwargs:
        return tree.any_leaf(lambda x: isinstance(x, KerasTensor), kwargs)
    return False


def _is_spec(x) -> bool:
    return isinstance(x, KerasTensor)


def output_spec(fn, args, kwargs):
    """Output KerasTensors of `fn(*args, **kwargs)` by the engine's abstract evaluation."""
    with SymbolicScope():
        return backend_core.compute_output_spec(
            fn,
            args,
            kwargs,
            is_spec=_is_spec,
            make_spec=lambda shape, dtype: KerasTensor(shape, dtype),
        )


class Operation:
    """Base of layers and graph ops: a name, inbound/outbound nodes, symbolic calls.

    Subclasses implement `call`. Called on arrays, an operation computes; called with any
    KerasTensor argument, it computes output specs and records a `Node` instead.

    >>> import numpy as np
    >>> from lamina import Input, ops
    >>> class Double(Operation):
    ...     def call(self, x):
    ...         return ops.multiply(x, 2.0)
    >>> Double()(np.array([1.0, 2.0])).tolist()  # on arrays: computes
    [2.0, 4.0]
    >>> y = Double(name="double")(Input((3,)))  # on a KerasTensor: records a node
    >>> y.shape, y._keras_history.operation.name
    ((None, 3), 'double')
    """

    def __init__(self, name: str | None = None):
        if name is None:
            name = unique_name(to_snake_case(type(self).__name__))
        elif not isinstance(name, str) or "/" in name:
            raise ValueError(
                f"Invalid name {name!r} for {type(self).__name__}: expected a string without '/'."
            )
        self.name = name
        self._inbound_nodes: list[Node] = []
        self._outbound_nodes: list[Node] = []

    def call(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement `call`.")

    def __call__(self, *args, **kwargs):
        if any_symbolic(args, kwargs):
            return self.symbolic_call(*args, **kwargs)
        return self.call(*args, **kwargs)

    def compute_output_spec(self, *args, **kwargs):
        return output_spec(self.call, args, kwargs)

    def symbolic_call(self, *args, **kwargs):
        outputs = self.compute_output_spec(*args, **kwargs)
        Node(self, call_args=args, call_kwargs=kwargs, outputs=outputs)
        return outputs

    # Node accessors (shared by every layer) --------------------------------------------
    def _node_attr(self, node_index: int, attr: str, what: str):
        if not self._inbound_nodes:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} has never been called and so has no "
                f"defined {what}."
            )
        if not 0 <= node_index < len(self._inbound_nodes):
            raise ValueError(
                f"Asked for node {node_index} of {type(self).__name__} {self.name!r}, but it "
                f"has only {len(self._inbound_nodes)} inbound node(s)."
            )
        values = getattr(self._inbound_nodes[node_index], attr)
        return values[0] if len(values) == 1 else list(values)

    def get_input_at(self, node_index: int):
        return self._node_attr(node_index, "input_tensors", "input")

    def get_output_at(self, node_index: int):
        return self._node_attr(node_index, "output_tensors", "output")

    def get_input_shape_at(self, node_index: int):
        return self._node_attr(node_index, "input_shapes", "input shape")

    def get_output_shape_at(self, node_index: int):
        return self._node_attr(node_index, "output_shapes", "output shape")

    def _single_node_attr(self, attr: str, what: str):
        if len(self._inbound_nodes) > 1:
            raise AttributeError(
                f"{type(self).__name__} {self.name!r} has multiple inbound nodes, so its "
                f"{what} is ambiguous. Use `get_{attr}_at(node_index)` instead."
            )
        if not self._inbound_nodes:
            raise AttributeError(
                f"{type(self).__name__} {self.name!r} has never been called and so has no "
                f"defined {what}."
            )
        return self._node_attr(
            0, f"{attr}_tensors" if attr in ("input", "output") else attr + "s", what
        )

    @property
    def input(self):
        """The input tensor(s) of the only call of this operation."""
        return self._single_node_attr("input", "input")

    @property
    def output(self):
        """The output tensor(s) of the only call of this operation."""
        return self._single_node_attr("output", "output")

    @property
    def input_shape(self):
        """The input shape(s) of the only call of this operation."""
        return self._single_node_attr("input_shape", "input shape")

    @property
    def output_shape(self):
        """The output shape(s) of the only call of this operation."""
        return self._single_node_attr("output_shape", "output shape")


class FunctionOperation(Operation):
    """A graph node for a plain function such as `ops.add`: each symbolic call makes one.

    `function_name` is the public op name (`"add"`), used to rebuild it from a config.
    """

    def __init__(self, fn, function_name: str, name: str | None = None):
        super().__init__(name=name or unique_name(function_name))
        self.fn = fn
        self.function_name = function_name

    def call(self, *args, **kwargs):
        # A Variable used as a constant (`x * scale`) is read when the node runs, from
        # the stateless scope of a compiled call when there is one.
        if not kwargs and not any(isinstance(a, _READ_THROUGH) for a in args):
            return self.fn(*args)  # nothing to read: the common case, without a tree walk
        args, kwargs = tree.map_structure(_read_variable, (args, kwargs))
        return self.fn(*args, **kwargs)

    def get_config(self) -> dict:
        return {"name": self.name, "function": self.function_name}

    def __repr__(self) -> str:
        return f"<Operation {self.function_name} name={self.name}>"


_READ_THROUGH = (Variable, list, tuple, dict)


def _read_variable(x):
    return x.value if isinstance(x, Variable) else x


def symbolic_call(fn, function_name: str, args, kwargs):
    """Record `fn(*args, **kwargs)` on symbolic arguments as a new graph node."""
    return FunctionOperation(fn, function_name).symbolic_call(*args, **kwargs)


class _CallContext(threading.local):
    def __init__(self):
        self.stack: list = []


_CALL_CONTEXT = _CallContext()


class CallContext:
    """The state of the outermost call in progress: the `training` flag travels here."""

    def __init__(self, training=None):
        self.training = training

    def __enter__(self):
        _CALL_CONTEXT.stack.append(self)
        return self

    def __exit__(self, *exc):
        _CALL_CONTEXT.stack.pop()
        return False


def current_call_context() -> CallContext | None:
    stack = _CALL_CONTEXT.stack
    return stack[-1] if stack else None
