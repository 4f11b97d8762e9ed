"""NumPy-style ops: elementwise math, products, reductions and shapes.

Built from the backend contract (`lamina.backend.contract.NUMPY`): one op per declared
function, with its declared signature and doc; eager on arrays, a graph node on
KerasTensors.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.mean(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=0)).tolist()
[2.0, 3.0]
"""

from lamina.ops.core import build_ops

_OPS = build_ops("numpy", exclude=("vectorize",))
globals().update(_OPS)

__all__ = list(_OPS)

from lamina.ops.core import declared_op  # noqa: E402

slogdet = declared_op("linalg", "slogdet")
__all__.append("slogdet")

# The long tail written once from the ops above.
from lamina.ops.numpy_extra import *  # noqa: E402, F403
from lamina.ops.numpy_extra import __all__ as _extra_all  # noqa: E402

__all__.extend(_extra_all)
