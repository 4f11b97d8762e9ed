"""ModelCheckpoint: save the model or its weights during training."""

from __future__ import annotations

import os

import numpy as np

from lamina.callbacks.callback import Callback
from lamina.callbacks.monitors import _resolve_mode


class ModelCheckpoint(Callback):
    """Save the model (`.keras`) or its weights (`.weights.h5`) each epoch or N batches.

    Args:
        filepath: may contain `{epoch}` (1-based) and log keys, e.g.
            `"ckpt-{epoch:02d}-{val_loss:.2f}.weights.h5"`.
        monitor: the quantity compared with `save_best_only`.
        save_best_only: save only when `monitor` improves.
        save_weights_only: save weights (`.weights.h5`) instead of the whole model.
        mode: `"auto"`, `"min"` or `"max"`.
        save_freq: `"epoch"` or an int number of batches.
        initial_value_threshold: the value to beat first with `save_best_only`.
    """

    def __init__(
        self,
        filepath,
        monitor="val_loss",
        verbose=0,
        save_best_only=False,
        save_weights_only=False,
        mode="auto",
        save_freq="epoch",
        initial_value_threshold=None,
    ):
        super().__init__()
        self.filepath = os.fspath(filepath)
        if save_weights_only and not self.filepath.endswith(".weights.h5"):
            raise ValueError(
                f"With save_weights_only=True the filepath must end in `.weights.h5`; "
                f"received {self.filepath!r}."
            )
        if not save_weights_only and not self.filepath.endswith(".keras"):
            raise ValueError(
                f"ModelCheckpoint saves whole models to `.keras` files; received {self.filepath!r}. "
                "Use a `.keras` path, or save_weights_only=True with a `.weights.h5` path."
            )
        if save_freq != "epoch" and not (isinstance(save_freq, int) and save_freq > 0):
            raise ValueError(
                f"save_freq must be 'epoch' or a positive int; received {save_freq!r}."
            )
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.mode = _resolve_mode(mode, monitor, "ModelCheckpoint")
        self.save_freq = save_freq
        self.best = initial_value_threshold
        self._batches_seen = 0
        self._epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        self._batches_seen += 1
        if self._batches_seen % self.save_freq == 0:
            self._save(self._epoch, logs, batch=batch)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, logs)

    def _better(self, current) -> bool:
        if self.best is None:
            return True
        return current > self.best if self.mode == "max" else current < self.best

    def _save(self, epoch, logs, batch=None):
        logs = {k: float(np.asarray(v)) for k, v in (logs or {}).items() if k != "outputs"}
        try:
            path = self.filepath.format(epoch=epoch + 1, batch=batch, **logs)
        except KeyError as err:
            raise KeyError(
                f"ModelCheckpoint filepath {self.filepath!r} refers to {err}, which is not in "
                f"the logs {sorted(logs)}."
            ) from err
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                import warnings

                warnings.warn(
                    f"ModelCheckpoint can save the best model only with {self.monitor!r} in the "
                    f"logs (available: {sorted(logs)}); skipping.",
                    stacklevel=2,
                )
                return
            if not self._better(current):
                return
            self.best = current
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)
        if self.verbose:
            print(f"Epoch {epoch + 1}: saved to {path}")
