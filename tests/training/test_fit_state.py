"""How fit moves state: donation, write-back around callbacks, chunks of steps."""

import numpy as np
import pytest

from lamina import Input, Model, Sequential, callbacks, layers, metrics, models, optimizers


def _data(n=32, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3)).astype("float32")
    return x, (x @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3).astype("float32")


def _linear(kernel=None):
    model = Sequential([Input((3,)), layers.Dense(1)])
    if kernel is not None:
        model.set_weights([kernel, np.zeros(1, "float32")])
    return model


def _sgd_mse_reference(x, y, w, b, lr, steps, batch_size):
    """Plain-NumPy SGD on mean squared error, batches in order; returns each step's (w, b)."""
    out = []
    n = len(x)
    for step in range(steps):
        start = (step * batch_size) % n
        xb, yb = x[start : start + batch_size], y[start : start + batch_size]
        err = xb @ w + b - yb
        w = w - lr * 2 * xb.T @ err / err.size
        b = b - lr * 2 * err.sum(0) / err.size
        out.append((w, b))
    return out


@pytest.mark.parametrize("jit", ["auto", False])
def test_fit_with_use_ema_matches_numpy_reference(jit):
    x, y = _data()
    w0 = np.full((3, 1), 0.1, "float32")
    model = _linear(w0)
    model.compile(
        optimizer=optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5),
        loss="mse",
        jit_compile=jit,
    )
    model.fit(x, y, batch_size=32, epochs=3, shuffle=False, verbose=0)
    average = None
    for w, b in _sgd_mse_reference(x, y, w0, np.zeros(1), 0.1, 3, 32):
        if average is None:
            average = (w, b)  # the first step starts the average at the weights (Keras)
        else:
            average = tuple(0.5 * a + 0.5 * v for a, v in zip(average, (w, b)))
    kernel, bias = model.get_weights()  # fit ends by copying the averages in (Keras)
    np.testing.assert_allclose(kernel, average[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bias, average[1], rtol=1e-5, atol=1e-6)


def test_variables_sharing_one_buffer_can_be_donated():
    x, y = _data()
    model = _linear()
    model.compile(optimizer=optimizers.Adam(0.1), loss="mse")
    model.fit(x, y, epochs=1, verbose=0)
    kernel = model.layers[0].kernel
    slot = next(v for v in model.optimizer.variables if tuple(v.shape) == (3, 1))
    slot._value = kernel.value  # one array held by a weight and an optimizer slot
    model.fit(x, y, epochs=1, verbose=0)
    assert np.all(np.isfinite(model.get_weights()[0]))


def test_lambda_callback_batch_hook_sees_current_weights():
    x, y = _data()
    model = _linear(np.zeros((3, 1), "float32"))
    model.compile(optimizer=optimizers.SGD(0.1), loss="mse")
    seen = []
    hook = callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: seen.append(model.get_weights()[0].copy())
    )
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0, callbacks=[hook])
    reference = _sgd_mse_reference(x, y, np.zeros((3, 1)), np.zeros(1), 0.1, 4, 8)
    assert len(seen) == 4
    for got, (w, _) in zip(seen, reference):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


def test_what_batch_callbacks_write_is_used_by_the_next_step():
    x, y = _data()
    model = _linear(np.zeros((3, 1), "float32"))
    model.compile(optimizer=optimizers.SGD(0.1), loss="mse")

    class Meddle(callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 0:
                self.model.set_weights([np.ones((3, 1), "float32"), np.zeros(1, "float32")])
                self.model.optimizer.learning_rate = 0.0  # freeze from here on

    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0, callbacks=[Meddle()])
    np.testing.assert_allclose(model.get_weights()[0], np.ones((3, 1)))
    assert float(model.optimizer.learning_rate) == 0.0
    assert int(model.optimizer.iterations.numpy()) == 4


def test_batch_begin_hook_writes_are_used_by_that_step():
    x, y = _data()
    model = _linear(np.zeros((3, 1), "float32"))
    model.compile(optimizer=optimizers.SGD(0.1), loss="mse")
    hook = callbacks.LambdaCallback(
        on_train_batch_begin=lambda batch, logs: setattr(model.optimizer, "learning_rate", 0.0)
    )
    model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[hook])
    np.testing.assert_allclose(model.get_weights()[0], np.zeros((3, 1)))


def test_steps_per_execution_runs_full_chunks_then_the_remainder():
    # 11 samples, batch 2: five full batches then one of 1. With k=2 the calls are
    # [0,1] [2,3] then the remainder [4] and the odd-shaped [5].
    x, y = _data(11)
    model = _linear(np.zeros((3, 1), "float32"))
    model.compile(optimizer=optimizers.SGD(0.05), loss="mse", steps_per_execution=2)
    ends = []
    hook = callbacks.LambdaCallback(on_train_batch_end=lambda batch, logs: ends.append(batch))
    model.fit(x, y, batch_size=2, epochs=1, shuffle=False, verbose=0, callbacks=[hook])
    assert ends == [1, 3, 4, 5]
    model3 = _linear(np.zeros((3, 1), "float32"))
    model3.compile(optimizer=optimizers.SGD(0.05), loss="mse", steps_per_execution=3)
    ends.clear()
    model3.set_weights(model3.get_weights())
    model3.fit(x, y, batch_size=2, epochs=1, shuffle=False, verbose=0, callbacks=[hook])
    assert ends == [2, 4, 5]  # chunk of 3, the two left as one shorter chunk, the odd one
    np.testing.assert_allclose(model3.get_weights()[0], model.get_weights()[0], rtol=1e-5)


def test_steps_per_execution_chunks_survive_an_odd_batch_in_the_middle():
    def gen():
        for n in (4, 4, 3, 4, 4, 4, 4):
            yield np.ones((n, 3), "float32"), np.ones((n, 1), "float32")

    model = _linear()
    model.compile(optimizer="sgd", loss="mse", steps_per_execution=2)
    ends = []
    hook = callbacks.LambdaCallback(on_train_batch_end=lambda batch, logs: ends.append(batch))
    model.fit(gen(), epochs=1, verbose=0, callbacks=[hook])
    assert ends == [1, 2, 4, 6]


def test_loss_scale_factor_changes_no_training_step():
    # Keras scales the loss before differentiating and unscales the gradients: with
    # SGD the weights after fit are those of an unscaled run, and the logged loss too.
    x = np.linspace(-1, 1, 24, dtype="float32").reshape(8, 3)
    y = x.sum(1, keepdims=True)

    def train(factor):
        inp = Input((3,))
        model = Model(inp, layers.Dense(1, kernel_initializer="zeros")(inp))
        model.compile(optimizer=optimizers.SGD(0.1, loss_scale_factor=factor), loss="mse")
        history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        return model.get_weights()[0], history.history["loss"]

    (w_plain, loss_plain), (w_scaled, loss_scaled) = train(None), train(64.0)
    np.testing.assert_allclose(w_scaled, w_plain, rtol=1e-5)
    np.testing.assert_allclose(loss_scaled, loss_plain, rtol=1e-5)
    assert np.abs(w_plain).max() > 0.05  # the steps were real ones


@pytest.mark.parametrize("then", ["evaluate", "fit"])
def test_a_loaded_trained_model_predicts_then_evaluates_or_fits(tmp_path, then):
    # The loaded optimizer is built, the compiled metrics not yet: `predict` first read
    # the state without them, and the next pass's metrics were missing from it (a zip
    # length error in the step). Keras 3 runs this sequence; the numbers are NumPy's.
    x, y = _data()
    model = _linear()
    model.compile(optimizer="adam", loss="mse", metrics=[metrics.MeanAbsoluteError()])
    model.fit(x, y, epochs=1, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = models.load_model(tmp_path / "m.keras")
    w, b = loaded.get_weights()
    np.testing.assert_allclose(loaded.predict(x, verbose=0), x @ w + b, rtol=1e-5)
    if then == "evaluate":
        logs = loaded.evaluate(x, y, batch_size=len(x), verbose=0, return_dict=True)
        err = x @ w + b - y
        np.testing.assert_allclose(logs["loss"], np.mean(err**2), rtol=1e-5)
        np.testing.assert_allclose(logs["mean_absolute_error"], np.mean(np.abs(err)), rtol=1e-5)
    else:
        history = loaded.fit(x, y, epochs=1, verbose=0)
        assert sorted(history.history) == ["loss", "mean_absolute_error"]
