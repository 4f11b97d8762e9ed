"""Neural-network ops: activations, softmax, one-hot, moments, convolution and pooling.

Built from the backend contract (`lamina.backend.contract.NN`): one op per declared
function, with its declared signature and doc; eager on arrays, a graph node on
KerasTensors. The ops written once from these live in one module per family
(`nn_activations`, `nn_normalization`, `nn_losses`, `nn_attention`, `nn_spatial`), the
CTC ops in `ctc`; all are found here, as in `keras.ops.nn`.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.relu(np.array([-1.0, 2.0]))).tolist()
[0.0, 2.0]
"""

from lamina.ops.core import build_ops

# `ctc_loss` of the backend is the engine's CTC kernel (None where there is none), which
# the op `lamina.ops.ctc.ctc_loss` calls; it is not an op of its own. Nor are
# `fused_batch_norm` and `fused_conv`, the engine's kernels (None on JAX) that the layers
# call.
_OPS = build_ops("nn", exclude=("ctc_loss", "fused_batch_norm", "fused_conv"))
globals().update(_OPS)

# The ops written once from the contract ops join them.
from lamina.ops.nn_activations import *  # noqa: E402, F403
from lamina.ops.nn_activations import __all__ as _activations_all  # noqa: E402
from lamina.ops.nn_attention import *  # noqa: E402, F403
from lamina.ops.nn_attention import __all__ as _attention_all  # noqa: E402
from lamina.ops.nn_losses import *  # noqa: E402, F403
from lamina.ops.nn_losses import __all__ as _losses_all  # noqa: E402
from lamina.ops.nn_normalization import *  # noqa: E402, F403
from lamina.ops.nn_normalization import __all__ as _normalization_all  # noqa: E402
from lamina.ops.nn_spatial import *  # noqa: E402, F403
from lamina.ops.nn_spatial import __all__ as _spatial_all  # noqa: E402


def __getattr__(name):
    # The CTC ops import this module, so they are found when asked for.
    if name in _CTC:
        from lamina.ops import ctc

        return getattr(ctc, name)
    raise AttributeError(f"module 'lamina.ops.nn' has no attribute {name!r}")


_CTC = ("ctc_decode", "ctc_loss")
__all__ = [
    *_OPS,
    *_activations_all,
    *_attention_all,
    *_losses_all,
    *_normalization_all,
    *_spatial_all,
    *_CTC,
]


def __dir__():
    return sorted([*globals(), *_CTC])
