"""ProgbarLogger: the progress bar during fit / evaluate / predict."""

from __future__ import annotations

import sys

from lamina.callbacks.callback import Callback
from lamina.callbacks.progbar import Progbar
from lamina.common import io_utils


def _numeric_items(logs) -> list:
    # Sorted, so the line reads `accuracy - loss - val_accuracy - val_loss` as in Keras;
    # `predict` batch logs carry the outputs, which do not belong on the bar.
    return [(k, v) for k, v in sorted((logs or {}).items()) if k != "outputs"]


class ProgbarLogger(Callback):
    """Prints the progress bar: `Epoch i/N` then one bar per epoch.

    `fit`, `evaluate` and `predict` add it when `verbose` is not 0; it reads the params
    `epochs`, `steps` (`None` when unknown: the count is shown, and the total filled
    in at the end) and `verbose` (1: a bar redrawn in place; 2: one line per epoch;
    `"auto"`: 1 on a terminal, else 2). Validation inside `fit` draws nothing.

    The logs are shown as they come: the trainer's logs are already running means.

    >>> logger = ProgbarLogger()
    >>> logger.set_params({"epochs": 1, "steps": 3, "verbose": 2})
    >>> logger.verbose, logger.target
    (2, 3)
    """

    def __init__(self):
        super().__init__()
        self.verbose = 1
        self.epochs = 1
        self.target = None
        self.seen = 0
        self.progbar = None
        self._called_in_fit = False

    def set_params(self, params: dict) -> None:
        super().set_params(params)
        verbose = params.get("verbose", 1)
        if verbose == "auto":
            verbose = 1 if sys.stdout.isatty() else 2
        self.verbose = verbose
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def _reset(self):
        self.seen = 0
        self.progbar = None

    def _bar(self) -> Progbar:
        if self.progbar is None:
            self.progbar = Progbar(target=self.target, verbose=self.verbose, unit_name="step")
        return self.progbar

    def _update(self, batch, logs):
        self.seen = batch + 1  # batches are 0-based; the bar counts from 1
        if self.verbose == 1:
            items = _numeric_items(logs)
            bar = self._bar()
            bar.stateful_metrics.update(k for k, _ in items)
            bar.update(self.seen, items, finalize=False)

    def _finalize(self, logs):
        bar = self._bar()
        if bar.target is None:
            bar.target = self.seen
        bar.update(bar.target, _numeric_items(logs), finalize=True)

    # fit
    def on_train_begin(self, logs=None):
        self._called_in_fit = True  # the validation run inside fit stays silent

    def on_train_end(self, logs=None):
        self._called_in_fit = False

    def on_epoch_begin(self, epoch, logs=None):
        self._reset()
        self._bar()
        if self.verbose and self.epochs > 1:
            io_utils.print_msg(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch, logs=None):
        self._update(batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize(logs)

    # evaluate
    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset()
            self._bar()

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._update(batch, logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finalize(logs)

    # predict
    def on_predict_begin(self, logs=None):
        self._reset()
        self._bar()

    def on_predict_batch_end(self, batch, logs=None):
        self._update(batch, None)

    def on_predict_end(self, logs=None):
        self._finalize(None)
