"""On torch, `fit`'s default train step runs its forward pass and loss from a captured graph.

`programs.py` gives the stateful train step a `backend.execution.captured` forward pass
and loss: the first call with an input signature runs them eagerly while a dispatch mode
records their aten operations; later calls run that graph on the variables' own tensors,
under autograd, so the backward pass and the optimizer see what the eager step gives
them. These tests pin that the capture engages for models of lamina's layers and losses,
trains bitwise as the eager step does (`run_eagerly=True`, which never captures) and as a
NumPy reference, and never captures what a replay could not repeat: random numbers
drawn outside `lamina.random`, an in-place change, a value read in Python, added losses
(an activity regularizer), a user's loss or `compute_loss`, or a user's layer that
changes Python state or opts out, whose Python must run on every step. Random numbers
drawn through `lamina.random` (Dropout, noise layers, unseeded ops on the global seed
state) and assignments (BatchNormalization's moving statistics) are captured: the seed
states go in, their new values and the assigned values come out, and each replay
assigns them, bitwise as the eager step does.
"""

import numpy as np
import pytest
import torch

import lamina
from lamina import Input, Model, Sequential, layers, losses, ops, random

pytestmark = pytest.mark.engine("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((24, 6)).astype("float32")
Y_CLASSES = RNG.integers(0, 3, 24).astype("int32")
Y_REAL = RNG.standard_normal((24, 3)).astype("float32")


def _capture(model):
    return model._runtime.forward_and_loss


def _pair(build, **compile_kwargs):
    """The same model twice, from the same weights: one default, one `run_eagerly`."""
    models = []
    for eager in (False, True):
        lamina.utils.set_random_seed(0)
        model = build()
        model.compile(run_eagerly=eager, **compile_kwargs)
        models.append(model)
    models[1].set_weights(models[0].get_weights())
    return models


def _fit_both(models, x, y, **kwargs):
    histories = []
    for model in models:
        lamina.utils.set_random_seed(1)
        histories.append(
            model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0, **kwargs).history
        )
    return histories


def _mlp():
    return Sequential(
        [
            Input((6,)),
            layers.Dense(5, activation="relu"),
            layers.Dense(4, activation="tanh"),
            layers.Dense(3),
        ]
    )


def test_the_captured_step_trains_bitwise_as_the_eager_step():
    models = _pair(
        _mlp, optimizer="adam", loss=losses.SparseCategoricalCrossentropy(from_logits=True)
    )
    captured, eager = _fit_both(models, X, Y_CLASSES)
    capture = _capture(models[0])
    assert capture is not None and capture.off is None
    assert capture.graph_count == 1  # 24 samples in batches of 8: one signature
    assert _capture(models[1]) is None  # run_eagerly: never captured
    assert captured == eager
    for a, b in zip(models[0].get_weights(), models[1].get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_captured_step_matches_a_numpy_sgd_step():
    lamina.utils.set_random_seed(0)
    model = Sequential([Input((6,)), layers.Dense(3)])
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    x, y = X[:8], Y_REAL[:8]
    kernel, bias = model.get_weights()
    for _ in range(3):  # the first step runs eagerly, the second captures, the third replays
        err = x @ kernel + bias - y
        grad = 2.0 * err / err.size
        kernel, bias = kernel - 0.1 * x.T @ grad, bias - 0.1 * grad.sum(0)
        logs = model.train_on_batch(x, y, return_dict=True)
    assert _capture(model).graph_count == 1
    np.testing.assert_allclose(model.get_weights()[0], kernel, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.get_weights()[1], bias, rtol=1e-5, atol=1e-6)
    last = ((X[:8] @ model.get_weights()[0] + model.get_weights()[1] - y) ** 2).mean()
    assert np.isfinite(logs["loss"]) and logs["loss"] > last  # the loss before the step


def test_sample_weights_masks_and_several_outputs_are_captured_as_computed():
    def build():
        tokens = Input((5,), dtype="int32")
        h = layers.Embedding(7, 4, mask_zero=True)(tokens)
        h = layers.LSTM(3, return_sequences=True)(h)
        seq = layers.Dense(2, name="seq")(h)
        pooled = layers.Dense(1, name="pooled")(layers.GlobalAveragePooling1D()(h))
        return Model(tokens, [seq, pooled])

    tokens = RNG.integers(0, 7, (16, 5)).astype("int32")
    tokens[:, 3:] = 0  # padding, masked out of the sequence loss
    ys = [
        RNG.standard_normal((16, 5, 2)).astype("float32"),
        RNG.standard_normal((16, 1)).astype("float32"),
    ]
    weights = RNG.uniform(0.5, 2.0, 16).astype("float32")
    models = _pair(
        build,
        optimizer="sgd",
        loss=["mse", "mae"],
        loss_weights=[1.0, 0.5],
        metrics=[["mae"], ["mse"]],
    )
    captured, eager = _fit_both(models, tokens, ys, sample_weight=[weights, weights])
    assert _capture(models[0]).off is None and _capture(models[0]).graph_count == 1
    assert captured == eager
    for a, b in zip(models[0].get_weights(), models[1].get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


class _UnseededNoise(layers.Layer):
    """A user's layer drawing from the global seed state (`seed=None`)."""

    def call(self, x, training=False):
        return x + 0.1 * random.normal(ops.shape(x)) if training else x


class _Gated(layers.Layer):
    """A user's layer with a weight of its own and plain tensor code: captured."""

    def build(self, input_shape):
        self.gate = self.add_weight(shape=(input_shape[-1],), initializer="ones")

    def call(self, x):
        return x * ops.sigmoid(self.gate)


def _assert_same_training(models, x, y, **fit_kwargs):
    captured, eager = _fit_both(models, x, y, **fit_kwargs)
    capture = _capture(models[0])
    assert capture.off is None and capture.graph_count == 1
    assert captured == eager
    for a, b in zip(models[0].get_weights(), models[1].get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)  # weights, moving statistics, seed states


def test_dropout_is_captured_and_trains_bitwise_as_the_eager_step():
    def build():
        return Sequential(
            [Input((6,)), layers.Dense(8, activation="relu"), layers.Dropout(0.3), layers.Dense(3)]
        )

    models = _pair(
        build,
        optimizer="adam",
        loss=losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    _assert_same_training(models, X, Y_CLASSES)
    # The seed state moved on at every step: no two steps drew the same mask.
    (seed_state,) = [v for v in models[0].non_trainable_variables if "seed" in v.path]
    assert ops.convert_to_numpy(seed_state)[1] >= 6


def test_a_conv_batchnorm_dropout_net_is_captured_bitwise():
    def build():
        return Sequential(
            [
                Input((6, 6, 1)),
                layers.Conv2D(3, 3, padding="same"),
                layers.BatchNormalization(),
                layers.ReLU(),
                layers.MaxPooling2D(),
                layers.Dropout(0.25),
                layers.Flatten(),
                layers.Dense(3),
            ]
        )

    images = RNG.standard_normal((24, 6, 6, 1)).astype("float32")
    models = _pair(
        build,
        optimizer="adam",
        loss=losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    _assert_same_training(models, images, Y_CLASSES)
    moving = [v for v in models[0].non_trainable_variables if "moving_mean" in v.path]
    assert moving and np.abs(ops.convert_to_numpy(moving[0])).sum() > 0  # it was assigned


def test_noise_layers_unseeded_random_ops_and_a_users_layer_are_captured_bitwise():
    def build():
        return Sequential(
            [
                Input((6,)),
                layers.Dense(5),
                _Gated(),
                _UnseededNoise(),
                layers.GaussianNoise(0.2),
                layers.GaussianDropout(0.2),
                layers.Dense(3),
            ]
        )

    models = _pair(build, optimizer="sgd", loss="mse", metrics=["mae"])
    _assert_same_training(models, X, Y_REAL)


class _Torn(layers.Layer):
    """A user's layer that draws from torch's own generator (outside `lamina.random`)."""

    def call(self, x):
        return x * (torch.rand_like(x) > 0.5)


class _InPlace(layers.Layer):
    def call(self, x):
        return ops.convert_to_tensor(x).clone().add_(1.0)


class _ReadsValue(layers.Layer):
    def call(self, x):
        return x * 2.0 if bool(ops.max(x) > 0) else x


class _OptedOut(layers.Layer):
    capturable = False

    def call(self, x):
        return x * 2.0


@pytest.mark.parametrize(
    "extra, why",
    [
        (lambda: layers.ActivityRegularization(l1=0.1), "losses"),
        (_Torn, "random"),
        (_InPlace, "in place"),
        (_ReadsValue, "reads a tensor's value"),
        (_OptedOut, None),
    ],
)
def test_what_a_replay_cannot_repeat_runs_eagerly(extra, why):
    def build():
        return Sequential([Input((6,)), layers.Dense(5), extra(), layers.Dense(3)])

    models = _pair(build, optimizer="sgd", loss="mse")
    captured, eager = _fit_both(models, X, Y_REAL)
    capture = _capture(models[0])
    assert capture.graph_count == 0
    if why is not None:
        assert why in capture.off
    if extra is not _Torn:  # (torch's generator draws differently in each model)
        assert captured == eager  # the loss includes what the refused capture left out
        for a, b in zip(models[0].get_weights(), models[1].get_weights(), strict=True):
            np.testing.assert_array_equal(a, b)


class _Counting(layers.Layer):
    calls = 0

    def call(self, x):
        type(self).calls += 1
        return x * 2.0


def _counted_loss(y_true, y_pred):
    _counted_loss.calls += 1
    return ops.mean(ops.square(y_true - y_pred), axis=-1)


_counted_loss.calls = 0


class _Distilled(Sequential):
    calls = 0

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        type(self).calls += 1
        return super().compute_loss(x, y, y_pred, sample_weight, training) + 0.0


@pytest.mark.parametrize("kind", ["layer", "loss", "compute_loss", "regularizer"])
def test_a_users_code_runs_on_every_step(kind):
    dense = layers.Dense(3)
    if kind == "regularizer":
        seen = []

        def regularizer(w):
            seen.append(1)
            return 0.01 * ops.sum(ops.square(w))

        dense = layers.Dense(3, kernel_regularizer=regularizer)
    stack = [Input((6,)), _Counting(), dense] if kind == "layer" else [Input((6,)), dense]
    model = (_Distilled if kind == "compute_loss" else Sequential)(stack)
    model.compile(optimizer="sgd", loss=_counted_loss if kind == "loss" else "mse")
    before = {
        "layer": lambda: _Counting.calls,
        "loss": lambda: _counted_loss.calls,
        "compute_loss": lambda: _Distilled.calls,
        "regularizer": lambda: len(seen),
    }[kind]
    start = before()
    model.fit(X, Y_REAL, batch_size=8, epochs=2, verbose=0)  # 6 steps
    assert before() - start >= 6
    assert _capture(model).graph_count == 0


def test_a_model_recompiled_with_another_loss_trains_on_the_new_one():
    models = _pair(_mlp, optimizer="sgd", loss="mse")
    _fit_both(models, X, Y_REAL)
    for model in models:
        model.compile(optimizer="sgd", loss="mae", run_eagerly=model is models[1])
    captured, eager = _fit_both(models, X, Y_REAL)
    assert _capture(models[0]).off is None and _capture(models[0]).graph_count == 1
    assert captured == eager
    for a, b in zip(models[0].get_weights(), models[1].get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_step_called_by_hand_after_recompiling_runs_the_new_loss():
    models = _pair(_mlp, optimizer="sgd", loss="mse")
    _fit_both(models, X, Y_REAL)  # the default model captured its MSE step
    for model in models:
        model.compile(optimizer="sgd", loss="mae", run_eagerly=model is models[1])
    data = (ops.convert_to_tensor(X[:8]), ops.convert_to_tensor(Y_REAL[:8]))
    for _ in range(3):
        logs = [model.train_step(data) for model in models]
        assert float(logs[0]["loss"]) == float(logs[1]["loss"])
    for a, b in zip(models[0].get_weights(), models[1].get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_deep_copy_captures_its_own_step():
    import copy

    lamina.utils.set_random_seed(0)
    model = _mlp()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(X, Y_REAL, batch_size=8, epochs=1, verbose=0)
    clone = copy.deepcopy(model)
    assert _capture(clone) is None
    clone.fit(X, Y_REAL, batch_size=8, epochs=1, shuffle=False, verbose=0)
    assert _capture(clone) is not _capture(model) and _capture(clone).graph_count == 1
    model.fit(X, Y_REAL, batch_size=8, epochs=1, shuffle=False, verbose=0)
    for a, b in zip(model.get_weights(), clone.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)  # each trained its own weights, the same way


_global_flag = 0


class _CountsOnItself(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = 0

    def call(self, x):
        self.seen += 1
        return x * 2.0


class _SetsAGlobal(layers.Layer):
    def call(self, x):
        global _global_flag
        _global_flag += 1
        return x * 2.0


@pytest.mark.parametrize("kind", ["attribute", "global"])
def test_a_users_layer_that_changes_python_state_runs_on_every_step(kind):
    extra = _CountsOnItself() if kind == "attribute" else _SetsAGlobal()
    model = Sequential([Input((6,)), layers.Dense(4), extra, layers.Dense(3)])
    model.compile(optimizer="sgd", loss="mse")
    count = (lambda: extra.seen) if kind == "attribute" else (lambda: _global_flag)
    start = count()
    model.fit(X, Y_REAL, batch_size=8, epochs=2, verbose=0)  # 6 steps
    assert count() - start == 6  # once per step: a refused capture is not run twice
    assert _capture(model).graph_count == 0 and "Python state" in _capture(model).off
    model.predict(X, batch_size=8, verbose=0)
    model.predict(X, batch_size=8, verbose=0)
    assert count() - start == 12  # predict's replay refuses it too


class _Tempered(layers.Layer):
    """A user's layer whose call reads a Python value that a callback changes."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.temperature = 1.0

    def call(self, x):
        return x / self.temperature


def test_a_users_layer_attribute_set_between_steps_is_captured_again():
    def build():
        return Sequential([Input((6,)), layers.Dense(4), _Tempered(), layers.Dense(3)])

    class Cool(lamina.callbacks.Callback):
        def __init__(self, layer):
            super().__init__()
            self.layer = layer

        def on_train_batch_begin(self, batch, logs=None):
            self.layer.temperature = 1.0 + batch  # a new value at every step

    models = _pair(build, optimizer="sgd", loss="mse")
    histories = []
    for model in models:
        lamina.utils.set_random_seed(1)
        callback = Cool(model.layers[1])
        histories.append(
            model.fit(
                X, Y_REAL, batch_size=8, epochs=2, shuffle=False, verbose=0, callbacks=[callback]
            ).history
        )
    assert _capture(models[0]).off is None
    assert histories[0] == histories[1]
    for a, b in zip(models[0].get_weights(), models[1].get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
