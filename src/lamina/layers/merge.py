"""Classic Keras's `keras.layers.merge`: the merge layers and their functional forms.

The same objects as `lamina.layers` (defined in `lamina.layers.merging`), at the path
Keras 2 programs import them from: `from keras.layers.merge import concatenate`.

>>> from lamina import layers
>>> from lamina.layers import merge
>>> merge.concatenate is layers.concatenate and merge.Add is layers.Add
True
"""

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

__all__ = [
    "Add",
    "Average",
    "Concatenate",
    "Dot",
    "Maximum",
    "Minimum",
    "Multiply",
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
