"""Tracebacks that end at the user's own line: lamina's internal frames filtered out.

An error raised deep inside `fit` passes through twenty frames of lamina's loop, step
and graph code before it reaches the user, and the line that matters (the user's `fit`
call, or their layer's `call`) drowns among them. As Keras does, the public entry points
(`fit`, `evaluate`, `predict`, the `*_on_batch` methods, `Layer.__call__` and
`Model.__call__`) are wrapped with `filter_traceback`: when an exception leaves them,
the frames whose code lives inside the lamina package are dropped from its traceback.
Frames of the user's code (a custom layer's `call`, a loss function, a generator) and
of the engines (JAX, PyTorch) stay, in order. One lamina frame is left at the end: the
wrapper's own re-raise, whose source line says how to see everything.

Filtering is on by default. `lamina.config.disable_traceback_filtering()` turns it off
(the full traceback, as raised), `enable_traceback_filtering()` back on, and
`is_traceback_filtering_enabled()` tells which. Nothing is lost while it is on: the
unfiltered traceback stays on the exception, read it with `unfiltered_traceback(e)`
(or `traceback.print_exception(type(e), e, unfiltered_traceback(e))`).
`clear_session()` turns filtering back on, as Keras's does.
"""

from __future__ import annotations

import functools
import os
import types

from lamina.backend.common.global_state import register_reset_hook

# Frames of code under this directory (the `lamina` package) are internal.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# The exception attribute holding the traceback as it was before filtering.
_UNFILTERED = "_lamina_unfiltered_traceback"

_STATE = {"enabled": True}


def enable_traceback_filtering() -> None:
    """Filter lamina's internal frames out of tracebacks (the default).

    See `lamina.common.traceback_utils` for what is filtered and how to read the full
    traceback of one exception.

    >>> enable_traceback_filtering()
    >>> is_traceback_filtering_enabled()
    True
    """
    _STATE["enabled"] = True


def disable_traceback_filtering() -> None:
    """Show every frame, lamina's own included, in the tracebacks of lamina's errors.

    >>> disable_traceback_filtering()
    >>> is_traceback_filtering_enabled()
    False
    >>> enable_traceback_filtering()
    """
    _STATE["enabled"] = False


def is_traceback_filtering_enabled() -> bool:
    """Whether lamina filters its internal frames out of tracebacks (True by default).

    Returns:
        True while filtering is on.

    >>> is_traceback_filtering_enabled()
    True
    >>> disable_traceback_filtering()
    >>> is_traceback_filtering_enabled()
    False
    >>> enable_traceback_filtering()
    """
    return _STATE["enabled"]


register_reset_hook(enable_traceback_filtering)


def is_internal(entry) -> bool:
    """True for a traceback entry whose code is part of the lamina package."""
    return os.path.abspath(entry.tb_frame.f_code.co_filename).startswith(_PACKAGE_DIR)


def unfiltered_traceback(exception: BaseException):
    """The traceback of `exception` as it was raised, before lamina filtered it.

    For an exception that was not filtered, its own `__traceback__`.

    Args:
        exception: an exception caught from a lamina call.

    Returns:
        A traceback object (for `traceback.print_exception` or `traceback.extract_tb`).
    """
    return getattr(exception, _UNFILTERED, None) or exception.__traceback__


def _entries(tb) -> list:
    out = []
    while tb is not None:
        out.append(tb)
        tb = tb.tb_next
    return out


def _chain(entries):
    """A fresh traceback linking `entries` (traceback objects) in order."""
    head = None
    for entry in reversed(entries):
        head = types.TracebackType(head, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return head


def _unfiltered(tb, exception):
    """The full traceback of `exception` at this wrapper: `tb` itself, or, when an inner
    wrapper filtered it already, `tb`'s frames down to that wrapper joined to the
    traceback the inner wrapper saved."""
    saved = getattr(exception, _UNFILTERED, None)
    if saved is None:
        return tb
    entries = _entries(tb)
    for i, entry in enumerate(entries):
        if entry.tb_frame is saved.tb_frame:
            return _chain(entries[:i] + _entries(saved))
    return tb  # the exception was caught and raised again elsewhere: start afresh


def filter_traceback(fn):
    """Decorate a public entry point so that its exceptions lose lamina's frames.

    The decorated function behaves exactly as `fn`; only the traceback of an exception
    leaving it changes (while filtering is enabled), and `BaseException`s that are not
    `Exception`s (KeyboardInterrupt, SystemExit) pass untouched.

    Args:
        fn: the function or method to wrap.

    Returns:
        The wrapped function.
    """

    @functools.wraps(fn)
    def filtered(*args, **kwargs):
        __tracebackhide__ = True  # noqa: F841 - pytest and IPython hide this frame
        try:
            return fn(*args, **kwargs)
        except Exception as exception:
            if not _STATE["enabled"]:
                raise
            full = _unfiltered(exception.__traceback__, exception)
            try:
                setattr(exception, _UNFILTERED, full)
            except (AttributeError, TypeError):
                full = None  # an exception type that takes no attributes: left as it is
            if full is None:
                raise
            kept = _chain([e for e in _entries(full) if not is_internal(e)])
            raise exception.with_traceback(kept)  # noqa: B904 (see disable_traceback_filtering)

    return filtered
