"""On torch, `evaluate`'s default test step runs from a captured graph, as `fit`'s does.

`stateful_steps.evaluation` (forward pass, loss, the loss trackers' and compiled
metrics' updates, the logs) is handed to `backend.execution.captured` when the test
programs are made: the metrics' totals go into the graph and their new values come out,
assigned after each replay. These tests pin that the capture engages, gives the eager
step's logs bitwise (`run_eagerly=True` never captures), leaves the metrics' state as
the eager step does, and runs eagerly what a replay could not repeat (a user's metric
that changes Python state, an overridden `test_step`).
"""

import numpy as np
import pytest

import lamina
from lamina import Input, Sequential, layers, losses, metrics

pytestmark = pytest.mark.engine("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((24, 6)).astype("float32")
Y = RNG.integers(0, 3, 24).astype("int32")


def _build():
    return Sequential(
        [
            Input((6,)),
            layers.Dense(5),
            layers.BatchNormalization(),
            layers.Dropout(0.5),
            layers.Dense(3),
        ]
    )


def _pair(metric_list):
    models = []
    for eager in (False, True):
        lamina.utils.set_random_seed(0)
        model = _build()
        model.compile(
            optimizer="adam",
            loss=losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=metric_list(),
            run_eagerly=eager,
        )
        models.append(model)
    models[1].set_weights(models[0].get_weights())
    return models


def test_evaluate_is_captured_and_gives_the_eager_steps_logs_bitwise():
    models = _pair(lambda: ["accuracy", metrics.SparseTopKCategoricalAccuracy(k=2)])
    results = []
    for model in models:
        model.fit(X, Y, batch_size=8, epochs=1, shuffle=False, verbose=0)
        results.append(
            [model.evaluate(X, Y, batch_size=8, verbose=0, return_dict=True) for _ in range(2)]
        )
    # `evaluate` with no callback reading a batch's logs runs the step that returns none
    # (`evaluation_unread`); its logs are read from the metrics at the end.
    capture = models[0]._runtime.evaluation_unread
    assert capture is not None and capture.off is None and capture.graph_count >= 1
    assert models[1]._runtime.evaluation is models[1]._runtime.evaluation_unread is None
    assert results[0] == results[1]
    # The metric totals the replays assigned are the eager step's.
    for a, b in zip(models[0].metrics_variables, models[1].metrics_variables, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # A step called by hand (after `evaluate` made the programs) replays the same way.
    data = (lamina.ops.convert_to_tensor(X[:8]), lamina.ops.convert_to_tensor(Y[:8]))
    logs = [model.test_step(data) for model in models]
    assert {k: float(v) for k, v in logs[0].items()} == {k: float(v) for k, v in logs[1].items()}


class _CountingMean(metrics.Mean):
    """A user's metric that counts its updates in Python."""

    def __init__(self, **kwargs):
        super().__init__(name="counted", **kwargs)
        self.updates = 0

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.updates += 1
        return super().update_state(y_pred)


def test_a_users_metric_that_changes_python_state_runs_on_every_step():
    counted = _CountingMean()
    model = _pair(lambda: [counted])[0]
    model.evaluate(X, Y, batch_size=8, verbose=0)
    model.evaluate(X, Y, batch_size=8, verbose=0)
    assert counted.updates == 6
    capture = model._runtime.evaluation_unread
    assert capture.graph_count == 0 and "Python state" in capture.off


def test_an_overridden_test_step_runs_on_every_step():
    class Counted(Sequential):
        steps = 0

        def test_step(self, data):
            type(self).steps += 1
            return super().test_step(data)

    model = Counted([Input((6,)), layers.Dense(3)])
    model.compile(loss=losses.SparseCategoricalCrossentropy(from_logits=True))
    model.evaluate(X, Y, batch_size=8, verbose=0)
    model.evaluate(X, Y, batch_size=8, verbose=0)
    assert Counted.steps == 6
    record = model._runtime  # an override reads its logs: the step that makes them
    assert record.evaluation.graph_count == record.evaluation_unread.graph_count == 0
