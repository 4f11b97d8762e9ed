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


# The learning phase fixed with the classic `K.set_learning_phase` (None: not fixed).
_LEARNING_PHASE: list = [None]


def fixed_learning_phase():
    """The phase `K.set_learning_phase` fixed, as a bool, or None when it is not fixed:
    then each call chooses (`fit` trains; `evaluate`, `predict` and `model(x)` infer)."""
    return _LEARNING_PHASE[0]


def set_fixed_learning_phase(value) -> None:
    """Fix the learning phase (a bool) for every later call, or return it to the calls
    (None). Programs compiled for one phase are not reused for another."""
    _LEARNING_PHASE[0] = None if value is None else bool(value)


def learning_phase_or(default):
    """The fixed learning phase, else `default` (the phase a call would choose)."""
    fixed = _LEARNING_PHASE[0]
    return default if fixed is None else fixed
