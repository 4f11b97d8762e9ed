"""ProgbarLogger: the progress bar during fit / evaluate / predict."""

from __future__ import annotations

import sys

from lamina.callbacks.callback import Callback
from lamina.callbacks.progbar import Progbar


def _metrics(logs) -> list:
    return [
        (k, v)
        for k, v in sorted((logs or {}).items())
        if not k.startswith("val_") and k != "outputs"
    ]


class ProgbarLogger(Callback):
    """Prints `Epoch i/N` and a progress line per epoch (verbose 1), or one line per epoch
    (verbose 2). `fit` adds it automatically when `verbose` is not 0."""

    def __init__(self):
        super().__init__()
        self.verbose = 1
        self.epochs = 1
        self._bar = None
        self._seen = 0

    def set_params(self, params):
        super().set_params(params)
        verbose = params.get("verbose", 1)
        if verbose == "auto":
            verbose = 1 if sys.stdout.isatty() else 2
        self.verbose = verbose
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def _new_bar(self):
        self._bar = Progbar(self.target, verbose=self.verbose)
        self._seen = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._new_bar()
        if self.verbose and self.epochs > 1:
            print(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch, logs=None):
        self._seen = batch + 1
        if self.verbose == 1:
            self._bar.update(self._seen, _metrics(logs), finalize=False)

    def on_epoch_end(self, epoch, logs=None):
        values = [(k, v) for k, v in sorted((logs or {}).items())]
        self._bar.target = self._bar.target or self._seen
        self._bar.update(self._seen, values, finalize=True)

    def on_test_begin(self, logs=None):
        if self.model is not None and getattr(self.model, "_in_fit_validation", False):
            return
        self._new_bar()

    def on_test_batch_end(self, batch, logs=None):
        self._seen = batch + 1
        if self.verbose == 1 and self._bar is not None:
            self._bar.update(self._seen, _metrics(logs), finalize=False)

    def on_test_end(self, logs=None):
        if self._bar is not None:
            self._bar.target = self._bar.target or self._seen
            self._bar.update(self._seen, _metrics(logs), finalize=True)

    def on_predict_begin(self, logs=None):
        self._new_bar()

    def on_predict_batch_end(self, batch, logs=None):
        self._seen = batch + 1
        if self.verbose == 1:
            self._bar.update(self._seen, finalize=False)

    def on_predict_end(self, logs=None):
        self._bar.target = self._bar.target or self._seen
        self._bar.update(self._seen, finalize=True)
