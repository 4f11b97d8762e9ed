"""Dtype promotion against Keras 3's own `result_type` (Keras is a test-only reference)."""

from __future__ import annotations

import itertools
import os

import pytest

from lamina import backend
from lamina.backend.common.dtypes import PROMOTION_TABLE, result_type

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

GRID = [
    "bool",
    "uint8",
    "uint16",
    "uint32",
    "int8",
    "int16",
    "int32",
    "int64",
    "bfloat16",
    "float16",
    "float32",
    "float64",
    int,
    float,
    bool,
]


def _id(dtype):
    return dtype.__name__ if isinstance(dtype, type) else dtype


def _keras(*dtypes):
    try:
        return keras.backend.result_type(*dtypes)
    except ValueError:
        return ValueError


def _lamina(*dtypes):
    try:
        return result_type(*dtypes)
    except ValueError:
        return ValueError


@pytest.mark.parametrize("a", GRID, ids=_id)
def test_pairs_match_keras(a):
    # One test per first dtype (15 x 15 pairs in all) keeps the report short.
    mismatches = [
        (_id(a), _id(b), _lamina(a, b), _keras(a, b)) for b in GRID if _lamina(a, b) != _keras(a, b)
    ]
    assert not mismatches, "(a, b, lamina, keras): " + repr(mismatches)


@pytest.mark.parametrize("floatx", ["float16", "bfloat16", "float64"])
def test_weak_results_follow_floatx_as_keras(floatx):
    dtypes = [int, float, "bool", "int8", "uint8", "float16"]
    backend.set_floatx(floatx)
    keras.config.set_floatx(floatx)
    try:
        for a, b in itertools.product(dtypes, repeat=2):
            assert _lamina(a, b) == _keras(a, b), (a, b)
    finally:
        backend.set_floatx("float32")
        keras.config.set_floatx("float32")


@pytest.mark.parametrize(
    "dtypes",
    [(), (None,), ("int8",), (int,), (float,), (bool,), ("int8", "uint8", float)],
    ids=repr,
)
def test_edge_cases_match_keras(dtypes):
    assert _lamina(*dtypes) == _keras(*dtypes)


def test_triples_match_keras():
    sample = ["bool", "uint8", "int8", "int32", "bfloat16", "float16", int, float]
    for dtypes in itertools.combinations(sample, 3):
        assert _lamina(*dtypes) == _keras(*dtypes), dtypes


def test_table_is_symmetric_and_idempotent():
    for (a, b), c in PROMOTION_TABLE.items():
        assert PROMOTION_TABLE[(b, a)] == c
        assert PROMOTION_TABLE[(c, c)] == c


def test_float8_is_refused_with_a_message():
    with pytest.raises(ValueError, match="no implicit promotion"):
        result_type("float8_e4m3fn", "float32")
