"""The backend seam: one set of functions, several engines.

The engine is chosen once, at import, from the `LAMINA_BACKEND` environment variable
(default `"jax"`; `KERAS_BACKEND` is honoured when it names an engine and
`LAMINA_BACKEND` is unset). Every engine package (`backend/jax/`, `backend/torch/`)
provides the same modules (`core`, `numpy`, `nn`, `math`, `random`, `image`,
`execution`) with the same function names;
`tests/backend/test_contract.py` holds that checklist.

>>> from lamina import backend
>>> backend.backend() in ("jax", "torch")
True
>>> backend.floatx()
'float32'
"""

from __future__ import annotations

from lamina.backend.common.dtypes import result_type
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
        core,
        execution,
        image,
        layer,
        math,
        nn,
        numpy,
        optimizers,
        random,
    )
    from lamina.backend.jax.core import (
        Variable,
        block_until_ready,
        cast,
        cond,
        convert_to_numpy,
        convert_to_tensor,
        fori_loop,
        is_tensor,
        jit,
        scan,
        shape,
        stop_gradient,
        value_and_grad,
        while_loop,
    )
    from lamina.backend.jax.execution import Program
elif backend() == "torch":
    from lamina.backend.torch import (
        core,
        execution,
        image,
        layer,
        math,
        nn,
        numpy,
        optimizers,
        random,
    )
    from lamina.backend.torch.core import (
        Variable,
        block_until_ready,
        cast,
        cond,
        convert_to_numpy,
        convert_to_tensor,
        fori_loop,
        is_tensor,
        jit,
        scan,
        shape,
        stop_gradient,
        value_and_grad,
        while_loop,
    )
    from lamina.backend.torch.execution import Program
else:  # pragma: no cover - config.py refuses unknown names first
    raise ValueError(f"Unknown backend {backend()!r}. Available backends: ['jax', 'torch'].")


def clear_session() -> None:
    """Reset automatic layer names (`dense`, `dense_1`, ...) and the global seed state."""
    _reset_session()


def function(inputs, outputs, updates=None, name=None):
    """The classic `K.function`: a callable from input values to output values.

    Args:
        inputs: a KerasTensor or list of KerasTensors (from `Input`).
        outputs: a KerasTensor or list of KerasTensors computed from `inputs`.
        updates: optional list of `(variable, new_value)` pairs, where `new_value` is a
            KerasTensor of the same graph; each call assigns the computed values.

    >>> import numpy as np, lamina
    >>> x = lamina.Input((2,))
    >>> f = lamina.backend.function([x], [x * 2.0])
    >>> f([np.ones((1, 2), "float32")])[0].tolist()
    [[2.0, 2.0]]
    """
    # The classic API lives in `backend` but is built on the graph above it; this is the
    # one import the layers contract allows upwards (see pyproject.toml).
    from lamina.graph.function import backend_function

    return backend_function(inputs, outputs, updates=updates, name=name)


__all__ = [
    "Program",
    "RetraceWarning",
    "StatelessScope",
    "Variable",
    "backend",
    "block_until_ready",
    "cast",
    "clear_session",
    "cond",
    "convert_to_numpy",
    "convert_to_tensor",
    "core",
    "current_stateless_scope",
    "epsilon",
    "execution",
    "floatx",
    "fori_loop",
    "function",
    "image",
    "image_data_format",
    "in_stateless_scope",
    "is_tensor",
    "jit",
    "layer",
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
