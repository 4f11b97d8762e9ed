"""Name scopes: the prefix of every variable path, as Keras 3's `keras.name_scope`.

A variable's `path` is the path of the innermost open scope joined with its name.
Layers open a scope named after themselves while they build and call, so the weights
of a layer built inside another carry the outer layer's name in front
(`"sequential/dense/kernel"`); a user can open one around any code.

>>> from lamina.backend.common.name_scope import current_path, name_scope
>>> with name_scope("outer"):
...     with name_scope("inner"):
...         current_path()
'outer/inner'
"""

from __future__ import annotations

import threading

_STATE = threading.local()


def _stack() -> list:
    stack = getattr(_STATE, "stack", None)
    if stack is None:
        stack = _STATE.stack = []
    return stack


class name_scope:  # noqa: N801 - Keras's public name
    """A context manager that adds `name` to the path of the variables made inside it.

    Args:
        name: the scope's name; a string without `/`.
        caller: the object opening the scope (a layer opens its own). With
            `deduplicate`, a scope whose caller and name are those of the innermost open
            scope adds nothing, and a caller with a recorded `_parent_path` (where a
            layer was first built) reopens at that path wherever it is entered.
        deduplicate: see `caller`.
        override_parent: a path that replaces the enclosing scopes' path (`""`: start
            from the top).

    >>> import lamina
    >>> with name_scope("encoder"):
    ...     layer = lamina.layers.Dense(2, name="proj")
    ...     layer.build((None, 3))
    >>> [weight.path for weight in layer.weights]
    ['encoder/proj/kernel', 'encoder/proj/bias']
    """

    def __init__(
        self,
        name: str,
        caller=None,
        deduplicate: bool = True,
        override_parent: str | None = None,
    ):
        if not isinstance(name, str) or "/" in name:
            raise ValueError(
                f"name_scope expects a name that is a string without '/'; received "
                f"{name!r}. Open one scope per level instead: "
                "`with name_scope('a'): with name_scope('b'): ...`."
            )
        self.name = name
        self.caller = caller
        self.deduplicate = deduplicate
        if override_parent is None and deduplicate:
            override_parent = getattr(caller, "_parent_path", None)
        self.override_parent = override_parent
        self._pushed = False
        self.path = None

    def __enter__(self) -> name_scope:
        stack = _stack()
        if self.deduplicate and stack and self.caller is not None:
            top = stack[-1]
            if top.caller is self.caller and top.name == self.name:
                return self
        parent = stack[-1].path if stack else ""
        if self.override_parent is not None:
            parent = "/".join(p for p in self.override_parent.split("/") if p)
        self.path = f"{parent}/{self.name}" if parent else self.name
        stack.append(self)
        self._pushed = True
        return self

    def __exit__(self, *exc) -> bool:
        if self._pushed:
            self._pushed = False
            stack = _stack()
            if stack and stack[-1] is self:
                stack.pop()
            elif self in stack:  # exited out of order: drop it and what it left open
                del stack[stack.index(self) :]
        return False


def current_path() -> str:
    """The path of the innermost open name scope (`""` outside any)."""
    stack = _stack()
    return stack[-1].path if stack else ""
