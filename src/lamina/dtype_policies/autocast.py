"""Autocast: a mixed-precision layer reads its float weights in its compute dtype.

Under a mixed policy a layer stores weights in float32 and computes in float16 or
bfloat16. While such a layer's `call` runs, an `AutocastScope` is open; weights made by
`add_weight` (with `autocast=True`) while the layer's policy is mixed are
`AutocastVariable`s, whose reads return the value cast to the scope's dtype. Outside a
call (an optimizer update, `get_weights`) they read their float32 value.

A layer inside another one opens its own scope when its compute dtype differs (a float32
softmax at the end of a bfloat16 model reads float32), or a scope that casts nothing when
its `autocast` is False.
"""

from __future__ import annotations

import threading

from lamina import backend


class _State(threading.local):
    scope = None  # a class default: reading it never raises (cheap on every layer call)


_state = _State()


class AutocastScope:
    """While open, `AutocastVariable` reads are cast to `dtype` (None: not cast).

    Args:
        dtype: a float dtype name, or None for a scope that casts nothing.
    """

    def __init__(self, dtype):
        if dtype is not None:
            dtype = backend.standardize_dtype(dtype)
            if "float" not in dtype:
                raise ValueError(
                    f"AutocastScope casts float variables to a float dtype; received "
                    f"dtype={dtype!r}. Pass a float dtype such as 'bfloat16', or None."
                )
        self.dtype = dtype
        self._outer = None

    def maybe_cast(self, value):
        """`value` cast to the scope's dtype when it is a float of another dtype."""
        dtype = self.dtype
        if dtype is not None:
            name = backend.standardize_dtype(value.dtype)
            if "float" in name and name != dtype:
                return backend.core.cast(value, dtype)
        return value

    def __enter__(self):
        self._outer = _state.scope
        _state.scope = self
        return self

    def __exit__(self, *exc):
        _state.scope = self._outer
        return False


def current_scope() -> AutocastScope | None:
    """The innermost open `AutocastScope`, or None."""
    return _state.scope


def scope_for(layer) -> AutocastScope | None:
    """The scope `layer`'s call must open, or None when the current one (or none) is
    right: a mixed layer opens one for its compute dtype; inside another layer's scope a
    layer with another compute dtype opens its own, and one with `autocast=False` (or a
    non-float compute dtype) opens one that casts nothing."""
    current = current_scope()
    compute = layer.compute_dtype
    if current is None:
        if compute != layer.variable_dtype and layer.autocast and "float" in compute:
            return AutocastScope(compute)
        return None
    wanted = compute if layer.autocast and "float" in compute else None
    if wanted == current.dtype:
        return None
    return AutocastScope(wanted)


class AutocastVariable(backend.Variable):
    """A layer weight of a mixed-precision layer: it reads cast to the compute dtype
    while a layer's `AutocastScope` is open, and as stored (float32) otherwise.
    Assignments and the optimizer see the stored dtype."""

    @property
    def value(self):
        value = super().value
        scope = _state.scope
        if scope is not None and scope.dtype is not None:
            return scope.maybe_cast(value)
        return value
