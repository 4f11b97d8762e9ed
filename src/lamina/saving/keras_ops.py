"""Keras 3 op nodes in functional configs, run with lamina's ops.

A Keras functional config records every op applied to a symbolic tensor as a graph
node: `x != 0` becomes `{"module": "keras.src.ops.numpy", "class_name": "NotEqual"}`
(Keras's `Embedding(mask_zero=True)` writes exactly that), `x + 1.0` an `Add`,
`ops.cast(x, "int32")` a `Cast` whose config holds `dtype`. Such an entry is resolved
only through `KERAS_OPS` below (class name -> lamina op name): the module a file names
is never imported. The node becomes a `KerasOperation`, which calls the lamina op with
the node's call arguments plus the constructor arguments in the config, and writes
itself back under the Keras names so the file still loads in Keras.

Writing goes the same way: a lamina op node whose op Keras has a class for (`x + y`,
`ops.cast`, `x[:, 0]`, ...) is written as that class (`keras_op_entry`), its constructor
arguments (`dtype`, `axis`, ...) in the entry's config and only the call arguments in
the node, so Keras loads a lamina file holding such ops.
"""

from __future__ import annotations

import inspect

from lamina import ops
from lamina.common import serialization
from lamina.graph.operation import Operation

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
# The module Keras keeps each op class in, where it is not `keras.src.ops.numpy`.
_MODULES = {
    "Cast": "keras.src.ops.core",
    "Sigmoid": "keras.src.ops.nn",
    "Relu": "keras.src.ops.nn",
    "Softmax": "keras.src.ops.nn",
}
_NUMPY_MODULE = "keras.src.ops.numpy"
# Each Keras op class's constructor arguments besides `name` (its `__init__`); every
# other argument of the lamina op is a call argument. Classes not named take none.
_CONSTRUCTOR = {
    "Round": ("decimals",),
    "Cast": ("dtype",),
    "Reshape": ("newshape",),
    "Transpose": ("axes",),
    "ExpandDims": ("axis",),
    "Squeeze": ("axis",),
    "Concatenate": ("axis",),
    "Stack": ("axis",),
    "Take": ("axis",),
    "Clip": ("x_min", "x_max"),
    "Sum": ("axis", "keepdims"),
    "Mean": ("axis", "keepdims"),
    "Max": ("axis", "keepdims", "initial"),
    "Min": ("axis", "keepdims", "initial"),
    "Argmax": ("axis", "keepdims"),
    "Argmin": ("axis", "keepdims"),
    "Softmax": ("axis",),
    "Einsum": ("subscripts",),
}
# Constructor arguments JSON gives back as lists that lamina's ops take as tuples.
_TUPLE_ARGUMENTS = ("axis", "axes", "newshape")
# lamina op name -> the Keras class written for it: the table read backwards, plus
# the name Python's `abs(x)` records.
_WRITTEN_AS = {op: class_name for class_name, op in KERAS_OPS.items()} | {"abs": "Absolute"}


class KerasOperation(Operation):
    """One Keras op node of a functional config (`NotEqual`, `Add`, `Cast`, ...).

    Built only from configs (see the module docstring); it holds no weights and, like a
    Keras op, is called on its arguments as they are: no casting, building or masks. An
    operation, not a layer, so it is not one of the model's `layers` (as in Keras).

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
        self.arguments = dict(arguments)  # as the config gave them, written back so
        arguments = {
            k: v for k, v in arguments.items() if k not in _DEFAULT_ONLY or v != _DEFAULT_ONLY[k]
        }
        accepted = set(inspect.signature(fn).parameters)
        unknown = sorted(set(arguments) - accepted)
        if unknown:
            raise ValueError(
                f"Keras op {class_name!r} ({name!r}) has arguments {unknown} that lamina's "
                f"`ops.{KERAS_OPS[class_name]}` does not take (it takes {sorted(accepted)})."
            )
        self.op_class_name = class_name
        self.op_module = module
        self._call_arguments = {
            k: tuple(v) if k in _TUPLE_ARGUMENTS and isinstance(v, list) else v
            for k, v in arguments.items()
        }
        self._fn = fn

    def call(self, *args, **kwargs):
        if self.op_class_name == "GetItem" and len(args) == 2 and isinstance(args[1], list):
            args = (args[0], tuple(args[1]))  # JSON has no tuples: Keras reads a list so
        arguments = self._call_arguments
        leading = _LEADING.get(self.op_class_name)
        if leading is not None:
            rest = {k: v for k, v in arguments.items() if k != leading}
            return self._fn(arguments[leading], *args, **kwargs, **rest)
        return self._fn(*args, **kwargs, **arguments)

    def get_config(self) -> dict:
        return {"name": self.name, **self.arguments}

    def _keras_serialized_names(self):
        return self.op_module, self.op_class_name, self.op_class_name


def keras_op_entry(function_name: str, args, kwargs):
    """How Keras writes the op node `function_name(*args, **kwargs)`, or None.

    Returns `(module, class_name, constructor_arguments, call_args, call_kwargs)`; None
    where Keras has no class for the op or the arguments do not fit one (a tensor where
    Keras takes a constant, a list as a `[...]` key, which JSON would turn into a
    tuple), and the node keeps lamina's own form.
    """
    class_name = _WRITTEN_AS.get(function_name)
    if class_name is None:
        return None
    signature = inspect.signature(getattr(ops, KERAS_OPS[class_name]))
    try:
        given = signature.bind(*args, **kwargs)
    except TypeError:
        return None
    full = signature.bind(*args, **kwargs)
    full.apply_defaults()
    constructor = _CONSTRUCTOR.get(class_name, ())
    config = {}
    for key in constructor:
        value = full.arguments.get(key)
        if not _is_constant(value):
            return None
        config[key] = _listed(value)
    # Keras's `call` takes the remaining arguments in lamina's order: positionally up to
    # the first one not given, by keyword after it.
    call_args, call_kwargs, positional_gap = [], {}, False
    for parameter in signature.parameters.values():
        if parameter.name in constructor:
            continue
        if parameter.name not in given.arguments:
            positional_gap = True
            continue
        value = given.arguments[parameter.name]
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            call_args.extend(_listed(v) for v in value)
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            if value:
                return None
        elif parameter.kind is inspect.Parameter.KEYWORD_ONLY or positional_gap:
            call_kwargs[parameter.name] = _listed(value)
        else:
            call_args.append(_listed(value))
    if class_name == "GetItem" and isinstance(given.arguments.get("key"), list):
        return None
    return _MODULES.get(class_name, _NUMPY_MODULE), class_name, config, call_args, call_kwargs


def _is_constant(value) -> bool:
    """A value Keras's op classes take as a constructor argument: plain and JSON-able."""
    if isinstance(value, (list, tuple)):
        return all(_is_constant(v) for v in value)
    return value is None or type(value) in (bool, int, float, str)


def _listed(value):
    """`value` with tuples as lists, as Keras writes them (JSON has no tuples)."""
    if isinstance(value, (list, tuple)):
        return [_listed(v) for v in value]
    return value


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
