"""The eager call's short paths of `Layer`: one engine tensor into a built layer, and a
repeat call on the input signature a layer last passed.

An eager engine (torch) runs every layer's `__call__` on every batch, so each check it
repeats shows in a step and, most, in a one-sample `predict`. `call_on_tensor` does what
`Layer.__call__` does for one tensor without its tree walks; `repeat_call` (the layer's
`_repeat_call`) skips the checks an identical input passed already (`Layer.__call__` is
the layer's `_base_call`). The functions take the layer first.
"""

from __future__ import annotations

import inspect

from lamina import backend, tree
from lamina.backend.common.global_state import current_distribution, fixed_learning_phase
from lamina.dtype_policies import autocast as _autocast
from lamina.graph.operation import CallContext, current_call_context
from lamina.layers import call_masks
from lamina.layers.input_spec import check_input_compatibility
from lamina.layers.quantization import call_method

# Call keyword values that cannot hold a tensor (a `training` flag, a `None` mask).
_SCALAR_KWARG_TYPES = frozenset({bool, type(None), int, float, str})

# (input dtype, compute dtype) -> whether `_convert_inputs` casts a tensor of that dtype.
_AUTOCASTS: dict = {}


def _is_float(dtype) -> bool:
    return "float" in str(dtype)


def call_signature_flags(cls) -> tuple[bool, bool]:
    """Whether the class's `call` takes `training`, and `mask` (kept on the class)."""
    cached = cls.__dict__.get("_lamina_call_flags")
    if cached is None:
        params = inspect.signature(cls.call).parameters
        cached = ("training" in params, "mask" in params)
        cls._lamina_call_flags = cached
    return cached


def resolve_training(self, kwargs, context):
    """The `training` a call runs with: the one given, else the call context's. It is
    put in `kwargs` for a `call` that takes it, and taken out of them otherwise."""
    training = kwargs.get("training")
    if self._call_has_training_arg:
        if training is None and context is not None:
            training = context.training
        if training is None:
            training = fixed_learning_phase()  # the classic `K.set_learning_phase`
        if training is not None:
            kwargs["training"] = training
        elif "training" in kwargs:
            del kwargs["training"]
    elif "training" in kwargs:
        del kwargs["training"]
    return training


def call_on_tensor(self, x, kwargs):
    """`__call__` on one engine tensor into a built layer, with keyword arguments
    that hold no tensors: the same steps as the general path, without its tree
    walks (the eager engine pays for them on every call)."""
    mask = call_masks.incoming(self, (x,), kwargs)
    if self._casts_inputs:
        compute_dtype = self._inputs_dtype()
        key = (x.dtype, compute_dtype)
        cast = _AUTOCASTS.get(key)
        if cast is None:
            cast = _AUTOCASTS[key] = (
                _is_float(x.dtype) and backend.standardize_dtype(x.dtype) != compute_dtype
            )
        if cast:
            original, x = x, backend.core.cast(x, compute_dtype)
            if mask is not None:
                call_masks.carry_over(original, x)
    spec = self.input_spec
    if spec is not None:
        check_input_compatibility(spec, [x], self)
    if self._own_build_step:
        # A subclass's build step may run on a built layer (a Sequential's graph).
        self._maybe_build(x)
        check_input_compatibility(self.input_spec, [x], self)

    context = current_call_context()
    training = resolve_training(self, kwargs, context)

    if context is None:
        self._clear_losses()
        with CallContext(training=training):
            outputs = call_method(self)(x, **kwargs)
            apply_activity_regularizer(self, outputs)
    else:
        if training is not None and context.training is None:
            context.training = training
        outputs = call_method(self)(x, **kwargs)
        apply_activity_regularizer(self, outputs)
    outputs = output_layout(self, outputs)
    call_masks.outgoing(self, x, mask, outputs)
    return outputs


def graph_call(self, x, kwargs):
    """A graph node's call of this layer on its one tensor `x` (see `_repeat_call`);
    a subclass with its own `__call__` gets that."""
    if type(self).__call__ is type(self)._base_call:
        return self._repeat_call(x, kwargs)
    return self(x, **kwargs)


def build_step_settled(self) -> bool:
    """Whether `__call__` would not build anything on this built layer."""
    return not self._own_build_step


def repeat_call(self, x, kwargs):
    """`Layer.__call__(self, x, **kwargs)` on one engine tensor `x`, whose keyword
    arguments hold no tensors, minus the checks a repeat call has passed already.

    When `x` has the type, shape and dtype of the last input that went through the
    whole `__call__` here (with the same input spec, dtype policy and autocast flag,
    and nothing was cast), `call` runs directly, with `training` resolved and the
    call context kept as `__call__` does it. Anything else takes `__call__`. An eager
    engine pays for each check on every call of every layer.
    """
    passed = self._passed_call
    if (
        passed is not None
        and passed[0] is type(x)
        and passed[1] == x.shape
        and passed[2] == x.dtype
        and passed[3] is self.input_spec
        and passed[4] is self._dtype_policy
        and passed[5] is self.autocast
        and self.activity_regularizer is None
        and not self._mixed_precision
        and "mask" not in kwargs
        and _autocast.current_scope() is None
    ):
        mask = call_masks.incoming(self, (x,), kwargs)
        context = current_call_context()
        training = resolve_training(self, kwargs, context)
        if context is None:
            self._clear_losses()
            with CallContext(training=training):
                outputs = call_method(self)(x, **kwargs)
        else:
            if training is not None and context.training is None:
                context.training = training
            outputs = call_method(self)(x, **kwargs)
        outputs = output_layout(self, outputs)
        call_masks.outgoing(self, x, mask, outputs)
        return outputs
    outputs = type(self)._base_call(self, x, **kwargs)
    if (
        self.built
        and self._short_call
        and self._build_step_settled()
        and backend.is_tensor(x)
        # Not a traced tensor (torch.export's fake tensors, whose sizes may be
        # symbolic): comparing a later call with it would specialize that trace.
        and backend.core.is_concrete(x)
        and not (
            self._casts_inputs
            and _is_float(x.dtype)
            and backend.standardize_dtype(x.dtype) != self._inputs_dtype()
        )
    ):
        self._passed_call = (
            type(x),
            x.shape,
            x.dtype,
            self.input_spec,
            self._dtype_policy,
            self.autocast,
        )
    return outputs


def output_layout(layer, outputs):
    """`outputs` laid out as the distribution in use says for `<layer path>/output` (a
    `LayoutMap` rule for a layer's output, as Keras applies it: a sharding constraint
    in a compiled step); as they are without such a rule."""
    distribution = current_distribution()
    if distribution is None:
        return outputs
    layout = distribution.get_tensor_layout(f"{layer.path}/output")
    if layout is None:
        return outputs
    from lamina.distribution import distribution_lib

    return tree.map_structure(lambda t: distribution_lib.distribute_tensor(t, layout), outputs)


def apply_activity_regularizer(self, outputs) -> None:
    """Adds `activity_regularizer(output) / batch_size` per output, as Keras 3 does
    (the penalty's strength does not grow with the batch size)."""
    if self.activity_regularizer is not None:
        for out in tree.flatten(outputs):
            if backend.is_tensor(out):
                loss = self.activity_regularizer(out)
                shape = tuple(out.shape)
                if shape and shape[0]:
                    loss = loss / shape[0]
                self.add_loss(loss)
