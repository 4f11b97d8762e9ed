"""Keras 2's `Sequential.predict_classes` / `predict_proba` (issue 32, item 9): each
warns that it is Keras 2's API, and gives Keras 2's answer."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops

X = np.random.default_rng(0).normal(size=(7, 4)).astype("float32")


def _model(units, activation):
    return lamina.Sequential([layers.Input((4,)), layers.Dense(units, activation=activation)])


def test_predict_classes_softmax_and_sigmoid():
    softmax = _model(3, "softmax")
    with pytest.warns(DeprecationWarning, match="predict_classes is Keras 2's API"):
        classes = softmax.predict_classes(X)
    np.testing.assert_array_equal(classes, np.argmax(softmax.predict(X, verbose=0), axis=-1))
    assert classes.shape == (7,)
    sigmoid = _model(1, "sigmoid")
    with pytest.warns(DeprecationWarning):
        classes = sigmoid.predict_classes(X, batch_size=2)
    assert classes.shape == (7, 1) and classes.dtype == np.int32
    np.testing.assert_array_equal(classes, (sigmoid.predict(X, verbose=0) > 0.5).astype("int32"))


def test_predict_proba_and_its_warning_for_values_out_of_range():
    softmax = _model(3, "softmax")
    with pytest.warns(DeprecationWarning, match="predict_proba is Keras 2's API"):
        probabilities = softmax.predict_proba(X)
    np.testing.assert_allclose(probabilities.sum(-1), np.ones(7), rtol=1e-5)
    linear = _model(2, None)
    linear.layers[0].kernel.assign(ops.ones((4, 2)) * 5.0)
    with pytest.warns(DeprecationWarning), pytest.warns(UserWarning, match="outside \\[0, 1\\]"):
        linear.predict_proba(X)
