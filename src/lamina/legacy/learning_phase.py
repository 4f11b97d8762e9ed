"""The classic learning phase: `K.learning_phase()`, `K.set_learning_phase`,
`K.learning_phase_scope`, `K.in_train_phase` and `K.in_test_phase`.

The phase is a symbolic flag fed like an input (`K.function([x, K.learning_phase()],
...)` then `f([data, 1])`), or the value the current call runs with (`training` inside
`fit`, 0 otherwise); `set_learning_phase` fixes it for every later call.
"""

from __future__ import annotations

import contextlib

from lamina import ops
from lamina.backend.common import global_state
from lamina.backend.common.global_state import register_reset_hook
from lamina.backend.common.variables import bump_structure_version
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.operation import current_call_context
from lamina.legacy.graph_api import _SourceOperation

# The learning phase -------------------------------------------------------------------
# The symbolic flag (made on first use); the fixed phase lives in the backend's global
# state, where every call reads it.
_PHASE = {"tensor": None}


def _fixed():
    """The fixed phase as Keras 2's int (0 or 1), or None."""
    fixed = global_state.fixed_learning_phase()
    return None if fixed is None else int(fixed)


def _set_phase(value) -> None:
    if global_state.fixed_learning_phase() != (None if value is None else bool(value)):
        global_state.set_fixed_learning_phase(value)
        # What was captured or compiled for the other phase is not reused.
        bump_structure_version()


class _LearningPhase(_SourceOperation):
    """The learning phase of the call that runs the graph: `training` when the call
    context has it (a `fit` step, `K.function` fed a phase), else the value set with
    `set_learning_phase`, else 0 (inference)."""

    _is_learning_phase = True

    def call(self):
        context = current_call_context()
        training = context.training if context is not None else None
        if training is None:
            training = bool(_fixed())
        return ops.convert_to_tensor(bool(training), dtype="bool")


def learning_phase():
    """The learning phase: 1 when training, 0 in inference.

    After `set_learning_phase(value)` it is that Python int. Otherwise it is a symbolic
    boolean scalar: give it to `K.function` as an input and feed 0 or 1
    (`K.function([x, K.learning_phase()], [y])([data, 1])`); not fed, it takes the
    training flag of the call that runs it.

    >>> from lamina import backend as K
    >>> K.set_learning_phase(1)
    >>> K.learning_phase()
    1
    >>> K.set_learning_phase(None)
    >>> K.learning_phase().shape
    ()
    """
    fixed = _fixed()
    if fixed is not None:
        return fixed
    if _PHASE["tensor"] is None:
        _PHASE["tensor"] = _LearningPhase(name="keras_learning_phase")._emit((), "bool")
    return _PHASE["tensor"]


def _is_learning_phase(x) -> bool:
    return x is not None and x is _PHASE["tensor"]


def set_learning_phase(value) -> None:
    """Fix the learning phase to 0 (test) or 1 (train) for every later call, as Keras 2
    did; `None` returns to letting each call choose.

    The fixed phase is the one layers run in unless a call passes `training=`
    itself: model and layer calls on data, `predict`, `evaluate` and `fit` alike (so
    `set_learning_phase(1)` keeps dropout active at inference, and
    `set_learning_phase(0)` trains with dropout off and batch statistics frozen), and
    `K.function` when the phase is not fed. `K.clear_session()` releases it.

    >>> from lamina import backend as K
    >>> from lamina import layers
    >>> dropout = layers.Dropout(0.5, seed=1)
    >>> K.set_learning_phase(1)
    >>> float(K.eval(dropout(K.ones((100,)))).min())  # dropout active outside fit
    0.0
    >>> K.set_learning_phase(None)
    >>> float(K.eval(dropout(K.ones((100,)))).min())
    1.0
    """
    if value not in (0, 1, None, True, False):
        raise ValueError(f"set_learning_phase: expected 0 or 1; received {value!r}.")
    _set_phase(value)


def fixed_learning_phase():
    """The phase `set_learning_phase` fixed, as a bool, or None when it follows calls."""
    return global_state.fixed_learning_phase()


def _reset_learning_phase() -> None:
    # `clear_session` returns the phase to following the calls, as Keras 2's did.
    _set_phase(None)
    _PHASE["tensor"] = None


register_reset_hook(_reset_learning_phase)


@contextlib.contextmanager
def learning_phase_scope(value):
    """Within the block, the learning phase is `value` (0 or 1).

    >>> from lamina import backend as K
    >>> with K.learning_phase_scope(1):
    ...     K.in_train_phase("train", "test")
    'train'
    >>> K.in_train_phase("train", "test")
    'test'
    """
    previous = _fixed()
    if value not in (0, 1, True, False):
        raise ValueError(f"learning_phase_scope: expected 0 or 1; received {value!r}.")
    _set_phase(value)
    try:
        yield value
    finally:
        _set_phase(previous)


def _phase_now():
    context = current_call_context()
    if context is not None and context.training is not None:
        return bool(context.training)
    return bool(_fixed())


def in_train_phase(x, alt, training=None):
    """`x` in the training phase, `alt` otherwise; either may be a callable returning
    the tensor.

    `training` is the phase (a bool/0/1, or a symbolic flag); `None` uses the learning
    phase: inside a layer call during `fit` that is `training=True`; with symbolic `x`
    or `alt` it is the symbolic learning phase, chosen when the graph runs.

    >>> from lamina import backend as K
    >>> [K.in_train_phase("train", "test", training=phase) for phase in (True, 0)]
    ['train', 'test']
    """
    if training is None:
        training = _fixed()
    if isinstance(training, KerasTensor) or training is None:
        x_value = x() if callable(x) else x
        alt_value = alt() if callable(alt) else alt
        if training is None:
            if not (isinstance(x_value, KerasTensor) or isinstance(alt_value, KerasTensor)):
                return x_value if _phase_now() else alt_value
            training = learning_phase()
            if not isinstance(training, KerasTensor):
                return x_value if training else alt_value
        return ops.where(ops.cast(training, "bool"), x_value, alt_value)
    chosen = x if bool(training) else alt
    return chosen() if callable(chosen) else chosen


def in_test_phase(x, alt, training=None):
    """`x` in the test phase, `alt` in training (the mirror of `in_train_phase`).

    >>> from lamina import backend as K
    >>> K.in_test_phase("test", "train", training=False)
    'test'
    >>> K.in_test_phase(lambda: "test", lambda: "train", training=1)  # one callable is called
    'train'
    """
    return in_train_phase(alt, x, training=training)


__all__ = [
    "in_test_phase",
    "in_train_phase",
    "learning_phase",
    "learning_phase_scope",
    "set_learning_phase",
]
