"""Math ops NumPy lacks: top-k, logsumexp, erf, rsqrt, norm.

Each name is the backend function of the same name made into an op by `_op`:
eager on arrays, a graph node on KerasTensors.
"""

from lamina.backend import math as _b
from lamina.ops.core import _op

top_k = _op(_b.top_k)
in_top_k = _op(_b.in_top_k)
logsumexp = _op(_b.logsumexp)
erf = _op(_b.erf)
rsqrt = _op(_b.rsqrt)
segment_sum = _op(_b.segment_sum)
norm = _op(_b.norm)
qr = _op(_b.qr)

__all__ = ["top_k", "in_top_k", "logsumexp", "erf", "rsqrt", "segment_sum", "norm", "qr"]
