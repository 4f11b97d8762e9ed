"""The JAX engine's base of every `Layer`: nothing to add (a JAX model is plain Python)."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp


class LayerBase:
    """Engine behaviour mixed into `Layer`; on JAX there is none."""

    __slots__ = ()


def dense(x, kernel, bias=None):
    from lamina.backend.jax import numpy as jax_numpy

    x = jnp.asarray(x)
    if x.ndim > 2 and jnp.ndim(kernel) == 2 and jax.default_backend() == "cpu":
        # On a sequence or an image: the product and the bias on the flattened rows (see
        # `numpy_products._flat_matmul`). With the bias added to the rank-3 product, XLA's
        # CPU ran the layer's output and gradients (64x200x64 to 256 units, a sine loss)
        # in 32.7 ms against 12.9.
        rows = jnp.reshape(x, (math.prod(x.shape[:-1]), x.shape[-1]))
        out = jax_numpy.matmul(rows, kernel)
        out = out if bias is None else jax_numpy.add(out, bias)
        return jnp.reshape(out, x.shape[:-1] + out.shape[-1:])
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
