"""Loss and metric functions on graph tensors build one graph node each, like an op
(issue 32, item 5): `losses.binary_crossentropy(inputs, outputs)` on KerasTensors, as a
classic VAE writes its loss, gives a KerasTensor whose graph computes what the function
computes on arrays."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import losses, metrics, ops

RNG = np.random.default_rng(0)
PROBS = RNG.uniform(0.05, 0.95, size=(4, 5)).astype("float32")
TARGET = (RNG.uniform(size=(4, 5)) > 0.5).astype("float32")
ONE_HOT = np.eye(5, dtype="float32")[RNG.integers(0, 5, size=4)]

# (function, y_true, y_pred, keyword arguments)
CASES = [
    (losses.binary_crossentropy, TARGET, PROBS, {}),
    (losses.binary_crossentropy, TARGET, PROBS, {"from_logits": True, "label_smoothing": 0.1}),
    (losses.binary_focal_crossentropy, TARGET, PROBS, {}),
    (losses.categorical_crossentropy, ONE_HOT, PROBS, {}),
    (losses.categorical_focal_crossentropy, ONE_HOT, PROBS, {}),
    (losses.kl_divergence, ONE_HOT, PROBS, {}),
    (losses.poisson, TARGET, PROBS, {}),
    (losses.mean_squared_error, TARGET, PROBS, {}),
    (losses.mean_absolute_error, TARGET, PROBS, {}),
    (losses.mean_absolute_percentage_error, TARGET + 1.0, PROBS, {}),
    (losses.mean_squared_logarithmic_error, TARGET, PROBS, {}),
    (losses.huber, TARGET, PROBS, {}),
    (losses.log_cosh, TARGET, PROBS, {}),
    (losses.cosine_similarity, TARGET, PROBS, {}),
    (losses.hinge, TARGET, PROBS, {}),
    (losses.squared_hinge, TARGET, PROBS, {}),
    (losses.categorical_hinge, ONE_HOT, PROBS, {}),
    (losses.dice, TARGET, PROBS, {}),
    (metrics.binary_accuracy, TARGET, PROBS, {}),
    (metrics.categorical_accuracy, ONE_HOT, PROBS, {}),
    (metrics.top_k_categorical_accuracy, ONE_HOT, PROBS, {"k": 2}),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_on_graph_tensors_a_function_is_one_graph_node(index):
    fn, y_true, y_pred, kwargs = CASES[index]
    a, b = lamina.Input(y_true.shape[1:]), lamina.Input(y_pred.shape[1:])
    out = fn(a, b, **kwargs)
    assert isinstance(out, lamina.KerasTensor)
    operation = out._keras_history.operation
    assert getattr(operation, "function_name", None) == fn.__name__
    model = lamina.Model([a, b], out)
    eager = ops.convert_to_numpy(fn(y_true, y_pred, **kwargs))
    assert tuple(out.shape[1:]) == eager.shape[1:]
    np.testing.assert_allclose(
        ops.convert_to_numpy(model([y_true, y_pred])), eager, rtol=1e-5, atol=1e-6
    )


def test_keras_2_short_names():
    assert losses.mse is losses.MSE is losses.mean_squared_error
    assert losses.mae is losses.mean_absolute_error and losses.kld is losses.kl_divergence
    assert losses.cosine_proximity is losses.cosine is losses.cosine_similarity
    assert losses.huber_loss is losses.huber
    assert losses.get("cosine_proximity") is losses.cosine_similarity
    for name in ("mse", "MSE", "mae", "mape", "msle", "kld", "cosine_proximity"):
        assert getattr(metrics, name) is getattr(losses, name)
    # Names still resolve to metric objects through `get`.
    assert type(metrics.get("mse")).__name__ == "MeanSquaredError"
