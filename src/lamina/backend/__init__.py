"""The backend seam: one set of functions, several engines.

The engine is chosen once, at import, from the `LAMINA_BACKEND` environment variable
(default `"jax"`; `KERAS_BACKEND` is honoured when it names an engine and
`LAMINA_BACKEND` is unset). Every engine package (`backend/jax/`, `backend/torch/`)
provides the same modules (`core`, `numpy`, `nn`, `math`, `random`, `image`,
`execution`) with the same function names;
`tests/backend/test_contract.py` holds that checklist.

The classic Keras 2 names (`K.function`, `K.placeholder`, `K.gradients`, `K.mean`, ...)
are reachable here too, though they are built on the graph above this package and the
seam never imports them: `lamina.legacy` registers them (`backend.common.classic`) when
`lamina` is imported, and this module resolves the names it lacks from that registration.

>>> from lamina import backend
>>> backend.backend() in ("jax", "torch")
True
>>> backend.floatx()
'float32'
"""

from __future__ import annotations

import gc
import pkgutil

from lamina.backend.common import classic as _classic_registry
from lamina.backend.common import compilation_cache as _compilation_cache
from lamina.backend.common import host_memory as _host_memory
from lamina.backend.common.dtypes import is_float_dtype, is_int_dtype, result_type
from lamina.backend.common.execution import RetraceWarning, profile
from lamina.backend.common.global_state import reset_session as _reset_session
from lamina.backend.common.variables import (
    StatelessScope,
    current_stateless_scope,
    in_stateless_scope,
    set_pending_sync,
    standardize_dtype,
)
from lamina.backend.config import (
    backend,
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
    standardize_data_format,
)

if backend() == "jax":
    from lamina.backend.jax import (
        compilation,
        core,
        distribution,
        execution,
        export,
        image,
        layer,
        linalg,
        math,
        nn,
        numpy,
        optimizers,
        random,
    )
    from lamina.backend.jax.core import (
        Variable,
        block_until_ready,
        cond,
        convert_to_numpy,
        convert_to_tensor,
        fori_loop,
        is_tensor,
        jit,
        scan,
        value_and_grad,
        while_loop,
    )
    from lamina.backend.jax.execution import Program
elif backend() == "torch":
    from lamina.backend.torch import (
        compilation,
        core,
        distribution,
        execution,
        export,
        image,
        layer,
        linalg,
        math,
        nn,
        numpy,
        optimizers,
        random,
    )
    from lamina.backend.torch.core import (
        Variable,
        block_until_ready,
        cond,
        convert_to_numpy,
        convert_to_tensor,
        fori_loop,
        is_tensor,
        jit,
        scan,
        value_and_grad,
        while_loop,
    )
    from lamina.backend.torch.execution import Program
else:  # pragma: no cover - config.py refuses unknown names first
    raise ValueError(f"Unknown backend {backend()!r}. Available backends: ['jax', 'torch'].")

# Compiled programs are kept between runs unless LAMINA_COMPILATION_CACHE=0.
_compilation_cache.configure(compilation)
# Large host buffers come from malloc's heap unless LAMINA_HOST_MALLOC=0 (glibc).
_host_memory.configure()


def _classic(who: str):
    """The classic API registered by `lamina.legacy` (see `backend.common.classic`)."""
    classic = _classic_registry.classic_api()
    if classic is None:
        raise RuntimeError(f"lamina.backend.{who}: {_classic_registry.NOT_REGISTERED}.")
    return classic


def _submodules() -> frozenset:
    found = globals().get("_SUBMODULES")
    if found is None:
        found = frozenset(info.name for info in pkgutil.iter_modules(__path__))
        globals()["_SUBMODULES"] = found
    return found


def _graph_value(x) -> bool:
    """A graph tensor, or a classic variable (whose expressions are graph tensors)."""
    return hasattr(x, "_keras_history") or getattr(x, "_classic_graph", False)


def cast(x, dtype):
    """`x` as `dtype`: engine arrays at once, graph tensors symbolically (`K.cast`).

    >>> from lamina import backend
    >>> backend.convert_to_numpy(backend.cast([1.7, 2.2], "int32")).tolist()
    [1, 2]
    """
    if _graph_value(x):
        return _classic("cast").cast(x, dtype)
    return core.cast(x, dtype)


def shape(x):
    """The shape of `x` as a 1-D int32 tensor (the classic `K.shape`): symbolic for a
    graph tensor, whose sizes are known when the graph runs. Engine code that wants a
    tuple of ints uses `backend.core.shape`.

    >>> import numpy as np
    >>> from lamina import backend as K
    >>> K.eval(K.shape(np.zeros((2, 3)))).tolist()
    [2, 3]
    >>> x = K.placeholder(shape=(None, 3))
    >>> f = K.function([x], [K.shape(x)])
    >>> f([np.zeros((5, 3))])[0].tolist()
    [5, 3]
    """
    return _classic("shape").shape(x)


def stop_gradient(x):
    """`x`, with no gradient flowing back through it (engine arrays or graph tensors).

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.array([1.0, 2.0])
    >>> np.asarray(stop_gradient(x)).tolist()  # the value is unchanged
    [1.0, 2.0]
    """
    if _graph_value(x):
        return _classic("stop_gradient").stop_gradient(x)
    return core.stop_gradient(x)


def __getattr__(name: str):
    """`K.<name>` for the classic backend's names, registered by `lamina.legacy`."""
    if name.startswith("__") or name in _submodules():
        # A submodule not imported yet (`from lamina.backend import contract`): the
        # import system loads it after this AttributeError.
        raise AttributeError(f"module 'lamina.backend' has no attribute {name!r}")
    classic = _classic_registry.classic_api()
    if classic is None:
        # An AttributeError, so that `hasattr` and `getattr(..., default)` still work.
        raise AttributeError(
            f"module 'lamina.backend' has no attribute {name!r}: "
            f"{_classic_registry.NOT_REGISTERED}."
        )
    if name in classic.OMITTED:
        raise AttributeError(
            f"lamina.backend.{name} (classic Keras's K.{name}) is left out on purpose: "
            f"{classic.OMITTED[name]}."
        )
    try:
        return getattr(classic, name)
    except AttributeError:
        raise AttributeError(f"module 'lamina.backend' has no attribute {name!r}") from None


def __dir__() -> list:
    classic = _classic_registry.classic_api()
    return sorted(set(globals()) | set(classic.__all__ if classic is not None else ()))


def clear_session(free_memory: bool = True) -> None:
    """Reset automatic layer names (`dense`, `dense_1`, ...) and the global seed state.

    Args:
        free_memory: also run Python's garbage collector (as Keras does), so that models
            deleted before the call, which sit in reference cycles, release their
            weights now rather than whenever the collector next runs.

    >>> from lamina import layers
    >>> clear_session()
    >>> layers.Dense(1).name, layers.Dense(1).name
    ('dense', 'dense_1')
    >>> clear_session()
    >>> layers.Dense(1).name
    'dense'
    """
    _reset_session()
    if free_memory:
        gc.collect()


__all__ = [
    "Program",
    "RetraceWarning",
    "StatelessScope",
    "Variable",
    "backend",
    "block_until_ready",
    "cast",
    "clear_session",
    "compilation",
    "cond",
    "convert_to_numpy",
    "convert_to_tensor",
    "core",
    "current_stateless_scope",
    "distribution",
    "epsilon",
    "execution",
    "export",
    "floatx",
    "fori_loop",
    "function",
    "image",
    "image_data_format",
    "in_stateless_scope",
    "is_float_dtype",
    "is_int_dtype",
    "is_tensor",
    "jit",
    "layer",
    "linalg",
    "math",
    "nn",
    "numpy",
    "optimizers",
    "profile",
    "random",
    "result_type",
    "scan",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
    "set_pending_sync",
    "shape",
    "standardize_data_format",
    "standardize_dtype",
    "stop_gradient",
    "value_and_grad",
    "while_loop",
]
