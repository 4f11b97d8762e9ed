"""Every stateless API takes its state as Variables or as arrays (issue 38 item 3).

`metric.stateless_update_state(metric.variables, y_true, y_pred)` (the pattern of a
hand-written JAX loop), `layer.stateless_call`, `optimizer.stateless_apply`,
`metric.stateless_result`, `stateless_reset_state` and `model.stateless_compute_loss`
each read a Variable given as a value, as Keras 3 does: the results equal those for the
arrays and Keras's own. Inside `fit`, a `compute_loss` that feeds a metric its own
Variables trains as Keras's does.
"""

from __future__ import annotations

import os

import numpy as np

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402

import lamina  # noqa: E402
from lamina import ops  # noqa: E402

Y_TRUE = np.array([[1.0], [0.0], [2.0]], "float32")
Y_PRED = np.array([[0.5], [0.5], [1.0]], "float32")
X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]], "float32")


def _np(values):
    return [np.asarray(ops.convert_to_numpy(v)) for v in values]


def _arrays(variables):
    return [np.asarray(ops.convert_to_numpy(v)) for v in variables]


def _close(ours, theirs, rtol=1e-6):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=1e-7)


def test_metric_stateless_api_takes_its_variables():
    results = {}
    for mod in (lamina, keras):
        metric = mod.metrics.MeanSquaredError()
        metric.update_state(Y_TRUE[:1], Y_PRED[:1])  # state that is not the initial one
        as_arrays = metric.stateless_update_state(_arrays(metric.variables), Y_TRUE, Y_PRED)
        as_variables = metric.stateless_update_state(metric.variables, Y_TRUE, Y_PRED)
        results[mod.__name__] = (
            _np(as_arrays),
            _np(as_variables),
            float(metric.stateless_result(metric.variables)),
            float(metric.stateless_result(as_variables)),
            _np(metric.stateless_reset_state()),
            _np(metric.variables),  # untouched by the stateless calls
        )
    ours, theirs = results["lamina"], results["keras"]
    _close(ours[1], ours[0])
    for a, b in zip(ours, theirs, strict=True):
        _close(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b])


def test_layer_stateless_call_takes_variables_mixed_with_arrays():
    results = {}
    for mod in (lamina, keras):
        layer = mod.layers.BatchNormalization(momentum=0.5)
        layer.build((None, 2))
        trainable = [layer.gamma, np.full((2,), 0.5, "float32")]  # a Variable, an array
        out, non_trainable = layer.stateless_call(
            trainable, layer.non_trainable_variables, X, training=True
        )
        results[mod.__name__] = (_np([out]), _np(non_trainable), _np(layer.variables))
    for a, b in zip(results["lamina"], results["keras"], strict=True):
        _close(a, b, rtol=1e-5)


def test_optimizer_stateless_apply_takes_variables():
    results = {}
    for mod in (lamina, keras):
        weight = mod.Variable(np.array([1.0, 2.0], "float32"))
        optimizer = mod.optimizers.Adam(0.1)
        optimizer.build([weight])
        grads = [ops.convert_to_tensor(np.array([0.5, -1.0], "float32"))]
        if mod is keras:
            grads = [keras.ops.convert_to_tensor(np.array([0.5, -1.0], "float32"))]
        from_arrays = optimizer.stateless_apply(
            _arrays(optimizer.variables), grads, _arrays([weight])
        )
        from_variables = optimizer.stateless_apply(optimizer.variables, grads, [weight])
        results[mod.__name__] = (from_arrays, from_variables, _np([weight]))
    ours, theirs = results["lamina"], results["keras"]
    for ours_part, theirs_part in ((ours[0], theirs[0]), (ours[1], theirs[1])):
        _close(_np(ours_part[0]), _np(theirs_part[0]), rtol=1e-5)
        _close(_np(ours_part[1]), _np(theirs_part[1]), rtol=1e-5)
    _close(_np(ours[1][0]), _np(ours[0][0]))
    _close(ours[2], [np.array([1.0, 2.0], "float32")])  # the weight itself is unchanged


def model_with_metric_loss(mod):
    """A model whose loss is a metric fed its own Variables through the stateless API."""

    class MetricLoss(mod.Model):
        def __init__(self):
            super().__init__()
            self.dense = mod.layers.Dense(1, kernel_initializer="ones")
            self.error = mod.metrics.MeanSquaredError(name="error")

        def call(self, x):
            return self.dense(x)

        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
            # Inside the compiled step the metric's Variables read as the step's state.
            values = self.error.stateless_update_state(self.error.variables, y, y_pred)
            return self.error.stateless_result(values)

    return MetricLoss()


def test_stateless_metric_api_with_variables_inside_fit_matches_keras():
    results = {}
    for mod in (lamina, keras):
        model = model_with_metric_loss(mod)
        model.compile(optimizer=mod.optimizers.SGD(0.05))
        history = model.fit(X, Y_TRUE, batch_size=3, epochs=3, verbose=0)
        results[mod.__name__] = (history.history["loss"], _np(model.dense.weights))
    np.testing.assert_allclose(results["lamina"][0], results["keras"][0], rtol=1e-5)
    _close(results["lamina"][1], results["keras"][1], rtol=1e-5)


def test_stateless_compute_loss_takes_variables():
    losses = []
    for mod in (lamina, keras):
        inputs = mod.Input((2,))
        model = mod.Model(inputs, mod.layers.Dense(1, kernel_initializer="ones")(inputs))
        model.compile(loss="mse", metrics=["mae"])
        model.evaluate(X, Y_TRUE, verbose=0)  # builds the compiled loss and metrics
        loss, _ = model.stateless_compute_loss(
            model.trainable_variables,
            model.non_trainable_variables,
            model.metrics_variables,
            x=X,
            y=Y_TRUE,
            y_pred=model(X),
        )
        losses.append(float(ops.convert_to_numpy(loss)))
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-6)
