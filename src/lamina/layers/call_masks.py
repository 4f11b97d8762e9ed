"""The mask rule of a layer call, the same for every kind of call.

Keras's rule, which every path of `Layer.__call__` follows (the symbolic call that
records a node, the eager call on arrays, a graph run on data, and the short paths of
`eager_calls`):

1. Into the call (`incoming`): a `mask` passed explicitly wins; else a `call` that
   takes `mask` receives the masks its first argument's tensors carry, and a `call`
   that takes `{name}_mask` beside a tensor argument `name` (MultiHeadAttention's
   `query_mask`, `value_mask`, `key_mask`) receives that tensor's.
2. Out of the call (`outgoing`): the layer's `compute_mask(inputs, previous_mask)`
   gives its outputs' masks, attached to each output that carries none yet (an output
   the call passed through unchanged keeps its mask).

Masks are carried by the tensors themselves (`lamina.graph.masks`), so a subclassed
model's `call` chaining `GlobalAveragePooling1D()(Embedding(..., mask_zero=True)(x))`
averages over the same steps as its functional twin.
"""

from __future__ import annotations

import inspect

from lamina import tree
from lamina.graph.masks import get_mask, masks_of, set_mask


def tensor_mask_params(cls) -> tuple:
    """`(position, name, mask_name)` for each `call` argument `name` that has a
    `{name}_mask` argument beside it (kept on the class)."""
    cached = cls.__dict__.get("_lamina_tensor_mask_params")
    if cached is None:
        call = getattr(cls, "call", None)
        names = list(inspect.signature(call).parameters)[1:] if call is not None else []
        cached = tuple(
            (i, name, f"{name}_mask") for i, name in enumerate(names) if f"{name}_mask" in names
        )
        cls._lamina_tensor_mask_params = cached
    return cached


def _own_compute_mask(cls) -> bool:
    """Whether the class defines its own `compute_mask` (which may make a mask from
    no mask, as `Embedding(mask_zero=True)` does); kept on the class."""
    cached = cls.__dict__.get("_lamina_own_compute_mask")
    if cached is None:
        from lamina.layers.layer import Layer

        cached = cls.compute_mask is not Layer.compute_mask
        cls._lamina_own_compute_mask = cached
    return cached


def incoming(layer, args, kwargs):
    """Fill the call's mask arguments in `kwargs` from the masks the tensors in `args`
    and `kwargs` carry (a `mask` given explicitly wins), drop `mask` for a `call` that
    does not take it, and return the mask `compute_mask` is given (`previous_mask`)."""
    given = kwargs.get("mask")
    previous = given if given is not None else (masks_of(args[0]) if args else None)
    if layer._call_has_mask_arg:
        if given is None and previous is not None:
            kwargs["mask"] = previous
    elif "mask" in kwargs:
        del kwargs["mask"]
    params = tensor_mask_params(type(layer))
    if params:
        for position, name, mask_name in params:
            if kwargs.get(mask_name) is not None:
                continue
            source = kwargs.get(name, args[position] if position < len(args) else None)
            carried = masks_of(source) if source is not None else None
            if carried is not None:
                kwargs[mask_name] = carried
    return previous


def carry_over(original, converted) -> None:
    """Keep the masks of `original`'s tensors on their converted (cast) counterparts."""
    if original is converted:
        return
    if not tree.is_nested(original):
        mask = get_mask(original)
        if mask is not None and get_mask(converted) is None:
            set_mask(converted, mask)
        return
    for before, after in zip(tree.flatten(original), tree.flatten(converted), strict=False):
        if before is not after:
            mask = get_mask(before)
            if mask is not None and get_mask(after) is None:
                set_mask(after, mask)


def outgoing(layer, inputs, previous_mask, outputs, evaluate=None) -> None:
    """Attach `layer.compute_mask(inputs, previous_mask)` to the outputs that carry
    no mask yet. `evaluate(compute, inputs, mask)` runs `compute` on symbolic inputs
    (abstract evaluation); an eager call runs it directly."""
    if previous_mask is None and not _own_compute_mask(type(layer)):
        return  # the default `compute_mask` passes on "no mask"
    if evaluate is None and layer._masks_from_call:
        return  # the call (a graph model's run) attached its outputs' masks itself
    nested = tree.is_nested(outputs)
    flat = tree.flatten(outputs) if nested else [outputs]
    if evaluate is None and all(get_mask(out) is not None for out in flat):
        return
    if evaluate is None:
        computed = layer.compute_mask(inputs, previous_mask)
    else:
        computed = evaluate(layer.compute_mask, inputs, previous_mask)
    if computed is None:
        return
    flat_masks = tree.flatten(computed) if tree.is_nested(computed) else [computed]
    # As Keras pairs them: output i gets mask i; outputs beyond the masks get none.
    for out, mask in zip(flat, flat_masks, strict=False):
        if mask is not None and get_mask(out) is None:
            set_mask(out, mask)
