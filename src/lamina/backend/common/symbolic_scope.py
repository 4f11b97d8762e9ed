"""SymbolicScope: marks code running on symbolic values (Keras 3's `keras.SymbolicScope`).

lamina opens one while it evaluates a layer or op abstractly (shapes and dtypes, no
data: `compute_output_spec`), so code can tell that pass from a call on data.

>>> from lamina.backend.common.symbolic_scope import SymbolicScope, in_symbolic_scope
>>> with SymbolicScope():
...     in_symbolic_scope()
True
>>> in_symbolic_scope()
False
"""

from __future__ import annotations

import threading

_STATE = threading.local()


class SymbolicScope:
    """A context inside which `in_symbolic_scope()` is true.

    >>> with SymbolicScope() as scope:
    ...     get_symbolic_scope() is scope, in_symbolic_scope()
    (True, True)
    >>> in_symbolic_scope()
    False
    """

    def __enter__(self) -> SymbolicScope:
        self._outer = getattr(_STATE, "scope", None)
        _STATE.scope = self
        return self

    def __exit__(self, *exc) -> bool:
        _STATE.scope = self._outer
        return False


def get_symbolic_scope() -> SymbolicScope | None:
    """The innermost open SymbolicScope, or `None`."""
    return getattr(_STATE, "scope", None)


def in_symbolic_scope() -> bool:
    """Whether a SymbolicScope is open (code is being evaluated symbolically)."""
    return get_symbolic_scope() is not None
