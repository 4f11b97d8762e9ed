"""`lamina.ops`: tensor ops with NumPy names. Symbolic when any argument is a KerasTensor.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.add(np.ones(2), 1.0)).tolist()
[2.0, 2.0]
"""

from lamina.ops import image, linalg, random
from lamina.ops.core import (
    associative_scan,
    cast,
    cond,
    convert_to_numpy,
    convert_to_tensor,
    custom_gradient,
    dtype,
    fori_loop,
    is_tensor,
    jvp,
    map,
    result_type,
    saturate_cast,
    scan,
    scatter,
    scatter_update,
    shape,
    slice,
    slice_update,
    stop_gradient,
    switch,
    unstack,
    vectorized_map,
    while_loop,
)
from lamina.ops.ctc import ctc_decode, ctc_loss
from lamina.ops.linalg import *  # noqa: F403
from lamina.ops.linalg import __all__ as _linalg_all
from lamina.ops.math import *  # noqa: F403
from lamina.ops.math import __all__ as _math_all
from lamina.ops.nn import *  # noqa: F403
from lamina.ops.nn import __all__ as _nn_all
from lamina.ops.numpy import *  # noqa: F403
from lamina.ops.numpy import __all__ as _numpy_all
from lamina.ops.rearrange import rearrange

__all__ = [
    "associative_scan",
    "cast",
    "cond",
    "convert_to_numpy",
    "convert_to_tensor",
    "ctc_decode",
    "ctc_loss",
    "custom_gradient",
    "dtype",
    "fori_loop",
    "image",
    "is_tensor",
    "jvp",
    "linalg",
    "map",
    "random",
    "rearrange",
    "result_type",
    "saturate_cast",
    "scan",
    "scatter",
    "scatter_update",
    "shape",
    "slice",
    "slice_update",
    "stop_gradient",
    "switch",
    "unstack",
    "vectorized_map",
    "while_loop",
    *_linalg_all,
    *_math_all,
    *_nn_all,
    *_numpy_all,
]
