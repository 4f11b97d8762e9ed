"""Training: compile / fit / evaluate / predict, written once for every backend."""

from lamina.training.trainer import Trainer

__all__ = ["Trainer"]
