"""`lamina.mixed_precision`: Keras's mixed-precision names (the older spelling of
`lamina.config.set_dtype_policy` and `lamina.dtype_policies`).

Under `"mixed_bfloat16"` or `"mixed_float16"` layers keep float32 weights and compute
in the 16-bit type; the loss is computed in float32. With float16, wrap the optimizer
in `LossScaleOptimizer` so small gradients do not underflow.

>>> set_global_policy("mixed_bfloat16")
>>> global_policy()
<DTypePolicy "mixed_bfloat16">
>>> set_global_policy("float32")
"""

from lamina.dtype_policies.dtype_policy import DTypePolicy, dtype_policy, set_dtype_policy
from lamina.dtype_policies.dtype_policy import DTypePolicy as Policy
from lamina.dtype_policies.dtype_policy import dtype_policy as global_policy
from lamina.dtype_policies.dtype_policy import set_dtype_policy as set_global_policy
from lamina.optimizers import LossScaleOptimizer

__all__ = [
    "DTypePolicy",
    "LossScaleOptimizer",
    "Policy",
    "dtype_policy",
    "global_policy",
    "set_dtype_policy",
    "set_global_policy",
]
