"""A layer called on KerasTensors: built from the input shapes, checked, its outputs and
masks found by abstract evaluation, and the call recorded as a `Node` of the graph (see
`lamina.graph`). `Layer.__call__` comes here when any input is symbolic.
"""

from __future__ import annotations

from lamina import tree
from lamina.graph.node import Node
from lamina.graph.operation import output_spec
from lamina.layers import call_masks, layer_arguments
from lamina.layers.input_spec import check_input_compatibility


def flat_shaped(x) -> list:
    return [v for v in tree.flatten(x) if hasattr(v, "shape")]


def symbolic_call(layer, args, user_kwargs):
    """The layer's call on symbolic `args` (inside its name scope): its output
    KerasTensors, with their `_keras_mask`, recorded in a new Node."""
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
    # The masks the inputs carry go in as an eager call's would, but are not recorded
    # as arguments of the node: a run of the graph finds them on its tensors again.
    mask = call_masks.incoming(layer, args, kwargs)
    outputs = layer.compute_output_spec(*args, **kwargs)
    call_masks.outgoing(layer, inputs, mask, outputs, evaluate=_abstract_compute_mask)
    Node(layer, call_args=args, call_kwargs=user_kwargs, outputs=outputs)
    return outputs


def _abstract_compute_mask(compute_mask, inputs, mask):
    """`compute_mask` evaluated on symbolic inputs: the output masks' specs."""
    # As in Keras, `compute_mask` must work on symbolic inputs (the call itself just
    # did): an error in it is a bug to report, not a mask to drop.
    try:
        return output_spec(lambda i, m: compute_mask(i, m), (inputs, mask), {})
    except Exception as error:
        layer = compute_mask.__self__
        if hasattr(error, "add_note"):  # Python 3.11+
            error.add_note(
                f"Raised by compute_mask of layer {layer.name!r} "
                f"({type(layer).__name__}) called on symbolic inputs."
            )
        raise
