"""compile / fit options a Keras user relies on, each checked against its definition."""

import numpy as np
import pytest

import lamina
from lamina import Input, Model, Sequential, callbacks, layers, ops, optimizers

RNG = np.random.default_rng(0)
X = RNG.standard_normal((20, 4)).astype("float32")
Y = RNG.standard_normal((20, 1)).astype("float32")


def _model(units=1, activation=None):
    return Sequential([Input((4,)), layers.Dense(units, activation=activation)])


# "accuracy" / "crossentropy": the classic rule, with the shapes deciding where it is silent --
def _kind_name(metric):
    """The concrete class name, or for a metric the target shapes resolve, the one used."""
    kind = getattr(metric, "kind", None)
    if kind is None:
        return type(metric).__name__
    prefix = {"binary": "Binary", "sparse": "SparseCategorical", "categorical": "Categorical"}
    return prefix[kind] + type(metric).__name__.removesuffix("ByTargetShape")


@pytest.mark.parametrize(
    ("units", "activation", "loss", "accuracy", "crossentropy"),
    [
        (1, "sigmoid", "mse", "BinaryAccuracy", "BinaryCrossentropy"),  # last dim 1
        # A binary cross-entropy loss means binary accuracy (the classic rule;
        # Keras 3 would pick categorical here from the shapes).
        (3, "sigmoid", "binary_crossentropy", "BinaryAccuracy", "BinaryCrossentropy"),
        (
            3,
            "softmax",
            "sparse_categorical_crossentropy",
            "SparseCategoricalAccuracy",
            "SparseCategoricalCrossentropy",
        ),
        (
            3,
            "softmax",
            "categorical_crossentropy",
            "CategoricalAccuracy",
            "CategoricalCrossentropy",
        ),
    ],
    ids=["last_dim_1", "binary_loss", "sparse", "categorical"],
)
def test_accuracy_and_crossentropy_resolve_by_the_classic_rule(
    units, activation, loss, accuracy, crossentropy
):
    model = _model(units, activation)
    model.compile(optimizer=optimizers.SGD(0.0), loss=loss, metrics=["accuracy", "crossentropy"])
    if loss.startswith("sparse"):
        y = RNG.integers(0, units, (20,))
    elif loss.startswith("categorical"):
        y = np.eye(units, dtype="float32")[RNG.integers(0, units, (20,))]
    else:
        y = RNG.integers(0, 2, (20, units)).astype("float32")
    logs = model.evaluate(X, y, batch_size=20, verbose=0, return_dict=True)
    kinds = {m.name: _kind_name(m) for m in model.metrics[-1].metrics}  # compile_metrics
    assert kinds["accuracy"] == accuracy and kinds["crossentropy"] == crossentropy
    p = np.clip(model.predict(X, verbose=0), 1e-7, 1 - 1e-7)
    if accuracy == "BinaryAccuracy":
        want_acc = np.mean((p > 0.5) == y)
        want_ce = np.mean(-(y * np.log(p) + (1 - y) * np.log(1 - p)))
    elif accuracy == "SparseCategoricalAccuracy":
        want_acc = np.mean(p.argmax(-1) == y)
        want_ce = np.mean(-np.log(p[np.arange(20), y]))
    else:
        want_acc = np.mean(p.argmax(-1) == y.argmax(-1))
        want_ce = np.mean(-np.sum(y * np.log(p / p.sum(-1, keepdims=True)), -1))
    np.testing.assert_allclose(logs["accuracy"], want_acc, rtol=1e-6)
    np.testing.assert_allclose(logs["crossentropy"], want_ce, rtol=1e-4)


# jit_compile=False ---------------------------------------------------------------------
class _CountCalls(layers.Layer):
    calls = 0

    def call(self, x):
        type(self).calls += 1
        return x


# jit_compile=True counts Python runs of `call` as traces: JAX only (torch's compiled
# call is covered by test_torch_jit_compile.py).
@pytest.mark.parametrize(
    "jit_compile", [False, pytest.param(True, marks=pytest.mark.engine("jax"))]
)
def test_jit_compile_false_runs_each_step_in_python(jit_compile):
    _CountCalls.calls = 0
    model = Sequential([Input((4,)), _CountCalls(), layers.Dense(1)])
    model.compile(optimizer=optimizers.SGD(0.1), loss="mse", jit_compile=jit_compile)
    history = model.fit(X, Y, batch_size=4, epochs=1, verbose=0)  # 5 steps
    assert np.isfinite(history.history["loss"]).all()
    if jit_compile:
        assert _CountCalls.calls < 5  # traced once (plus building), not run per step
    else:
        assert model.run_eagerly and _CountCalls.calls >= 5


def test_jit_compile_false_matches_compiled_weights():
    weights = []
    for jit_compile in (False, "auto"):
        model = _model()
        model.set_weights([np.full((4, 1), 0.1, "float32"), np.zeros(1, "float32")])
        model.compile(optimizer=optimizers.SGD(0.1), loss="mse", jit_compile=jit_compile)
        model.fit(X, Y, batch_size=5, epochs=1, shuffle=False, verbose=0)
        weights.append(model.get_weights())
    for a, b in zip(*weights, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# loss_weights ---------------------------------------------------------------------------
def _two_outputs():
    inp = Input((4,), name="x")
    a = layers.Dense(2, name="a")(inp)
    b = layers.Dense(1, name="b")(inp)
    return Model(inp, [a, b])


@pytest.mark.parametrize("as_dict", [False, True], ids=["list", "dict"])
def test_loss_weights_scale_each_output_loss(as_dict):
    model = _two_outputs()
    weights = {"a": 0.3, "b": 2.0} if as_dict else [0.3, 2.0]
    model.compile(optimizer=optimizers.SGD(0.0), loss=["mse", "mae"], loss_weights=weights)
    ya = RNG.standard_normal((20, 2)).astype("float32")
    yb = RNG.standard_normal((20, 1)).astype("float32")
    logs = model.evaluate(X, [ya, yb], batch_size=20, verbose=0, return_dict=True)
    pa, pb = model.predict(X, verbose=0)
    mse = np.mean((pa - ya) ** 2)
    mae = np.mean(np.abs(pb - yb))
    np.testing.assert_allclose(logs["a_loss"], mse, rtol=1e-5)
    np.testing.assert_allclose(logs["b_loss"], mae, rtol=1e-5)
    np.testing.assert_allclose(logs["loss"], 0.3 * mse + 2.0 * mae, rtol=1e-5)


# Validation options ---------------------------------------------------------------------
class _CountValidation(callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.runs = []  # test batches per validation run

    def on_test_begin(self, logs=None):
        self.runs.append(0)

    def on_test_batch_end(self, batch, logs=None):
        self.runs[-1] += 1


@pytest.mark.parametrize(
    ("options", "runs", "val_epochs"),
    [
        ({}, [1, 1, 1], 3),  # validation_batch_size defaults to batch_size (32 > 20)
        ({"validation_batch_size": 6}, [4, 4, 4], 3),
        ({"validation_batch_size": 5, "validation_steps": 2}, [2, 2, 2], 3),
        ({"validation_freq": 2}, [1], 1),
        ({"validation_freq": [1, 3]}, [1, 1], 2),
    ],
    ids=["default", "batch_size", "steps", "freq_int", "freq_list"],
)
def test_validation_steps_batch_size_and_freq(options, runs, val_epochs):
    counter = _CountValidation()
    model = _model()
    model.compile(optimizer=optimizers.SGD(0.0), loss="mse")
    history = model.fit(
        X,
        Y,
        batch_size=32,
        epochs=3,
        validation_data=(X, Y),
        verbose=0,
        callbacks=[counter],
        **options,
    )
    assert counter.runs == runs
    assert len(history.history["val_loss"]) == val_epochs
    if "validation_steps" in options:
        # Two batches of 5: the mean over the first 10 samples only.
        pred = model.predict(X, verbose=0)
        want = np.mean((pred[:10] - Y[:10]) ** 2)
        np.testing.assert_allclose(history.history["val_loss"][-1], want, rtol=1e-5)


# ReduceLROnPlateau ----------------------------------------------------------------------
def test_reduce_lr_on_plateau_lowers_the_rate_inside_fit():
    model = _model()
    model.compile(optimizer=optimizers.SGD(0.01), loss="mse")
    # No improvement after the first epoch reaches min_delta, so from epoch 1 on each
    # epoch end halves the rate; the logs show the rate the epoch ran with, as in Keras.
    reduce = callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=1e3)
    history = model.fit(X, Y, batch_size=10, epochs=4, verbose=0, callbacks=[reduce])
    lr = float(ops.convert_to_numpy(model.optimizer.learning_rate))
    np.testing.assert_allclose(lr, 0.01 * 0.5**3, rtol=1e-5)
    np.testing.assert_allclose(
        history.history["learning_rate"], [0.01, 0.01, 0.005, 0.0025], rtol=1e-5
    )


# steps_per_execution with weights and a partial batch ------------------------------------
def test_steps_per_execution_with_class_and_sample_weights_matches_single_steps():
    labels = RNG.integers(0, 3, (23,))  # 23 = 5 batches of 4 + a partial one of 3
    x = RNG.standard_normal((23, 4)).astype("float32")
    sw = RNG.uniform(0.5, 2.0, (23,)).astype("float32")
    results = []
    for spe in (1, 4):
        model = _model(3, "softmax")
        model.set_weights([np.full((4, 3), 0.1, "float32"), np.zeros(3, "float32")])
        model.compile(
            optimizer=optimizers.SGD(0.1),
            loss="sparse_categorical_crossentropy",
            metrics=["accuracy"],
            steps_per_execution=spe,
        )
        lamina.utils.set_random_seed(1)  # the same shuffled order for both
        history = model.fit(
            x,
            labels,
            sample_weight=sw,
            class_weight={0: 2.0, 1: 0.5},
            batch_size=4,
            epochs=2,
            verbose=0,
        )
        results.append((model.get_weights(), history.history))
    (w1, h1), (w4, h4) = results
    for a, b in zip(w1, w4, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h1["loss"], h4["loss"], rtol=1e-5)
    np.testing.assert_allclose(h1["accuracy"], h4["accuracy"], rtol=1e-6)


# predict ----------------------------------------------------------------------------------
def test_predict_hooks_and_batching_with_verbose_0():
    model = _model(2)
    seen = []
    recorder = callbacks.LambdaCallback(
        on_predict_begin=lambda logs: seen.append("begin"),
        on_predict_batch_end=lambda batch, logs: seen.append(logs["outputs"].shape[0]),
        on_predict_end=lambda logs: seen.append("end"),
    )
    out = model.predict(X, batch_size=8, verbose=0, callbacks=[recorder])
    assert seen == ["begin", 8, 8, 4, "end"]
    want = X @ model.get_weights()[0] + model.get_weights()[1]
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    one = model.predict(X[:1], verbose=0)  # one batch: no callbacks, no concatenation
    assert isinstance(one, np.ndarray) and one.shape == (1, 2)
    np.testing.assert_allclose(one, want[:1], rtol=1e-5, atol=1e-6)


def test_run_eagerly_with_jit_compile_true_turns_jit_off_with_a_warning():
    # As Keras 3: the two contradict each other; the eager run wins.
    model = _model()
    with pytest.warns(UserWarning, match="jit_compile is turned off"):
        model.compile(optimizer=optimizers.SGD(0.1), loss="mse", run_eagerly=True, jit_compile=True)
    assert model.run_eagerly and model.jit_compile is False
    history = model.fit(X, Y, batch_size=5, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"]).all()


def test_model_loss_is_what_compile_was_given_as_in_keras(tmp_path):
    # Keras 3's compile keeps `model.loss = loss` (None before, unchanged by a compile
    # without a loss); a loaded model has the loss its file names.
    model = _model()
    assert model.loss is None
    mse = lamina.losses.MeanSquaredError()
    model.compile(optimizer="sgd", loss=mse)
    assert model.loss is mse
    model.compile(optimizer="sgd", loss={"dense": "mae"})
    assert model.loss == {"dense": "mae"}
    model.compile(optimizer="sgd", loss="mse")
    model.save(tmp_path / "m.keras")
    assert lamina.models.load_model(tmp_path / "m.keras").loss == "mse"
