"""Losses written on a functional model's own tensors: `model.add_loss(tensor)`.

Classic Keras built a VAE this way: the loss is a graph tensor computed from the model's
inputs and intermediate tensors, added with `vae.add_loss(vae_loss)`, and the model is
compiled without a loss (`vae.compile(optimizer="adam")`, then `vae.fit(x)`).

Here such a tensor is kept on the model (`_graph_losses`) and computed as part of every
run of its graph: the model runs one graph whose outputs are its own outputs followed
by these losses, so the losses see the very values the outputs came from (the same
noise of a sampling layer) and nothing runs twice. Each computed loss is then added as
a loss of that call (`Layer.add_loss`), which is what `fit` and `evaluate` sum into the
total, on every engine. A loss that is not a scalar is averaged, as Keras 2 averaged
its total loss.

The loss may go through the layers of a model the model calls (Keras 2.2.4's VAE reads
`z_mean` from inside its `encoder`, built on the same `Input` as the VAE): the combined
graph then runs those layers on the model's inputs directly, beside the call of the
nested model, and their weights, being the model's, are trained.
"""

from __future__ import annotations

from lamina import ops, tree
from lamina.backend.common.variables import bump_structure_version, structure_version
from lamina.graph.function import Function
from lamina.graph.keras_tensor import KerasTensor
from lamina.layers.layer import Layer


def add_loss(model, loss) -> None:
    """`Model.add_loss`: a graph tensor of a functional model is kept and computed with
    the graph on every call; anything else is a loss of the current call, as for any
    layer."""
    tensors = (
        [x for x in tree.flatten(loss) if isinstance(x, KerasTensor)] if loss is not None else []
    )
    if model._function is None or not tensors:
        Layer.add_loss(model, loss)
        return
    if len(tensors) != len(tree.flatten(loss)):
        raise TypeError(
            f"Model {model.name!r}: add_loss received a mix of graph tensors and computed "
            "values; add each kind in its own call."
        )
    for tensor in tensors:
        _check_reachable(model, tensor)
    model._graph_losses = list(model._graph_losses) + tensors
    model._runtime.graph_loss_function = None
    # The variables the losses read are state of the model's compiled programs.
    model._runtime.graph_constants = None
    bump_structure_version()


def _check_reachable(model, tensor) -> None:
    if not tensor.dtype.startswith(("float", "bfloat")):
        raise ValueError(
            f"Model {model.name!r}: add_loss received the tensor {tensor.name!r} of dtype "
            f"{tensor.dtype}; a loss must be floating-point."
        )
    try:
        function = Function(model.inputs, tensor)
    except ValueError as error:
        raise ValueError(
            f"Model {model.name!r}: the loss tensor {tensor.name!r} given to add_loss is "
            f"not computed from the model's inputs {[x.name for x in model.inputs]} "
            f"({error}). Build the loss from the model's inputs and the tensors between "
            "them and its outputs."
        ) from None
    # A nested model's own layers are the model's too (a Keras 2 VAE's loss reads
    # `z_mean` from inside its encoder): their weights are tracked and trained.
    own = {id(layer) for layer in model._flatten_layers()}
    outside = [
        op.name
        for op in function.operations
        if isinstance(op, Layer) and id(op) not in own and op.weights
    ]
    if outside:
        raise ValueError(
            f"Model {model.name!r}: the loss tensor {tensor.name!r} given to add_loss goes "
            f"through the layer(s) {outside}, which are not part of the model (nor of a "
            "model it calls), so their weights would be neither tracked nor trained. Make "
            "their output one of the model's outputs, or build the loss from the model's "
            "own tensors."
        )


def combined(model) -> Function:
    """The graph from the model's inputs to its outputs and then its added losses."""
    record = model._runtime
    cached = record.graph_loss_function
    if cached is None or cached[0] is not model._function:
        outputs = list(model._function.outputs) + list(model._graph_losses)
        cached = (model._function, Function(model._function.inputs, outputs))
        record.graph_loss_function = cached
    return cached[1]


def run(model, inputs, training, mask):
    """Run the model's graph with its added losses: `(outputs, masks)` as
    `Function.run` gives them; each loss is added as a loss of this call."""
    function = model._function
    flat, flat_masks = combined(model).run(inputs, training=training, mask=mask)
    count = len(function.outputs)
    for value in flat[count:]:
        if len(getattr(value, "shape", ())) > 0:
            value = ops.mean(value)
        Layer.add_loss(model, value)
    outputs = tree.pack_sequence_as(function._outputs_struct, flat[:count])
    masks = tree.pack_sequence_as(function._outputs_struct, flat_masks[:count])
    return outputs, masks


def check_reaches_weights(model, count: int) -> None:
    """Before a training step whose whole loss is the model's `count` added losses: when
    those are all losses written on its graph and none of them is computed from a
    trainable weight, training could not move any weight, so say so (a gradient of
    zeros, or an autograd error, would not)."""
    if not model._graph_losses or count != len(model._graph_losses):
        return
    record = model._runtime
    key = (structure_version(), tuple(id(t) for t in model._graph_losses))
    if record.graph_losses_reach == key:
        return
    trainable = {id(v) for v in model.trainable_weights}
    for tensor in model._graph_losses:
        for op in Function(model.inputs, tensor).operations:
            if any(id(v) in trainable for v in getattr(op, "trainable_weights", ())):
                record.graph_losses_reach = key
                return
    raise ValueError(
        f"Model {model.name!r} has no loss that reaches its trainable weights: it was "
        "compiled without a loss (or the data has no targets) and the losses added with "
        f"add_loss ({[t.name for t in model._graph_losses]}) are not computed from any "
        "trainable weight, so training would not change the model. Add a loss computed "
        "from the model's outputs, or compile with `loss=` and pass targets."
    )
