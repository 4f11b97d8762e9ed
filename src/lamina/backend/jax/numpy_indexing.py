"""Indexing, sorting and searching on JAX arrays: `take`, `sort`, `nonzero`, `unique`, ...

Indices come back as int32, as on the torch engine.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_indexing`).
"""

from __future__ import annotations

import jax.numpy as jnp

from lamina.backend.jax.numpy_arguments import _array


def get_item(x, key):
    return _array(x)[key]


def take(x, indices, axis=None):
    return jnp.take(x, indices, axis=axis)


def take_along_axis(x, indices, axis=None):
    return jnp.take_along_axis(x, indices, axis=axis)


def sort(x, axis=-1):
    return jnp.sort(x, axis=axis)


def argsort(x, axis=-1):
    return jnp.argsort(x, axis=axis)


def searchsorted(sorted_sequence, values, side="left"):
    return jnp.searchsorted(sorted_sequence, values, side=side)


def digitize(x, bins):
    """The bucket of each value: `i` such that `bins[i - 1] <= x < bins[i]` (NumPy's rule)."""
    bins = jnp.asarray(bins)
    return jnp.searchsorted(bins, x, side="right").astype("int32")


def nonzero(x):
    return tuple(i.astype("int32") for i in jnp.nonzero(jnp.asarray(x)))


def unique(
    x,
    sorted=True,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    size=None,
    fill_value=None,
):
    result = jnp.unique(
        jnp.asarray(x),
        return_index=return_index,
        return_inverse=return_inverse,
        return_counts=return_counts,
        axis=axis,
        size=size,
        fill_value=fill_value,
    )
    if not isinstance(result, tuple):
        return result
    return (result[0], *(r.astype("int32") for r in result[1:]))


def argpartition(x, kth, axis=-1):
    return jnp.argpartition(jnp.asarray(x), kth, axis=axis).astype("int32")
