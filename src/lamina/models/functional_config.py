"""Functional model configs in the Keras 3 format, and rebuilding graphs from them.

Each layer entry carries its `inbound_nodes`: the call arguments of each of its calls in
this graph, with every tensor written as `{"class_name": "__keras_tensor__", "config":
{"keras_history": [layer_name, node_index, tensor_index]}}`. Node indices count only the
nodes that belong to this graph, so a nested model's own node 0 and calls made in other
graphs do not shift them.
"""

from __future__ import annotations

from lamina import ops, tree
from lamina.common import serialization
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.operation import FunctionOperation
from lamina.layers.input_layer import InputLayer
from lamina.layers.layer import Layer, _tuplify
from lamina.ops.core import _SpecifiedOperation as SpecifiedOperation
from lamina.saving.keras_ops import keras_op_entry

_OPS_MODULE = "lamina.ops"


def serialize_layer(layer) -> dict:
    """`serialize_keras_object` for layers, naming plain functional models `Functional`."""
    config = serialization.serialize_keras_object(layer, "layers")
    build = layer.get_build_config() if isinstance(layer, Layer) else None
    if build is not None:
        config["build_config"] = _jsonable(build)
    return config


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


def _serialize_arg(x, node_ids):
    if isinstance(x, KerasTensor):
        op, node_index, tensor_index = x._keras_history
        return {
            "class_name": "__keras_tensor__",
            "config": {
                "shape": list(x.shape),
                "dtype": x.dtype,
                "keras_history": [op.name, node_ids[(id(op), node_index)], tensor_index],
            },
        }
    if isinstance(x, slice):
        # Keras 3 writes (and reads only) the dict form.
        return {
            "class_name": "__slice__",
            "config": {"start": x.start, "stop": x.stop, "step": x.step},
        }
    if x is Ellipsis:
        return {"class_name": "__ellipsis__", "config": None}
    if isinstance(x, tuple):
        return {"class_name": "__tuple__", "config": [_serialize_arg(v, node_ids) for v in x]}
    if isinstance(x, list):
        return [_serialize_arg(v, node_ids) for v in x]
    if isinstance(x, dict):
        return {k: _serialize_arg(v, node_ids) for k, v in x.items()}
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    raise TypeError(
        f"Cannot serialize call argument {x!r} of type {type(x).__name__} in a functional "
        "model config."
    )


def functional_get_config(model) -> dict:
    function = model._function
    kept = set(function.nodes)
    node_ids: dict = {}
    for op in function.operations:
        count = 0
        for i, node in enumerate(op._inbound_nodes):
            if node in kept:
                node_ids[(id(op), i)] = count
                count += 1
    layer_configs = []
    for op in function.operations:
        nodes = [node for node in op._inbound_nodes if node in kept and not node.is_input]
        calls = [(list(node.call_args), node.call_kwargs) for node in nodes]
        keras_op = None
        if isinstance(op, FunctionOperation) and len(nodes) == 1:
            keras_op = keras_op_entry(op.function_name, *calls[0])
        if keras_op is not None:
            # An op Keras has a class for is written as that class, its constructor
            # arguments in the config and only the call's in the node, so Keras loads it.
            module, class_name, arguments, args, kwargs = keras_op
            config = {
                "module": module,
                "class_name": class_name,
                "config": {"name": op.name, **arguments},
                "registered_name": class_name,
            }
            calls = [(args, kwargs)]
        elif isinstance(op, FunctionOperation):
            config = {
                "module": _OPS_MODULE,
                "class_name": op.function_name,
                "config": op.get_config(),
                "registered_name": None,
            }
        else:
            config = serialize_layer(op)
        config["name"] = op.name
        config["inbound_nodes"] = [
            {"args": _serialize_arg(args, node_ids), "kwargs": _serialize_arg(kwargs, node_ids)}
            for args, kwargs in calls
        ]
        layer_configs.append(config)

    def history(x):
        # Keras counts a nested functional model's "built-in" node here (not in
        # `inbound_nodes`), so a tensor it outputs is written one higher.
        op, node_index, tensor_index = x._keras_history
        offset = 1 if _has_builtin_node(op) else 0
        return [op.name, node_ids[(id(op), node_index)] + offset, tensor_index]

    return {
        "name": model.name,
        "trainable": model.trainable,
        "layers": layer_configs,
        "input_layers": tree.map_structure(history, function._inputs_struct),
        "output_layers": tree.map_structure(history, function._outputs_struct),
    }


def _has_builtin_node(op) -> bool:
    """Whether Keras treats `op` as a functional model (Sequential included)."""
    from lamina.models.sequential import Sequential

    return isinstance(op, Sequential) or bool(getattr(op, "_is_graph_network", False))


def _is_history(x) -> bool:
    return (
        isinstance(x, list)
        and len(x) == 3
        and isinstance(x[0], str)
        and isinstance(x[1], int)
        and isinstance(x[2], int)
        and not isinstance(x[1], bool)
        and not isinstance(x[2], bool)
    )


def functional_from_config(cls, config: dict, custom_objects=None, **kwargs):
    """Rebuild a functional model: create every layer, then replay its calls in order."""
    serialization.config_depth(config)
    _check_layout(config)
    created: dict[str, object] = {}
    pending: dict[str, list] = {}
    order: list[str] = []
    # (layer name, serialized node index) -> index into layer._inbound_nodes
    node_map: dict[tuple[str, int], int] = {}

    for layer_data in config["layers"]:
        name = _entry_name(layer_data)
        if layer_data.get("module") == _OPS_MODULE:
            function_name = layer_data["class_name"]
            if function_name not in ops.__all__ and function_name != "get_item":
                raise ValueError(f"Config names op {function_name!r}, which is not a lamina op.")
            layer = _OpFactory(function_name, name)
        else:
            layer = serialization.deserialize_keras_object(
                layer_data,
                "layers",
                custom_objects=custom_objects,
                printable_module_name="layer",
                **kwargs,
            )
            if not isinstance(layer, Layer) and not getattr(layer, "_is_keras_op", False):
                raise TypeError(f"Config entry {name!r} did not produce a layer.")
        created[name] = layer
        order.append(name)
        pending[name] = list(layer_data.get("inbound_nodes", []))
        if isinstance(layer, InputLayer):
            node_map[(name, 0)] = 0
        made = {"count": 1 if isinstance(layer, InputLayer) else 0}
        layer._lamina_made = made  # serialized node counter during rebuilding

    def resolve(x):
        if isinstance(x, dict):
            cname = x.get("class_name")
            if cname == "__keras_tensor__":
                lname, nidx, tidx = x["config"]["keras_history"]
                return _tensor(lname, nidx, tidx)
            if cname == "__slice__":  # Keras writes {"start", "stop", "step"}
                c = x["config"]
                return slice(c["start"], c["stop"], c["step"]) if isinstance(c, dict) else slice(*c)
            if cname == "__ellipsis__":
                return Ellipsis
            if cname == "__tuple__":  # lamina writes a list, Keras {"value": [...]}
                c = x["config"]
                return tuple(resolve(v) for v in (c["value"] if isinstance(c, dict) else c))
            return {k: resolve(v) for k, v in x.items()}
        if isinstance(x, tuple):  # Keras's get_config leaves call args as a tuple
            return [resolve(v) for v in x]
        if isinstance(x, list):
            if _is_history(x):  # Keras 2 style [name, node, tensor, kwargs?]
                return _tensor(*x[:3])
            return [resolve(v) for v in x]
        return x

    def _tensor(lname, nidx, tidx):
        layer = created[lname]
        node = (
            layer._inbound_nodes[node_map[(lname, nidx)]]
            if not isinstance(layer, _OpFactory)
            else layer.nodes[nidx]
        )
        return node.output_tensors[tidx]

    def ready(x) -> bool:
        if isinstance(x, dict):
            if x.get("class_name") == "__keras_tensor__":
                config = x.get("config")
                history = config.get("keras_history") if isinstance(config, dict) else None
                if not _is_history(history) or min(history[1:]) < 0:
                    raise ValueError(
                        "a tensor's 'keras_history' must be [layer name, node index, tensor "
                        f"index]; found {history!r}"
                    )
                lname, nidx, _ = history
                if lname not in created:
                    raise ValueError(f"Config refers to unknown layer {lname!r}.")
                return _has_node(lname, nidx)
            return all(ready(v) for v in x.values())
        if isinstance(x, (list, tuple)):
            if _is_history(x):
                return _has_node(x[0], x[1])
            return all(ready(v) for v in x)
        return True

    def _has_node(lname, nidx):
        layer = created[lname]
        if isinstance(layer, _OpFactory):
            return nidx < len(layer.nodes)
        return (lname, nidx) in node_map

    progress = True
    while progress and any(pending.values()):
        progress = False
        for name in order:
            layer = created[name]
            while pending[name]:
                node_data = pending[name][0]
                where = f"layer {name!r}, inbound node {layer._lamina_made['count']}"
                try:
                    if isinstance(node_data, list):  # Keras 2 style list of histories
                        node_data = _keras2_node(node_data)
                    if not isinstance(node_data, dict):
                        raise ValueError(
                            f"expected a {{'args', 'kwargs'}} object, found "
                            f"{type(node_data).__name__}"
                        )
                    if not ready(node_data):
                        break
                    args = resolve(node_data.get("args", []))
                    call_kwargs = resolve(node_data.get("kwargs", {}))
                    if isinstance(args, dict):
                        args = [args]
                    if not isinstance(args, (list, tuple)) or not isinstance(call_kwargs, dict):
                        raise ValueError(
                            "'args' must be a list and 'kwargs' an object; found "
                            f"{type(args).__name__} and {type(call_kwargs).__name__}"
                        )
                    if not all(isinstance(k, str) for k in call_kwargs):
                        raise ValueError("'kwargs' keys must be strings")
                    _check_call_arguments(layer, args, call_kwargs)
                    layer(*args, **call_kwargs)
                except serialization.CONFIG_ERRORS as err:
                    raise serialization.config_error(err, where) from err
                made = layer._lamina_made
                if not isinstance(layer, _OpFactory):
                    node_map[(name, made["count"])] = len(layer._inbound_nodes) - 1
                made["count"] += 1
                pending[name].pop(0)
                progress = True
    stuck = [n for n, p in pending.items() if p]
    if stuck:
        raise ValueError(
            f"Could not rebuild the graph: the calls of layers {stuck} refer to tensors that "
            "are never produced (the config is inconsistent or has a cycle)."
        )
    for layer in created.values():
        layer.__dict__.pop("_lamina_made", None)

    def out_tensor(h):
        lname, nidx, tidx = h
        if lname not in created:
            raise ValueError(f"Config input/output refers to unknown layer {lname!r}.")
        return _tensor(lname, nidx - 1 if _has_builtin_node(created[lname]) else nidx, tidx)

    try:
        inputs = _map_histories(out_tensor, config["input_layers"])
    except serialization.CONFIG_ERRORS as err:
        raise serialization.config_error(err, "'input_layers'") from err
    try:
        outputs = _map_histories(out_tensor, config["output_layers"])
    except serialization.CONFIG_ERRORS as err:
        raise serialization.config_error(err, "'output_layers'") from err
    model_kwargs = {"name": config.get("name")}
    if config.get("trainable") is False:
        model_kwargs["trainable"] = False
    # By keyword, as Keras does: `Model.__init__` takes them so, and a subclass's own
    # __init__ names them so whatever order its parameters come in.
    return cls(inputs=inputs, outputs=outputs, **model_kwargs)


def _check_call_arguments(layer, args, call_kwargs: dict) -> None:
    """Refuse call arguments the layer's `call` cannot take: extra positional values,
    unknown keywords, and a `mask`/`training` of the wrong kind. A symbolic call may not
    notice them; the first real call would fail with an error naming nothing."""
    import inspect

    for key, ok, expected in (
        ("mask", _is_mask, "None or tensors from the graph"),
        ("training", lambda v: v is None or isinstance(v, bool), "None, true or false"),
    ):
        if key in call_kwargs and not ok(call_kwargs[key]):
            raise ValueError(
                f"its 'kwargs' give {key}={call_kwargs[key]!r:.60}; {key} must be {expected}"
            )
    call = getattr(layer, "call", None)
    if call is None:
        return
    try:
        parameters = list(inspect.signature(call).parameters.values())
    except (TypeError, ValueError):
        return
    kinds = [p.kind for p in parameters]
    positional = [
        p.name
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    if inspect.Parameter.VAR_POSITIONAL not in kinds and len(args) > len(positional):
        raise ValueError(
            f"its 'args' hold {len(args)} values, but {type(layer).__name__}.call takes at "
            f"most {len(positional)} positionally ({', '.join(positional)})"
        )
    if not call_kwargs or inspect.Parameter.VAR_KEYWORD in kinds:
        return
    known = {p.name for p in parameters} | {"training", "mask"}
    unknown = sorted(set(call_kwargs) - known)
    if unknown:
        raise ValueError(
            f"its 'kwargs' name {unknown}, which {type(layer).__name__}.call does not take "
            f"(it takes {sorted(known)})"
        )


def _is_mask(value) -> bool:
    """None, a graph tensor, or a list/tuple/dict of them (a mask per input)."""
    from lamina.graph.keras_tensor import KerasTensor

    if value is None or isinstance(value, KerasTensor):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_mask(v) for v in value)
    if isinstance(value, dict):
        return all(_is_mask(v) for v in value.values())
    return False


def _keras2_node(node_data: list) -> dict:
    """A Keras 2 inbound node (a list of `[name, node, tensor, kwargs?]`) as a dict."""
    if not node_data or not all(isinstance(h, list) and len(h) >= 3 for h in node_data):
        raise ValueError(
            f"a Keras 2 inbound node must be a list of [layer name, node index, tensor index, "
            f"kwargs?] lists; found {node_data!r:.200}"
        )
    kwargs = node_data[0][3] if len(node_data[0]) > 3 else {}
    return {
        "args": [[h[:3] for h in node_data]] if len(node_data) > 1 else [node_data[0][:3]],
        "kwargs": kwargs if isinstance(kwargs, dict) else {},
    }


def _entry_name(entry) -> str:
    name = entry.get("name") or entry["config"]["name"]
    return name


def _check_layout(config) -> None:
    """Refuse a functional config whose layout is not Keras's, naming the JSON path."""
    if not isinstance(config, dict):
        raise ValueError(
            f"A functional model config must be an object; found {type(config).__name__}."
        )
    for key in ("layers", "input_layers", "output_layers"):
        if key not in config:
            raise ValueError(f"The functional model config has no {key!r}.")
    if not isinstance(config["layers"], list):
        raise ValueError(
            f"'layers' of the functional model config must be a list; found "
            f"{type(config['layers']).__name__}."
        )
    seen = set()
    for i, entry in enumerate(config["layers"]):
        where = f"'layers'[{i}]"
        if not isinstance(entry, dict):
            raise ValueError(f"{where} must be an object; found {type(entry).__name__}.")
        if not isinstance(entry.get("class_name"), str):
            raise ValueError(f"{where} has no 'class_name' string.")
        inner = entry.get("config")
        name = entry.get("name") or (inner.get("name") if isinstance(inner, dict) else None)
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where} ({entry['class_name']}) has no 'name' string.")
        if name in seen:
            raise ValueError(f"{where}: two layers are named {name!r}; names must be unique.")
        seen.add(name)
        if not isinstance(entry.get("inbound_nodes", []), list):
            raise ValueError(f"{where} {name!r}: 'inbound_nodes' must be a list.")


def _map_histories(fn, struct):
    if _is_history(struct):
        return fn(struct)
    if isinstance(struct, dict):
        return {k: _map_histories(fn, v) for k, v in struct.items()}
    out = [_map_histories(fn, v) for v in struct]
    return out[0] if len(out) == 1 else out


def _public_op(name: str):
    """The public op `name` from `lamina.ops` or its namespaces, or None."""
    from lamina import ops

    for module in (ops, ops.numpy, ops.nn, ops.math, ops.image, ops.linalg):
        fn = getattr(module, name, None)
        if callable(fn) and not isinstance(fn, type) and not name.startswith("_"):
            return fn
    return None


class _OpFactory:
    """Stands in for an op entry of a config: each call records one op node."""

    def __init__(self, function_name, name):
        self.function_name = function_name
        self.name = name
        self.nodes = []
        self._inbound_nodes = []

    def __call__(self, *args, **kwargs):
        from lamina.backend import core as bcore
        from lamina.backend import math as bmath
        from lamina.backend import nn as bnn
        from lamina.backend import numpy as bnp

        for module in (bnp, bnn, bmath, bcore):
            fn = getattr(module, self.function_name, None)
            if fn is not None:
                break
        if fn is None:
            # An op written from other ops (`rearrange`, `extract_sequences`): the node
            # runs the public op, which computes with the engine's primitives.
            fn = _public_op(self.function_name)
        if fn is None:
            raise ValueError(f"Config names op {self.function_name!r}, which is not a lamina op.")
        spec = getattr(_public_op(self.function_name), "output_spec", None)
        if spec is not None:  # an op that gives its own output spec (`unique`, `nonzero`)
            op = SpecifiedOperation(fn, self.function_name, spec, name=self.name)
        else:
            op = FunctionOperation(fn, self.function_name, name=self.name)
        outputs = op.symbolic_call(*args, **kwargs)
        self.nodes.append(op._inbound_nodes[-1])
        return outputs


__all__ = ["functional_from_config", "functional_get_config", "serialize_layer", "_tuplify"]
