"""Masks ride on the tensors they describe, symbolic or concrete.

A layer's output mask (an `Embedding(mask_zero=True)`'s `x != 0`, a `Masking` layer's
steps) travels with its output tensor, as Keras's `_keras_mask` does, so the next
layer receives it whether the call was symbolic (a `KerasTensor` in a graph being
built), a graph run on data, or an eager call inside a subclassed model's `call`: one
rule for every call (`lamina.layers.call_masks`), one place the mask is kept (here).

Most tensors take the attribute: KerasTensors, torch tensors and concrete JAX arrays.
Those that refuse it (JAX's tracers, while a step is traced) have it kept in a table
by object id, dropped when the tensor dies, so an id reused later never finds a stale
mask.
"""

from __future__ import annotations

import weakref

from lamina import tree

_ATTRIBUTE = "_keras_mask"

# id(tensor) -> mask, for tensors that take no attribute; each entry leaves with its
# tensor (a weakref finalizer).
_HELD: dict[int, object] = {}


def get_mask(x):
    """The mask `x` carries (None if none); `x` may be anything."""
    try:
        mask = getattr(x, _ATTRIBUTE, None)
    except Exception:  # an engine object whose attribute lookup itself fails
        mask = None
    if mask is None and _HELD:
        mask = _HELD.get(id(x))
    return mask


def set_mask(x, mask) -> None:
    """Make `x` carry `mask` (None: carry none)."""
    try:
        setattr(x, _ATTRIBUTE, mask)
        return
    except (AttributeError, TypeError):
        pass
    key = id(x)
    if mask is None:
        _HELD.pop(key, None)
        return
    try:
        weakref.finalize(x, _HELD.pop, key, None)
    except TypeError:
        return  # neither an attribute nor a weak reference: a Python number, not a tensor
    _HELD[key] = mask


def masks_of(structure):
    """The masks a structure of tensors carries, in its structure; None if it carries
    none at all."""
    if not tree.is_nested(structure):
        return get_mask(structure)
    masks = tree.map_structure(get_mask, structure)
    return masks if any(m is not None for m in tree.flatten(masks)) else None
