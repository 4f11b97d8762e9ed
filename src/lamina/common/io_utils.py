"""Where lamina's messages go: stdout while interactive logging is on, else `logging`.

Interactive logging (the default) suits a shell or a notebook: the progress bar, the
`Epoch i/N` lines and `summary()` are written to stdout. Turned off, for a job on a
server whose output is collected as logs, each message goes as one record to the
standard-library logger `"lamina"` at INFO level (Keras sends them to absl logging;
lamina uses `logging` and needs no absl). The progress bar then writes only its
finished line per epoch, never a bar redrawn in place.

Configure the logger as for any other library, e.g.
`logging.basicConfig(level=logging.INFO)`: Python's default threshold (WARNING) hides
INFO records.
"""

from __future__ import annotations

import logging
import sys

from lamina.backend.common.global_state import register_reset_hook

logger = logging.getLogger("lamina")

_STATE = {"interactive_logging": True}


def enable_interactive_logging() -> None:
    """Write lamina's messages (progress bar, `summary()`) to stdout. The default.

    >>> enable_interactive_logging()
    >>> is_interactive_logging_enabled()
    True
    """
    _STATE["interactive_logging"] = True


def disable_interactive_logging() -> None:
    """Send lamina's messages to the `"lamina"` logger (INFO level) instead of stdout.

    For jobs whose output is collected as logs: the progress bar writes one finished
    line per epoch, with no carriage returns or colours. `clear_session()` turns
    interactive logging back on, as Keras's does.

    >>> disable_interactive_logging()
    >>> is_interactive_logging_enabled()
    False
    >>> enable_interactive_logging()
    """
    _STATE["interactive_logging"] = False


def is_interactive_logging_enabled() -> bool:
    """True when messages go to stdout, False when they go to the `"lamina"` logger.

    >>> import lamina
    >>> lamina.utils.disable_interactive_logging()  # messages go to the "lamina" logger
    >>> lamina.utils.is_interactive_logging_enabled()
    False
    >>> lamina.utils.enable_interactive_logging()
    >>> lamina.utils.is_interactive_logging_enabled()
    True
    """
    return _STATE["interactive_logging"]


def print_msg(message, line_break: bool = True) -> None:
    """Write `message` to stdout (with a newline unless `line_break=False`), or log it
    at INFO level on the `"lamina"` logger when interactive logging is off.

    >>> print_msg("hello")
    hello
    """
    message = str(message)
    if not is_interactive_logging_enabled():
        logger.info(message.rstrip("\n"))
        return
    text = message + "\n" if line_break else message
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        # A stream that cannot encode the bar's box characters gets ASCII ones.
        encoding = sys.stdout.encoding or "utf-8"
        text = text.replace("━", "=").encode(encoding, errors="replace").decode(encoding)
        sys.stdout.write(text)
    sys.stdout.flush()


register_reset_hook(enable_interactive_logging)

__all__ = [
    "disable_interactive_logging",
    "enable_interactive_logging",
    "is_interactive_logging_enabled",
    "print_msg",
]
