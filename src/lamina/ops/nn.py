"""Neural-network ops: activations, softmax, one-hot, moments.

Each name is the backend function of the same name made into an op by `_op`:
eager on arrays, a graph node on KerasTensors.
"""

from lamina.backend import nn as _b
from lamina.ops.core import _op

relu = _op(_b.relu)
relu6 = _op(_b.relu6)
sigmoid = _op(_b.sigmoid)
hard_sigmoid = _op(_b.hard_sigmoid)
hard_silu = _op(_b.hard_silu)
softplus = _op(_b.softplus)
softsign = _op(_b.softsign)
silu = _op(_b.silu)
log_sigmoid = _op(_b.log_sigmoid)
leaky_relu = _op(_b.leaky_relu)
elu = _op(_b.elu)
selu = _op(_b.selu)
gelu = _op(_b.gelu)
mish = _op(_b.mish)
softmax = _op(_b.softmax)
log_softmax = _op(_b.log_softmax)
one_hot = _op(_b.one_hot)
moments = _op(_b.moments)

__all__ = [
    "relu",
    "relu6",
    "sigmoid",
    "hard_sigmoid",
    "hard_silu",
    "softplus",
    "softsign",
    "silu",
    "log_sigmoid",
    "leaky_relu",
    "elu",
    "selu",
    "gelu",
    "mish",
    "softmax",
    "log_softmax",
    "one_hot",
    "moments",
]

conv = _op(_b.conv)
depthwise_conv = _op(_b.depthwise_conv)
separable_conv = _op(_b.separable_conv)
conv_transpose = _op(_b.conv_transpose)
max_pool = _op(_b.max_pool)
average_pool = _op(_b.average_pool)

__all__ += [
    "conv",
    "depthwise_conv",
    "separable_conv",
    "conv_transpose",
    "max_pool",
    "average_pool",
]
