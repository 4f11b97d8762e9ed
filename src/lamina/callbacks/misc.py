"""Small callbacks: CSVLogger, LearningRateScheduler, TerminateOnNaN, LambdaCallback."""

from __future__ import annotations

import csv
import os

import numpy as np

from lamina import ops
from lamina.callbacks.callback import Callback


class CSVLogger(Callback):
    """Write each epoch's logs as a CSV row (`epoch` first, then the keys sorted).

    Args:
        filename: the CSV file. separator: the delimiter. append: add to an existing file
            (the header is written only when the file is new or empty).
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename = os.fspath(filename)
        self.separator = separator
        self.append = append
        self.keys = None
        self._file = None
        self._writer = None

    def on_train_begin(self, logs=None):
        exists = (
            self.append and os.path.exists(self.filename) and os.path.getsize(self.filename) > 0
        )
        self._file = open(self.filename, "a" if self.append else "w", newline="")  # noqa: SIM115
        self._header_written = exists
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = dict(logs or {})
        if self.keys is None:
            self.keys = sorted(logs)
            self._writer = csv.DictWriter(
                self._file, fieldnames=["epoch", *self.keys], delimiter=self.separator
            )
            if not self._header_written:
                self._writer.writeheader()
        row = {"epoch": epoch}
        for key in self.keys:
            value = logs.get(key, "NA")
            row[key] = float(np.asarray(value)) if value != "NA" else value
        self._writer.writerow(row)
        self._file.flush()

    def on_train_end(self, logs=None):
        if self._file is not None:
            self._file.close()
            self._file = None


class LearningRateScheduler(Callback):
    """Set the learning rate at each epoch start to `schedule(epoch, lr)`."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        lr = float(ops.convert_to_numpy(self.model.optimizer.learning_rate))
        new = self.schedule(epoch, lr)
        if not isinstance(new, (float, int, np.floating, np.integer)):
            new = float(ops.convert_to_numpy(new))
        self.model.optimizer.learning_rate = float(new)
        if self.verbose:
            print(
                f"Epoch {epoch + 1}: LearningRateScheduler setting learning rate to {float(new)}."
            )

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(ops.convert_to_numpy(self.model.optimizer.learning_rate))


class TerminateOnNaN(Callback):
    """Stop training as soon as a batch loss is NaN or infinite."""

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not np.isfinite(float(np.asarray(loss))):
            print(f"Batch {batch}: invalid loss, terminating training")
            self.model.stop_training = True


class LambdaCallback(Callback):
    """A callback from plain functions, e.g. `LambdaCallback(on_epoch_end=lambda e, logs: ...)`."""

    def __init__(
        self,
        on_epoch_begin=None,
        on_epoch_end=None,
        on_train_begin=None,
        on_train_end=None,
        on_train_batch_begin=None,
        on_train_batch_end=None,
        **kwargs,
    ):
        super().__init__()
        hooks = dict(
            on_epoch_begin=on_epoch_begin,
            on_epoch_end=on_epoch_end,
            on_train_begin=on_train_begin,
            on_train_end=on_train_end,
            on_train_batch_begin=on_train_batch_begin,
            on_train_batch_end=on_train_batch_end,
            **kwargs,
        )
        for name, fn in hooks.items():
            if not name.startswith("on_") or not hasattr(Callback, name):
                raise TypeError(f"LambdaCallback has no hook named {name!r}.")
            if fn is not None:
                setattr(self, name, fn)
