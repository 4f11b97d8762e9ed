"""Small callbacks: CSVLogger, LearningRateScheduler, TerminateOnNaN, LambdaCallback."""

from __future__ import annotations

import csv
import inspect
import math
import os

import numpy as np

from lamina import ops
from lamina.callbacks.callback import Callback
from lamina.callbacks.monitors import get_learning_rate


def _csv_value(value):
    if isinstance(value, str):
        return value
    array = np.asarray(ops.convert_to_numpy(value))
    if array.ndim == 0:
        return array.item()
    return "[" + ", ".join(str(v) for v in array.ravel().tolist()) + "]"


class CSVLogger(Callback):
    """Write each epoch's logs as a CSV row: `epoch`, then the log names sorted.

    The columns are fixed by the first epoch's logs; as in Keras, when those have no
    `val_` entries (no validation, or `validation_freq > 1`) a `val_` column is added
    for each, so later validation values have a place; missing values read `NA`.

    Args:
        filename: the CSV file.
        separator: the delimiter.
        append: add rows to an existing file instead of overwriting it (the header is
            written only when the file is new or empty).

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "log.csv"
    >>> logger = CSVLogger(path)
    >>> logger.on_train_begin()
    >>> logger.on_epoch_end(0, {"loss": 0.5, "val_loss": 0.75})
    >>> logger.on_train_end()
    >>> print(path.read_text().strip())
    epoch,loss,val_loss
    0,0.5,0.75
    """

    def __init__(self, filename, separator: str = ",", append: bool = False):
        super().__init__()
        self.filename = os.fspath(filename)
        self.sep = separator
        self.append = append
        self.keys = None
        self.writer = None
        self.csv_file = None
        self._write_header = True

    def on_train_begin(self, logs=None):
        if self.append:
            self._write_header = not (
                os.path.exists(self.filename) and os.path.getsize(self.filename) > 0
            )
        else:
            self._write_header = True
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, "a" if self.append else "w", newline="")  # noqa: SIM115
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys += [f"val_{k}" for k in self.keys]
        if self.writer is None:
            self.writer = csv.DictWriter(
                self.csv_file,
                fieldnames=["epoch", *self.keys],
                delimiter=self.sep,
                extrasaction="ignore",
            )
            if self._write_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update((k, _csv_value(logs[k]) if k in logs else "NA") for k in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None


class LearningRateScheduler(Callback):
    """Set the learning rate at the start of each epoch to `schedule(epoch, lr)`.

    Also adds the current `learning_rate` to each epoch's logs.

    Args:
        schedule: a function of the epoch (0-based) and the current learning rate (a
            float) that returns the new learning rate; a function of the epoch alone
            is accepted too.
        verbose: 1 prints the new learning rate each epoch.

    >>> scheduler = LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch else lr)
    >>> scheduler.schedule(1, 0.1)
    0.05
    """

    def __init__(self, schedule, verbose: int = 0):
        super().__init__()
        if not callable(schedule):
            raise TypeError(
                f"LearningRateScheduler schedule must be a function (epoch, lr) -> lr; "
                f"received {schedule!r}."
            )
        self.schedule = schedule
        self.verbose = verbose

    def _takes_learning_rate(self) -> bool:
        try:
            parameters = inspect.signature(self.schedule).parameters.values()
        except (TypeError, ValueError):  # builtins without a signature
            return True
        positional = [
            p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        variadic = any(p.kind == p.VAR_POSITIONAL for p in parameters)
        return variadic or len(positional) >= 2

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None or not hasattr(optimizer, "learning_rate"):
            raise ValueError(
                "LearningRateScheduler needs a compiled model whose optimizer has a "
                "`learning_rate`."
            )
        if self._takes_learning_rate():
            value = self.schedule(epoch, get_learning_rate(optimizer))
        else:
            value = self.schedule(epoch)
        try:
            value = float(np.asarray(ops.convert_to_numpy(value)))
        except (TypeError, ValueError) as err:
            raise ValueError(
                f"LearningRateScheduler's schedule must return a float; at epoch {epoch} "
                f"it returned {value!r}."
            ) from err
        optimizer.learning_rate = value
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {value}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = get_learning_rate(self.model.optimizer)


class TerminateOnNaN(Callback):
    """Stop training as soon as a batch's loss is NaN or infinite.

    Args:
        raise_error: raise a `RuntimeError` instead of setting `model.stop_training`.

    >>> import numpy as np, lamina
    >>> model = lamina.Sequential([lamina.Input((1,)), lamina.layers.Dense(1)])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> x = np.array([[1.0], [np.nan]], "float32")  # the second batch's loss is NaN
    >>> history = model.fit(
    ...     x, x, batch_size=1, epochs=5, shuffle=False, verbose=0, callbacks=[TerminateOnNaN()]
    ... )
    Batch 1: Invalid loss, terminating training
    >>> len(history.epoch)  # stopped in the first epoch
    1
    """

    def __init__(self, raise_error: bool = False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is None:
            return
        loss = float(np.asarray(ops.convert_to_numpy(loss)))
        if math.isfinite(loss):
            return
        if self.raise_error:
            raise RuntimeError(
                f"TerminateOnNaN: the loss is {loss} at batch {batch}; stopping training."
            )
        print(f"Batch {batch}: Invalid loss, terminating training")
        self.model.stop_training = True


_LAMBDA_HOOKS = tuple(
    name for name in vars(Callback) if name.startswith("on_") and callable(getattr(Callback, name))
)


class LambdaCallback(Callback):
    """A callback made of plain functions, one per hook.

    Each function takes the hook's arguments: `on_epoch_begin(epoch, logs)`,
    `on_train_batch_end(batch, logs)`, `on_train_begin(logs)`, ... Any other hook
    (`on_test_end=...`, `on_predict_batch_end=...`) can be given by name too.

    >>> seen = []
    >>> cb = LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(logs["loss"]))
    >>> cb.on_epoch_end(0, {"loss": 0.25})
    >>> seen
    [0.25]
    """

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
        hooks = {
            "on_epoch_begin": on_epoch_begin,
            "on_epoch_end": on_epoch_end,
            "on_train_begin": on_train_begin,
            "on_train_end": on_train_end,
            "on_train_batch_begin": on_train_batch_begin,
            "on_train_batch_end": on_train_batch_end,
            **kwargs,
        }
        for name, fn in hooks.items():
            if name not in _LAMBDA_HOOKS:
                raise TypeError(
                    f"LambdaCallback has no hook named {name!r}; the hooks are "
                    f"{', '.join(_LAMBDA_HOOKS)}."
                )
            if fn is not None:
                if not callable(fn):
                    raise TypeError(f"LambdaCallback {name} must be a function; received {fn!r}.")
                setattr(self, name, fn)
