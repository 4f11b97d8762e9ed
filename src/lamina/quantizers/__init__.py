"""Quantizers (Keras 3's `keras.quantizers`): low-precision forms of float tensors.

`Model.quantize(mode)` uses them to turn the kernels of `Dense`, `EinsumDense` and
`Embedding` into int8 or int4 values plus scales (see `lamina.layers.quantization`).

>>> import numpy as np
>>> from lamina import quantizers
>>> q, scale = quantizers.abs_max_quantize(np.array([0.5, -2.0], "float32"), axis=-1)
>>> np.asarray(q).tolist()
[32, -127]
"""

from lamina.common import serialization
from lamina.quantizers.calibrated_config import AWQConfig, GPTQConfig
from lamina.quantizers.grouped import abs_max_quantize_grouped_with_zero_point
from lamina.quantizers.quantization_config import (
    Float8QuantizationConfig,
    Int4QuantizationConfig,
    Int8QuantizationConfig,
    QuantizationConfig,
    deserialize,
    serialize,
)
from lamina.quantizers.quantizers import (
    AbsMaxQuantizer,
    Quantizer,
    abs_max_quantize,
    compute_float8_amax_history,
    compute_float8_scale,
    fake_quant_with_min_max_vars,
    pack_int4,
    quantize_and_dequantize,
    unpack_int4,
)

for _cls in (
    Quantizer,
    AbsMaxQuantizer,
    QuantizationConfig,
    Int8QuantizationConfig,
    Int4QuantizationConfig,
    Float8QuantizationConfig,
    GPTQConfig,
    AWQConfig,
):
    serialization.register_builtin("quantizers", _cls)


def get(identifier, **kwargs):
    """A quantizer from None, a class name, a config dict, a class or an instance.

    >>> from lamina import quantizers
    >>> type(quantizers.get("AbsMaxQuantizer", axis=-1)).__name__
    'AbsMaxQuantizer'
    >>> quantizers.get(None) is None
    True
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    obj = identifier
    if isinstance(identifier, str):
        obj = serialization.builtins("quantizers").get(identifier)
    if isinstance(obj, type):
        return obj(**kwargs)
    if callable(obj):
        return obj
    raise ValueError(f"Could not interpret quantizer identifier: {identifier!r}")


__all__ = [
    "AWQConfig",
    "AbsMaxQuantizer",
    "Float8QuantizationConfig",
    "GPTQConfig",
    "Int4QuantizationConfig",
    "Int8QuantizationConfig",
    "QuantizationConfig",
    "Quantizer",
    "abs_max_quantize",
    "abs_max_quantize_grouped_with_zero_point",
    "compute_float8_amax_history",
    "compute_float8_scale",
    "deserialize",
    "fake_quant_with_min_max_vars",
    "get",
    "pack_int4",
    "quantize_and_dequantize",
    "serialize",
    "unpack_int4",
]
