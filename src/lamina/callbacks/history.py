"""History: the per-epoch logs that `fit` returns."""

from __future__ import annotations

from lamina.callbacks.callback import Callback


class History(Callback):
    """Records each epoch's logs in `history` (a dict of lists) and `epoch`."""

    def __init__(self):
        super().__init__()
        self.history: dict[str, list] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs=None):
        self.epoch = []
        self.history = {}

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        if self.model is not None:
            self.model.history = self
