"""Process-wide state: the counters behind automatic unique names."""

from __future__ import annotations

import collections
import re

_NAME_COUNTS: collections.Counter = collections.Counter()


def to_snake_case(name: str) -> str:
    """Keras's rule, exactly: `Conv1D` -> `conv1d`, `Conv2DTranspose` -> `conv2d_transpose`.

    Default layer names and weight-file paths come from it, so any difference breaks
    files moving between lamina and Keras.
    """
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    name = re.sub(r"([a-z])([A-Z])", r"\1_\2", name)
    return name.lower()


def unique_name(base: str) -> str:
    """`base` the first time, then `base_1`, `base_2`, ... (as Keras names layers)."""
    count = _NAME_COUNTS[base]
    _NAME_COUNTS[base] += 1
    return base if count == 0 else f"{base}_{count}"


_RESET_HOOKS: list = []


def register_reset_hook(fn) -> None:
    """Run `fn()` on `clear_session()` (used by modules above the backend, e.g. seeds)."""
    _RESET_HOOKS.append(fn)


def reset_session() -> None:
    _NAME_COUNTS.clear()
    for hook in _RESET_HOOKS:
        hook()


_DISTRIBUTION: list = [None]


def current_distribution():
    """The distribution set with `lamina.distribution.set_distribution`, or `None`."""
    return _DISTRIBUTION[0]


def set_current_distribution(value) -> None:
    """Record the distribution in use (`None`: everything on one device)."""
    _DISTRIBUTION[0] = value
