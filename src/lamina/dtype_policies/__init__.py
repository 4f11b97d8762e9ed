"""Dtype policies: the compute and variable dtypes of layers (mixed precision), and the
quantized policies of quantized layers.

>>> import lamina
>>> layer = lamina.layers.Dense(2, dtype="mixed_bfloat16")
>>> layer.dtype_policy, layer.compute_dtype, layer.variable_dtype
(<DTypePolicy "mixed_bfloat16">, 'bfloat16', 'float32')
"""

from lamina.dtype_policies.dtype_policy import (
    QUANTIZATION_MODES,
    AWQDTypePolicy,
    DTypePolicy,
    FloatDTypePolicy,
    GPTQDTypePolicy,
    Int4DTypePolicy,
    QuantizedDTypePolicy,
    QuantizedFloat8DTypePolicy,
    deserialize,
    dtype_policy,
    get,
    serialize,
    set_dtype_policy,
)
from lamina.dtype_policies.dtype_policy_map import DTypePolicyMap

__all__ = [
    "AWQDTypePolicy",
    "DTypePolicy",
    "DTypePolicyMap",
    "FloatDTypePolicy",
    "GPTQDTypePolicy",
    "Int4DTypePolicy",
    "QUANTIZATION_MODES",
    "QuantizedDTypePolicy",
    "QuantizedFloat8DTypePolicy",
    "deserialize",
    "dtype_policy",
    "get",
    "serialize",
    "set_dtype_policy",
]
