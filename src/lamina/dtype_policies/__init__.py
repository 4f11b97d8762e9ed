"""Dtype policies: the compute and variable dtypes of layers (mixed precision).

>>> import lamina
>>> layer = lamina.layers.Dense(2, dtype="mixed_bfloat16")
>>> layer.dtype_policy, layer.compute_dtype, layer.variable_dtype
(<DTypePolicy "mixed_bfloat16">, 'bfloat16', 'float32')
"""

from lamina.dtype_policies.dtype_policy import (
    QUANTIZATION_MODES,
    DTypePolicy,
    FloatDTypePolicy,
    QuantizedDTypePolicy,
    deserialize,
    dtype_policy,
    get,
    serialize,
    set_dtype_policy,
)

__all__ = [
    "QUANTIZATION_MODES",
    "DTypePolicy",
    "FloatDTypePolicy",
    "QuantizedDTypePolicy",
    "deserialize",
    "dtype_policy",
    "get",
    "serialize",
    "set_dtype_policy",
]
