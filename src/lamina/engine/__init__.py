"""Classic Keras's `keras.engine`: the graph machinery's public names at the paths
Keras 2 programs import them from (`from keras.engine import Layer`,
`from keras.engine.topology import Network`).

Every name is lamina's own object: `Layer`, `Input`, `InputLayer`, `InputSpec` from
`lamina.layers`, `Node` from `lamina.graph`, `Model` from `lamina.models`. Keras 2's
`Network` (a graph of layers without `compile`/`fit`) is `Model`: lamina's functional
model is that graph, and training methods on it do no harm.

>>> import lamina
>>> from lamina.engine.topology import Layer, Network
>>> Layer is lamina.layers.Layer and Network is lamina.Model
True
"""

from lamina.engine import base_layer, input_layer, network, sequential, topology, training
from lamina.engine.topology import (
    Input,
    InputLayer,
    InputSpec,
    Layer,
    Network,
    Node,
    get_source_inputs,
)
from lamina.engine.training import Model

__all__ = [
    "Input",
    "InputLayer",
    "InputSpec",
    "Layer",
    "Model",
    "Network",
    "Node",
    "base_layer",
    "get_source_inputs",
    "input_layer",
    "network",
    "sequential",
    "topology",
    "training",
]
