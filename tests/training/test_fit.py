"""compile / fit / evaluate / predict: behaviour a Keras user relies on."""

import numpy as np
import pytest

import lamina
from lamina import Input, Model, Sequential, callbacks, layers, losses, metrics, ops, optimizers


def _regression_data(n=128, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype("float32")
    w = np.array([[1.0], [-2.0], [0.5], [3.0]], "float32")
    return x, x @ w + 0.1


def _classification_data(n=192, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((classes, 4)) * 3
    y = rng.integers(0, classes, size=n)
    x = (centers[y] + rng.standard_normal((n, 4))).astype("float32")
    return x, y.astype("int32")


def _mlp(out=1, activation=None):
    return Sequential(
        [Input((4,)), layers.Dense(8, activation="relu"), layers.Dense(out, activation=activation)]
    )


def test_fit_reduces_loss_and_returns_history():
    x, y = _regression_data()
    model = _mlp()
    model.compile(optimizer=optimizers.Adam(0.02), loss="mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=16, epochs=8, verbose=0)
    assert isinstance(history, callbacks.History)
    assert set(history.history) == {"loss", "mae"}
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    assert history.epoch == list(range(8))
    assert int(model.optimizer.iterations.numpy()) == 8 * 8


def test_accuracy_rule_and_classifier_learns():
    x, y = _classification_data()
    model = _mlp(3, "softmax")
    model.compile(
        optimizer=optimizers.Adam(0.01),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    # As in Keras 3, `compile_metrics` is listed from `compile` on (not built yet).
    assert model.metrics_names == ["loss", "compile_metrics"]
    history = model.fit(x, y, batch_size=32, epochs=10, verbose=0)
    # As in Keras 3: the compiled metrics sit in one `compile_metrics` metric.
    assert model.metrics_names == ["loss", "compile_metrics"]
    assert type(model.metrics[-1].metrics[-1]).__name__ == "SparseCategoricalAccuracy"
    assert history.history["accuracy"][-1] > 0.9
    loss, acc = model.evaluate(x, y, verbose=0)
    assert acc > 0.9 and loss < history.history["loss"][0]
    onehot = np.eye(3, dtype="float32")[y]
    model2 = _mlp(3, "softmax")
    model2.compile(loss="categorical_crossentropy", metrics=["acc"])
    model2.fit(x, onehot, epochs=1, verbose=0)
    assert type(model2.metrics[-1].metrics[-1]).__name__ == "CategoricalAccuracy"
    model3 = _mlp(1, "sigmoid")
    model3.compile(loss="mse", metrics=["accuracy"])
    model3.fit(x, (y > 0).astype("float32"), epochs=1, verbose=0)
    assert type(model3.metrics[-1].metrics[-1]).__name__ == "BinaryAccuracy"


def test_validation_split_takes_the_last_fraction():
    x, y = _regression_data(100)
    seen = {}

    class Spy(callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            seen.update(logs)

    model = _mlp()
    model.compile(loss="mse")
    model.fit(x, y, epochs=1, validation_split=0.2, verbose=0, callbacks=[Spy()])
    expected_val = model.evaluate(x[80:], y[80:], verbose=0)
    assert "val_loss" in seen
    np.testing.assert_allclose(seen["val_loss"], expected_val, rtol=1e-5)
    history = model.fit(x, y, epochs=2, validation_data=(x[:10], y[:10]), verbose=0)
    assert set(history.history) == {"loss", "val_loss"} and len(history.history["val_loss"]) == 2


def test_sample_and_class_weights_follow_keras_definition():
    x = np.ones((4, 1), "float32")
    y = np.array([[0.0], [1.0], [2.0], [3.0]], "float32")
    model = Sequential([Input((1,)), layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer="sgd", loss="mse")
    per_sample = y[:, 0] ** 2
    sw = np.array([1.0, 0.0, 2.0, 0.5], "float32")
    result = model.evaluate(x, y, sample_weight=sw, batch_size=4, verbose=0)
    np.testing.assert_allclose(result, (per_sample * sw).sum() / 4, rtol=1e-6)
    labels = np.array([0, 1, 1, 0])
    clf = Sequential(
        [Input((1,)), layers.Dense(2, kernel_initializer="zeros", activation="softmax")]
    )
    clf.compile(optimizer=optimizers.SGD(0.0), loss="sparse_categorical_crossentropy")
    logs = clf.train_on_batch(x, labels, class_weight={0: 1.0, 1: 3.0}, return_dict=True)
    # each sample's loss is log(2); weighted sum / batch size = log 2 * (1+3+3+1) / 4
    np.testing.assert_allclose(logs["loss"], np.log(2) * 2.0, rtol=1e-5)


def test_callbacks_fire_in_order_with_logs():
    events = []

    class Recorder(callbacks.Callback):
        def __getattribute__(self, name):
            if name.startswith("on_"):

                def hook(*args, **kwargs):
                    logs = args[-1] if args and isinstance(args[-1], dict) else kwargs.get("logs")
                    events.append((name, sorted(logs) if logs else None))

                return hook
            return super().__getattribute__(name)

    x, y = _regression_data(32)
    model = _mlp()
    model.compile(loss="mse", metrics=["mae"])
    model.fit(
        x, y, batch_size=16, epochs=2, validation_data=(x, y), verbose=0, callbacks=[Recorder()]
    )
    names = [e[0] for e in events]
    assert names[0] == "on_train_begin" and names[-1] == "on_train_end"
    epoch_1 = names[1 : names.index("on_epoch_end") + 1]
    assert epoch_1[:3] == ["on_epoch_begin", "on_train_batch_begin", "on_train_batch_end"]
    # Validation runs after the training batches and fires the test hooks, as in Keras.
    assert epoch_1[-7:] == [
        "on_test_begin",
        "on_test_batch_begin",
        "on_test_batch_end",
        "on_test_batch_begin",
        "on_test_batch_end",
        "on_test_end",
        "on_epoch_end",
    ]
    assert epoch_1.count("on_train_batch_end") == 2 and epoch_1.count("on_test_batch_end") == 2
    assert dict(events)["on_test_batch_end"] == ["loss", "mae"]
    assert dict(events)["on_test_end"] == ["loss", "mae"]  # not prefixed: evaluate's logs
    end_logs = dict(events)["on_epoch_end"]
    assert end_logs == ["loss", "mae", "val_loss", "val_mae"]
    assert dict(events)["on_train_batch_end"] == ["loss", "mae"]


def test_early_stopping_restores_best_weights():
    x, y = _regression_data(64)
    model = _mlp()
    model.compile(optimizer=optimizers.SGD(0.01), loss="mse")
    snapshots = []

    class Snap(callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            snapshots.append((logs["loss"], [w.copy() for w in self.model.get_weights()]))

    class Worsen(callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 2:
                self.model.optimizer.learning_rate = 5.0  # diverge after epoch 3

    stopper = callbacks.EarlyStopping(monitor="loss", patience=1, restore_best_weights=True)
    model.fit(x, y, epochs=20, verbose=0, callbacks=[Snap(), Worsen(), stopper])
    assert stopper.stopped_epoch > 0 and len(snapshots) < 20
    best = min(snapshots, key=lambda s: s[0])[1]
    for got, want in zip(model.get_weights(), best, strict=True):
        np.testing.assert_allclose(got, want)


def _fit_weights(spe, shuffle=False, epochs=2):
    lamina.utils.set_random_seed(5)
    x, y = _regression_data(80)
    model = _mlp()
    model.compile(optimizer="adam", loss="mse", metrics=["mae"], steps_per_execution=spe)
    hist = model.fit(x, y, batch_size=16, epochs=epochs, verbose=0, shuffle=shuffle)
    return model.get_weights(), hist.history


def test_steps_per_execution_matches_single_steps():
    w1, h1 = _fit_weights(1)
    w3, h3 = _fit_weights(3)  # 5 batches: one chunk of 3, then 2 single steps
    for a, b in zip(w1, w3, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h1["loss"], h3["loss"], rtol=1e-5)
    ws, _ = _fit_weights(2, shuffle=True)
    wt, _ = _fit_weights(1, shuffle=True)
    for a, b in zip(ws, wt, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_run_eagerly_matches_compiled():
    lamina.utils.set_random_seed(1)
    x, y = _regression_data(32)
    weights = None
    results = []
    for eager in (False, True):
        model = _mlp()
        if weights is None:
            weights = model.get_weights()
        model.set_weights(weights)
        model.compile(optimizer="adam", loss="mse", run_eagerly=eager)
        model.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False)
        results.append(model.get_weights())
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# Counts Python runs of `call` as traces: on torch every eager step runs it.
@pytest.mark.engine("jax")
def test_no_recompilation_between_epochs_or_fit_calls():
    traces = []

    class Counting(layers.Layer):
        def call(self, x):
            traces.append(1)
            return x

    x, y = _regression_data(64)
    model = Sequential([Input((4,)), Counting(), layers.Dense(1)])
    model.compile(loss="mse")
    model.fit(x, y, batch_size=16, epochs=3, verbose=0)
    after_first = len(traces)
    model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    assert len(traces) == after_first


def test_multi_input_multi_output_with_dicts():
    a, b = Input((3,), name="a"), Input((2,), name="b")
    h = layers.Concatenate()([a, b])
    model = Model(
        {"a": a, "b": b},
        {
            "reg": layers.Dense(1, name="reg")(h),
            "cls": layers.Dense(2, activation="softmax", name="cls")(h),
        },
    )
    model.compile(
        optimizer="adam",
        loss={"reg": "mse", "cls": "sparse_categorical_crossentropy"},
        loss_weights={"reg": 1.0, "cls": 0.5},
        metrics={"cls": ["accuracy"]},
    )
    rng = np.random.default_rng(0)
    xa, xb = (
        rng.standard_normal((32, 3)).astype("float32"),
        rng.standard_normal((32, 2)).astype("float32"),
    )
    targets = {"reg": rng.standard_normal((32, 1)).astype("float32"), "cls": rng.integers(0, 2, 32)}
    history = model.fit({"a": xa, "b": xb}, targets, epochs=2, batch_size=8, verbose=0)
    assert {"loss", "reg_loss", "cls_loss", "cls_accuracy"} <= set(history.history)
    logs = model.evaluate({"a": xa, "b": xb}, targets, verbose=0, return_dict=True)
    np.testing.assert_allclose(logs["loss"], logs["reg_loss"] + 0.5 * logs["cls_loss"], rtol=1e-4)
    preds = model.predict({"a": xa, "b": xb}, batch_size=10, verbose=0)
    assert set(preds) == {"reg", "cls"} and preds["cls"].shape == (32, 2)
    with pytest.raises(ValueError, match=r"keys \['nope'\] that match no output.*\['cls', 'reg'\]"):
        model.fit({"a": xa, "b": xb}, {"nope": targets["reg"]}, verbose=0)
    with pytest.raises(ValueError, match=r"expects inputs named \['a', 'b'\]"):
        model.predict({"a": xa, "c": xb}, verbose=0)


def test_list_outputs_predict_structure_and_on_batch_methods():
    x = Input((4,))
    model = Model(x, [layers.Dense(1)(x), layers.Dense(2)(x)])
    model.compile(loss=["mse", "mse"])
    data = np.ones((5, 4), "float32")
    out = model.predict(data, batch_size=2, verbose=0)
    assert isinstance(out, list) and out[0].shape == (5, 1) and out[1].shape == (5, 2)
    result = model.train_on_batch(data, [np.ones((5, 1)), np.ones((5, 2))])
    assert len(result) == 3
    assert model.test_on_batch(
        data, [np.ones((5, 1)), np.ones((5, 2))], return_dict=True
    ).keys() >= {"loss"}
    assert model.predict_on_batch(data)[1].shape == (5, 2)


def test_generators_and_pydataset():
    x, y = _regression_data(64)

    def gen():
        while True:
            for i in range(0, 64, 16):
                yield x[i : i + 16], y[i : i + 16]

    model = _mlp()
    model.compile(loss="mse")
    history = model.fit(gen(), steps_per_epoch=4, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2

    class Data(lamina.utils.PyDataset):
        def __init__(self):
            super().__init__()
            self.epochs_ended = 0

        def __len__(self):
            return 4

        def __getitem__(self, i):
            return x[i * 16 : (i + 1) * 16], y[i * 16 : (i + 1) * 16], np.ones(16, "float32")

        def on_epoch_end(self):
            self.epochs_ended += 1

    data = Data()
    model.fit(data, epochs=3, verbose=0)
    assert data.epochs_ended == 3
    assert isinstance(model.evaluate(data, verbose=0), float)
    assert model.predict(iter([x[:5], x[5:9]]), verbose=0).shape == (9, 1)


def test_learning_rate_settable_and_schedules():
    x, y = _regression_data(32)
    model = _mlp()
    schedule = optimizers.schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)
    model.compile(optimizer=optimizers.SGD(schedule), loss="mse")
    model.fit(x, y, batch_size=32, epochs=3, verbose=0)
    np.testing.assert_allclose(float(model.optimizer.learning_rate), 0.1 * 0.5**3, rtol=1e-5)
    model2 = _mlp()
    model2.compile(optimizer=optimizers.SGD(0.1), loss="mse")
    model2.optimizer.learning_rate = 0.01
    model2.fit(
        x, y, epochs=1, verbose=0, callbacks=[callbacks.LearningRateScheduler(lambda e, lr: lr / 2)]
    )
    np.testing.assert_allclose(float(model2.optimizer.learning_rate), 0.005, rtol=1e-6)


def test_regularization_losses_join_the_total_loss():
    x = np.ones((4, 2), "float32")
    y = np.zeros((4, 1), "float32")
    model = Sequential(
        [
            Input((2,)),
            layers.Dense(
                1, kernel_initializer="ones", kernel_regularizer=lamina.regularizers.L2(0.1)
            ),
        ]
    )
    model.compile(optimizer="sgd", loss="mse")
    # mse = (1+1)^2 = 4; L2 = 0.1 * (1 + 1)
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), 4.2, rtol=1e-5)


def test_metric_and_loss_objects_accepted():
    x, y = _classification_data(64)
    model = _mlp(3)
    model.compile(
        optimizer=optimizers.RMSprop(),
        loss=losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=[
            metrics.SparseCategoricalAccuracy(name="acc"),
            "sparse_top_k_categorical_accuracy",
        ],
        weighted_metrics=["sparse_categorical_accuracy"],
    )
    history = model.fit(x, y, epochs=1, verbose=0)
    assert {"loss", "acc"} <= set(history.history)


BAD_INPUTS = [
    ("counts", lambda m, x, y: m.fit(x, y[:10], verbose=0), ValueError, r"x has 64, y has 10"),
    (
        "batch",
        lambda m, x, y: m.fit(x, y, batch_size=0, verbose=0),
        ValueError,
        "batch_size must be a positive int",
    ),
    (
        "split",
        lambda m, x, y: m.fit(x, y, validation_split=1.0, verbose=0),
        ValueError,
        r"validation_split must be in \[0, 1\)",
    ),
    (
        "object",
        lambda m, x, y: m.fit(x.astype(object), y, verbose=0),
        TypeError,
        "x has dtype object",
    ),
    ("strings", lambda m, x, y: m.fit(x, y.astype(str), verbose=0), TypeError, "y has dtype <U"),
    ("inputs", lambda m, x, y: m.fit([x, x], y, verbose=0), ValueError, r"expects 1 input\(s\)"),
    (
        "outputs",
        lambda m, x, y: m.fit(x, [y, y], verbose=0),
        ValueError,
        r"has 1 output .*but y has 2 entries",
    ),
]


@pytest.mark.parametrize("name, call, error, match", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_errors(name, call, error, match):
    x, y = _classification_data(64)
    model = _mlp(3, "softmax")
    model.compile(loss="sparse_categorical_crossentropy")
    with pytest.raises(error, match=match):
        call(model, x, y)


def test_fit_before_compile():
    with pytest.raises(RuntimeError, match="must call `compile"):
        _mlp().fit(np.ones((2, 4)), np.ones((2, 1)))


def test_sparse_labels_out_of_range_and_wrong_target_kinds():
    x, y = _classification_data(64)
    model = _mlp(3, "softmax")
    model.compile(loss="sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match="out of range"):
        model.fit(x, np.where(y == 0, 7, y), verbose=0)
    with pytest.raises(ValueError, match="CategoricalCrossentropy"):
        model.fit(x, np.eye(3)[y], verbose=0)
    model2 = _mlp(3, "softmax")
    model2.compile(loss="categorical_crossentropy")
    with pytest.raises(ValueError, match="SparseCategoricalCrossentropy"):
        model2.fit(x, y, verbose=0)


def test_stop_training_and_terminate_on_nan():
    x, y = _regression_data(64)
    model = _mlp()
    model.compile(optimizer=optimizers.SGD(1e6), loss="mse")
    history = model.fit(
        x, y * 1e6, epochs=5, batch_size=8, verbose=0, callbacks=[callbacks.TerminateOnNaN()]
    )
    assert model.stop_training and len(history.history.get("loss", [])) <= 1


def test_initial_epoch_validation_freq_and_batch_shuffle():
    x, y = _regression_data(64)
    model = _mlp()
    model.compile(loss="mse")
    history = model.fit(
        x,
        y,
        epochs=4,
        initial_epoch=1,
        validation_data=(x, y),
        validation_freq=2,
        shuffle="batch",
        verbose=0,
    )
    assert history.epoch == [1, 2, 3]
    assert len(history.history["loss"]) == 3 and len(history.history["val_loss"]) == 2


def test_summary_of_a_graph_shows_connections_and_counts():
    a, b = Input((3,), name="a"), Input((3,), name="b")
    shared = layers.Dense(2, name="shared")
    out = layers.Add(name="sum")([shared(a), shared(b)])
    model = Model([a, b], out, name="graph")
    lines = []
    model.summary(print_fn=lines.append, line_length=100)
    text = "\n".join(lines)
    assert 'Model: "graph"' in text and "Connected to" in text
    # Keras's "Connected to" column wraps the two connections at this width.
    assert "a[0][0]" in text and "│ shared[0][0],  " in text and "│ shared[1][0]  " in text
    assert "Total params: 8 (32.00 B)" in text and "Trainable params: 8" in text
    assert all(len(line) <= 100 for line in lines[1:-3])


def test_masked_timesteps_count_in_neither_loss_nor_metrics():
    tokens = np.array([[3, 1, 0, 0], [2, 4, 5, 0]])
    targets = np.array([[1, 0, 1, 1], [0, 1, 1, 0]], "float32")[..., None]
    x = Input((4,), dtype="int32")
    h = layers.Embedding(6, 3, mask_zero=True)(x)
    out = layers.Dense(1, activation="sigmoid")(h)
    model = Model(x, out)
    model.compile(loss="binary_crossentropy", metrics=["accuracy"])
    logs = model.evaluate(tokens, targets, batch_size=2, verbose=0, return_dict=True)
    p = np.clip(ops.convert_to_numpy(model.predict(tokens, verbose=0))[..., 0], 1e-7, 1 - 1e-7)
    t = targets[..., 0]
    valid = tokens != 0
    bce = -(t * np.log(p) + (1 - t) * np.log(1 - p))
    np.testing.assert_allclose(logs["loss"], bce[valid].mean(), rtol=1e-4)
    np.testing.assert_allclose(logs["accuracy"], ((p > 0.5) == t)[valid].mean(), rtol=1e-6)


def test_variables_written_back_before_batch_callbacks():
    x, y = _regression_data(32)
    model = _mlp()
    model.compile(optimizer=optimizers.SGD(0.01), loss="mse")
    seen = []

    class Reader(callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(
                (int(self.model.optimizer.iterations.numpy()), self.model.get_weights()[0].copy())
            )

    model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[Reader()])
    assert [s[0] for s in seen] == [1, 2, 3, 4]
    assert all(not np.array_equal(a[1], b[1]) for a, b in zip(seen, seen[1:]))
    np.testing.assert_array_equal(seen[-1][1], model.get_weights()[0])
