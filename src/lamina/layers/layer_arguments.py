"""What a `Layer` is given, checked and recorded: its constructor arguments, the shapes
and dtype policies a config holds, and the inputs it refuses.

- A subclass that keeps the base `get_config` is described by the arguments it was
  constructed with, when they are plain values (`record_arguments`), as Keras does.
- JSON turns shape tuples into lists (`tuplify` turns them back); a config's dtype may
  be a serialized policy (`dtype_name`).
- Text given to a layer that computes on numbers, and Keras's `bounding_box_format`,
  are refused with a message that says what to do instead.
"""

from __future__ import annotations

import inspect

import numpy as np

from lamina import dtype_policies
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
    """A policy name for a serialized policy (Keras 3's `DTypePolicy` dict, Keras 2's
    `Policy`); anything else as given."""
    if isinstance(dtype, dict):
        return dtype_policies.deserialize(dtype).name
    return dtype


def is_shape(x) -> bool:
    return isinstance(x, tuple) and all(d is None or isinstance(d, int) for d in x)


def shapes_to_specs(shapes, dtype):
    if is_shape(shapes):
        return KerasTensor(shapes, dtype)
    if isinstance(shapes, dict):
        return {k: shapes_to_specs(v, dtype) for k, v in shapes.items()}
    return [shapes_to_specs(s, dtype) for s in shapes]


def tuplify(shapes):
    """JSON turns shape tuples into lists; turn them back (lists of shapes stay lists)."""
    if isinstance(shapes, dict):
        return {k: tuplify(v) for k, v in shapes.items()}
    if isinstance(shapes, (list, tuple)):
        if all(d is None or isinstance(d, int) for d in shapes):
            return tuple(shapes)
        return [tuplify(s) for s in shapes]
    return shapes


# Refused inputs ------------------------------------------------------------------------
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
