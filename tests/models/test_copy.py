"""A model survives `copy.deepcopy` (hyperparameter searches and ensembling copy models):
the copy predicts the same, owns its own variables, and trains on without touching the
original."""

from __future__ import annotations

import copy

import numpy as np

import lamina
from lamina import layers, ops


def test_deepcopy_of_a_called_and_trained_functional_model():
    inp = lamina.Input((3,))
    model = lamina.Model(inp, layers.Dense(2)(layers.Dense(4, activation="relu")(inp)))
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.RandomState(0).rand(8, 3).astype("float32")
    model.fit(x, np.zeros((8, 2), "float32"), epochs=1, verbose=0)
    before = ops.convert_to_numpy(model(x))
    clone = copy.deepcopy(model)
    np.testing.assert_allclose(ops.convert_to_numpy(clone(x)), before, rtol=1e-6)
    np.testing.assert_allclose(clone.predict(x, verbose=0), before, rtol=1e-6)
    assert all(a is not b for a, b in zip(clone.weights, model.weights))
    clone.fit(x, np.ones((8, 2), "float32"), epochs=1, verbose=0)
    np.testing.assert_allclose(ops.convert_to_numpy(model(x)), before, rtol=1e-6)
