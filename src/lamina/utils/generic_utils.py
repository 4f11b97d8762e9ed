"""Classic Keras's `keras.utils.generic_utils`: the progress bar, custom-object scopes,
(de)serialization, function (de)serialization and the small list helpers Keras 2
programs and custom layers import from it.

The objects are lamina's own where lamina has them (`Progbar`, `CustomObjectScope`,
`get_custom_objects`, `serialize_keras_object`); the rest are small functions with
Keras 2's behaviour.
"""

from __future__ import annotations

import base64
import inspect
import marshal
import types

import numpy as np

from lamina.callbacks.progbar import Progbar
from lamina.common import serialization as _serialization
from lamina.common.object_registration import get_custom_objects
from lamina.common.serialization import (
    CustomObjectScope,
    custom_object_scope,
    serialize_keras_object,
)


def deserialize_keras_object(
    identifier, module_objects=None, custom_objects=None, printable_module_name="object"
):
    """Keras 2's signature: `module_objects` (a dict of names, e.g. a module's
    `globals()`) is searched after `custom_objects`; lamina's registry after both.

    >>> from lamina import layers
    >>> deserialize_keras_object("Dense", module_objects={"Dense": layers.Dense}).__name__
    'Dense'
    """
    if isinstance(module_objects, str):  # Keras 3's (config, category) form
        return _serialization.deserialize_keras_object(
            identifier, module_objects, custom_objects, printable_module_name
        )
    objects = {**(module_objects or {}), **(custom_objects or {})}
    return _serialization.deserialize_keras_object(
        identifier, None, objects or None, printable_module_name
    )


def func_dump(func):
    """A Python function as `(code, defaults, closure)`: its bytecode in base64 and the
    values it closes over, as Keras 2's `Lambda` saved a function. Loading it back runs
    that bytecode: only load what you wrote yourself."""
    code = base64.b64encode(marshal.dumps(func.__code__)).decode("ascii")
    closure = tuple(cell.cell_contents for cell in func.__closure__) if func.__closure__ else None
    return code, func.__defaults__, closure


def func_load(code, defaults=None, closure=None, globs=None):
    """The function `func_dump` wrote (`code` may be the whole `(code, defaults,
    closure)` tuple). Runs stored bytecode: load only what you trust.

    >>> f = func_load(func_dump(lambda x, k=2: x * k))
    >>> f(3)
    6
    """
    if isinstance(code, (tuple, list)):
        code, defaults, closure = code
        if isinstance(defaults, list):
            defaults = tuple(defaults)
    raw = base64.b64decode(code.encode("ascii") if isinstance(code, str) else code)
    code = marshal.loads(raw)  # noqa: S302 - the caller's own file, as in Keras 2
    cells = None
    if closure is not None:
        cells = tuple(types.CellType(value) for value in closure)
    return types.FunctionType(
        code, globs if globs is not None else globals(), code.co_name, defaults, cells
    )


def has_arg(fn, name: str, accept_all: bool = False) -> bool:
    """Whether `fn` takes an argument `name` (or any keyword, with `accept_all`)."""
    parameters = inspect.signature(fn).parameters
    if accept_all and any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return True
    parameter = parameters.get(name)
    return parameter is not None and parameter.kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    )


def to_list(x, allow_tuple: bool = False) -> list:
    """`x` as a list: a list stays, a tuple becomes one with `allow_tuple`, anything else
    is wrapped."""
    if isinstance(x, list):
        return x
    if allow_tuple and isinstance(x, tuple):
        return list(x)
    return [x]


def unpack_singleton(x):
    """The one element of a one-element list or tuple, else `x` itself."""
    if isinstance(x, (list, tuple)) and len(x) == 1:
        return x[0]
    return x


def is_all_none(structure) -> bool:
    """Whether every element of `structure` (a value or a list) is None."""
    return all(v is None for v in to_list(structure, allow_tuple=True))


def object_list_uid(object_list) -> str:
    """A string naming the objects of a list by identity."""
    return ", ".join(str(abs(id(x))) for x in to_list(object_list, allow_tuple=True))


def slice_arrays(arrays, start=None, stop=None):
    """Slices of an array or a list of arrays: `[start:stop]`, or the rows listed in
    `start` when it is a list or an array of indices."""
    if arrays is None:
        return [None]
    index = start if isinstance(start, (list, np.ndarray)) else slice(start, stop)
    if isinstance(arrays, list):
        return [None if a is None else a[index] for a in arrays]
    return arrays[index]


def transpose_shape(shape, target_format: str, spatial_axes):
    """`shape` (channels last) in `target_format`: for `"channels_first"` the last
    entry (the channels) moves before the `spatial_axes`.

    >>> transpose_shape((16, 128, 128, 32), "channels_first", spatial_axes=(1, 2))
    (16, 32, 128, 128)
    """
    if target_format == "channels_last":
        return shape
    if target_format != "channels_first":
        raise ValueError(
            f"target_format must be 'channels_first' or 'channels_last'; received "
            f"{target_format!r}."
        )
    moved = (
        tuple(shape[: spatial_axes[0]]) + (shape[-1],) + tuple(shape[axis] for axis in spatial_axes)
    )
    return list(moved) if isinstance(shape, list) else moved


__all__ = [
    "CustomObjectScope",
    "Progbar",
    "custom_object_scope",
    "deserialize_keras_object",
    "func_dump",
    "func_load",
    "get_custom_objects",
    "has_arg",
    "is_all_none",
    "object_list_uid",
    "serialize_keras_object",
    "slice_arrays",
    "to_list",
    "transpose_shape",
    "unpack_singleton",
]
