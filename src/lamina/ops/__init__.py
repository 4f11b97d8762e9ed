"""`lamina.ops`: tensor ops with NumPy names. Symbolic when any argument is a KerasTensor.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.add(np.ones(2), 1.0)).tolist()
[2.0, 2.0]
"""

from lamina.ops import image, random
from lamina.ops.core import (
    cast,
    cond,
    convert_to_numpy,
    convert_to_tensor,
    dtype,
    fori_loop,
    is_tensor,
    result_type,
    scan,
    shape,
    slice,
    slice_update,
    stop_gradient,
    unstack,
    vectorized_map,
    while_loop,
)
from lamina.ops.ctc import ctc_decode, ctc_loss
from lamina.ops.math import *  # noqa: F403
from lamina.ops.math import __all__ as _math_all
from lamina.ops.nn import *  # noqa: F403
from lamina.ops.nn import __all__ as _nn_all
from lamina.ops.numpy import *  # noqa: F403
from lamina.ops.numpy import __all__ as _numpy_all

__all__ = [
    "cast",
    "cond",
    "convert_to_numpy",
    "convert_to_tensor",
    "ctc_decode",
    "ctc_loss",
    "dtype",
    "fori_loop",
    "image",
    "is_tensor",
    "random",
    "result_type",
    "scan",
    "shape",
    "slice",
    "slice_update",
    "stop_gradient",
    "unstack",
    "vectorized_map",
    "while_loop",
    *_math_all,
    *_nn_all,
    *_numpy_all,
]
