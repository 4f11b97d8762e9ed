"""`lamina.layers`: the Layer base and the concrete layers, one family per module."""

from lamina.layers.activations import ELU, LeakyReLU, PReLU, ReLU, Softmax
from lamina.layers.core import (
    Activation,
    Dense,
    Dropout,
    Embedding,
    Identity,
    Lambda,
    Masking,
)
from lamina.layers.input_layer import Input, InputLayer
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer
from lamina.layers.merging import (
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
from lamina.layers.reshaping import Flatten, Permute, RepeatVector, Reshape

__all__ = [
    "ELU",
    "Activation",
    "Add",
    "Average",
    "Concatenate",
    "Dense",
    "Dot",
    "Dropout",
    "Embedding",
    "Flatten",
    "Identity",
    "Input",
    "InputLayer",
    "InputSpec",
    "Lambda",
    "Layer",
    "LeakyReLU",
    "Masking",
    "Maximum",
    "Minimum",
    "Multiply",
    "PReLU",
    "Permute",
    "ReLU",
    "RepeatVector",
    "Reshape",
    "Softmax",
    "Subtract",
    "add",
    "average",
    "concatenate",
    "dot",
    "maximum",
    "minimum",
    "multiply",
    "subtract",
]
