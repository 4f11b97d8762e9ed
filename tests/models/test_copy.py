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


def test_a_copied_optimizer_keeps_its_weight_decay_exclusions_built_or_not():
    from lamina import optimizers

    for build_first in (False, True):
        w = lamina.Variable(np.ones(2, "float32"), name="w")
        bias = lamina.Variable(np.ones(2, "float32"), name="bias")
        opt = optimizers.AdamW(0.1, weight_decay=0.5)
        opt.exclude_from_weight_decay(var_list=[bias])
        if build_first:
            opt.build([w, bias])
        (w2, bias2, opt2) = copy.deepcopy((w, bias, opt))
        assert opt2._use_weight_decay(w2) and not opt2._use_weight_decay(bias2)


def test_a_copy_serves_its_own_predictions_after_the_original_served_that_shape():
    # The original's shortest predict path (made after a few calls of one shape) closes
    # over the original: the copy makes its own, from its own runtime record.
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    x = np.ones((1, 3), "float32")
    for _ in range(3):
        model.predict(x, verbose=0)
    clone = copy.deepcopy(model)
    clone.set_weights([np.zeros_like(w) for w in clone.get_weights()])
    np.testing.assert_array_equal(clone.predict(x, verbose=0), np.zeros((1, 2), "float32"))
    assert np.abs(model.predict(x, verbose=0)).sum() > 0
