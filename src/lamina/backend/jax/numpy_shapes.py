"""Shape functions on JAX arrays: reshaping, moving axes, joining, splitting, padding.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_shapes`).
"""

from __future__ import annotations

import jax.numpy as jnp

from lamina.backend.jax.numpy_arguments import _array


def reshape(x, newshape):
    if isinstance(newshape, int):
        newshape = (newshape,)
    newshape = tuple(-1 if d is None else d for d in newshape)
    return jnp.reshape(_array(x), newshape)


def transpose(x, axes=None):
    return jnp.transpose(x, axes)


def expand_dims(x, axis):
    return jnp.expand_dims(x, axis)


def squeeze(x, axis=None):
    return jnp.squeeze(x, axis)


def ravel(x):
    return jnp.ravel(x)


def flip(x, axis=None):
    return jnp.flip(x, axis)


def roll(x, shift, axis=None):
    return jnp.roll(x, shift, axis)


def swapaxes(x, axis1, axis2):
    return jnp.swapaxes(x, axis1, axis2)


def moveaxis(x, source, destination):
    return jnp.moveaxis(x, source, destination)


def broadcast_to(x, shape):
    return jnp.broadcast_to(x, shape)


def concatenate(xs, axis=0):
    return jnp.concatenate(xs, axis=axis)


def stack(x, axis=0):
    return jnp.stack(x, axis=axis)


def split(x, indices_or_sections, axis=0):
    return jnp.split(x, indices_or_sections, axis=axis)


def append(x1, x2, axis=None):
    return jnp.append(x1, x2, axis=axis)


def tile(x, repeats):
    return jnp.tile(x, repeats)


def repeat(x, repeats, axis=None):
    return jnp.repeat(x, repeats, axis=axis)


def pad(x, pad_width, mode="constant", constant_values=None):
    if constant_values is None:
        return jnp.pad(x, pad_width, mode=mode)
    if mode != "constant":
        raise ValueError(_pad_values_error(mode, constant_values))
    return jnp.pad(x, pad_width, mode=mode, constant_values=constant_values)


def _pad_values_error(mode, constant_values):
    return (
        f"pad: constant_values applies to mode='constant' only; received mode={mode!r} "
        f"with constant_values={constant_values!r}. Drop constant_values, or use "
        "mode='constant'."
    )


def size(x):
    return jnp.size(x)


def ndim(x):
    return jnp.ndim(x)
