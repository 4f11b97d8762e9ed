"""`clone_model`: the same architecture with new layers (Keras 3's semantics).

A Sequential model is cloned layer by layer; a functional model is rebuilt by running
its graph again, node by node, on new inputs, each layer replaced by its clone (a
shared layer is cloned once, so the clone shares it the same way); any other model is
rebuilt from its config. `clone_function` decides what replaces each layer (by default
a layer made from its config: the same settings, new weights), and `call_function`
how each replacement is called in the new graph (a functional model only).
"""

from __future__ import annotations

from lamina import tree
from lamina.common import serialization
from lamina.graph.function import map_graph
from lamina.graph.keras_tensor import KerasTensor
from lamina.layers.input_layer import Input, InputLayer
from lamina.layers.layer import Layer
from lamina.models.model import Model
from lamina.models.sequential import Sequential


def _clone_layer(layer):
    """A new layer with `layer`'s config (fresh weights)."""
    return layer.__class__.from_config(layer.get_config())


def _is_graph_model(model) -> bool:
    return isinstance(model, Model) and getattr(model, "_function", None) is not None


def clone_model(
    model,
    input_tensors=None,
    clone_function=None,
    call_function=None,
    recursive=False,
    custom_objects=None,
    **kwargs,
):
    """A new model with `model`'s architecture and newly made (not copied) weights.

    A compiled model's clone is compiled with the same settings (new optimizer and
    metric states), as in Keras.

    Args:
        model: a `Sequential`, functional or subclassed `Model`.
        input_tensors: the new model's inputs: KerasTensors (from `Input(...)`), in
            the structure of `model.inputs` (one tensor for a Sequential model); by
            default new Inputs like the model's own. Sequential and functional models.
        clone_function: `layer -> new layer`, called once per layer of the model (a
            shared layer stays shared). Return `layer` itself to reuse it, weights and
            all. By default `layer.__class__.from_config(layer.get_config())`.
            Sequential and functional models only.
        call_function: `(layer, *args, **kwargs) -> outputs`, how each new layer is
            called in the new graph (for example to insert a layer after some of them).
            By default `layer(*args, **kwargs)`. Functional models only.
        recursive: when True, a nested Sequential or functional model is itself cloned
            with the same functions (its layers go through `clone_function`); when
            False, `clone_function` receives the nested model whole.
        custom_objects: names a subclassed model's config needs.

    Returns:
        The new model. Copy weights too with `new.set_weights(model.get_weights())`
        (both models must then hold the same layers).

    >>> import lamina
    >>> base = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2, name="d")])
    >>> copy = clone_model(base)
    >>> copy.layers[0] is base.layers[0], copy.layers[0].name
    (False, 'd')
    """
    cache = kwargs.pop("cache", None)
    if kwargs:
        raise TypeError(
            f"clone_model got unexpected keyword argument(s) {sorted(kwargs)}; it takes "
            "input_tensors, clone_function, call_function, recursive and custom_objects."
        )
    if not isinstance(model, Model):
        raise TypeError(
            f"clone_model expects a lamina Model; received {type(model).__name__} {model!r}. "
            "To copy one layer, use `layer.__class__.from_config(layer.get_config())`."
        )
    for name, fn in (("clone_function", clone_function), ("call_function", call_function)):
        if fn is not None and not callable(fn):
            raise TypeError(
                f"clone_model's `{name}` must be callable; received {type(fn).__name__} {fn!r}."
            )
    graph = isinstance(model, Sequential) or (_is_graph_model(model) and not _overrides_call(model))
    if not graph:
        if input_tensors is not None or clone_function is not None or call_function:
            raise ValueError(
                "clone_model's `input_tensors`, `clone_function` and `call_function` apply "
                f"to Sequential and functional models; {model.name!r} is a subclassed "
                f"{type(model).__name__}, cloned from its config. Leave them out."
            )
        config = serialization.serialize_keras_object(model, "layers")
        objects = {type(model).__name__: type(model), **(custom_objects or {})}
        return serialization.deserialize_keras_object(config, "layers", custom_objects=objects)
    clone_one = _caching_clone(clone_function or _clone_layer, call_function, recursive, cache)
    if isinstance(model, Sequential):
        if call_function is not None:
            raise ValueError(
                f"clone_model's `call_function` applies to functional models only; "
                f"{model.name!r} is a Sequential model, whose layers are listed, not "
                "called, when it is made. Use `clone_function`, or make the model "
                "functional first."
            )
        clone = _clone_sequential(model, input_tensors, clone_one)
    else:
        clone = _clone_functional(model, input_tensors, clone_one, call_function)
    if getattr(model, "compiled", False):
        clone.compile_from_config(model.get_compile_config())
    return clone


def _caching_clone(clone_function, call_function, recursive, cache):
    """`clone_function` once per layer (a shared layer is cloned once, nested models
    included), cloning nested graph models whole when `recursive`."""
    cache = {} if cache is None else cache

    def clone_one(layer):
        if id(layer) in cache:
            return cache[id(layer)]
        if recursive and (isinstance(layer, Sequential) or _is_graph_model(layer)):
            new = clone_model(
                layer,
                clone_function=clone_function,
                call_function=None if isinstance(layer, Sequential) else call_function,
                recursive=True,
                cache=cache,
            )
        else:
            new = clone_function(layer)
        if not isinstance(new, Layer):
            raise TypeError(
                f"clone_model's `clone_function` must return a Layer; for layer "
                f"{layer.name!r} it returned {type(new).__name__} {new!r}."
            )
        cache[id(layer)] = new
        return new

    return clone_one


def _overrides_call(model) -> bool:
    return getattr(type(model).call, "_lamina_default", False) is False and not isinstance(
        model, Sequential
    )


def _new_input(tensor):
    layer = tensor._keras_history.operation
    name = layer.name if isinstance(layer, InputLayer) else None
    return Input(batch_shape=tuple(tensor.shape), dtype=tensor.dtype, name=name)


def _check_inputs(model, input_tensors) -> list:
    given = tree.flatten(input_tensors)
    if len(given) != len(model.inputs):
        raise ValueError(
            f"clone_model: model {model.name!r} has {len(model.inputs)} input(s) but "
            f"`input_tensors` holds {len(given)}; pass one `Input(...)` tensor per input, "
            "in the order of `model.inputs`."
        )
    for x in given:
        if not isinstance(x, KerasTensor):
            raise ValueError(
                f"clone_model's `input_tensors` must be symbolic tensors from "
                f"`lamina.Input(...)`; received {type(x).__name__}. Make them with "
                "`lamina.Input(shape=..., dtype=...)`."
            )
    return given


def _clone_sequential(model, input_tensors, clone_one):
    layers = [clone_one(layer) for layer in model.layers]
    first = model._stack[0] if model._stack else None
    first = first if isinstance(first, InputLayer) else None
    stack = []
    if input_tensors is not None:
        given = tree.flatten(input_tensors)
        if len(given) != 1 or not isinstance(given[0], KerasTensor):
            raise ValueError(
                f"clone_model: `input_tensors` for Sequential model {model.name!r} must be "
                f"one KerasTensor (from `lamina.Input(...)`); received {input_tensors!r}."
            )
        name = first.name if first is not None else None
        stack.append(Input(tensor=given[0], name=name))
    elif first is not None:
        stack.append(
            Input(
                batch_shape=first.batch_shape,
                dtype=first.dtype,
                name=first.name,
                optional=first.optional,
            )
        )
    return Sequential(stack + layers, trainable=model.trainable, name=model.name)


def _clone_functional(model, input_tensors, clone_one, call_function):
    function = model._function
    old_inputs = list(function.inputs)
    if input_tensors is not None:
        new_inputs = _check_inputs(model, input_tensors)
    else:
        new_inputs = [_new_input(x) for x in old_inputs]
    mapping = {id(old): new for old, new in zip(old_inputs, new_inputs)}

    def swap(x):
        return mapping[id(x)] if isinstance(x, KerasTensor) else x

    nodes = map_graph(old_inputs, list(function.outputs))[0]
    for node in nodes:
        if node.is_input:
            continue
        operation = node.operation
        if isinstance(operation, Layer):
            operation = clone_one(operation)
        args = tree.map_structure(swap, node.call_args)
        kwargs = tree.map_structure(swap, node.call_kwargs)
        if call_function is not None and isinstance(operation, Layer):
            outputs = call_function(operation, *args, **kwargs)
        else:
            outputs = operation(*args, **kwargs)
        new_outputs = tree.flatten(outputs)
        if len(new_outputs) != len(node.output_tensors):
            raise ValueError(
                f"clone_model: the new layer for {node.operation.name!r} returned "
                f"{len(new_outputs)} output(s) where the original returned "
                f"{len(node.output_tensors)}; `clone_function`/`call_function` must keep "
                "each layer's outputs."
            )
        for old, new in zip(node.output_tensors, new_outputs):
            mapping[id(old)] = new
    inputs = tree.pack_sequence_as(function._inputs_struct, new_inputs)
    outputs = tree.pack_sequence_as(
        function._outputs_struct, [mapping[id(x)] for x in function.outputs]
    )
    # A subclass whose constructor is the functional one keeps its class (as in Keras).
    cls = type(model) if type(model).__init__ is Model.__init__ else Model
    return cls(inputs=inputs, outputs=outputs, name=model.name, trainable=model.trainable)
