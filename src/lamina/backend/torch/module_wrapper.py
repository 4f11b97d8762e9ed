"""A plain `torch.nn.Module` inside a lamina model: the torch side of `TorchModuleWrapper`.

The wrapped module keeps its own parameters. Each becomes a lamina Variable that holds
the very same `torch.nn.Parameter` (no copy), so the module and the layer see one
tensor: autograd reaches it through the module's forward, and optimizer updates, which
write into the variable in place, are the module's new weights. Buffers (BatchNorm's
running statistics) stay the module's own, as in Keras: not variables, but saved and
loaded with the module's `state_dict`.

A call reads the parameters through the variables, so a stateless scope's values (a
`stateless_call`, abstract evaluation) are the ones used; when they are the module's
own tensors (every stateful step) the module is simply called.
"""

from __future__ import annotations

import base64
import io

import numpy as np
import torch

from lamina.backend.torch import core

# The layer class that wraps a bare module assigned to a layer attribute (set by
# `wrap_modules` when `lamina.layers` is imported).
_WRAPPER: list = [None]


def wrap_modules(wrapper) -> None:
    """Layers replace a bare `torch.nn.Module` assigned as an attribute by `wrapper(module)`."""
    _WRAPPER[0] = wrapper


def wrapped_attribute(layer, value):
    """The layer wrapping `value`, a `torch.nn.Module` that is not a lamina layer, assigned
    to an attribute of `layer` (Keras's torch backend does this in its `__setattr__`
    hook); `value` itself in the wrapper's own attribute."""
    wrapper = _WRAPPER[0]
    if wrapper is None or isinstance(layer, wrapper):
        return value
    return wrapper(value)


def _check_module(module, who: str) -> None:
    if not isinstance(module, torch.nn.Module):
        raise TypeError(
            f"{who} expects a `torch.nn.Module`; received {type(module).__name__} {module!r:.80}. "
            "Pass a module instance such as `torch.nn.Linear(4, 3)`."
        )
    lazy = torch.nn.modules.lazy.LazyModuleMixin
    if isinstance(module, lazy) and module.has_uninitialized_params():
        raise ValueError(
            f"{who} received a lazy module whose parameters are not initialized yet "
            f"({type(module).__name__}). Call the module once on an example input (or use "
            "its non-lazy counterpart) before wrapping it, so that its parameters exist."
        )


def _adopt(param: torch.nn.Parameter, name: str, path: str):
    """A Variable that holds `param` itself: created from a `meta` stand-in (no data is
    copied), then given the parameter as its storage."""
    stand_in = torch.empty(param.shape, dtype=param.dtype, device="meta")
    variable = core.Variable(
        stand_in,
        dtype=core.dtype_name(param.dtype),
        trainable=param.requires_grad,
        name=name,
        path=path,
        autocast=False,
    )
    variable.__dict__["_param"] = param
    return variable


def module_variables(module, path, who):
    """Check `module`, move it to the engine's device, and return `[(name, Variable)]`
    for its parameters, each Variable holding the parameter itself."""
    _check_module(module, who)
    module.to(core._DEFAULT_DEVICE)
    return [
        (name, _adopt(param, name, f"{path}/{name}")) for name, param in module.named_parameters()
    ]


def call_module(module, variables, training, args, kwargs):
    """`module(*args, **kwargs)` with its parameters read from `variables`."""
    mode = training is not False  # Keras: only an explicit False means inference
    if module.training != mode:
        module.train(mode)
    values = {name: variable.value for name, variable in variables}
    if core._meta[0]:
        # Abstract evaluation: parameters and buffers on `meta` too, so nothing is
        # computed and in-place buffer updates (BatchNorm statistics) land on copies.
        values = {name: core.convert_to_tensor(value) for name, value in values.items()}
        for name, buffer in module.named_buffers():
            values[name] = buffer.to(core._META_DEVICE)
        return torch.func.functional_call(module, values, args, kwargs)
    if all(values[name] is variable.__dict__["_param"] for name, variable in variables):
        return module(*args, **kwargs)
    # A stateless scope's values, which may be array-likes.
    values = {name: core.convert_to_tensor(value) for name, value in values.items()}
    return torch.func.functional_call(module, values, args, kwargs)


def module_state(module):
    """`module.state_dict()` as NumPy arrays (parameters and buffers)."""
    return {key: core.convert_to_numpy(value) for key, value in module.state_dict().items()}


def load_module_state(module, state, who):
    """Load `{name: array}` (what `module_state` gave) with `load_state_dict`."""
    expected = module.state_dict()
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    if missing or unexpected:
        raise ValueError(
            f"{who}: the saved state does not match the wrapped module "
            f"({type(module).__name__}): missing entries {missing}, unexpected entries "
            f"{unexpected}. The module's state_dict holds {sorted(expected)}; the file was "
            "saved from a different module."
        )
    tensors = {}
    for key, value in state.items():
        target = expected[key]
        array = np.asarray(value)
        if tuple(array.shape) != tuple(target.shape):
            raise ValueError(
                f"{who}: entry {key!r} of the wrapped module has shape {tuple(target.shape)}, "
                f"but the saved state holds shape {tuple(array.shape)}."
            )
        # In the entry's own dtype: `convert_to_tensor` would turn float64 into floatx
        # and int64 (a BatchNorm's batch count) into int32.
        tensors[key] = torch.from_numpy(np.array(array, order="C"))
    module.load_state_dict(tensors)


def serialize_module(module):
    """The module pickled by `torch.save`, as base64 text (Keras's config format)."""
    buffer = io.BytesIO()
    torch.save(module, buffer)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def deserialize_module(data):
    """The module `serialize_module` wrote. This runs pickle: only for trusted files."""
    raw = base64.b64decode(data.encode("ascii") if isinstance(data, str) else data)
    return torch.load(io.BytesIO(raw), weights_only=False, map_location=core._DEFAULT_DEVICE)
