"""Callbacks that watch a logged quantity: EarlyStopping, ReduceLROnPlateau."""

from __future__ import annotations

import warnings

import numpy as np

from lamina import ops
from lamina.callbacks.callback import Callback


def _resolve_mode(mode: str, monitor: str, who: str) -> str:
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"{who} mode must be 'auto', 'min' or 'max'; received {mode!r}.")
    if mode != "auto":
        return mode
    name = monitor.removeprefix("val_")
    if any(key in name for key in ("acc", "auc", "precision", "recall", "f1", "fbeta", "r2")):
        return "max"
    return "min"


class _Monitor(Callback):
    def __init__(self, monitor, mode, min_delta):
        super().__init__()
        self.monitor = monitor
        self.mode = _resolve_mode(mode, monitor, type(self).__name__)
        self.min_delta = abs(min_delta) if self.mode == "max" else -abs(min_delta)

    def _improved(self, current, reference) -> bool:
        if reference is None:
            return True
        if self.mode == "max":
            return current - self.min_delta > reference
        return current - self.min_delta < reference

    def _value(self, logs):
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn(
                f"{type(self).__name__} is monitoring {self.monitor!r}, which is not in the "
                f"logs (available: {sorted(logs or {})}); it does nothing this epoch.",
                stacklevel=3,
            )
            return None
        return float(np.asarray(value))


class EarlyStopping(_Monitor):
    """Stop training when `monitor` has stopped improving.

    Args:
        monitor: the logged quantity (`"val_loss"` by default).
        min_delta: smallest change that counts as an improvement.
        patience: epochs without improvement before stopping.
        mode: `"min"`, `"max"`, or `"auto"` (max for accuracy-like names).
        baseline: a value the quantity must beat; training stops after `patience` epochs
            that do not.
        restore_best_weights: restore the weights of the best epoch at the end.
        start_from_epoch: epochs to wait before monitoring starts.
    """

    def __init__(
        self,
        monitor="val_loss",
        min_delta=0,
        patience=0,
        verbose=0,
        mode="auto",
        baseline=None,
        restore_best_weights=False,
        start_from_epoch=0,
    ):
        super().__init__(monitor, mode, min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        current = self._value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._improved(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._improved(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose:
                print(
                    f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}."
                )
            self.model.set_weights(self.best_weights)


class ReduceLROnPlateau(_Monitor):
    """Multiply the learning rate by `factor` when `monitor` stops improving.

    Args:
        factor: the multiplier (< 1). patience: epochs without improvement first.
        min_delta: smallest change that counts. cooldown: epochs to wait after a
        reduction. min_lr: lower bound on the learning rate.
    """

    def __init__(
        self,
        monitor="val_loss",
        factor=0.1,
        patience=10,
        verbose=0,
        mode="auto",
        min_delta=1e-4,
        cooldown=0,
        min_lr=0.0,
        **kwargs,
    ):
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau factor must be < 1; received {factor}.")
        super().__init__(monitor, mode, min_delta)
        self.factor = factor
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.min_lr = min_lr

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.cooldown_counter = 0
        self.best = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["learning_rate"] = float(ops.convert_to_numpy(self.model.optimizer.learning_rate))
        current = self._value(logs)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = logs["learning_rate"]
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    self.model.optimizer.learning_rate = new
                    if self.verbose:
                        print(
                            f"Epoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}."
                        )
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
