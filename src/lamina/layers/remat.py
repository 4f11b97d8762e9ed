"""Rematerialization (gradient checkpointing): `remat` and `RematScope`, as in Keras 3.

A rematerialized function keeps only its inputs for the backward pass and computes its
intermediate results again there, trading compute for memory. `remat(f)` does it for a
function (`jax.checkpoint` on JAX, torch's non-reentrant `checkpoint` on torch). A layer
created inside a `RematScope` records the scope's mode, and each call of it on tensors
(not on KerasTensors) is rematerialized when the mode says so, as Keras 3 decides:

- `"full"`: every call;
- `"larger_than"`: calls whose outputs hold more than `output_size_threshold` elements;
- `"list_of_layers"`: calls of the layers named in `layer_names`;
- `"activations"`: only the `activation` of a layer that has one (`Dense(...,
  activation="relu")`).

A layer's call is rematerialized as a pure function of the layer's variables, read when
the call starts: what the call assigns (a moving statistic, a seed generator's state)
and the losses it adds come out of the rematerialized function and are applied after
it. So the recomputation in the backward pass sees the same state, `training` flag and
autocast dtype as the call itself, and repeats no assignment: outputs, gradients and
state updates are those of the call without remat.
"""

from __future__ import annotations

import math
import threading
from collections import namedtuple

from lamina import backend, tree
from lamina.backend.common.variables import StatelessScope
from lamina.dtype_policies import autocast as _autocast
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.operation import CallContext, current_call_context

MODES = ("full", "activations", "larger_than", "list_of_layers", None)

RematMode = namedtuple("RematMode", ["mode", "output_size_threshold", "layer_names"])


class _Stack(threading.local):
    def __init__(self):
        self.scopes: list = []


_STACK = _Stack()


def remat(f):
    """Applies rematerialization (gradient checkpointing) to a function.

    The returned function computes what `f` computes, with the same gradients, but keeps
    only its inputs for the backward pass: its intermediate results are computed again
    there. This lowers peak memory at the cost of more computation, for training larger
    models or larger batches. On JAX it is `jax.checkpoint`; on torch, torch's
    non-reentrant `torch.utils.checkpoint.checkpoint` (used only while autograd records).

    Args:
        f: the function to rematerialize, of tensors (other arguments, such as
            `training=True`, are passed through as they are).

    Returns:
        The rematerialized function.

    >>> import numpy as np
    >>> import lamina
    >>> from lamina import ops
    >>> f = lamina.remat(lambda x: ops.sin(x) * 2.0)
    >>> np.round(ops.convert_to_numpy(f(np.zeros(2, "float32"))), 3).tolist()
    [0.0, 0.0]
    """
    return backend.core.remat(f)


class RematScope:
    """A context manager under which new layers rematerialize their calls.

    Rematerialization (gradient checkpointing) trades memory for computation: a
    rematerialized call keeps only its inputs for the backward pass and recomputes its
    intermediate results there. The scope applies to the layers *created* inside it
    (each records the mode when it is made); their calls rematerialize wherever they run,
    `fit` included. The innermost scope wins; `mode=None` turns it off inside.

    Args:
        mode: `"full"` (every layer), `"activations"` (the `activation` of each layer
            that has one), `"larger_than"` (layers whose outputs have more than
            `output_size_threshold` elements), `"list_of_layers"` (the layers named in
            `layer_names`), or `None` (no rematerialization).
        output_size_threshold: the number of output elements above which
            `"larger_than"` rematerializes a call. Default 1024.
        layer_names: the names of the layers `"list_of_layers"` rematerializes
            (required for that mode).

    >>> import lamina
    >>> from lamina import layers
    >>> with lamina.RematScope(mode="list_of_layers", layer_names=["big"]):
    ...     big = layers.Dense(4, name="big")
    ...     small = layers.Dense(4, name="small")
    >>> big._remat_mode.mode
    'list_of_layers'
    """

    def __init__(self, mode="full", output_size_threshold=1024, layer_names=None):
        if mode not in MODES:
            raise ValueError(
                f"RematScope received an invalid mode {mode!r}. Supported modes are "
                "'full', 'activations', 'larger_than', 'list_of_layers' and None."
            )
        if isinstance(output_size_threshold, bool) or not isinstance(output_size_threshold, int):
            raise TypeError(
                "RematScope's output_size_threshold must be an int (a number of output "
                f"elements); received {output_size_threshold!r}."
            )
        if isinstance(layer_names, str):
            raise TypeError(
                f"RematScope's layer_names must be a list of layer names; received the "
                f"string {layer_names!r}. Pass layer_names=[{layer_names!r}]."
            )
        if mode == "list_of_layers" and not layer_names:
            raise ValueError(
                "RematScope(mode='list_of_layers') needs the names of the layers to "
                f"rematerialize; received layer_names={layer_names!r}. Pass "
                "layer_names=['dense_1', ...], or another mode."
            )
        self.mode = mode
        self.output_size_threshold = output_size_threshold
        self.layer_names = list(layer_names or [])

    def __enter__(self):
        _STACK.scopes.append(self)
        return self

    def __exit__(self, *exc):
        _STACK.scopes.pop()
        return False


def current_remat_mode() -> RematMode | None:
    """The innermost `RematScope`'s mode, or None outside any (or under `mode=None`)."""
    if not _STACK.scopes:
        return None
    scope = _STACK.scopes[-1]
    if scope.mode is None:
        return None
    return RematMode(scope.mode, scope.output_size_threshold, tuple(scope.layer_names))


def rematerialized_call(layer, call, args, kwargs):
    """`call` (the layer's `call`) as the layer's remat mode makes it for these
    arguments: rematerialized, with only its activation rematerialized, or as it is."""
    remat_mode = layer._remat_mode
    mode = remat_mode.mode
    if "call" in layer.__dict__:
        # A call the instance holds in place of its class's: torch's compiled graph
        # under `compile(jit_compile=True)`, whose backward the compiler made (and which
        # cannot run inside a recomputation). It runs as it is.
        return call
    if mode == "full":
        return _pure_call(layer, call)
    if mode == "list_of_layers":
        return _pure_call(layer, call) if layer.name in remat_mode.layer_names else call
    if mode == "larger_than":
        if _output_size(layer, args, kwargs) > remat_mode.output_size_threshold:
            return _pure_call(layer, call)
        return call
    if getattr(layer, "activation", None) is not None:  # "activations"
        return _activation_rematerialized(layer, call)
    return call


def _raw_value(variable):
    # The stored value, not an autocast read: the rematerialized call reads it under
    # the autocast dtype it runs with.
    return backend.Variable.value.fget(variable)


def _pure_call(layer, call):
    """`call` rematerialized as a function of the layer's variables (module docstring)."""
    variables = layer.variables
    # What the call runs under, taken when it starts: the recomputation (torch runs it
    # in the backward pass, outside the call) runs under the same.
    taken: dict = {}

    def pure(values, args, kwargs):
        inner = CallContext(training=taken["training"])
        cast = taken["autocast"]
        with inner, StatelessScope(zip(variables, values, strict=True), collect_losses=True) as s:
            if cast is not None:
                with _autocast.AutocastScope(cast.dtype):
                    outputs = call(*args, **kwargs)
            else:
                outputs = call(*args, **kwargs)
            updates = s.updates
            losses = [backend.convert_to_tensor(loss) for loss in s.losses]
        taken["assigned"] = [variable for variable, _ in updates]
        taken["inner_training"] = inner.training
        return outputs, [value for _, value in updates], losses

    rematerialized = backend.core.remat(pure)

    def run(*args, **kwargs):
        context = current_call_context()
        taken["training"] = None if context is None else context.training
        taken["autocast"] = _autocast.current_scope()
        outputs, new_values, losses = rematerialized(
            [_raw_value(v) for v in variables], args, kwargs
        )
        for variable, value in zip(taken["assigned"], new_values, strict=True):
            variable.assign(value)
        for loss in losses:
            layer.add_loss(loss)
        # A sublayer's explicit `training` reaches the outer context as it would have.
        if context is not None and context.training is None:
            context.training = taken["inner_training"]
        return outputs

    return run


def _activation_rematerialized(layer, call):
    def run(*args, **kwargs):
        original = layer.activation
        layer.activation = remat(original)
        try:
            return call(*args, **kwargs)
        finally:
            layer.activation = original

    return run


def _output_size(layer, args, kwargs) -> int:
    """How many elements the call's outputs hold (by abstract evaluation, once per
    input signature), counting an unknown dimension as 1 as Keras does."""
    leaves = [x for x in tree.flatten((args, kwargs)) if backend.is_tensor(x)]
    key = tuple((tuple(x.shape), str(x.dtype)) for x in leaves)
    sizes = layer.__dict__.setdefault("_remat_output_sizes", {})
    size = sizes.get(key)
    if size is None:
        specs = tree.map_structure(
            lambda x: (
                KerasTensor(tuple(x.shape), backend.standardize_dtype(x.dtype))
                if backend.is_tensor(x)
                else x
            ),
            (args, kwargs),
        )
        out = layer.compute_output_spec(*specs[0], **specs[1])
        size = sum(
            math.prod(d or 1 for d in t.shape)
            for t in tree.flatten(out)
            if isinstance(t, KerasTensor)
        )
        sizes[key] = size
    return size
