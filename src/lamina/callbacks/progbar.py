"""The progress bar Keras users know: `47/47 ━━━━━━━━━━━━━━━━━━━━ 1s 12ms/step - loss: 0.27`."""

from __future__ import annotations

import sys
import time

import numpy as np


def _format_value(value) -> str:
    value = float(np.asarray(value))
    if value != 0 and (abs(value) >= 1e4 or abs(value) < 1e-3):
        return f"{value:.4e}"
    return f"{value:.4f}"


def _format_time(seconds: float) -> str:
    if seconds >= 3600:
        return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"
    if seconds >= 60:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(round(seconds))}s"


def _format_step_time(per_step: float) -> str:
    if per_step >= 1:
        return f"{per_step:.0f}s/step"
    if per_step >= 1e-3:
        return f"{per_step * 1e3:.0f}ms/step"
    return f"{per_step * 1e6:.0f}us/step"


class Progbar:
    """A progress bar for `target` steps (None when unknown).

    Args:
        target: number of steps, or None.
        width: characters in the bar.
        verbose: 1 redraws one line in place; 2 prints only the final line.
        stream: where to write (default `sys.stdout`).

    >>> import io
    >>> out = io.StringIO()
    >>> bar = Progbar(2, verbose=2, stream=out)
    >>> bar.update(2, [("loss", 0.5)], finalize=True)
    >>> out.getvalue().startswith("2/2 - ")
    True
    """

    def __init__(
        self, target, width: int = 20, verbose: int = 1, stream=None, unit_name: str = "step"
    ):
        self.target = target
        self.width = width
        self.verbose = verbose
        self.stream = stream
        self.unit_name = unit_name
        self._start = time.time()
        self._last_len = 0
        self._dynamic = getattr(self._out, "isatty", lambda: False)()

    @property
    def _out(self):
        return self.stream or sys.stdout

    def _bar(self, current) -> str:
        if self.target is None:
            return f"{current}"
        digits = len(str(self.target))
        filled = int(self.width * current / self.target) if self.target else self.width
        return f"{current:>{digits}}/{self.target} " + "━" * filled + " " * (self.width - filled)

    def update(self, current: int, values=None, finalize: bool | None = None) -> None:
        """Show progress `current` with `(name, value)` pairs."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        elapsed = time.time() - self._start
        per_step = elapsed / max(current, 1)
        metrics = "".join(f" - {name}: {_format_value(v)}" for name, v in values or [])
        if self.verbose == 1:
            if finalize:
                info = f" {_format_time(elapsed)} {_format_step_time(per_step)}"
            elif self.target is not None:
                info = f" {_format_time(per_step * (self.target - current))} {_format_step_time(per_step)}"
            else:
                info = f" {_format_time(elapsed)} {_format_step_time(per_step)}"
            line = self._bar(current) + info + metrics
            if self._dynamic:
                pad = max(self._last_len - len(line), 0)
                self._out.write("\r" + line + " " * pad)
                self._last_len = len(line)
                if finalize:
                    self._out.write("\n")
            elif finalize:
                self._out.write(line + "\n")
            self._out.flush()
        elif self.verbose == 2 and finalize:
            count = f"{current}/{self.target}" if self.target is not None else f"{current}"
            line = f"{count} - {_format_time(elapsed)} - {_format_step_time(per_step)}" + metrics
            self._out.write(line + "\n")
            self._out.flush()
