"""Keras 3 op nodes in functional configs, run with lamina's ops.

A Keras functional config records every op applied to a symbolic tensor as a graph
node: `x != 0` becomes `{"module": "keras.src.ops.numpy", "class_name": "NotEqual"}`
(Keras's `Embedding(mask_zero=True)` writes exactly that), `x + 1.0` an `Add`,
`ops.cast(x, "int32")` a `Cast` whose config holds `dtype`. Such an entry is resolved
only through `KERAS_OPS` below (class name -> lamina op name): the module a file names
is never imported. The node becomes a `KerasOperation`, which calls the lamina op with
the node's call arguments plus the constructor arguments in the config, and writes
itself back under the Keras names so the file still loads in Keras.
"""

from __future__ import annotations

import inspect

from lamina import ops
from lamina.graph.operation import Operation
from lamina.layers.layer import Layer
from lamina.utils import serialization

# Keras op class -> lamina op. The first group is what KerasTensor's Python operators
# create (`+`, `-`, `*`, `/`, `//`, `%`, `**`, `@`, comparisons, `&`, `|`, `^`, `~`,
# `-x`, `abs`, `round`, `[...]`); the rest are ops often applied in functional models.
KERAS_OPS = {
    "Add": "add",
    "Subtract": "subtract",
    "Multiply": "multiply",
    "Divide": "divide",
    "TrueDivide": "true_divide",
    "FloorDivide": "floor_divide",
    "Mod": "mod",
    "Power": "power",
    "Matmul": "matmul",
    "Negative": "negative",
    "Absolute": "absolute",
    "Round": "round",
    "Equal": "equal",
    "NotEqual": "not_equal",
    "Less": "less",
    "LessEqual": "less_equal",
    "Greater": "greater",
    "GreaterEqual": "greater_equal",
    "LogicalAnd": "logical_and",
    "LogicalOr": "logical_or",
    "LogicalXor": "logical_xor",
    "LogicalNot": "logical_not",
    "GetItem": "get_item",
    "Cast": "cast",
    "Reshape": "reshape",
    "Transpose": "transpose",
    "ExpandDims": "expand_dims",
    "Squeeze": "squeeze",
    "Concatenate": "concatenate",
    "Stack": "stack",
    "Take": "take",
    "Where": "where",
    "Clip": "clip",
    "Maximum": "maximum",
    "Minimum": "minimum",
    "Sum": "sum",
    "Mean": "mean",
    "Max": "max",
    "Min": "min",
    "Argmax": "argmax",
    "Argmin": "argmin",
    "Exp": "exp",
    "Log": "log",
    "Sqrt": "sqrt",
    "Square": "square",
    "Tanh": "tanh",
    "Sigmoid": "sigmoid",
    "Relu": "relu",
    "Softmax": "softmax",
    "Einsum": "einsum",
}

# Constructor arguments newer Keras versions write that lamina's op lacks; accepted at
# these values only.
_DEFAULT_ONLY = {"initial": None}
# Constructor arguments that come first, before the call's tensors.
_LEADING = {"Einsum": "subscripts"}


class KerasOperation(Layer):
    """One Keras op node of a functional config (`NotEqual`, `Add`, `Cast`, ...).

    Built only from configs (see the module docstring); it holds no weights and, like a
    Keras op, is called on its arguments as they are: no casting, building or masks.

    Args:
        class_name: the Keras op class, a key of `KERAS_OPS`.
        module: the Keras module the config named (written back unchanged).
        arguments: the op's constructor arguments from the config (e.g. `dtype`).
        name: the node's name in the graph.
    """

    _is_keras_op = True

    def __init__(self, class_name: str, module: str, arguments: dict, name: str | None = None):
        super().__init__(name=name)
        if class_name not in KERAS_OPS:
            raise ValueError(_unknown(class_name, module))
        fn = getattr(ops, KERAS_OPS[class_name])
        arguments = dict(arguments)
        for key, default in _DEFAULT_ONLY.items():
            if key in arguments and arguments[key] == default:
                arguments.pop(key)
        accepted = set(inspect.signature(fn).parameters)
        unknown = sorted(set(arguments) - accepted)
        if unknown:
            raise ValueError(
                f"Keras op {class_name!r} ({name!r}) has arguments {unknown} that lamina's "
                f"`ops.{KERAS_OPS[class_name]}` does not take (it takes {sorted(accepted)})."
            )
        self.op_class_name = class_name
        self.op_module = module
        self.arguments = arguments
        self._fn = fn
        self.built = True

    # An op, not a layer: called on its arguments exactly as recorded.
    __call__ = Operation.__call__

    def call(self, *args, **kwargs):
        if self.op_class_name == "GetItem" and len(args) == 2 and isinstance(args[1], list):
            args = (args[0], tuple(args[1]))  # JSON has no tuples: Keras reads a list so
        leading = _LEADING.get(self.op_class_name)
        if leading is not None:
            rest = {k: v for k, v in self.arguments.items() if k != leading}
            return self._fn(self.arguments[leading], *args, **kwargs, **rest)
        return self._fn(*args, **kwargs, **self.arguments)

    def get_config(self) -> dict:
        return {"name": self.name, **self.arguments}

    def _keras_serialized_names(self):
        return self.op_module, self.op_class_name, self.op_class_name


def _unknown(class_name, module) -> str:
    return (
        f"Unknown Keras op {class_name!r} (module {module!r}) in the config. lamina runs "
        f"these Keras op nodes: {sorted(KERAS_OPS)}; it never imports a module named by a "
        "file. Rebuild the model with layers, or with one of these ops."
    )


def _from_config(class_name: str, module: str, config: dict):
    if not isinstance(config, dict):
        raise TypeError(
            f"Keras op {class_name!r} needs a config dict; received {type(config).__name__}."
        )
    arguments = dict(config)
    name = arguments.pop("name", None)
    return KerasOperation(class_name, module, arguments, name=name)


serialization.register_keras_op_factory(_from_config, KERAS_OPS)
