"""A layer called on KerasTensors: built from the input shapes, checked, its outputs and
masks found by abstract evaluation, and the call recorded as a `Node` of the graph (see
`lamina.graph`). `Layer.__call__` comes here when any input is symbolic.
"""

from __future__ import annotations

from lamina import tree
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.node import Node
from lamina.graph.operation import output_spec
from lamina.layers import layer_arguments
from lamina.layers.input_spec import check_input_compatibility


def flat_shaped(x) -> list:
    return [v for v in tree.flatten(x) if hasattr(v, "shape")]


def symbolic_call(layer, args, user_kwargs):
    """The layer's call on symbolic `args` (inside its name scope): its output
    KerasTensors, with their `_keras_mask`, recorded in a new Node."""
    from lamina.layers.layer import Layer

    inputs = args[0]
    check_input_compatibility(layer.input_spec, flat_shaped(inputs), layer)
    if not layer.built and layer_arguments.build_shape_names(type(layer)):
        layer_arguments.build_from_call(layer, args, user_kwargs)
    layer._maybe_build(inputs)
    check_input_compatibility(layer.input_spec, flat_shaped(inputs), layer)
    kwargs = dict(user_kwargs)
    if not layer._call_has_training_arg:
        kwargs.pop("training", None)
        user_kwargs.pop("training", None)
    mask = None
    if layer._call_has_mask_arg or layer.supports_masking:
        mask = kwargs.get("mask")
        if mask is None:
            mask = tree.map_structure(
                lambda x: getattr(x, "_keras_mask", None) if isinstance(x, KerasTensor) else None,
                inputs,
            )
            if not any(m is not None for m in tree.flatten(mask)):
                mask = None
    if layer._call_has_mask_arg and mask is not None:
        kwargs["mask"] = mask
    elif not layer._call_has_mask_arg:
        kwargs.pop("mask", None)
    outputs = layer.compute_output_spec(*args, **kwargs)
    if mask is not None or type(layer).compute_mask is not Layer.compute_mask:
        # As in Keras, `compute_mask` must work on symbolic inputs (the call itself just
        # did): an error in it is a bug to report, not a mask to drop.
        try:
            out_mask = output_spec(lambda i, m: layer.compute_mask(i, m), (inputs, mask), {})
        except Exception as error:
            if hasattr(error, "add_note"):  # Python 3.11+
                error.add_note(
                    f"Raised by compute_mask of layer {layer.name!r} "
                    f"({type(layer).__name__}) called on symbolic inputs."
                )
            raise
        flat_out = tree.flatten(outputs)
        flat_masks = tree.flatten(out_mask) if out_mask is not None else []
        for i, out in enumerate(flat_out):
            if isinstance(out, KerasTensor) and flat_masks:
                out._keras_mask = flat_masks[min(i, len(flat_masks) - 1)]
    Node(layer, call_args=args, call_kwargs=user_kwargs, outputs=outputs)
    return outputs
