"""The torch engine's base of every `Layer`: a `torch.nn.Module`, as in Keras 3.

A lamina layer or model on this engine is usable from plain PyTorch: `parameters()` and
`named_parameters()` give every variable's tensor (trainable ones require grad),
`state_dict()` / `load_state_dict()` round-trip them keyed by variable path,
`.to(device)` moves them in place, `zero_grad()` clears gradients, and `module(x)` calls
the layer. A layer's parameters are all its variables, its sublayers' included, each
once; sublayers are not registered as child modules (lamina tracks them itself), so
`state_dict()` is flat: `{"dense/kernel": ..., "dense/bias": ...}`.
"""

from __future__ import annotations

from collections import OrderedDict

import torch

from lamina.backend.torch.core import _meta, convert_to_tensor
from lamina.backend.torch.module_wrapper import (  # noqa: F401 - the contract's names
    call_module,
    deserialize_module,
    load_module_state,
    module_state,
    module_variables,
    serialize_module,
    wrap_modules,
    wrapped_attribute,
)


def _key(path: str, taken: dict) -> str:
    # `.` separates module names in torch's own lookups (`get_parameter`).
    key = path.replace(".", "_")
    if key in taken:
        i = 1
        while f"{key}_{i}" in taken:
            i += 1
        key = f"{key}_{i}"
    return key


def _mark_frozen(layer) -> None:
    if "_own_variables" not in layer.__dict__:  # not yet a built-up layer
        return
    frozen = not layer.__dict__.get("_trainable", True)
    for variable in layer._own_weights():
        mark = getattr(variable, "_set_layer_frozen", None)
        if mark is not None:
            mark(frozen)


class LayerBase(torch.nn.Module):
    """`torch.nn.Module` behaviour for lamina layers (see the module docstring)."""

    def __new__(cls, *args, **kwargs):
        instance = super().__new__(cls)
        # Before any `__init__`: a subclass may set attributes before calling
        # `super().__init__()`, and torch's methods need the module's own fields.
        torch.nn.Module.__init__(instance)
        return instance

    def __init__(self, *args, **kwargs):
        # `torch.nn.Module.__init__` already ran in `__new__`; running it again would
        # reset the module's hooks.
        pass

    def __setattr__(self, name, value):
        # Layers track their sublayers and variables from their attributes; torch's
        # `__setattr__` would move modules and parameters out of `__dict__`. A bare
        # `torch.nn.Module` is wrapped in a layer, as Keras's torch backend does, so its
        # parameters are tracked and trained.
        if isinstance(value, torch.nn.Module) and not isinstance(value, LayerBase):
            value = wrapped_attribute(self, value)
        object.__setattr__(self, name, value)
        if name == "_trainable" or (name == "built" and value):
            # Frozen or thawed (the `trainable` setter), or weights just made (a layer
            # frozen before it was built): a frozen layer's tensors do not require
            # grad, so a torch optimizer over `parameters()` leaves them alone.
            _mark_frozen(self)

    @property
    def _parameters(self):
        if "_own_variables" not in self.__dict__:  # not yet a built-up layer
            return OrderedDict()
        params: OrderedDict = OrderedDict()
        for variable in self.variables:
            value = variable._value
            if isinstance(value, torch.nn.Parameter):
                params[_key(variable.path, params)] = value
        return params

    @_parameters.setter
    def _parameters(self, value):
        # torch's `__init__` sets an empty dict; the parameters are the variables'.
        pass

    def __getattr__(self, name):
        # Python calls this when a property raises AttributeError; torch's version would
        # replace that error (`layer.output` on a shared layer explains itself) with
        # "no attribute". Re-raise the property's own error instead.
        attr = getattr(type(self), name, None)
        if isinstance(attr, property) and attr.fget is not None:
            return attr.fget(self)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def forward(self, *args, **kwargs):
        """Call the layer (what `module(x)` does)."""
        return self(*args, **kwargs)


def dense(x, kernel, bias=None):
    if not (
        type(x) is torch.Tensor
        and isinstance(kernel, torch.Tensor)
        and (bias is None or isinstance(bias, torch.Tensor))
        and _meta[0] is False
    ):
        # Values already tensors (the eager call's case) need no conversion.
        x, kernel = convert_to_tensor(x), convert_to_tensor(kernel)
        bias = None if bias is None else convert_to_tensor(bias)
    if (
        x.ndim == 2
        and kernel.ndim == 2
        and bias is not None
        and bias.ndim == 1
        and x.dtype == kernel.dtype == bias.dtype
        and x.is_floating_point()
    ):
        # One GEMM with the bias folded in: one node for the backward pass, not two.
        return torch.addmm(bias, x, kernel)
    from lamina.backend.torch import numpy as torch_numpy

    out = torch_numpy.matmul(x, kernel)
    return out if bias is None else torch_numpy.add(out, bias)
