"""backend.is_float_dtype / is_int_dtype agree with Keras 3's on every dtype name."""

import os

import numpy as np
import pytest

from lamina import backend

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

DTYPES = [
    "float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "string",
]  # fmt: skip


def test_predicates_match_keras():
    for name in DTYPES:
        assert backend.is_float_dtype(name) == keras.backend.is_float_dtype(name), name
        assert backend.is_int_dtype(name) == keras.backend.is_int_dtype(name), name
    assert backend.is_float_dtype(np.float32) and backend.is_int_dtype(np.dtype("uint8"))
