"""`lamina.callbacks`: hooks into training, evaluation and prediction."""

from lamina.callbacks.backup import BackupAndRestore
from lamina.callbacks.callback import Callback
from lamina.callbacks.callback_list import CallbackList
from lamina.callbacks.checkpoint import ModelCheckpoint
from lamina.callbacks.history import History
from lamina.callbacks.misc import CSVLogger, LambdaCallback, LearningRateScheduler, TerminateOnNaN
from lamina.callbacks.monitors import EarlyStopping, ReduceLROnPlateau
from lamina.callbacks.orbax_checkpoint import OrbaxCheckpoint
from lamina.callbacks.progbar import Progbar
from lamina.callbacks.progbar_logger import ProgbarLogger
from lamina.callbacks.remote_monitor import RemoteMonitor
from lamina.callbacks.swap_ema import SwapEMAWeights
from lamina.callbacks.tensorboard import TensorBoard

__all__ = [
    "BackupAndRestore",
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "ModelCheckpoint",
    "OrbaxCheckpoint",
    "Progbar",
    "ProgbarLogger",
    "ReduceLROnPlateau",
    "RemoteMonitor",
    "SwapEMAWeights",
    "TensorBoard",
    "TerminateOnNaN",
]
