"""What a `Layer` is given, checked and recorded: its constructor arguments, the shapes
and dtype policies a config holds, and the inputs it refuses.

- A subclass that keeps the base `get_config` is described by the arguments it was
  constructed with, when they are plain values (`record_arguments`), as Keras does.
- JSON turns shape tuples into lists (`tuplify` turns them back); a config's dtype may
  be a serialized policy (`dtype_name`).
- The first input may come by keyword, under the name `call` gives it
  (`layer(source=x, source_mask=m)`), as Keras binds it (`first_input`); a `build` of
  several shapes gets each `call` argument's by name (`build(self, query_shape,
  value_shape)`, `build_from_call`), kept in the build config as Keras keeps it.
- Text given to a layer that computes on numbers, and Keras's `bounding_box_format`,
  are refused with a message that says what to do instead.
"""

from __future__ import annotations

import inspect

import numpy as np

from lamina import backend, dtype_policies, tree
from lamina.backend.common.variables import Variable
from lamina.graph.keras_tensor import KerasTensor

# The base classes' own `get_config` and `__init__`: a subclass that keeps the base
# `get_config` gets its constructor arguments recorded (see `record_arguments`).
BASE_GET_CONFIGS: set = set()
BASE_INITS: set = set()
_PLAIN_TYPES = (str, int, float, bool, type(None))


def _plain(value) -> bool:
    """A value JSON carries as is: str, int, float, bool, None, or lists/dicts of them."""
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return isinstance(value, _PLAIN_TYPES)


def record_arguments(cls, args, kwargs):
    """The constructor arguments of a subclass relying on the base `get_config`, as a
    dict when they are all plain values, else the names of those that are not (as a
    tuple), or None for classes that describe themselves."""
    if cls.__init__ in BASE_INITS or cls.get_config not in BASE_GET_CONFIGS:
        return None
    signature = inspect.signature(cls.__init__)
    try:
        bound = signature.bind(None, *args, **kwargs)
    except TypeError:
        return None  # `__init__` raises its own error
    recorded, not_plain = {}, []
    for i, (name, value) in enumerate(bound.arguments.items()):
        kind = signature.parameters[name].kind
        if i == 0:
            continue  # self
        if kind is inspect.Parameter.VAR_POSITIONAL:
            if value:
                not_plain.append(f"*{name}")
            continue
        items = value.items() if kind is inspect.Parameter.VAR_KEYWORD else [(name, value)]
        for key, item in items:
            if _plain(item):
                recorded[key] = list(item) if isinstance(item, tuple) else item
            else:
                not_plain.append(key)
    return tuple(not_plain) if not_plain else recorded


def recorded_arguments(layer, kind: str) -> dict:
    """The constructor arguments recorded for a subclass without its own `get_config`
    ({} for classes that describe themselves); raises when they are not plain."""
    recorded = layer.__dict__.get("_auto_config")
    if recorded is None:
        return {}
    if isinstance(recorded, tuple):
        raise NotImplementedError(
            f"{kind} {type(layer).__name__} was constructed with argument(s) "
            f"{list(recorded)} that are not plain values (str, int, float, bool, None, "
            "or lists/dicts of them), and it does not override `get_config()`, so its "
            "config cannot re-create it. Override `get_config` to describe them (and "
            "`from_config` to rebuild them)."
        )
    return {k: v for k, v in recorded.items() if k not in ("name", "trainable", "dtype")}


def dtype_name(dtype):
    """A policy name for a serialized float policy (Keras 3's `DTypePolicy` dict, Keras
    2's `Policy`), the policy itself for a quantized one or a `DTypePolicyMap` (their
    names do not say everything); anything else as given."""
    if isinstance(dtype, dict):
        policy = dtype_policies.deserialize(dtype)
        if policy.quantization_mode is not None or hasattr(policy, "policy_map"):
            return policy
        return policy.name
    return dtype


def resolve_policy(layer, value):
    """The policy `layer` computes with when its policy is set to `value`.

    A `DTypePolicyMap` is kept (`layer.dtype_policy` returns it) and looked up at the
    layer's path once that is known (see `resolve_mapped_policy`); a plain policy set
    on a layer that has a map is stored in the map under the layer's path, as Keras
    does."""
    policy = dtype_policies.get(dtype_name(value))
    if isinstance(policy, dtype_policies.DTypePolicyMap):
        layer.__dict__["_policy_map"] = policy
        path = _known_path(layer)
        return policy[path] if path else policy.default_policy
    policy_map = layer.__dict__.get("_policy_map")
    path = _known_path(layer)
    if policy_map is not None and path:
        if path in policy_map:
            del policy_map[path]
        policy_map[path] = policy
    elif policy_map is not None:
        del layer.__dict__["_policy_map"]
    return policy


def _known_path(layer):
    parent = layer.__dict__.get("_parent_path")
    if parent is None:
        return None
    return f"{parent}/{layer.name}" if parent else layer.name


def resolve_mapped_policy(layer) -> None:
    """Once a layer with a `DTypePolicyMap` knows its path, compute with its entry."""
    policy_map = layer.__dict__.get("_policy_map")
    if policy_map is None:
        return
    policy = policy_map[_known_path(layer)]
    if policy is not layer.__dict__.get("_dtype_policy"):
        layer.__dict__["_quantizing"] = True  # a build reads it; nothing to convert
        try:
            layer.dtype_policy = policy_map
        finally:
            del layer.__dict__["_quantizing"]


def is_shape(x) -> bool:
    return isinstance(x, tuple) and all(d is None or isinstance(d, int) for d in x)


def shapes_to_specs(shapes, dtype):
    if is_shape(shapes):
        return KerasTensor(shapes, dtype)
    if isinstance(shapes, dict):
        return {k: shapes_to_specs(v, dtype) for k, v in shapes.items()}
    if isinstance(shapes, (list, tuple)):
        return [shapes_to_specs(s, dtype) for s in shapes]
    # A string is iterable (each character a string again): without this check it
    # would recurse without end.
    raise TypeError(
        f"Expected a shape (a tuple of ints or None), or a list or dict of shapes; "
        f"received {shapes!r} of type {type(shapes).__name__}. A layer's "
        "compute_output_shape must return shapes such as (None, 4)."
    )


def tuplify(shapes):
    """JSON turns shape tuples into lists; turn them back (lists of shapes stay lists)."""
    if isinstance(shapes, dict):
        return {k: tuplify(v) for k, v in shapes.items()}
    if isinstance(shapes, (list, tuple)):
        if all(d is None or isinstance(d, int) for d in shapes):
            return tuple(shapes)
        return [tuplify(s) for s in shapes]
    return shapes


# The first input by keyword -------------------------------------------------------------
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def first_call_argument(cls) -> str | None:
    """The name of the first argument of `cls.call` after `self` when it can be given by
    keyword (kept on the class), else None (`call(self, *args)`)."""
    cached = cls.__dict__.get("_lamina_first_call_argument")
    if cached is None:
        try:
            parameters = list(inspect.signature(cls.call).parameters.values())[1:]
        except (TypeError, ValueError):
            parameters = []
        first = parameters[0] if parameters else None
        cached = (
            first.name
            if first is not None and first.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
            else ""
        )
        cls._lamina_first_call_argument = cached
    return cached or None


def first_input(layer, kwargs: dict):
    """Take the first input of a call given without positional arguments out of `kwargs`:
    the value named as `call` names its first argument (`source=x` for
    `call(self, source, source_mask=None)`), as Keras binds it, or `inputs=`. The layer
    then calls `call(x, **rest)` and records the node so, which `call` reads the same."""
    name = first_call_argument(type(layer))
    for key in (name, "inputs"):
        if key is not None and key in kwargs:
            return kwargs.pop(key)
    expected = f"`{name}`" if name else "a positional argument"
    raise TypeError(
        f"{type(layer).__name__} {layer.name!r} was called without inputs: pass the first "
        f"input positionally or as {expected} (the first argument of its `call`); "
        f"received only keyword argument(s) {sorted(kwargs)}."
    )


def convert_arrays(layer, arguments):
    """A call's arguments after the first (a tuple, or the keywords' dict), with each
    numeric NumPy array, Variable and engine tensor in them made an engine tensor, float
    ones in the dtype the layer takes its inputs in, as Keras converts every array a
    call is given: `layer(source=x, source_mask=m)` gets `m` as a tensor too (an engine
    such as torch cannot mix a tensor with a NumPy array). Other values stay as given."""
    if not arguments:
        return arguments
    dtype = None

    def convert(value):
        nonlocal dtype
        if isinstance(value, Variable):
            value = value.value
        elif isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
            value = backend.convert_to_tensor(value)
        elif not backend.is_tensor(value):
            return value
        if layer._casts_inputs and "float" in str(value.dtype):
            dtype = dtype or layer._inputs_dtype()
            if backend.standardize_dtype(value.dtype) != dtype:
                value = backend.core.cast(value, dtype)
        return value

    return tree.map_structure(convert, arguments)


# A build of several shapes ----------------------------------------------------------------
_BUILD_KINDS = _POSITIONAL + (inspect.Parameter.KEYWORD_ONLY,)


def build_shape_names(cls) -> tuple:
    """The arguments of `cls.build` when it takes more than one and each names an
    argument of `call` with a `_shape` suffix (Keras's `build(self, query_shape,
    value_shape)` for `call(self, query, value)`), else () (kept on the class). Any
    other `build` gets the first input's shape, positionally."""
    cached = cls.__dict__.get("_lamina_build_shape_names")
    if cached is None:
        try:
            parameters = list(inspect.signature(cls.build).parameters.values())[1:]
            arguments = list(inspect.signature(cls.call).parameters)[1:]
        except (TypeError, ValueError):
            parameters, arguments = [], []
        names = tuple(p.name for p in parameters if p.kind in _BUILD_KINDS)
        named = len(names) > 1 and all(
            n.endswith("_shape") and n[: -len("_shape")] in arguments for n in names
        )
        cached = names if named else ()
        cls._lamina_build_shape_names = cached
    return cached


def _shape_of(x):
    return tuple(x.shape) if hasattr(x, "shape") else None


def build_from_call(layer, args, kwargs) -> None:
    """Build `layer`, whose `build` takes several shapes, from a call's arguments:
    `build(query_shape=..., value_shape=...)` with the shapes of the `call` arguments of
    those names, bound as `call` binds them (positionally or by keyword), as Keras does.
    A `call` argument not given leaves its shape to the `build` default."""
    cls = type(layer)
    bound = inspect.signature(cls.call).bind_partial(layer, *args, **kwargs).arguments
    shapes = {}
    for name in build_shape_names(cls):
        value = bound.get(name[: -len("_shape")])
        if value is not None and not isinstance(value, (bool, int, float, str)):
            shapes[name] = tree.map_structure(_shape_of, value)
    layer._build_shapes_dict = shapes
    layer.build(**shapes)
    layer.built = True
    if layer._initial_weights is not None:
        layer.set_weights(layer._initial_weights)
        layer._initial_weights = None


def get_build_config(layer) -> dict | None:
    """`Layer.get_build_config`: the input shape the layer was built with, or, for a
    `build` of several shapes, each by name (`{"shapes_dict": ...}`, Keras's form)."""
    named = layer.__dict__.get("_build_shapes_dict")
    if named is not None:
        return {"shapes_dict": named}
    if layer._build_shapes is None:
        return None
    return {"input_shape": layer._build_shapes}


def build_from_config(layer, config) -> None:
    """`Layer.build_from_config`: build from what `get_build_config` returned."""
    if not config or layer.built:
        return
    if "shapes_dict" in config:
        shapes = {k: tuplify(v) for k, v in config["shapes_dict"].items()}
        layer._build_shapes_dict = shapes
        layer.build(**shapes)
    else:
        shapes = tuplify(config["input_shape"])
        layer._build_shapes = shapes
        layer.build(shapes)
    layer.built = True


# Refused inputs ------------------------------------------------------------------------
def base_factor(layer, factor):
    """The `factor` Keras's image preprocessing base class takes for a layer that does
    not name one: kept as Keras keeps it, `(lower, upper)` within [-1, 1], where Keras
    keeps it (the layer does not use it there either), refused where Keras refuses it.
    Returns the pair to set as `layer.factor`, or None."""
    who = type(layer).__name__
    if layer._keras_base_factor == "refuse":
        if factor is not None:
            raise ValueError(
                f"Layer {who} does not take a `factor` argument (as in Keras); received "
                f"factor={factor!r}. Remove it."
            )
        return None
    factor = factor or 0.0
    message = (
        f"{who}'s `factor` should be a number or a pair of numbers in [-1, 1]; received "
        f"factor={factor!r}."
    )
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > 1 or factor[1] < -1:
            raise ValueError(message)
        lower, upper = sorted(factor)
    elif isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if not -1 <= factor <= 1:
            raise ValueError(message)
        upper = abs(factor)
        lower = max(-upper, -1)
    else:
        raise ValueError(message)
    return lower, upper


def refuse_bounding_boxes(who: str, bounding_box_format) -> None:
    """Keras's image preprocessing layers take `bounding_box_format` to transform boxes
    given with the images; lamina's transform images (and labels) only."""
    if bounding_box_format is not None:
        raise ValueError(
            f"{who} received bounding_box_format={bounding_box_format!r}, but lamina's image "
            "layers transform images (and labels, in a dict) only, not bounding boxes or "
            "segmentation masks. Leave `bounding_box_format` unset, and transform boxes "
            "yourself (or apply only photometric layers to images with boxes)."
        )


def is_text_array(arr) -> bool:
    """True for a NumPy array of strings (or an object array holding only strings)."""
    return isinstance(arr, np.ndarray) and (
        arr.dtype.kind in "US"
        or (
            arr.dtype == object
            and arr.size > 0
            and all(isinstance(v, (str, bytes)) for v in arr.flat)
        )
    )


def refuse_number_lists(layer, inputs) -> None:
    """A clear error for Python numbers inside a list given as a layer's input, as
    Keras 3 refuses them: a list there is a list of inputs, so `[[1.0, 1.0]]` would
    otherwise reach the layer as one input of 0-d tensors and fail on its rank."""
    if not isinstance(inputs, (list, tuple)):
        return
    for leaf in tree.flatten(inputs):
        if isinstance(leaf, (int, float, complex)) and not isinstance(leaf, bool):
            raise ValueError(
                f"{type(layer).__name__} {layer.name!r} received a Python list holding the "
                f"number {leaf!r} as its input; a list there is a list of input tensors. "
                "Pass the data as one array: np.array(...) or ops.convert_to_tensor(...) "
                "(e.g. np.array([[1.0, 1.0]]) for a batch of one sample of two features)."
            )


def refuse_text(layer, value: np.ndarray) -> None:
    """A clear error for text (a NumPy array of strings) given to a layer that computes
    on numbers; layers that take strings (StringLookup, TextVectorization, Hashing...)
    convert their own inputs and never get here."""
    if not is_text_array(value):
        return
    raise TypeError(
        f"{type(layer).__name__} {layer.name!r} received text (a NumPy array of dtype "
        f"{value.dtype}, shape {value.shape}), but it computes on numbers. Turn the text "
        "into numbers first: a StringLookup or TextVectorization layer (or Hashing) ahead "
        "of it, fed by Input(shape=(1,), dtype='string'); or convert the data before "
        "passing it."
    )


def spec_dtype(layer, inputs) -> str:
    """The output dtype a layer's `compute_output_shape` spec gets: its compute dtype,
    except that a layer whose call gives an integer input's dtype back
    (`_keeps_integer_dtype`: Flatten, Reshape, Cropping, Resizing, ...) keeps a
    non-float input's dtype, as its call on data does (autocast casts only floats)."""
    dtype = getattr(inputs, "dtype", None)
    if layer._keeps_integer_dtype and dtype is not None and "float" not in str(dtype):
        return str(dtype)
    return layer.compute_dtype
