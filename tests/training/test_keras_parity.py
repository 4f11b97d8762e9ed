"""The same small program on Keras 3 and on lamina gives the same answer.

Each test pins a behaviour found to differ in a side-by-side audit; the reference is
Keras 3 itself (JAX backend, imported here only) or a NumPy formula of what it computes.
"""

import os

import numpy as np
import pytest

import lamina
from lamina import callbacks, layers, ops, optimizers

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

RNG = np.random.default_rng(0)
X = RNG.standard_normal((24, 4)).astype("float32")
LABELS = RNG.integers(0, 3, (24,))
ONE_HOT = np.eye(3, dtype="float32")[LABELS]
TARGET = RNG.standard_normal((24, 1)).astype("float32")
WEIGHTS = RNG.random(24).astype("float32")


def _two_outputs(K):
    inputs = K.Input((4,), name="inp")
    hidden = K.layers.Dense(5, activation="relu", name="h")(inputs)
    out1 = K.layers.Dense(3, activation="softmax", name="out1")(hidden)
    out2 = K.layers.Dense(1, name="out2")(hidden)
    return K.Model(inputs, [out1, out2])


def _keras_logs(build, compile_kwargs, x, y, sample_weight=None):
    """Keras's `evaluate(..., return_dict=True)` and the weights it ran with."""
    model = build(keras)
    model.compile(optimizer="sgd", **compile_kwargs)
    logs = model.evaluate(
        x, y, sample_weight=sample_weight, batch_size=len(x), verbose=0, return_dict=True
    )
    return logs, model.get_weights()


def _lamina_logs(build, compile_kwargs, x, y, weights, sample_weight=None):
    model = build(lamina)
    model.set_weights(weights)
    model.compile(optimizer="sgd", **compile_kwargs)
    logs = model.evaluate(
        x, y, sample_weight=sample_weight, batch_size=len(x), verbose=0, return_dict=True
    )
    return logs, model


# "accuracy" is chosen from the target and output shapes (Keras 3's rule) ----------------
def test_accuracy_of_sparse_labels_without_a_sparse_loss():
    # An output with no loss (or a custom loss) gets sparse labels: the accuracy must be
    # the sparse one (it was categorical accuracy, comparing argmax of the labels).
    def compile_kwargs(K):
        return dict(loss=[None, "mse"], metrics=[["accuracy"], []])

    keras_logs, weights = _keras_logs(_two_outputs, compile_kwargs(keras), X, [LABELS, TARGET])
    logs, model = _lamina_logs(_two_outputs, compile_kwargs(lamina), X, [LABELS, TARGET], weights)
    probabilities = model.predict(X, verbose=0)[0]
    want = np.mean(probabilities.argmax(-1) == LABELS)
    np.testing.assert_allclose(logs["out1_accuracy"], want, rtol=1e-6)
    np.testing.assert_allclose(keras_logs["out1_accuracy"], want, rtol=1e-6)


def test_accuracy_with_a_custom_loss_on_sparse_labels():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="softmax")])

    def my_loss(y_true, y_pred):
        return lamina.losses.sparse_categorical_crossentropy(y_true, y_pred)

    model.compile(optimizer="sgd", loss=my_loss, metrics=["accuracy"])
    logs = model.evaluate(X, LABELS[:, None], verbose=0, return_dict=True)
    want = np.mean(model.predict(X, verbose=0).argmax(-1) == LABELS)
    np.testing.assert_allclose(logs["accuracy"], want, rtol=1e-6)


def test_multi_hot_targets_with_binary_crossentropy_get_binary_accuracy():
    # A deliberate difference from Keras 3, which decides by shapes alone and gives
    # categorical accuracy here: the training issue asks for the classic rule, where a
    # binary cross-entropy loss means element-wise (binary) accuracy on multi-label data.
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="sigmoid")])
    model.compile(
        optimizer="sgd",
        loss="binary_crossentropy",
        metrics=["accuracy", "categorical_accuracy", "crossentropy"],
    )
    y = (RNG.random((24, 3)) > 0.5).astype("float32")
    logs = model.evaluate(X, y, verbose=0, return_dict=True)
    p = model.predict(X, verbose=0).astype("float64")
    np.testing.assert_allclose(logs["accuracy"], np.mean((p > 0.5) == y), rtol=1e-6)
    np.testing.assert_allclose(
        logs["categorical_accuracy"], np.mean(p.argmax(-1) == y.argmax(-1)), rtol=1e-6
    )
    q = np.clip(p, 1e-7, 1 - 1e-7)
    want = -(y * np.log(q) + (1 - y) * np.log(1 - q)).mean()
    np.testing.assert_allclose(logs["crossentropy"], want, rtol=1e-5)


@pytest.mark.parametrize("kind", ["sparse", "categorical", "binary"])
def test_loss_crossentropy_resolves_by_shapes(kind):
    units, y = {"sparse": (3, LABELS), "categorical": (3, ONE_HOT), "binary": (1, ONE_HOT[:, :1])}[
        kind
    ]
    activation = "sigmoid" if units == 1 else "softmax"
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(units, activation=activation)])
    model.compile(optimizer="sgd", loss="crossentropy")
    loss = model.evaluate(X, y, batch_size=24, verbose=0)
    p = np.clip(model.predict(X, verbose=0).astype("float64"), 1e-7, 1 - 1e-7)
    if kind == "sparse":
        want = -np.log(p[np.arange(24), y]).mean()
    elif kind == "categorical":
        want = -(y * np.log(p)).sum(-1).mean()
    else:
        want = -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
    np.testing.assert_allclose(loss, want, rtol=1e-5)


# Metric names, as Keras 3 logs them ------------------------------------------------------
def _one_output(K):
    return K.Sequential([K.Input((4,)), K.layers.Dense(1)])


@pytest.mark.parametrize(
    ("build", "compile_kwargs", "y", "sample_weight"),
    [
        # weighted_metrics alone: no "weighted_" prefix (nothing to tell apart)
        (_one_output, dict(loss="mse", weighted_metrics=["mae"]), TARGET, WEIGHTS),
        # the same metric both ways, and one name twice
        (
            _one_output,
            dict(loss="mse", metrics=["mae", "mae"], weighted_metrics=["mae", "mse"]),
            TARGET,
            WEIGHTS,
        ),
        # several outputs: "out1_weighted_accuracy", not a second "out1_accuracy"
        (
            _two_outputs,
            dict(
                loss=["sparse_categorical_crossentropy", "mse"],
                metrics=[["accuracy"], ["mae"]],
                weighted_metrics=[["accuracy"], ["mae"]],
            ),
            [LABELS, TARGET],
            [WEIGHTS, WEIGHTS],
        ),
    ],
    ids=["weighted_only", "both_and_repeated", "two_outputs"],
)
def test_metric_names_and_values_match_keras(build, compile_kwargs, y, sample_weight):
    keras_logs, weights = _keras_logs(build, compile_kwargs, X, y, sample_weight)
    logs, _ = _lamina_logs(build, compile_kwargs, X, y, weights, sample_weight)
    assert sorted(logs) == sorted(keras_logs)
    for name, value in keras_logs.items():
        np.testing.assert_allclose(logs[name], value, rtol=1e-5, err_msg=name)


def test_keras_metric_functions_are_in_lamina_metrics():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(1)])
    model.compile(
        optimizer="sgd",
        loss="mse",
        metrics=[lamina.metrics.mean_absolute_error, lamina.metrics.mean_squared_error],
    )
    logs = model.evaluate(X, TARGET, verbose=0, return_dict=True)
    error = model.predict(X, verbose=0) - TARGET
    np.testing.assert_allclose(logs["mean_absolute_error"], np.abs(error).mean(), rtol=1e-5)
    np.testing.assert_allclose(logs["mean_squared_error"], (error**2).mean(), rtol=1e-5)


# Callbacks ---------------------------------------------------------------------------------
def test_begin_hooks_receive_a_dict():
    seen = []

    class Record(callbacks.Callback):
        def on_train_begin(self, logs=None):
            seen.append(logs)

        def on_epoch_begin(self, epoch, logs=None):
            seen.append(logs)

        def on_train_batch_begin(self, batch, logs=None):
            seen.append(logs)

        def on_test_begin(self, logs=None):
            seen.append(logs)

    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(1)])
    model.compile(optimizer=optimizers.SGD(0.01), loss="mse")
    model.fit(X, TARGET, batch_size=24, epochs=1, verbose=0, callbacks=[Record()])
    model.evaluate(X, TARGET, verbose=0, callbacks=[Record()])
    assert seen == [{}, {}, {}, {}]


# compile(loss_weights=...) -----------------------------------------------------------------
def test_loss_weights_may_be_one_number_for_one_output():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", loss_weights=0.5, metrics=["mse"])
    logs = model.evaluate(X, TARGET, verbose=0, return_dict=True)
    np.testing.assert_allclose(logs["loss"], 0.5 * logs["mse"], rtol=1e-6)


def test_one_loss_weight_for_several_outputs_is_refused_clearly():
    model = _two_outputs(lamina)
    model.compile(
        optimizer="sgd", loss=["sparse_categorical_crossentropy", "mse"], loss_weights=2.0
    )
    with pytest.raises(ValueError, match="loss_weights=2.0 is one number.*2 outputs"):
        model.evaluate(X, [LABELS, TARGET], verbose=0)


# Metrics and optimizers on their own -------------------------------------------------------
@pytest.mark.parametrize("weighted", [False, True])
def test_sum_adds_every_element_as_keras_does(weighted):
    values = RNG.standard_normal((6, 3, 2)).astype("float32")
    sample_weight = RNG.random((6, 3)).astype("float32") if weighted else None
    metric = lamina.metrics.Sum()
    metric.update_state(values, sample_weight=sample_weight)
    weights = np.ones((6, 3)) if sample_weight is None else sample_weight
    np.testing.assert_allclose(metric.result(), (values * weights[..., None]).sum(), rtol=1e-5)
    reference = keras.metrics.Sum()
    reference.update_state(values, sample_weight=sample_weight)
    np.testing.assert_allclose(metric.result(), np.asarray(reference.result()), rtol=1e-5)


def test_learning_rate_is_the_variable_a_callback_can_assign():
    class Freeze(callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            if epoch == 1:
                self.model.optimizer.learning_rate.assign(0.0)

    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(1)])
    model.compile(optimizer=optimizers.SGD(0.1), loss="mse")
    after_first = []
    record = callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: (
            after_first.append(model.get_weights()) if epoch == 0 else None
        )
    )
    model.fit(X, TARGET, batch_size=8, epochs=2, verbose=0, callbacks=[Freeze(), record])
    assert float(model.optimizer.learning_rate) == 0.0
    for now, then in zip(model.get_weights(), after_first[0], strict=True):
        np.testing.assert_array_equal(now, then)


def test_scale_loss_undoes_what_apply_divides_as_in_keras():
    # Keras's training step differentiates optimizer.scale_loss(loss); apply divides the
    # gradients by loss_scale_factor again, so the factor changes no step.
    for factor in (None, 4.0):
        ours = optimizers.SGD(0.1, loss_scale_factor=factor)
        theirs = keras.optimizers.SGD(0.1, loss_scale_factor=factor)
        assert float(ours.scale_loss(2.0)) == float(theirs.scale_loss(2.0))


@pytest.mark.parametrize("thresholds", [None, [0.3, 0.6]])
def test_auc_config_names_thresholds_only_when_given(thresholds):
    config = lamina.metrics.AUC(num_thresholds=50, thresholds=thresholds).get_config()
    reference = keras.metrics.AUC(num_thresholds=50, thresholds=thresholds).get_config()
    assert sorted(config) == sorted(reference)
    rebuilt = lamina.metrics.AUC.from_config(config)
    assert rebuilt.num_thresholds == config["num_thresholds"]
    assert (thresholds is None) == ("thresholds" not in config)


def test_callback_messages_start_on_a_new_line_as_in_keras(tmp_path, capsys):
    # Epoch-end callbacks run while the progress bar's line is still open, so Keras
    # starts their messages with a newline; every-epoch saves also say "saving model".
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(1)])
    model.compile(optimizer=optimizers.SGD(0.01), loss="mse")
    path = str(tmp_path / "m.weights.h5")
    model.fit(
        X,
        TARGET,
        batch_size=24,
        epochs=2,
        verbose=0,
        callbacks=[
            callbacks.ModelCheckpoint(path, save_weights_only=True, verbose=1),
            callbacks.ModelCheckpoint(
                path, save_weights_only=True, save_best_only=True, monitor="loss", verbose=1
            ),
            callbacks.LearningRateScheduler(lambda epoch, lr: 0.5, verbose=1),
            callbacks.ReduceLROnPlateau(monitor="loss", min_delta=1e9, patience=0, verbose=1),
        ],
    )
    out = capsys.readouterr().out
    lines = out.split("\n")
    improved = lines[7].split(" to ")[1].split(",")[0]
    assert lines[:10] == [
        "",
        "Epoch 1: LearningRateScheduler setting learning rate to 0.5.",
        "",
        f"Epoch 1: saving model to {path}",
        "",
        f"Epoch 1: finished saving model to {path}",
        "",
        f"Epoch 1: loss improved from None to {improved}, saving model to {path}",
        "",
        f"Epoch 1: finished saving model to {path}",
    ]
    assert "\n\nEpoch 2: ReduceLROnPlateau reducing learning rate to 0.05.\n" in out


# SwapEMAWeights ----------------------------------------------------------------------------
@pytest.mark.parametrize("swap_on_epoch", [False, True])
def test_swap_ema_weights_validates_with_the_averages_as_keras_does(swap_on_epoch):
    def run(K, weights=None):
        model = _one_output(K)
        if weights is not None:
            model.set_weights(weights)
        weights = model.get_weights()
        model.compile(optimizer=K.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5), loss="mse")
        history = model.fit(
            X,
            TARGET,
            batch_size=8,
            epochs=2,
            shuffle=False,
            verbose=0,
            validation_data=(X[:8], TARGET[:8]),
            callbacks=[K.callbacks.SwapEMAWeights(swap_on_epoch=swap_on_epoch)],
        )
        return history.history, model.get_weights(), weights

    theirs, their_final, weights = run(keras)
    ours, our_final, _ = run(lamina, weights)
    assert sorted(ours) == sorted(theirs)
    for name in theirs:
        np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-5, err_msg=name)
    for a, b in zip(our_final, their_final, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_swap_ema_weights_restores_the_training_weights_after_predict_and_evaluate():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(1)])
    model.compile(optimizer=optimizers.SGD(0.1, use_ema=True, ema_momentum=0.9), loss="mse")
    model.train_on_batch(X, TARGET)
    model.train_on_batch(X, TARGET)
    before = model.get_weights()
    averages = [ops.convert_to_numpy(a) for a in model.optimizer._averages]
    swap = callbacks.SwapEMAWeights()
    with_averages = model.predict(X, verbose=0, callbacks=[swap])
    kernel, bias = averages
    np.testing.assert_allclose(with_averages, X @ kernel + bias, rtol=1e-5, atol=1e-6)
    model.evaluate(X, TARGET, verbose=0, callbacks=[swap])
    for now, then in zip(model.get_weights(), before, strict=True):
        np.testing.assert_array_equal(now, then)


def test_swap_ema_weights_without_ema_is_refused_clearly():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(1)])
    model.compile(optimizer=optimizers.SGD(0.1), loss="mse")
    with pytest.raises(ValueError, match="use_ema=True"):
        model.evaluate(X, TARGET, verbose=0, callbacks=[callbacks.SwapEMAWeights()])


def _two_outputs(lib):
    inp = lib.Input((4,))
    out1 = lib.layers.Dense(2, name="out1", kernel_initializer="ones")(inp)
    out2 = lib.layers.Dense(1, name="out2", kernel_initializer="ones")(inp)
    return lib.Model(inp, [out1, out2])


def test_per_output_losses_are_logged_only_when_several_outputs_have_one():
    y = [np.ones((24, 2), "float32"), TARGET]
    for losses, want in (([None, "mse"], ["loss"]), (["mse", "mse"], None)):
        keys = {}
        for name, lib in (("lamina", lamina), ("keras", keras)):
            model = _two_outputs(lib)
            model.compile(optimizer="sgd", loss=losses)
            keys[name] = sorted(model.fit(X, y, epochs=1, verbose=0).history)
        assert keys["lamina"] == keys["keras"]
        assert want is None or keys["lamina"] == want


def test_train_and_test_on_batch_report_that_batch_alone():
    # Keras 3 restarts the metrics on every *_on_batch call.
    y = [np.ones((24, 2), "float32"), TARGET]
    results = {}
    for name, lib in (("lamina", lamina), ("keras", keras)):
        model = _two_outputs(lib)
        model.compile(
            optimizer=lib.optimizers.SGD(0.01), loss=["mse", "mse"], metrics=[["mae"], []]
        )
        calls = [model.train_on_batch(X[:12], [t[:12] for t in y]) for _ in range(2)]
        calls += [model.test_on_batch(X[12:], [t[12:] for t in y]) for _ in range(2)]
        results[name] = np.array(calls, dtype="float64")
    np.testing.assert_allclose(results["lamina"], results["keras"], rtol=1e-5)
    np.testing.assert_allclose(results["lamina"][2], results["lamina"][3], rtol=1e-6)


def test_one_output_in_a_list_comes_back_bare_from_data_as_in_keras():
    def kinds(lib):
        inp = lib.Input((4,))
        model = lib.Model(inp, [lib.layers.Dense(2)(inp)])
        model.compile(optimizer="sgd", loss=["mse"])
        model.fit(X, ONE_HOT[:, :2], epochs=1, verbose=0)
        called = model(X)
        symbolic = model(lib.Input((4,)))
        return (
            isinstance(called, (list, tuple)),
            isinstance(model.predict(X, verbose=0), (list, tuple)),
            isinstance(model.predict_on_batch(X), (list, tuple)),
            isinstance(symbolic, (list, tuple)),
            tuple(np.shape(model.predict(X, verbose=0))),
        )

    assert kinds(lamina) == kinds(keras) == (False, False, False, True, (24, 2))


# The logs a user sees: keys sorted, values Python floats ------------------------------------
def _what_logs_show(lib):
    """Every place a user meets logs, as (where, keys in order, value types)."""
    seen = []

    class Spy(lib.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(("train_batch", list(logs), {type(v).__name__ for v in logs.values()}))

        def on_test_batch_end(self, batch, logs=None):
            seen.append(("test_batch", list(logs), {type(v).__name__ for v in logs.values()}))

        def on_epoch_end(self, epoch, logs=None):
            seen.append(("epoch", list(logs), {type(v).__name__ for v in logs.values()}))

        def on_test_end(self, logs=None):
            seen.append(("test_end", list(logs), {type(v).__name__ for v in logs.values()}))

        def on_predict_batch_end(self, batch, logs=None):
            seen.append(("predict_batch", list(logs), {type(v).__name__ for v in logs.values()}))

    inputs = lib.Input((4,))
    out1 = lib.layers.Dense(3, activation="softmax", name="out1")(inputs)
    model = lib.Model(inputs, [out1, lib.layers.Dense(1, name="out2")(inputs)])
    model.compile(
        optimizer="sgd",
        loss=["categorical_crossentropy", "mse"],
        metrics=[["accuracy", lib.metrics.AUC(name="zauc")], ["mae"]],
    )
    history = model.fit(
        X,
        [ONE_HOT, TARGET],
        batch_size=12,
        epochs=1,
        verbose=0,
        callbacks=[Spy()],
        validation_data=(X, [ONE_HOT, TARGET]),
    )
    evaluated = model.evaluate(X, [ONE_HOT, TARGET], verbose=0, return_dict=True)
    on_batch = model.train_on_batch(X, [ONE_HOT, TARGET], return_dict=True)
    single = lib.Sequential([lib.Input((4,)), lib.layers.Dense(1)])
    single.compile(optimizer="sgd", loss="mse")
    single.predict(X, batch_size=24, verbose=0, callbacks=[Spy()])
    return (
        [(where, keys, sorted(types)) for where, keys, types in seen],
        list(history.history),
        list(evaluated),
        list(on_batch),
    )


def test_logs_are_sorted_by_name_with_python_float_values_as_keras_shows_them():
    # Keras 3 passes every logs dict through `pythonify_logs`: keys sorted (so
    # 'accuracy' comes before 'loss', and a metric named after 'val_' after the
    # validation keys), values floats (a predict batch's outputs a NumPy array).
    ours, theirs = _what_logs_show(lamina), _what_logs_show(keras)
    assert ours == theirs
    assert theirs[1][:3] == ["loss", "out1_accuracy", "out1_loss"]


def test_a_lambda_callbacks_batch_hooks_get_python_floats_as_in_keras():
    # LambdaCallback sets its functions on the instance: the batch hooks' logs must
    # still become Python floats for it, as Keras 3 hands them (not engine tensors).
    def seen_types(fw):
        model = fw.Sequential([fw.Input((4,)), fw.layers.Dense(1)])
        model.compile("sgd", "mse", metrics=["mae"])
        seen = {}

        def record(name):
            return lambda batch, logs: seen.setdefault(name, set()).update(
                type(v) for v in logs.values()
            )

        cb = fw.callbacks.LambdaCallback(
            on_train_batch_end=record("train"),
            on_test_batch_end=record("test"),
        )
        model.fit(X, TARGET, batch_size=8, epochs=1, verbose=0, callbacks=[cb])
        model.evaluate(X, TARGET, batch_size=8, verbose=0, callbacks=[cb])
        return seen

    ours, theirs = seen_types(lamina), seen_types(keras)
    assert ours["train"] == theirs["train"] == {float}
    assert ours["test"] == theirs["test"] == {float}


def test_a_metric_whose_result_is_its_state_variable_trains():
    """Keras's guide "Training & evaluation with the built-in methods": a custom Metric
    returns its state Variable from `result()`; fit, evaluate and train_on_batch log
    its value (on JAX a compiled step cannot return the Variable itself)."""

    class CountPositives(lamina.metrics.Metric):
        def __init__(self, name="positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.count = self.add_variable(shape=(), name="count", initializer="zeros")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.count.assign_add(ops.sum(ops.cast(y_pred > 0, "float32")))

        def result(self):
            return self.count

    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(1, kernel_initializer="ones")])
    model.compile(optimizer="sgd", loss="mse", metrics=[CountPositives()])
    x = np.abs(X[:16])  # every output positive: the count is the number of samples seen
    history = model.fit(x, TARGET[:16], batch_size=8, epochs=1, shuffle=False, verbose=0)
    assert history.history["positives"] == [16.0]
    logs = model.evaluate(x[:8], TARGET[:8], verbose=0, return_dict=True)
    assert logs["positives"] == 8.0
