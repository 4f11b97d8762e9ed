"""Math ops NumPy lacks: top-k, logsumexp, erf, rsqrt, segment sums, norms, QR.

Built from the backend contract (`lamina.backend.contract.MATH`): one op per declared
function, with its declared signature and doc; eager on arrays, a graph node on
KerasTensors.
"""

from lamina import backend
from lamina.ops.core import build_ops, composite

_OPS = build_ops("math")
globals().update(_OPS)


@composite
def logdet(x):
    """Natural logarithm of the determinant of positive-definite `x` (stacks allowed).

    Computed from `slogdet`, which stays finite where `det` under- or overflows.
    """
    return backend.linalg.slogdet(x)[1]


# After the contract ops: the signal ops are built from them.
from lamina.ops.signal import *  # noqa: E402, F403
from lamina.ops.signal import __all__ as _signal_all  # noqa: E402

__all__ = [*_OPS, "logdet", *_signal_all]
