"""The classic backend API: `from lamina import backend as K; K.mean(...)`.

Keras 1.x/2.x exposed one backend module whose functions had the same names over every
engine (TensorFlow, Theano, CNTK). Keras 3 dropped it; lamina keeps it, on every engine
it runs on. Every name here is reachable as `lamina.backend.<name>` (the engine seam
resolves names it does not define itself from this module), and each is a documented
delegation to `lamina.ops`, so it works eagerly on arrays and symbolically on graph
tensors (inside losses, metrics, `Lambda` layers and `K.function` graphs).

The graph vocabulary (variables, placeholders, gradients, updates, the learning phase)
is in `lamina.legacy.graph_api`.
"""

from __future__ import annotations

import functools

from lamina import ops as _ops
from lamina.graph.keras_tensor import KerasTensor as _KerasTensor
from lamina.legacy.graph_api import *  # noqa: F403
from lamina.legacy.graph_api import ClassicVariable as _ClassicVariable
from lamina.legacy.graph_api import __all__ as _graph_names
from lamina.legacy.graph_api import read as _read


def _concrete(x) -> bool:
    from lamina.backend import is_tensor

    return is_tensor(x) or (
        hasattr(x, "__array__") and not hasattr(x, "_keras_history") and not hasattr(x, "assign")
    )


def graph_arguments(fn):
    """Let `fn` read classic variables when the graph runs.

    A classic variable passed (directly or in a list) to a function with no data array
    beside it stands for its graph value (`K.cast(iterations, "float32") + 1` is an
    expression over the variable, as in the classic engine); beside data it is read
    now, so eager code (`K.dot(x, W)` in a layer's call) computes at once.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        leaves = list(args) + list(kwargs.values())
        flat = [y for x in leaves for y in (x if isinstance(x, (list, tuple)) else (x,))]
        if any(isinstance(x, _ClassicVariable) for x in flat) and not any(
            _concrete(x) for x in flat
        ):

            def swap(x):
                if isinstance(x, _ClassicVariable):
                    return _read(x)
                if isinstance(x, (list, tuple)):
                    return type(x)(swap(y) for y in x)
                return x

            args = [swap(a) for a in args]
            kwargs = {k: swap(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)

    return wrapper


@graph_arguments
def cast(x, dtype):
    """`x` as `dtype` (a graph tensor stays symbolic)."""
    return _ops.cast(x, dtype)


@graph_arguments
def stop_gradient(variables):
    """`variables` (a tensor or a list of them) with no gradient flowing back."""
    if isinstance(variables, (list, tuple)):
        return [_ops.stop_gradient(v) for v in variables]
    return _ops.stop_gradient(variables)


def shape(x):
    """The shape of `x` as a tuple (`None` for a graph tensor's unknown sizes)."""
    if isinstance(x, _KerasTensor):
        return x.shape
    return _ops.shape(x)


# Classic names lamina leaves out on purpose, with what to use instead.
OMITTED = {
    "get_session": "lamina has no TensorFlow sessions: variables hold their values "
    "(K.get_value / K.set_value) and K.function runs a graph",
    "set_session": "lamina has no TensorFlow sessions; nothing to set",
    "get_graph": "lamina has no global TensorFlow graph; a graph is the KerasTensors "
    "between K.function's inputs and outputs",
    "get_default_graph": "lamina has no global TensorFlow graph",
    "manual_variable_initialization": "lamina variables are initialised when created",
    "configure_and_create_distributed_session": "use lamina.distribution",
    "set_image_dim_ordering": "use K.set_image_data_format('channels_last' or 'channels_first')",
    "image_dim_ordering": "use K.image_data_format()",
    "set_tf_session": "lamina has no TensorFlow sessions",
}

__all__ = sorted(set(_graph_names) | {"cast", "shape", "stop_gradient"})
