"""Steps called directly on a compiled model that never ran `fit` (torch engine).

Keras 3's guide "Customizing what happens in `fit()` with PyTorch" writes steps in the
stateful form `train_step(self, data)`; on its torch backend those steps (the default
ones and overrides) can also be called by hand right after `compile`, before any `fit`
has built the loss, metrics and optimizer. Each result here is checked against NumPy's
formulas for one SGD step of a linear model under mean squared error.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import lamina as keras  # noqa: E402
from lamina import ops  # noqa: E402

pytestmark = pytest.mark.engine("torch")

_RNG = np.random.RandomState(0)
X = _RNG.rand(8, 3).astype("float32")
Y = _RNG.rand(8, 1).astype("float32")
LR = 0.1


class GuideModel(keras.Model):
    """The guide's part 1 and part 4 steps, as written there."""

    def train_step(self, data):
        x, y = data
        self.zero_grad()
        y_pred = self(x, training=True)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        loss.backward()
        trainable_weights = [v for v in self.trainable_weights]
        gradients = [v.value.grad for v in trainable_weights]
        with torch.no_grad():
            self.optimizer.apply(gradients, trainable_weights)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def predict_step(self, data):
        x = data[0] if isinstance(data, tuple) else data
        return 2 * self(x, training=False)


class OwnLossModel(keras.Model):
    """The guide's part 2: its own loss and metrics, `compile` given an optimizer only."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = keras.losses.MeanSquaredError()

    def train_step(self, data):
        x, y = data
        self.zero_grad()
        y_pred = self(x, training=True)
        loss = self.loss_fn(y, y_pred)
        loss.backward()
        trainable_weights = [v for v in self.trainable_weights]
        gradients = [v.value.grad for v in trainable_weights]
        with torch.no_grad():
            self.optimizer.apply(gradients, trainable_weights)
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


def _model(cls=keras.Model, **compile_kwargs):
    inputs = keras.Input(shape=(3,))
    model = cls(inputs, keras.layers.Dense(1)(inputs))
    compile_kwargs.setdefault("loss", "mse")
    compile_kwargs.setdefault("metrics", ["mae"])
    model.compile(optimizer=keras.optimizers.SGD(LR), **compile_kwargs)
    return model


def _numbers(logs):
    return {key: float(ops.convert_to_numpy(value)) for key, value in logs.items()}


def _expected_step(kernel, bias):
    """NumPy: the loss and MAE before one SGD step on (X, Y), and the weights after."""
    residual = X @ kernel + bias - Y
    loss = float(np.mean(residual**2))
    mae = float(np.mean(np.abs(residual)))
    grad_kernel = 2.0 / residual.size * X.T @ residual
    grad_bias = 2.0 / residual.size * residual.sum(axis=0)
    return loss, mae, (kernel - LR * grad_kernel, bias - LR * grad_bias)


def _check_one_training_step(model, logs):
    kernel, bias = model.__dict__["_initial_weights"]
    loss, mae, (new_kernel, new_bias) = _expected_step(kernel, bias)
    assert _numbers(logs) == pytest.approx({"loss": loss, "mae": mae}, rel=1e-5)
    got_kernel, got_bias = model.get_weights()
    np.testing.assert_allclose(got_kernel, new_kernel, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got_bias, new_bias, rtol=1e-5, atol=1e-7)
    assert int(ops.convert_to_numpy(model.optimizer.iterations.value)) == 1


def _fresh(cls=keras.Model, **compile_kwargs):
    model = _model(cls, **compile_kwargs)
    model.__dict__["_initial_weights"] = model.get_weights()
    return model


@pytest.mark.parametrize("as_tensors", [False, True], ids=["numpy", "torch"])
def test_the_default_train_step_before_any_fit_takes_one_sgd_step(as_tensors):
    model = _fresh()
    data = (torch.from_numpy(X), torch.from_numpy(Y)) if as_tensors else (X, Y)
    _check_one_training_step(model, model.train_step(data))


def test_the_default_train_step_takes_sample_weights():
    model = _fresh()
    weights = np.linspace(0.5, 2.0, len(X)).astype("float32")
    logs = _numbers(model.train_step((X, Y, weights)))
    kernel, bias = model.__dict__["_initial_weights"]
    residual = (X @ kernel + bias - Y)[:, 0]
    # Keras's default reduction: the weighted sum over the number of samples.
    assert logs["loss"] == pytest.approx(float(np.sum(weights * residual**2) / len(X)), rel=1e-5)


def test_the_default_test_and_predict_steps_before_any_fit():
    model = _fresh()
    kernel, bias = model.__dict__["_initial_weights"]
    loss, mae, _ = _expected_step(kernel, bias)
    outputs = model.predict_step(X)
    np.testing.assert_allclose(ops.convert_to_numpy(outputs), X @ kernel + bias, rtol=1e-6)
    np.testing.assert_allclose(
        ops.convert_to_numpy(model.predict_step((torch.from_numpy(X),))),
        X @ kernel + bias,
        rtol=1e-6,
    )
    assert _numbers(model.test_step((X, Y))) == pytest.approx({"loss": loss, "mae": mae}, rel=1e-5)
    # Evaluating trains nothing.
    for got, initial in zip(model.get_weights(), (kernel, bias), strict=True):
        np.testing.assert_array_equal(got, initial)


def test_an_own_loss_train_step_before_any_fit_builds_the_optimizer():
    model = _fresh(OwnLossModel, loss=None, metrics=None)
    _check_one_training_step(model, model.train_step((torch.from_numpy(X), torch.from_numpy(Y))))


def test_an_overridden_predict_step_before_any_fit():
    model = _fresh(GuideModel)
    kernel, bias = model.__dict__["_initial_weights"]
    outputs = model.predict_step((torch.from_numpy(X),))
    np.testing.assert_allclose(ops.convert_to_numpy(outputs), 2 * (X @ kernel + bias), rtol=1e-6)


# An override that calls `self.compute_loss` before anything built the model's output
# structure (which `fit`, `evaluate` and the default steps build): as in Keras, the
# compiled loss and metrics are built from that first call.
def test_the_guides_train_step_before_any_fit():
    model = _fresh(GuideModel)
    logs = model.train_step((torch.from_numpy(X), torch.from_numpy(Y)))
    # The guide returns `compile_metrics` nested, as Keras does; `fit` flattens it.
    flat = {"loss": logs["loss"], **logs["compile_metrics"]}
    _check_one_training_step(model, flat)


def test_the_guides_test_step_before_any_fit():
    model = _fresh(GuideModel)
    kernel, bias = model.__dict__["_initial_weights"]
    loss, mae, _ = _expected_step(kernel, bias)
    logs = model.test_step((torch.from_numpy(X), torch.from_numpy(Y)))
    flat = _numbers({"loss": logs["loss"], **logs["compile_metrics"]})
    assert flat == pytest.approx({"loss": loss, "mae": mae}, rel=1e-5)
