"""`lamina.saving`: weights files (`.weights.h5`) and, later, whole-model `.keras` files."""

from lamina.saving.weights_h5 import load_weights, save_weights

__all__ = ["load_weights", "save_weights"]
