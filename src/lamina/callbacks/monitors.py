"""Callbacks that watch a logged quantity: EarlyStopping, ReduceLROnPlateau.

`MonitorCallback` holds what they share with `ModelCheckpoint`: the direction of
improvement (`mode`) and `min_delta`, the smallest change that counts.
"""

from __future__ import annotations

import warnings

import numpy as np

from lamina import ops
from lamina.callbacks.callback import Callback

# Substrings of metric names that are better when larger (mode="auto").
_MAXIMIZED = ("acc", "auc", "precision", "recall", "f1", "fbeta", "r2", "iou")


def resolve_mode(mode: str, monitor: str, who: str) -> str:
    """`"min"` or `"max"` for `mode`; `"auto"` picks from the name of `monitor`.

    >>> resolve_mode("auto", "val_accuracy", "EarlyStopping")
    'max'
    >>> resolve_mode("auto", "val_loss", "EarlyStopping")
    'min'
    """
    if mode not in ("auto", "min", "max"):
        raise ValueError(
            f"{who} mode must be 'auto', 'min' or 'max'; received mode={mode!r}. "
            "Use 'min' when lower values of the monitored quantity are better, 'max' "
            "when higher values are."
        )
    if mode != "auto":
        return mode
    name = monitor.removeprefix("val_")
    return "max" if any(key in name for key in _MAXIMIZED) else "min"


class MonitorCallback(Callback):
    """Base of callbacks that compare a logged quantity with its best value so far."""

    def __init__(self, monitor: str, mode: str, min_delta: float = 0.0):
        super().__init__()
        self.monitor = monitor
        self.mode = resolve_mode(mode, monitor, type(self).__name__)
        # Signed so that `current - min_delta` must still beat the reference.
        self.min_delta = abs(min_delta) if self.mode == "max" else -abs(min_delta)

    def _is_improvement(self, current: float, reference) -> bool:
        if reference is None:
            return True
        if self.mode == "max":
            return current - self.min_delta > reference
        return current - self.min_delta < reference

    def _monitor_value(self, logs):
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn(
                f"{type(self).__name__} is conditioned on {self.monitor!r}, which is not "
                f"in the logs (available: {', '.join(logs or {}) or 'none'}); it does "
                "nothing this epoch. Pass monitor= one of the available names.",
                stacklevel=3,
            )
            return None
        return float(ops.convert_to_numpy(value))


class EarlyStopping(MonitorCallback):
    """Stop training when a monitored quantity has stopped improving.

    At the end of each epoch the monitored value is compared with the best so far;
    after `patience` epochs without an improvement of more than `min_delta`,
    `model.stop_training` is set and `fit` ends after this epoch.

    Args:
        monitor: the logged quantity, `"val_loss"` by default.
        min_delta: the smallest change that counts as an improvement.
        patience: epochs without improvement before stopping.
        verbose: 1 prints a message when stopping and when restoring weights.
        mode: `"min"`, `"max"`, or `"auto"` (max for accuracy-like names, else min).
        baseline: a value to beat: an epoch that improves on the best so far but not
            on `baseline` does not reset the patience count.
        restore_best_weights: at the end of training, set the weights of the best epoch
            (even when training was not stopped early).
        start_from_epoch: epochs of warm-up before monitoring starts.

    Attributes:
        best: the best value so far. wait: epochs since the last improvement.
        stopped_epoch: the epoch at which training was stopped (0 when it was not).
        best_epoch: the epoch of `best`.

    >>> from types import SimpleNamespace
    >>> stopper = EarlyStopping(monitor="loss", patience=1)
    >>> stopper.set_model(SimpleNamespace(stop_training=False))
    >>> stopper.on_train_begin()
    >>> for epoch, loss in enumerate([0.5, 0.4, 0.45, 0.3]):
    ...     stopper.on_epoch_end(epoch, {"loss": loss})
    ...     if stopper.model.stop_training:
    ...         break
    >>> stopper.stopped_epoch, stopper.best
    (2, 0.4)
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
        start_from_epoch: int = 0,
    ):
        super().__init__(monitor, mode, min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.on_train_begin()

    def on_train_begin(self, logs=None):
        # Reset, so one instance can serve several fit calls.
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        current = self._monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            # Until something improves, the first monitored weights are the best.
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            # Only beating both the previous best and the baseline restarts the count.
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(
                    "Restoring model weights from the end of the best epoch: "
                    f"{self.best_epoch + 1}."
                )
            self.model.set_weights(self.best_weights)


def get_learning_rate(optimizer) -> float:
    """The optimizer's current learning rate as a Python float."""
    return float(ops.convert_to_numpy(optimizer.learning_rate))


class ReduceLROnPlateau(MonitorCallback):
    """Multiply the learning rate by `factor` when a monitored quantity stops improving.

    Also adds the current `learning_rate` to each epoch's logs.

    Args:
        monitor: the logged quantity, `"val_loss"` by default.
        factor: the multiplier, below 1 (`new_lr = lr * factor`).
        patience: epochs without improvement before reducing.
        verbose: 1 prints a message at each reduction.
        mode: `"min"`, `"max"` or `"auto"`.
        min_delta: the smallest change that counts as an improvement.
        cooldown: epochs to wait after a reduction before counting again.
        min_lr: the learning rate is never reduced below this.

    >>> reducer = ReduceLROnPlateau(factor=0.5, patience=2)
    >>> reducer.factor, reducer.mode
    (0.5, 'min')
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        factor: float = 0.1,
        patience: int = 10,
        verbose: int = 0,
        mode: str = "auto",
        min_delta: float = 1e-4,
        cooldown: int = 0,
        min_lr: float = 0.0,
        **kwargs,
    ):
        if "epsilon" in kwargs:  # Keras 2's name for min_delta
            warnings.warn(
                "ReduceLROnPlateau's `epsilon` is Keras 2's name for `min_delta`; using it "
                "as min_delta. Pass `min_delta=` instead.",
                UserWarning,
                stacklevel=2,
            )
            min_delta = kwargs.pop("epsilon")
        if kwargs:
            # Keras 3 takes and ignores any other keyword (Keras 2 code passes
            # `baseline`, which only EarlyStopping uses); say so rather than stay silent.
            warnings.warn(
                f"ReduceLROnPlateau ignores {sorted(kwargs)}, as Keras does: it has no such "
                "settings (`baseline` belongs to EarlyStopping). Remove them.",
                UserWarning,
                stacklevel=2,
            )
        if factor >= 1.0:
            raise ValueError(
                f"ReduceLROnPlateau factor must be < 1 (it multiplies the learning rate); "
                f"received factor={factor}."
            )
        super().__init__(monitor, mode, min_delta)
        self.factor = factor
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.on_train_begin()

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.cooldown_counter = 0
        self.best = None

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["learning_rate"] = get_learning_rate(self.model.optimizer)
        current = self._monitor_value(logs)
        if current is None:
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old = logs["learning_rate"]
                # The optimizer stores float32: compare in float32 so min_lr is reachable.
                if old > np.float32(self.min_lr):
                    new = max(old * self.factor, self.min_lr)
                    self.model.optimizer.learning_rate = new
                    if self.verbose > 0:
                        print(
                            f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}."
                        )
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
