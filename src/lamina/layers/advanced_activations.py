"""Classic Keras's `keras.layers.advanced_activations`: the activation layers with
parameters (the same classes as `lamina.layers`, defined in `lamina.layers.activations`).
"""

from lamina.layers.activations import ELU, LeakyReLU, PReLU, ReLU, Softmax, ThresholdedReLU

__all__ = ["ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax", "ThresholdedReLU"]
