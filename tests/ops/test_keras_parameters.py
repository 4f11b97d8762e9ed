"""The parameters ops took to match Keras's signatures, checked against NumPy and Keras."""

from __future__ import annotations

import os

import numpy as np
import pytest

from lamina import ops

os.environ.setdefault("KERAS_BACKEND", "jax")


def _np(x):
    return ops.convert_to_numpy(x)


def test_numpy_parameters_match_numpy():
    x = np.array([[1.0, 5.0], [3.0, 2.0]], "float32")
    assert _np(ops.arange(3)).tolist() == [0, 1, 2]
    assert _np(ops.arange(1, 7, 2)).tolist() == [1, 3, 5]
    values, step = ops.linspace(0.0, 1.0, 5, retstep=True)
    np.testing.assert_allclose(_np(values), np.linspace(0, 1, 5))
    assert float(step) == pytest.approx(0.25)
    both = ops.linspace(np.zeros(2, "float32"), np.ones(2, "float32"), 3, axis=1)
    np.testing.assert_allclose(_np(both), np.linspace(np.zeros(2), np.ones(2), 3, axis=1))
    a, b = np.eye(3, dtype="float32"), np.ones((3, 3), "float32")
    np.testing.assert_allclose(_np(ops.cross(a, b, axisa=0, axisb=0)), np.cross(a, b, 0, 0))
    assert float(ops.max(x, initial=9.0)) == 9.0 and float(ops.min(x, initial=-1.0)) == -1.0
    assert ops.dtype(ops.prod(np.array([2, 3], "int8"), dtype="int32")) == "int32"
    nan = np.array([np.nan, 1.0], "float32")
    assert _np(ops.isclose(nan, nan, equal_nan=True)).tolist() == [True, True]
    assert _np(ops.isclose(nan, nan)).tolist() == [False, True]
    sums = ops.segment_sum(np.ones(4, "float32"), np.array([0, 0, 1, 2]), 3, sorted=True)
    assert _np(sums).tolist() == [2.0, 1.0, 1.0]


@pytest.mark.parametrize(
    "call",
    [
        lambda: ops.one_hot(np.array([0, 1]), 2, sparse=True),
        lambda: ops.bincount(np.array([0, 1]), sparse=True),
        lambda: ops.convert_to_tensor([1.0], sparse=True),
        lambda: ops.convert_to_tensor([1.0], ragged=True),
    ],
)
def test_sparse_and_ragged_are_refused_with_a_message(call):
    with pytest.raises(ValueError, match="sparse|ragged"):
        call()


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("how", ["crop_to_aspect_ratio", "pad_to_aspect_ratio"])
@pytest.mark.parametrize("shape", [(2, 6, 9, 3), (5, 4, 3)])
def test_resize_to_aspect_ratio_matches_keras(how, data_format, shape):
    keras = pytest.importorskip("keras")
    images = np.random.default_rng(0).uniform(size=shape).astype("float32")
    if data_format == "channels_first":
        images = np.moveaxis(images, -1, -3)
    kwargs = {how: True, "data_format": data_format, "interpolation": "nearest"}
    if how == "pad_to_aspect_ratio":
        kwargs["fill_value"] = 0.5
    ours = _np(ops.image.resize(images, (4, 4), **kwargs))
    theirs = keras.ops.convert_to_numpy(keras.ops.image.resize(images, (4, 4), **kwargs))
    np.testing.assert_allclose(ours, theirs, atol=1e-6)


def test_resize_refuses_both_aspect_ratio_flags():
    with pytest.raises(ValueError, match="only one of"):
        ops.image.resize(
            np.ones((4, 4, 1)), (2, 2), crop_to_aspect_ratio=True, pad_to_aspect_ratio=True
        )
