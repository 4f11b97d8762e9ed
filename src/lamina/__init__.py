"""lamina: a Keras-style deep-learning framework with an inspectable graph, on JAX.

>>> import numpy as np
>>> import lamina
>>> from lamina import layers
>>> inputs = lamina.Input(shape=(4,))
>>> outputs = layers.Dense(2, activation="softmax")(layers.Dense(8, activation="relu")(inputs))
>>> model = lamina.Model(inputs, outputs)
>>> model(np.ones((3, 4))).shape
(3, 2)
"""

from lamina import (
    activations,
    applications,
    backend,
    callbacks,
    config,
    constraints,
    datasets,
    distribution,
    dtype_policies,
    export,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    models,
    ops,
    optimizers,
    preprocessing,
    regularizers,
    saving,
    tree,
    utils,
    wrappers,
)
from lamina.backend import Variable
from lamina.dtype_policies import DTypePolicy, FloatDTypePolicy
from lamina.layers import Input, InputLayer, Layer
from lamina.models import Model, Sequential
from lamina.ops import random

__version__ = "0.1.0"

__all__ = [
    "DTypePolicy",
    "FloatDTypePolicy",
    "Input",
    "InputLayer",
    "Layer",
    "Model",
    "Sequential",
    "Variable",
    "__version__",
    "activations",
    "applications",
    "backend",
    "callbacks",
    "config",
    "constraints",
    "datasets",
    "distribution",
    "dtype_policies",
    "export",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "mixed_precision",
    "models",
    "ops",
    "optimizers",
    "preprocessing",
    "random",
    "regularizers",
    "saving",
    "tree",
    "utils",
    "wrappers",
]
