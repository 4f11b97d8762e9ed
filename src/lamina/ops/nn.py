"""Neural-network ops: activations, softmax, one-hot, moments, convolution and pooling.

Built from the backend contract (`lamina.backend.contract.NN`): one op per declared
function, with its declared signature and doc; eager on arrays, a graph node on
KerasTensors.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.relu(np.array([-1.0, 2.0]))).tolist()
[0.0, 2.0]
"""

from lamina.ops.core import build_ops

_OPS = build_ops("nn")
globals().update(_OPS)

__all__ = list(_OPS)
