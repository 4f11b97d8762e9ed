"""The classic backend's updates, `K.function(..., updates=[...])`'s
`(variable, new value)` pairs (`update`, `update_add`, `update_sub`,
`moving_average_update`), and the graph-mode leftover `name_scope`. Part of
`lamina.legacy.graph_api`, which re-exports them."""

from __future__ import annotations

import contextlib

from lamina.backend.common.variables import Variable as _BaseVariable
from lamina.legacy.graph_api import _describe, read


# Updates -----------------------------------------------------------------------------
def _check_target(x, who):
    if not isinstance(x, _BaseVariable):
        raise TypeError(f"K.{who} updates a variable; received {_describe(x)}.")


def _as_graph(x):
    return read(x) if isinstance(x, _BaseVariable) else x


def update(x, new_x):
    """The update "assign `new_x` to `x`", for `K.function(..., updates=[...])`.

    Like the classic engine in graph mode, nothing changes until the function runs; it
    assigns on every call. (To change a variable now: `K.set_value` or `x.assign`.)

    >>> from lamina import backend as K
    >>> v = K.variable(0.0)
    >>> x = K.placeholder(shape=())
    >>> f = K.function([x], [x], updates=[K.update(v, x)])
    >>> _ = f([4.0])
    >>> float(K.get_value(v))
    4.0
    """
    _check_target(x, "update")
    return (x, _as_graph(new_x))


def update_add(x, increment):
    """The update `x <- x + increment` (see `update`).

    >>> from lamina import backend as K
    >>> step = K.variable(0.0)
    >>> f = K.function([], [], updates=[K.update_add(step, 1.0)])
    >>> _ = f([]); _ = f([])
    >>> float(K.get_value(step))
    2.0
    """
    _check_target(x, "update_add")
    return (x, read(x) + _as_graph(increment))


def update_sub(x, decrement):
    """The update `x <- x - decrement` (see `update`).

    >>> from lamina import backend as K
    >>> v = K.variable(10.0)
    >>> f = K.function([], [], updates=[K.update_sub(v, 3.0)])
    >>> _ = f([])
    >>> float(K.get_value(v))
    7.0
    """
    _check_target(x, "update_sub")
    return (x, read(x) - _as_graph(decrement))


def moving_average_update(x, value, momentum):
    """The update `x <- x * momentum + value * (1 - momentum)` (see `update`).

    >>> from lamina import backend as K
    >>> mean = K.variable(0.0)
    >>> f = K.function([], [], updates=[K.moving_average_update(mean, 10.0, momentum=0.9)])
    >>> _ = f([])
    >>> round(float(K.get_value(mean)), 3)
    1.0
    """
    _check_target(x, "moving_average_update")
    return (x, read(x) * momentum + _as_graph(value) * (1.0 - momentum))


# Graph-mode leftovers ------------------------------------------------------------------
@contextlib.contextmanager
def name_scope(name):
    """A no-op context (lamina names tensors itself), kept so classic code runs.

    >>> from lamina import backend as K
    >>> with K.name_scope("block1") as scope:
    ...     y = K.constant([1.0]) * 2
    >>> scope, K.eval(y).tolist()
    ('block1', [2.0])
    """
    if not isinstance(name, str):
        raise TypeError(f"name_scope expects a string name; received {_describe(name)}.")
    yield name
