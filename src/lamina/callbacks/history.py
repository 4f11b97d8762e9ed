"""History: the per-epoch logs that `fit` returns."""

from __future__ import annotations

from lamina.callbacks.callback import Callback


class History(Callback):
    """Records each epoch's logs; `fit` adds one and returns it (also `model.history`).

    Attributes:
        history: a dict from log name (`"loss"`, `"val_accuracy"`, ...) to the list of
            its value at the end of each epoch.
        epoch: the epochs recorded (0-based), reset at each `on_train_begin`.
        params: the run's params (`epochs`, `steps`, `verbose`).

    As in Keras, `history` keeps growing when the same `History` is passed to several
    `fit` calls; `fit`'s own `History` is new for each call.

    >>> history = History()
    >>> history.on_train_begin()
    >>> for epoch, loss in enumerate([0.9, 0.5]):
    ...     history.on_epoch_end(epoch, {"loss": loss})
    >>> history.epoch, history.history
    ([0, 1], {'loss': [0.9, 0.5]})
    """

    def __init__(self):
        super().__init__()
        self.history: dict[str, list] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs=None):
        self.epoch = []
        # `_model`, not `model`: setting an attribute needs no sync of the weights.
        if self._model is not None:
            self._model.history = self

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        if self._model is not None:
            self._model.history = self
