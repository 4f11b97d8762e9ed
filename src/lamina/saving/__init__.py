"""`lamina.saving`: `.keras` model files and `.weights.h5` weights files."""

from lamina.saving import keras_ops  # noqa: F401  (registers Keras op nodes)
from lamina.saving.keras_file import load_model, save_model
from lamina.saving.weights_h5 import load_weights, save_weights

__all__ = ["load_model", "load_weights", "save_model", "save_weights"]
