"""Linear-algebra ops (`keras.ops.linalg`): factorizations, inverses, solves, norms.

Built from the backend contract (`lamina.backend.contract.LINALG`), plus `norm` and
`qr` (declared with the math functions) and `jvp`.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.linalg.det(np.array([[2.0, 0.0], [0.0, 3.0]]))).item()
6.0
"""

from lamina.ops.core import build_ops, declared_op, jvp

_OPS = build_ops("linalg", exclude=("slogdet",))
_OPS["norm"] = declared_op("math", "norm")
_OPS["qr"] = declared_op("math", "qr")
_OPS["jvp"] = jvp
globals().update(_OPS)

__all__ = sorted(_OPS)
