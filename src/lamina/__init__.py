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

import gc as _gc
import sys

# Importing lamina (and its engine, if not imported yet) makes some 10^5 objects, and each
# cyclic collection that triggers meanwhile walks every object alive, an engine's millions
# included, to find no garbage: on torch that was ~130 ms of a ~240 ms import. Collections
# wait until the import is done, and are left as the caller had them.
_collecting = _gc.isenabled()
_gc.disable()
try:
    from lamina import (
        activations,
        applications,
        backend,
        callbacks,
        config,
        constraints,
        datasets,
        distillation,
        distribution,
        dtype_policies,
        engine,  # classic Keras's `keras.engine` path
        export,
        initializers,
        layers,
        legacy,  # registers the classic `K.*` names (K.function, ...) with lamina.backend
        losses,
        metrics,
        mixed_precision,
        models,
        objectives,  # classic Keras's `keras.objectives` path (the losses)
        ops,
        optimizers,
        preprocessing,
        quantizers,
        regularizers,
        saving,
        tree,
        utils,
        visualization,
        wrappers,
    )
    from lamina._version import __version__, version
    from lamina.backend import StatelessScope, Variable
    from lamina.backend import core as _backend_core
    from lamina.backend.common.name_scope import name_scope
    from lamina.backend.common.symbolic_scope import SymbolicScope
    from lamina.dtype_policies import DTypePolicy, FloatDTypePolicy
    from lamina.graph import Function, KerasTensor, Operation
    from lamina.initializers import Initializer
    from lamina.layers import Input, InputLayer, InputSpec, Layer
    from lamina.layers.remat import RematScope, remat
    from lamina.losses import Loss
    from lamina.metrics import Metric
    from lamina.models import Model, Sequential
    from lamina.ops import random
    from lamina.optimizers import Optimizer
    from lamina.quantizers import Quantizer
    from lamina.regularizers import Regularizer
finally:
    if _collecting:
        _gc.enable()

# `with lamina.device("gpu:0"):` places the tensors made inside on that device.
device = _backend_core.device_scope
# `lamina.random` is `lamina.ops.random`; registered so that `import lamina.random` and
# `from lamina.random import SeedGenerator` find that same module.
sys.modules[f"{__name__}.random"] = random

__all__ = [
    "DTypePolicy",
    "FloatDTypePolicy",
    "Function",
    "Initializer",
    "Input",
    "InputLayer",
    "InputSpec",
    "KerasTensor",
    "Layer",
    "Loss",
    "Metric",
    "Model",
    "Operation",
    "Optimizer",
    "Quantizer",
    "Regularizer",
    "RematScope",
    "Sequential",
    "StatelessScope",
    "SymbolicScope",
    "Variable",
    "__version__",
    "activations",
    "applications",
    "backend",
    "callbacks",
    "config",
    "constraints",
    "datasets",
    "device",
    "distillation",
    "distribution",
    "dtype_policies",
    "engine",
    "export",
    "initializers",
    "layers",
    "legacy",
    "losses",
    "metrics",
    "mixed_precision",
    "models",
    "objectives",
    "name_scope",
    "ops",
    "optimizers",
    "preprocessing",
    "quantizers",
    "random",
    "regularizers",
    "remat",
    "saving",
    "tree",
    "utils",
    "version",
    "visualization",
    "wrappers",
]
