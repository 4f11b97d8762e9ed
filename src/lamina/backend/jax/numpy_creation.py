"""Array creation on JAX arrays: filled arrays, ranges, grids, triangles, copies.

Part of the engine's `numpy` contract module, which re-exports every name (see
`lamina.backend.declarations.numpy_creation`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from lamina.backend.jax.numpy_arguments import _dtype, _float

try:  # whether no trace is under way (no public name for it)
    from jax._src.core import trace_state_clean as _untraced
except ImportError:  # pragma: no cover - a JAX without it fills on the device

    def _untraced():
        return False


# Filled arrays up to this many elements are made on the host when no program is being
# traced: `jnp.full` compiles a program per shape and dtype (~10-30 ms each on a CPU),
# and a model's first build and first `fit` made one for each of its weights' shapes
# (zero biases, the optimizer's slots). A transfer compiles nothing.
_HOST_FILL_MAX = 1 << 20


def _host_filled(shape, fill_value, dtype):
    """`shape` filled with `fill_value` made in NumPy and put on the device, or None
    when it must be made by the engine (inside a trace, a traced or array fill, a large
    or unusual shape)."""
    if not _untraced() or not isinstance(fill_value, (int, float, bool, np.number, np.bool_)):
        return None
    dims = (shape,) if isinstance(shape, (int, np.integer)) else shape
    if not isinstance(dims, (tuple, list)) or not all(
        isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0 for d in dims
    ):
        return None
    if np.prod(dims, dtype=np.int64) > _HOST_FILL_MAX:
        return None
    host_dtype = jax.dtypes.canonicalize_dtype(jnp.dtype(dtype))
    return jax.device_put(np.full(tuple(dims), fill_value, dtype=host_dtype))


def zeros(shape, dtype=None):
    dtype = _float(dtype)
    out = _host_filled(shape, 0, dtype)
    return jnp.zeros(shape, dtype=dtype) if out is None else out


def ones(shape, dtype=None):
    dtype = _float(dtype)
    out = _host_filled(shape, 1, dtype)
    return jnp.ones(shape, dtype=dtype) if out is None else out


def full(shape, fill_value, dtype=None):
    dtype = _float(dtype)  # as in Keras: floatx by default
    out = _host_filled(shape, fill_value, dtype)
    return jnp.full(shape, fill_value, dtype=dtype) if out is None else out


def zeros_like(x, dtype=None):
    return jnp.zeros_like(x, dtype=_dtype(dtype))


def ones_like(x, dtype=None):
    return jnp.ones_like(x, dtype=_dtype(dtype))


def full_like(x, fill_value, dtype=None):
    return jnp.full_like(x, fill_value, dtype=_dtype(dtype))


def eye(N, M=None, k=0, dtype=None):
    return jnp.eye(N, M, k=k, dtype=_float(dtype))


def identity(n, dtype=None):
    return jnp.identity(n, dtype=_float(dtype))


def arange(start, stop=None, step=None, dtype=None):
    return jnp.arange(start, stop, 1 if step is None else step, dtype=_dtype(dtype))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    return jnp.linspace(
        start, stop, num, endpoint=endpoint, retstep=retstep, dtype=_float(dtype), axis=axis
    )


def tri(N, M=None, k=0, dtype=None):
    return jnp.tri(N, M, k, dtype=_float(dtype))


def tril(x, k=0):
    return jnp.tril(x, k)


def triu(x, k=0):
    return jnp.triu(x, k)


def meshgrid(*x, indexing="xy"):
    return jnp.meshgrid(*x, indexing=indexing)


def copy(x):
    return jnp.array(x, copy=True)
