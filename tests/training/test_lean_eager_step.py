"""The eager (torch) step's short cuts give the same results as the general paths.

Each short cut taken for speed on the stateful engine (in-place counter updates, the
fused cross-entropy, `Dense`'s fused GEMM, the remembered input-spec check, the
autocast test) is checked here against an independent reference or the general path,
on both engines.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import backend, layers, ops


def _np(x):
    return ops.convert_to_numpy(x)


def test_assign_add_and_sub_update_in_place_with_the_right_value():
    v = backend.Variable(np.array([1.0, 2.0], "float32"), trainable=False)
    storage = v._value
    v.assign_add(np.array([0.5, 0.5], "float32"))
    v.assign_sub(np.array([2.0, 0.0], "float32"))
    v.assign_add(3)
    np.testing.assert_allclose(_np(v.value), [2.5, 5.5])
    if backend.backend() == "torch":
        assert v._value is storage  # the same parameter tensor, written in place


def test_assign_add_inside_a_stateless_scope_leaves_the_variable_alone():
    v = backend.Variable(np.array(1.0, "float32"), trainable=False)
    with backend.StatelessScope([(v, ops.convert_to_tensor(np.array(10.0, "float32")))]) as s:
        v.assign_add(np.array(5.0, "float32"))
        np.testing.assert_allclose(_np(s.get_current_value(v)), 15.0)
    np.testing.assert_allclose(_np(v.value), 1.0)


def test_assign_add_broadcasting_a_smaller_value_takes_the_general_path():
    v = backend.Variable(np.zeros((2, 2), "float32"), trainable=False)
    v.assign_add(np.array([1.0, 2.0], "float32"))
    np.testing.assert_allclose(_np(v.value), [[1.0, 2.0], [1.0, 2.0]])


def test_integer_counter_counts():
    v = backend.Variable(np.array(0, "int64"), trainable=False, dtype="int64")
    for _ in range(3):
        v.assign_add(1)
    v.assign_sub(1)
    assert int(_np(v.value)) == 2
    v.assign_add(2.0)  # a float number is converted to the variable's dtype first
    assert int(_np(v.value)) == 4 and ops.dtype(v.value) == v.dtype


def _log_softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


@pytest.mark.parametrize("labels", [[0, 3, 1, 2, 2], [0, 4, 1, -1, 2]], ids=["in", "out"])
def test_sparse_crossentropy_on_logits_matches_numpy(labels):
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(5, 4)).astype("float32")
    labels = np.array(labels, "int32")
    got = _np(ops.sparse_categorical_crossentropy(labels, logits, from_logits=True))
    valid = (labels >= 0) & (labels < 4)
    picked = -_log_softmax(logits.astype("float64"))[np.arange(5), np.where(valid, labels, 0)]
    np.testing.assert_allclose(got, np.where(valid, picked, 0.0), rtol=1e-5, atol=1e-6)


def test_sparse_crossentropy_gradient_is_softmax_minus_one_hot():
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(3, 4)).astype("float32")
    labels = np.array([2, 0, 3], "int32")
    loss_fn = lamina.losses.SparseCategoricalCrossentropy(from_logits=True)
    z = ops.convert_to_tensor(logits)
    if backend.backend() == "torch":
        z = z.clone().requires_grad_(True)
        loss_fn(labels, z).backward()
        grad = z.grad.numpy()
    else:
        import jax

        grad = np.asarray(jax.grad(lambda t: loss_fn(labels, t))(z))
    softmax = np.exp(_log_softmax(logits.astype("float64")))
    np.testing.assert_allclose(grad, (softmax - np.eye(4)[labels]) / 3, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 5)], ids=["2d", "3d"])
def test_dense_matches_numpy(shape):
    rng = np.random.default_rng(2)
    x = rng.normal(size=shape).astype("float32")
    dense = layers.Dense(4, activation="relu", bias_initializer="random_normal")
    y = _np(dense(x))
    kernel, bias = (_np(w) for w in dense.weights)
    np.testing.assert_allclose(y, np.maximum(x @ kernel + bias, 0.0), rtol=1e-5, atol=1e-6)


def test_input_spec_is_checked_again_after_the_shape_changes():
    dense = layers.Dense(2)
    dense(np.zeros((2, 3), "float32"))
    dense(np.zeros((2, 3), "float32"))  # the remembered pass
    with pytest.raises(ValueError, match="last dimension 3"):
        dense(np.zeros((2, 4), "float32"))
    dense.input_spec = layers.InputSpec(ndim=3)  # a new spec: checked again
    with pytest.raises(ValueError, match="rank 3"):
        dense(np.zeros((2, 3), "float32"))


def test_a_float32_input_is_not_cast_again(monkeypatch):
    dense = layers.Dense(2)
    x = ops.convert_to_tensor(np.ones((2, 3), "float32"))
    dense(x)
    calls = []
    real = backend.core.cast
    monkeypatch.setattr(backend.core, "cast", lambda *a, **k: calls.append(a) or real(*a, **k))
    dense(x)
    assert calls == []
    dense(ops.convert_to_tensor(np.ones((2, 3), "float16")))
    assert len(calls) == 1  # float16 input is cast to the layer's float32


def test_loss_weights_still_weight_the_loss():
    x = np.ones((4, 2), "float32")
    y = np.ones((4, 1), "float32")
    model = lamina.Sequential([layers.Input((2,)), layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer="sgd", loss="mse", loss_weights=3.0)
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), 3.0, rtol=1e-6)


def test_stateful_is_found_in_nested_models_and_predict_does_not_rewalk(monkeypatch):
    inner = lamina.Sequential(
        [layers.Input((3, 2), batch_size=2), layers.SimpleRNN(2, stateful=True)]
    )
    outer = lamina.Sequential([layers.Input((3, 2), batch_size=2), inner, layers.Dense(1)])
    plain = lamina.Sequential([layers.Input((2,)), layers.Dense(1)])
    assert outer.stateful and inner.stateful and not plain.stateful
    x = np.ones((2, 2), "float32")
    plain.predict(x, verbose=0)
    walks = []
    real = layers.Layer._flatten_layers
    monkeypatch.setattr(
        layers.Layer, "_flatten_layers", lambda *a, **k: walks.append(1) or real(*a, **k)
    )
    for _ in range(3):
        plain.predict(x, verbose=0)
    assert walks == []  # the walk kept per structure version answers


class _ReadsBatchLogs(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_train_batch_end(self, batch, logs=None):
        self.seen.append(dict(logs))


def _trained_history(callbacks):
    lamina.utils.set_random_seed(3)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 3)).astype("float32")
    y = rng.integers(0, 2, size=40)
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(2)])
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0, callbacks=callbacks)
    return history.history, model.evaluate(x, y, verbose=0, return_dict=True)


def test_epoch_logs_are_the_same_whether_or_not_a_callback_reads_batch_logs():
    reader = _ReadsBatchLogs()
    with_reader = _trained_history([reader])
    without = _trained_history([])
    assert with_reader[0].keys() == without[0].keys() == {"loss", "accuracy"}
    for key in without[0]:
        np.testing.assert_allclose(with_reader[0][key], without[0][key], rtol=1e-6)
    np.testing.assert_allclose(with_reader[1]["loss"], without[1]["loss"], rtol=1e-6)
    # A callback that reads each batch's logs gets them in full, on every engine.
    assert len(reader.seen) == 10 and set(reader.seen[-1]) == {"loss", "accuracy"}
    np.testing.assert_allclose(reader.seen[-1]["loss"], with_reader[0]["loss"][-1], rtol=1e-6)


def test_a_train_step_override_gets_compute_metrics_results_inside_fit():
    seen = []

    class Model(lamina.Model):
        def train_step(self, *args):
            out = super().train_step(*args)  # (logs, state) on JAX, logs on torch
            seen.append(set(out[0] if isinstance(out, tuple) else out))
            return out

    inputs = layers.Input((3,))
    model = Model(inputs, layers.Dense(2)(inputs))
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(np.ones((8, 3), "float32"), np.zeros(8, "int32"), batch_size=4, verbose=0)
    assert seen and all(keys == {"loss", "accuracy"} for keys in seen)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_take_with_host_indices_matches_numpy(dtype):
    x = np.arange(24, dtype="float32").reshape(4, 6)
    rows = np.array([3, -1, 0, 3], dtype)
    np.testing.assert_array_equal(_np(ops.take(x, rows, axis=0)), np.take(x, rows, axis=0))
    cols = np.array([-6, 5], dtype)
    np.testing.assert_array_equal(_np(ops.take(x, cols, axis=1)), np.take(x, cols, axis=1))


def test_sparse_crossentropy_takes_integer_or_float_labels_alike():
    logits = np.array([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]], "float32")
    loss = lamina.losses.SparseCategoricalCrossentropy(from_logits=True)
    expected = -np.mean(_log_softmax(logits.astype("float64"))[[0, 1], [1, 2]])
    for labels in (np.array([1, 2], "int32"), np.array([1, 2], "int64"), np.array([1.0, 2.0])):
        np.testing.assert_allclose(_np(loss(labels, logits)), expected, rtol=1e-6)


class _ReadsTestBatchLogs(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_test_batch_end(self, batch, logs=None):
        self.seen.append(dict(logs))


def _classifier():
    lamina.utils.set_random_seed(3)
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(2)])
    model.compile(
        "adam",
        lamina.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model


def test_evaluate_gives_the_same_logs_whether_or_not_a_callback_reads_batch_logs():
    # With no callback reading a batch's logs, the default stateful test step skips
    # them (torch); the pass's logs, read from the metrics at its end, are the same, and
    # a callback that reads them gets each batch's running means, in any order of calls.
    rng = np.random.default_rng(4)
    x = rng.normal(size=(40, 3)).astype("float32")
    y = rng.integers(0, 2, size=40)
    model = _classifier()
    kernel, bias = model.layers[0].get_weights()
    logits = x.astype("float64") @ kernel + bias
    losses = -_log_softmax(logits)[np.arange(40), y]
    right = (logits.argmax(1) == y).astype("float64")
    expected = {"loss": losses.mean(), "accuracy": right.mean()}
    for _ in range(2):  # unread, read, then unread and read again
        without = model.evaluate(x, y, batch_size=8, verbose=0, return_dict=True)
        reader = _ReadsTestBatchLogs()
        with_reader = model.evaluate(
            x, y, batch_size=8, verbose=0, return_dict=True, callbacks=[reader]
        )
        for logs in (without, with_reader):
            assert set(logs) == set(expected)
            for key, value in expected.items():
                np.testing.assert_allclose(logs[key], value, rtol=1e-5)
        assert len(reader.seen) == 5
        for i, seen in enumerate(reader.seen):
            rows = slice(0, 8 * (i + 1))
            np.testing.assert_allclose(seen["loss"], losses[rows].mean(), rtol=1e-5)
            np.testing.assert_allclose(seen["accuracy"], right[rows].mean(), rtol=1e-5)
    if backend.backend() == "torch":  # each pass ran its own captured step
        record = model._runtime
        assert record.evaluation_unread.graph_count == record.evaluation.graph_count == 1
    # Validation inside `fit` (fit's own callback list, no reader): the same figures.
    history = model.fit(
        x[:8], y[:8], epochs=1, verbose=0, validation_data=(x, y), validation_batch_size=8
    )
    kernel, bias = model.layers[0].get_weights()
    logits = x.astype("float64") @ kernel + bias
    val_loss = -_log_softmax(logits)[np.arange(40), y].mean()
    np.testing.assert_allclose(history.history["val_loss"][0], val_loss, rtol=1e-5)


def test_an_overridden_test_step_or_compute_metrics_still_gets_logs_in_evaluate():
    seen = []

    class Model(lamina.Model):
        def compute_metrics(self, *args, **kwargs):
            logs = super().compute_metrics(*args, **kwargs)
            seen.append(set(logs))
            return logs

    inputs = layers.Input((3,))
    model = Model(inputs, layers.Dense(2)(inputs))
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    logs = model.evaluate(np.ones((8, 3), "float32"), np.zeros(8, "int32"), batch_size=4, verbose=0)
    assert len(logs) == 2
    assert seen and all(keys == {"loss", "accuracy"} for keys in seen)
