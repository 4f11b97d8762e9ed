"""Math ops NumPy lacks: top-k, logsumexp, erf, rsqrt, segment sums, norms, QR.

Built from the backend contract (`lamina.backend.contract.MATH`): one op per declared
function, with its declared signature and doc; eager on arrays, a graph node on
KerasTensors.
"""

from lamina.ops.core import build_ops

_OPS = build_ops("math")
globals().update(_OPS)

__all__ = list(_OPS)
