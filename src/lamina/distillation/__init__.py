"""`lamina.distillation`: knowledge distillation, as Keras 3's `keras.distillation`.

A `Distiller` trains a student model from a frozen teacher with a weighted mix of the
student's loss on the labels and distillation losses: `LogitsDistillation`
(temperature-scaled outputs) and `FeatureDistillation` (intermediate layers), or a
subclass of `DistillationLoss`.
"""

from lamina.distillation.distillation_loss import (
    DistillationLoss,
    FeatureDistillation,
    LogitsDistillation,
)
from lamina.distillation.distiller import Distiller

__all__ = ["DistillationLoss", "Distiller", "FeatureDistillation", "LogitsDistillation"]
