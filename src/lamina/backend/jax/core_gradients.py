"""Differentiation on JAX: `value_and_grad`, `custom_gradient`, `remat`, `jvp`.

Part of the engine's `core` contract module (which re-exports every name).
"""

from __future__ import annotations

import functools

import jax
import numpy as np


def value_and_grad(fn, has_aux=False):
    """`fn`'s value and its gradient with respect to the first argument.

    >>> import numpy as np
    >>> from lamina import backend
    >>> value, grad = backend.value_and_grad(lambda x: (x**2).sum())(np.array([1.0, 3.0]))
    >>> float(value), backend.convert_to_numpy(grad).tolist()
    (10.0, [2.0, 6.0])
    """
    return jax.value_and_grad(fn, has_aux=has_aux)


def custom_gradient(f):
    return jax.custom_gradient(f)


def remat(f):
    """`f` under `jax.checkpoint`. Only the array leaves of the arguments are traced:
    the others (`training=True`, None, strings, lamina Variables) reach `f` as they are,
    so Python control flow on them keeps working."""

    def rematerialized(*args, **kwargs):
        leaves, treedef = jax.tree_util.tree_flatten((args, kwargs))
        traced = [i for i, leaf in enumerate(leaves) if isinstance(leaf, _REMAT_ARRAYS)]

        def body(*arrays):
            full = list(leaves)
            for i, array in zip(traced, arrays, strict=True):
                full[i] = array
            inner_args, inner_kwargs = jax.tree_util.tree_unflatten(treedef, full)
            return f(*inner_args, **inner_kwargs)

        return jax.checkpoint(body)(*[leaves[i] for i in traced])

    return functools.wraps(f)(rematerialized)


_REMAT_ARRAYS = (jax.Array, np.ndarray, np.generic)


def jvp(fun, primals, tangents, has_aux=False):
    return jax.jvp(fun, tuple(primals), tuple(tangents), has_aux=has_aux)
