"""The progress bar Keras users know: `47/47 ━━━━━━━━━━━━━━━━━━━━ 1s 12ms/step - loss: 0.2700`.

`Progbar` is public so custom training loops can draw the same line `fit` draws.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from lamina import backend
from lamina.common import io_utils

# ANSI styles, used only when the stream is a terminal (a log file gets plain text).
_BOLD, _GREEN, _DIM, _RESET = "\x1b[1m", "\x1b[32m", "\x1b[37m", "\x1b[0m"


def _format_value(value: float) -> str:
    # Keras's rule: four decimals, scientific notation for tiny magnitudes.
    return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"


def _format_eta(seconds: float) -> str:
    if seconds > 3600:
        return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"
    if seconds > 60:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(seconds)}s"


def _format_step_time(per_step: float, unit_name: str) -> str:
    if per_step >= 1 or per_step == 0:
        return f"{per_step:.0f}s/{unit_name}"
    if per_step >= 1e-3:
        return f"{per_step * 1e3:.0f}ms/{unit_name}"
    return f"{per_step * 1e6:.0f}us/{unit_name}"


class Progbar:
    """A progress bar for `target` steps, as drawn by `fit`, `evaluate` and `predict`.

    Values passed to `update` are averaged over the steps seen (weighted by the steps
    each update covers), except names listed in `stateful_metrics`, shown as given
    (or, given `stateless_metrics` instead, only the names listed there are averaged and
    every other is shown as given); as in Keras, the values given to the final update
    are shown as given.
    With `verbose=1` the line is redrawn in place on a terminal or in a notebook (at
    most every `interval` seconds) and written once, when finalized, to any other
    stream (a CI log, a file): one line per bar, no carriage returns, no colours; with
    `verbose=2` only the final line is written, in the compact form
    `47/47 - 1s - 12ms/step - loss: 0.2700`. With interactive logging turned off
    (`lamina.utils.disable_interactive_logging()`) and no `stream` given, each final
    line goes to the `"lamina"` logger instead of stdout.

    Args:
        target: total number of steps, or `None` when unknown (the count is shown alone).
        width: characters in the bar.
        verbose: 0 (silent), 1 (bar) or 2 (one line when finished).
        interval: minimum seconds between two redraws.
        stateful_metrics: names whose values are displayed as given, not averaged.
        stateless_metrics: the other way round: the names whose values are averaged,
            every other shown as given. Give one of the two, not both.
        unit_name: the unit in the timing, `"step"` by default.
        stream: where to write; `sys.stdout` (looked up at each write) by default.

    >>> import io
    >>> out = io.StringIO()
    >>> bar = Progbar(2, verbose=2, stream=out)
    >>> bar.update(1, [("loss", 0.5)])
    >>> bar.update(2, [("loss", 0.25)])
    >>> out.getvalue().startswith("2/2 - ") and out.getvalue().endswith("/step - loss: 0.2500\\n")
    True
    """

    def __init__(
        self,
        target: int | None,
        width: int = 20,
        verbose: int = 1,
        interval: float = 0.05,
        stateful_metrics=None,
        stateless_metrics=None,
        unit_name: str = "step",
        stream=None,
    ):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError(
                "Progbar takes `stateful_metrics` (names shown as given, the rest averaged) "
                "or `stateless_metrics` (names averaged, the rest shown as given), not both; "
                f"received stateful_metrics={stateful_metrics!r} and "
                f"stateless_metrics={stateless_metrics!r}."
            )
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        # As Keras: the one of the two not given is None (the default is stateful, empty).
        if stateless_metrics is not None:
            self.stateful_metrics = None
            self.stateless_metrics = set(stateless_metrics)
        else:
            self.stateful_metrics = set(stateful_metrics or ())
            self.stateless_metrics = None
        self.unit_name = unit_name
        self.stream = stream
        self._dynamic = self._is_dynamic()
        self._values: dict[str, list] = {}  # name -> [weighted sum, weight]
        self._values_order: list[str] = []
        self._seen_so_far = 0
        self._start = time.time()
        self._last_update = 0.0
        self._time_after_first_step = None
        self._prev_width = 0

    @property
    def _out(self):
        return self.stream if self.stream is not None else sys.stdout

    def _is_dynamic(self) -> bool:
        """Whether the bar can be redrawn in place: a terminal, or a notebook's stdout
        (Jupyter handles carriage returns); never when messages go to a logger."""
        if self.stream is None:
            if not io_utils.is_interactive_logging_enabled():
                return False
            if "ipykernel" in sys.modules:
                return True
        try:
            return bool(getattr(self._out, "isatty", lambda: False)())
        except ValueError:  # a closed stream
            return False

    def _write(self, text: str) -> None:
        if self.stream is None and not io_utils.is_interactive_logging_enabled():
            io_utils.print_msg(text, line_break=False)  # one log record per line
            return
        self._out.write(text)
        self._out.flush()

    def _shown_as_given(self, name: str) -> bool:
        if self.stateless_metrics is not None:
            return name not in self.stateless_metrics
        return name in self.stateful_metrics

    def _record(self, current: int, values, finalize: bool) -> None:
        for name, value in values:
            if name not in self._values_order:
                self._values_order.append(name)
            value = float(np.mean(backend.convert_to_numpy(value).astype("float64")))
            if finalize or self._shown_as_given(name):
                self._values[name] = [value, 1]
            else:
                weight = max(current - self._seen_so_far, 1)
                total = self._values.setdefault(name, [0.0, 0])
                total[0] += value * weight
                total[1] += weight
        self._seen_so_far = current

    def _step_time(self, current: int, now: float) -> float:
        # The first step usually includes compilation: leave it out once there are more.
        if self._time_after_first_step is not None and current > 1:
            per_step = (now - self._time_after_first_step) / (current - 1)
        else:
            per_step = (now - self._start) / max(current, 1)
        if current == 1:
            self._time_after_first_step = now
        return per_step

    def _metrics_text(self) -> str:
        return "".join(
            f" - {name}: {_format_value(total / max(count, 1))}"
            for name, (total, count) in ((k, self._values[k]) for k in self._values_order)
        )

    def _style(self, text: str, style: str) -> str:
        return f"{style}{text}{_RESET}" if self._dynamic else text

    def _bar(self, current: int) -> str:
        if self.target is None or self.target <= 0:
            return f"{current}/Unknown"
        digits = len(str(self.target))
        filled = min(int(self.width * current / self.target), self.width)
        done = self._style("━" * filled, _GREEN) if filled else ""
        # On a terminal the remainder is a dim bar, as in Keras; in plain text, spaces.
        rest = ""
        if filled < self.width:
            rest = self._style("━" * (self.width - filled), _DIM) if self._dynamic else ""
            rest = rest or " " * (self.width - filled)
        return self._style(f"{current:>{digits}}/{self.target}", _BOLD) + " " + done + rest

    def update(self, current: int, values=None, finalize: bool | None = None) -> None:
        """Show progress at step `current`.

        Args:
            current: the number of steps done so far.
            values: `(name, value)` pairs for this update.
            finalize: whether this is the last update; by default, `current >= target`.
        """
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        self._record(current, values or [], finalize)
        now = time.time()
        per_step = self._step_time(current, now)
        if self.verbose == 1:
            if not finalize and now - self._last_update < self.interval:
                return
            if self._dynamic or finalize:
                self._draw(current, per_step, now, finalize)
        elif self.verbose == 2 and finalize:
            count = f"{current}/{self.target}" if self.target else f"{current}"
            line = (
                f"{count} - {now - self._start:.0f}s - "
                f"{_format_step_time(per_step, self.unit_name)}{self._metrics_text()}"
            )
            self._write(line + "\n")
        self._last_update = now

    def _draw(self, current: int, per_step: float, now: float, finalize: bool) -> None:
        if self.target and not finalize:
            timing = _format_eta(per_step * (self.target - current))
        else:
            timing = f"{now - self._start:.0f}s"
        step_time = _format_step_time(per_step, self.unit_name)
        line = f"{self._bar(current)} {self._style(timing, _BOLD)} {step_time}"
        line += self._metrics_text()
        if self._dynamic:
            visible = len(_strip_styles(line))
            line = "\r" + line + " " * max(self._prev_width - visible, 0)
            self._prev_width = visible
        self._write(line + ("\n" if finalize else ""))

    def add(self, n: int, values=None) -> None:
        """Advance by `n` steps."""
        self.update(self._seen_so_far + n, values)


def _strip_styles(text: str) -> str:
    for code in (_BOLD, _GREEN, _DIM, _RESET):
        text = text.replace(code, "")
    return text
