"""The classic backend API: `from lamina import backend as K; K.mean(...)`.

Keras 1.x/2.x exposed one backend module whose functions had the same names over every
engine (TensorFlow, Theano, CNTK). Keras 3 dropped it; lamina keeps it, on every engine
it runs on. Every name here is reachable as `lamina.backend.<name>` (`lamina.legacy`
registers this module with the engine seam, which resolves the names it does not define
itself from it), and each is a documented
delegation to `lamina.ops`, so it works eagerly on arrays and symbolically on graph
tensors (inside losses, metrics, `Lambda` layers and `K.function` graphs).

The graph vocabulary (variables, placeholders, gradients, updates) is in
`lamina.legacy.graph_api`, the learning phase in `lamina.legacy.learning_phase`, and `K.function`, which runs such a graph, in
`lamina.legacy.function`.
"""

from __future__ import annotations

import builtins
import functools

from lamina.legacy import backend_ops as _backend_ops
from lamina.legacy.backend_ops import __all__ as _ops_names
from lamina.legacy.function import function as function  # K.function
from lamina.legacy.graph_api import ClassicVariable as _ClassicVariable
from lamina.legacy.graph_api import __all__ as _graph_names

# For `Input(tensor=<variable or array>)`: lamina.layers, a floor below, reads it here.
from lamina.legacy.graph_api import input_source as _input_source  # noqa: F401
from lamina.legacy.graph_api import read as _read
from lamina.legacy.graph_api import variable as _variable
from lamina.legacy.learning_phase import __all__ as _phase_names


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
        # (`any` and friends are K's own names in this module: use the builtins.)
        if builtins.any(isinstance(x, _ClassicVariable) for x in flat) and not builtins.any(
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


# Names that look at a tensor rather than compute with it: a classic variable is
# described as itself, not as its graph value.
_INTROSPECTION = frozenset(
    {"int_shape", "ndim", "dtype", "is_sparse", "is_tensor", "is_keras_tensor", "count_params"}
)

for _name in _ops_names:
    _fn = getattr(_backend_ops, _name)
    globals()[_name] = _fn if _name in _INTROSPECTION or not callable(_fn) else graph_arguments(_fn)


def _as_classic(make):
    @functools.wraps(make)
    def wrapper(*args, **kwargs):
        made = make(*args, **kwargs)
        return _variable(made.value, dtype=made.dtype, name=made.name)

    return wrapper


# Variables made here do classic (symbolic) arithmetic, as `K.variable`'s do.
random_normal_variable = _as_classic(_backend_ops.random_normal_variable)
random_uniform_variable = _as_classic(_backend_ops.random_uniform_variable)

# The graph vocabulary wins where both define a name (zeros, ones, eye, ...: variables).
from lamina.legacy.graph_api import *  # noqa: E402, F403
from lamina.legacy.learning_phase import *  # noqa: E402, F403

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

__all__ = sorted(set(_graph_names) | set(_phase_names) | set(_ops_names) | {"function"})
