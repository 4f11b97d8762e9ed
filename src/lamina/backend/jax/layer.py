"""The JAX engine's base of every `Layer`: nothing to add (a JAX model is plain Python)."""

from __future__ import annotations


class LayerBase:
    """Engine behaviour mixed into `Layer`; on JAX there is none."""

    __slots__ = ()


def dense(x, kernel, bias=None):
    from lamina.backend.jax import numpy as jax_numpy

    out = jax_numpy.matmul(x, kernel)
    return out if bias is None else jax_numpy.add(out, bias)
