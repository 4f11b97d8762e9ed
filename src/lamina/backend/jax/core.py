"""Core JAX backend functions: variables, conversion, slicing, compilation, scatter.

Control flow (`core_control_flow.py`) and differentiation (`core_gradients.py`) live in
their own modules and are re-exported here, the engine's `core` contract module.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from lamina.backend.common import devices as _devices
from lamina.backend.common.variables import (
    StatelessScope,
    relaxed,
    standardize_dtype,
)
from lamina.backend.common.variables import (
    Variable as _BaseVariable,
)

SUPPORTS_SPARSE_TENSORS = False


class Variable(_BaseVariable):
    __doc__ = _BaseVariable.__doc__

    def _convert(self, value, dtype):
        dtype = _canonical(dtype)
        if dtype is not None and (_python_numbers(value) or isinstance(value, np.ndarray)):
            # Cast on the host: JAX casts a Python number with a compiled program (one
            # per dtype, ~20 ms each in a fresh process: an optimizer's counters).
            return jax.device_put(np.asarray(value, dtype=dtype))
        return jnp.asarray(value, dtype=dtype)

    def _eager_context(self):
        return jax.ensure_compile_time_eval()


def _canonical(dtype):
    # Without x64 mode JAX has no 64-bit types: ask for the 32-bit ones it will give.
    return jax.dtypes.canonicalize_dtype(dtype) if dtype is not None else None


def _unwrap(x):
    return x.value if isinstance(x, _BaseVariable) else x


def convert_to_tensor(x, dtype=None):
    """Convert an array-like or Variable to a JAX array (optionally cast to `dtype`).

    >>> import numpy as np
    >>> from lamina import backend
    >>> x = backend.convert_to_tensor([1, 2], dtype="float32")
    >>> backend.is_tensor(x), backend.standardize_dtype(x.dtype), tuple(x.shape)
    (True, 'float32', (2,))
    """
    x = _unwrap(x)
    if dtype is not None:
        dtype = standardize_dtype(dtype)
    if isinstance(x, jax.Array) and (dtype is None or x.dtype == dtype):
        return x
    if dtype is None and isinstance(x, (float, np.floating)) and not isinstance(x, np.ndarray):
        from lamina.backend import config

        dtype = config.floatx()
    if dtype is None:
        arr = np.asarray(x) if not isinstance(x, jax.Array) else x
        if arr.dtype == np.float64:
            from lamina.backend import config

            dtype = config.floatx()
        elif arr.dtype == np.int64:
            dtype = "int32"
    dtype = _canonical(dtype)
    if dtype is not None and _python_numbers(x):
        # Cast on the host: JAX casts Python numbers with a compiled program (one per
        # dtype and shape, ~20 ms each in a fresh process).
        return jax.device_put(np.asarray(x, dtype=dtype))
    return jnp.asarray(x, dtype=dtype)


_NUMBERS = (int, float, bool)


def _python_numbers(x) -> bool:
    """Whether `x` is a Python number or a flat list/tuple of them."""
    if isinstance(x, _NUMBERS):
        return True
    return isinstance(x, (list, tuple)) and all(isinstance(v, _NUMBERS) for v in x)


def convert_to_numpy(x) -> np.ndarray:
    """Copy a tensor (or Variable) to a NumPy array on the host.

    In a job of several processes, an array split over all of them (predictions of a
    data-parallel step) gives this process's part: the rows of its own batches.

    >>> import numpy as np
    >>> from lamina import backend
    >>> backend.convert_to_numpy(backend.Variable([1.0, 2.0]))
    array([1., 2.], dtype=float32)
    """
    x = _unwrap(x)
    if isinstance(x, jax.Array) and not x.is_fully_addressable:
        return _local_part(x)
    # A copy: NumPy's view of a JAX array is read-only, and the arrays handed to a
    # user are writable (`out *= 255`), as Keras's are. `asarray` first: objects from
    # other libraries may implement `__array__` without NumPy 2's `copy` keyword.
    arr = np.asarray(x)
    return arr.copy() if arr is x or not arr.flags.writeable else arr


def _local_part(x) -> np.ndarray:
    shards = sorted(x.addressable_shards, key=lambda s: tuple(i.start or 0 for i in s.index))
    seen, parts = set(), []
    for shard in shards:  # replicas of one part appear once
        key = tuple((i.start, i.stop) for i in shard.index)
        if key not in seen:
            seen.add(key)
            parts.append(np.asarray(shard.data))
    return np.concatenate(parts, axis=0) if len(parts) > 1 else np.array(parts[0])


def is_tensor(x) -> bool:
    """Whether `x` is a tensor of the engine (a `jax.Array`); NumPy arrays are not.

    >>> import numpy as np
    >>> from lamina import backend
    >>> backend.is_tensor(backend.convert_to_tensor([1.0])), backend.is_tensor(np.ones(1))
    (True, False)
    """
    return isinstance(x, jax.Array)


def is_concrete(x) -> bool:
    """True for data that exists now (NumPy or an engine array outside any trace)."""
    return isinstance(x, np.ndarray) or (
        isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer)
    )


def shape(x) -> tuple:
    return tuple(_unwrap(x).shape)


def cast(x, dtype):
    return convert_to_tensor(x).astype(_canonical(standardize_dtype(dtype)))


def stop_gradient(variable):
    return jax.lax.stop_gradient(_unwrap(variable))


def slice(inputs, start_indices, shape):
    return jax.lax.dynamic_slice(_unwrap(inputs), start_indices, shape)


def slice_update(inputs, start_indices, updates):
    return jax.lax.dynamic_update_slice(_unwrap(inputs), _unwrap(updates), start_indices)


def unstack(x, num=None, axis=0):
    x = _unwrap(x)
    return [jnp.take(x, i, axis=axis) for i in range(x.shape[axis])]


# Abstract evaluation ------------------------------------------------------------------
def compute_output_spec(fn, args, kwargs, is_spec, make_spec):
    """Shapes and dtypes of `fn(*args, **kwargs)` without computing on data.

    Symbolic inputs (recognised by `is_spec`) stand in as `jax.ShapeDtypeStruct`s. Unknown
    dimensions (`None`) are filled with two different sizes; output dimensions that change
    between the two evaluations are reported as `None`. Variables are read through a
    stateless scope so that any `assign` inside `fn` is discarded.
    """
    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=is_spec)
    has_unknown = any(is_spec(x) and any(d is None for d in x.shape) for x in leaves)

    def evaluate(fill):
        dynamic_idx, dynamic_vals, static_leaves = [], [], list(leaves)
        for i, leaf in enumerate(leaves):
            if is_spec(leaf):
                shape = tuple(fill if d is None else d for d in leaf.shape)
                dynamic_idx.append(i)
                dynamic_vals.append(jax.ShapeDtypeStruct(shape, leaf.dtype))

        def wrapped(*dyn):
            filled = list(static_leaves)
            for i, v in zip(dynamic_idx, dyn, strict=True):
                filled[i] = v
            a, k = jax.tree_util.tree_unflatten(treedef, filled)
            # Abstract evaluation computes nothing, so a variable outside a compiled
            # step's state may be read here (a layer built while a step is traced).
            with relaxed(keep_scopes=True), StatelessScope():
                return fn(*a, **k)

        return jax.eval_shape(wrapped, *dynamic_vals)

    first = evaluate(83)
    if not has_unknown:
        return jax.tree_util.tree_map(
            lambda s: make_spec(s.shape, standardize_dtype(s.dtype)), first
        )
    second = evaluate(89)

    def merge(a, b):
        shape = tuple(d1 if d1 == d2 else None for d1, d2 in zip(a.shape, b.shape, strict=True))
        return make_spec(shape, standardize_dtype(a.dtype))

    return jax.tree_util.tree_map(merge, first, second)


# Compilation and differentiation -----------------------------------------------------
def jit(fn, donate_argnums=(), static_argnums=()):
    """Compile `fn` with XLA; donated arguments' buffers are reused for the outputs.

    >>> import numpy as np
    >>> from lamina import backend
    >>> double = backend.jit(lambda x: x * 2)
    >>> backend.convert_to_numpy(double(np.arange(3.0))).tolist()
    [0.0, 2.0, 4.0]
    """
    return jax.jit(fn, donate_argnums=donate_argnums, static_argnums=static_argnums)


def tree_map(fn, *trees):
    return jax.tree_util.tree_map(fn, *trees)


def tree_flatten(tree):
    return jax.tree_util.tree_leaves(tree)


def device_put(x):
    return jax.device_put(x)


def device_scope(device_name):
    """A context placing the arrays made inside it on `device_name` (`jax.default_device`).

    >>> import lamina
    >>> from lamina import ops
    >>> with lamina.device("cpu:0"):
    ...     x = ops.ones((2,))
    >>> ops.convert_to_numpy(x).tolist()
    [1.0, 1.0]
    """
    if isinstance(device_name, jax.Device):
        return jax.default_device(device_name)
    kind, index = _devices.parse_device_name(device_name)
    try:
        found = jax.devices(kind)
    except RuntimeError:  # no such platform on this machine
        found = []
    if index >= len(found):
        available = [f"{d.platform}:{d.id}" for d in jax.devices()]
        raise _devices.unavailable(device_name, available)
    return jax.default_device(found[index])


def block_until_ready(x):
    """Wait until the computation of `x` is done (JAX dispatches asynchronously); returns `x`.

    >>> import numpy as np
    >>> from lamina import backend
    >>> y = backend.block_until_ready(backend.convert_to_tensor([1.0, 2.0]) * 3)
    >>> backend.convert_to_numpy(y).tolist()
    [3.0, 6.0]
    """
    return jax.block_until_ready(x)


_SCATTER_REDUCTIONS = ("add", "max", "min", "mul")


def _scatter_key(indices):
    indices = jnp.asarray(indices)
    if indices.ndim != 2:
        raise ValueError(
            f"scatter: `indices` must have shape (num_updates, k), received shape {indices.shape}."
        )
    return tuple(jnp.moveaxis(indices, -1, 0))


def scatter(indices, values, shape):
    values = jnp.asarray(values)
    return jnp.zeros(shape, values.dtype).at[_scatter_key(indices)].add(values)


def scatter_update(inputs, indices, updates, reduction=None):
    at = jnp.asarray(inputs).at[_scatter_key(indices)]
    if reduction is None:
        return at.set(updates)
    if reduction not in _SCATTER_REDUCTIONS:
        raise ValueError(
            f"scatter_update: unknown reduction {reduction!r}; expected None or one of "
            f"{list(_SCATTER_REDUCTIONS)}."
        )
    return getattr(at, {"mul": "multiply"}.get(reduction, reduction))(updates)


# Control flow and differentiation live in their own modules; they are part of this
# module's contract.
from lamina.backend.jax.core_control_flow import (  # noqa: E402, F401
    associative_scan,
    cond,
    fori_loop,
    map,
    scan,
    switch,
    vectorized_map,
    while_loop,
)
from lamina.backend.jax.core_gradients import (  # noqa: E402, F401
    custom_gradient,
    jvp,
    remat,
    value_and_grad,
)
