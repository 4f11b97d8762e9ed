"""The Trainer mixin: compile / fit / evaluate / predict (filled by the training issue)."""

from __future__ import annotations


class Trainer:
    """Training methods shared by every model."""

    def __init__(self):
        self.compiled = False
        self.optimizer = None
        self.stop_training = False
