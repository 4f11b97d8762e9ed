"""A cap on the bytes that new variables may take while a model is loaded."""

from __future__ import annotations

import re
import threading

_state = threading.local()


def _itemsize(dtype: str) -> int:
    bits = re.search(r"(\d+)$", dtype)
    return int(bits.group(1)) // 8 if bits else 1  # bool


class AllocationBudget:
    """A cap on the bytes new variables may take while it is active (one per thread).

    Loading a model from a file or a config opens one, so that a config asking for absurd
    sizes is refused when the first variable over the cap is about to be created, before
    anything that large is allocated. With a budget already open, opening another does
    nothing: the outermost load sets the cap.
    """

    def __init__(self, max_bytes: int, what: str, how_to_raise: str):
        self.max_bytes = int(max_bytes)
        self.what = what
        self.how_to_raise = how_to_raise
        self.used = 0
        self._entered = False

    def __enter__(self):
        if getattr(_state, "budget", None) is None:
            _state.budget = self
            self._entered = True
        return self

    def __exit__(self, *exc):
        if self._entered:
            _state.budget = None
            self._entered = False
        return False

    def charge(self, name: str, shape, dtype: str) -> None:
        count = 1
        for d in shape:
            count *= max(int(d), 0)
        need = count * _itemsize(dtype)
        if self.used + need > self.max_bytes:
            raise ValueError(
                f"{self.what}: variable {name!r} of shape {tuple(shape)} ({dtype}) needs "
                f"{need:,} bytes, which would bring what this load allocates to "
                f"{self.used + need:,} bytes, over its limit of {self.max_bytes:,}. "
                f"{self.how_to_raise}"
            )
        self.used += need


def current_budget() -> AllocationBudget | None:
    """The budget open on this thread, or None."""
    return getattr(_state, "budget", None)
