"""The JAX engine's base of every `Layer`: nothing to add (a JAX model is plain Python)."""

from __future__ import annotations


class LayerBase:
    """Engine behaviour mixed into `Layer`; on JAX there is none."""

    __slots__ = ()


def dense(x, kernel, bias=None):
    from lamina.backend.jax import numpy as jax_numpy

    out = jax_numpy.matmul(x, kernel)
    return out if bias is None else jax_numpy.add(out, bias)


# A `torch.nn.Module` inside a model (`TorchModuleWrapper`) needs the torch engine ----------
def _no_modules(who):
    return ValueError(
        f"{who} wraps a `torch.nn.Module`, which needs the torch engine "
        "(LAMINA_BACKEND=torch); the current engine is 'jax'. Set LAMINA_BACKEND=torch "
        "before importing lamina, or rewrite the module with lamina layers."
    )


def wrap_modules(wrapper):
    # A JAX model holds no engine modules: nothing to wrap.
    return None


def module_variables(module, path, who):
    raise _no_modules(who)


def call_module(module, variables, training, args, kwargs):
    raise _no_modules("TorchModuleWrapper")


def module_state(module):
    raise _no_modules("TorchModuleWrapper")


def load_module_state(module, state, who):
    raise _no_modules(who)


def serialize_module(module):
    raise _no_modules("TorchModuleWrapper")


def deserialize_module(data):
    raise _no_modules("TorchModuleWrapper")
