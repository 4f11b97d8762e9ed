"""Classic Keras's `keras.engine.base_layer`: `Layer`, `InputSpec` and `Node`."""

from lamina.graph.node import Node
from lamina.layers import InputSpec, Layer

__all__ = ["InputSpec", "Layer", "Node"]
