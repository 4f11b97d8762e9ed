"""A layout given to one variable (`Variable(..., layout=)`) made outside any
distribution: the value is placed by it when made and at every assign. (Inside a
distribution, the distribution reads the variable's layout itself.)"""

from __future__ import annotations


def place_by_layout(variable, layout) -> None:
    """Lay `variable`'s value out by `layout` (a `TensorLayout` with a device mesh)."""
    from lamina.backend import distribution as engine

    layout.check_shape(variable.shape, f"Variable {variable.path!r}")
    target = layout.backend_layout
    variable._layout = layout
    variable._placement = lambda value: engine.distribute_tensor(value, target)
    variable._value = engine.distribute_variable(variable._value, target)
