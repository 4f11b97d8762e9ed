"""Classic Keras's `keras.engine.topology`: `Layer`, `Node`, `InputSpec`, `Input`,
`InputLayer`, `Network` and `get_source_inputs` (lamina's own objects; `Network` is
`lamina.Model`)."""

from lamina.graph.node import Node
from lamina.layers import Input, InputLayer, InputSpec, Layer
from lamina.models import Model as Network
from lamina.utils import get_source_inputs

__all__ = ["Input", "InputLayer", "InputSpec", "Layer", "Network", "Node", "get_source_inputs"]
