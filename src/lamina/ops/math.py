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
    """Natural logarithm of the determinant of a positive-definite matrix (or a stack of them).

    Computed from `slogdet`, so it stays finite where `det` itself would under- or
    overflow. The sign of the determinant is not checked: for a matrix that is not
    positive-definite the result is the log of the absolute determinant.

    Args:
        x: Tensor of shape `(..., n, n)`.

    Returns:
        A float tensor of shape `(...)`, `log(det(x))` per matrix.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.array([[2.0, 0.0], [0.0, 3.0]])
    >>> round(float(ops.convert_to_numpy(ops.logdet(x))), 4)
    1.7918
    """
    return backend.linalg.slogdet(x)[1]


# After the contract ops: the signal ops are built from them.
from lamina.ops.signal import *  # noqa: E402, F403
from lamina.ops.signal import __all__ as _signal_all  # noqa: E402

__all__ = [*_OPS, "logdet", *_signal_all]
