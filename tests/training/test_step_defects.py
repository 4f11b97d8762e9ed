"""Defects of the training step that Keras 3's step API fixes (issue 12).

Each test pins what Keras 3 (JAX backend) does on the same small program; the numbers
were checked by running it there.
"""

import numpy as np
import pytest

import lamina
from lamina import callbacks, constraints, layers, ops, optimizers


def _constrained_dense():
    dense = layers.Dense(
        2,
        use_bias=False,
        kernel_constraint=constraints.MinMaxNorm(min_value=0.0, max_value=1.0, rate=0.5),
    )
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, dense(inputs))
    kernel = np.zeros((3, 2), "float32")
    kernel[0, 0] = 3.0
    kernel[1, 1] = 3.0  # both column norms 3.0
    dense.set_weights([kernel])
    # A zero learning rate: only the constraint can move the kernel.
    model.compile(optimizer=optimizers.SGD(learning_rate=0.0), loss="mse")
    return model, dense


@pytest.mark.parametrize("how", ["train_on_batch", "fit"])
def test_constraint_applied_once_per_step(how):
    model, dense = _constrained_dense()
    x, y = np.ones((4, 3), "float32"), np.ones((4, 2), "float32")
    if how == "train_on_batch":
        model.train_on_batch(x, y)
    else:
        model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    norms = np.linalg.norm(ops.convert_to_numpy(dense.kernel.value), axis=0)
    # Keras 3: [2.0, 2.0], half way from 3.0 to the bound 1.0. Applying the constraint
    # twice (after the optimizer's update and again in the step) gives 1.5.
    np.testing.assert_allclose(norms, [2.0, 2.0], rtol=1e-5)


# Counts traces (Python runs of `call` under jax.jit) as compiles.
@pytest.mark.engine("jax")
def test_train_step_runs_the_model_once_for_its_output_masks():
    calls = [0]

    class CountsCalls(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, x, mask=None):
            calls[0] += 1  # once per forward pass traced
            return x * 2.0

    inputs = lamina.Input((None,), dtype="int32")
    hidden = layers.Embedding(10, 4, mask_zero=True)(inputs)
    outputs = layers.Dense(1)(CountsCalls()(hidden))
    model = lamina.Model(inputs, outputs)
    assert outputs._keras_mask is not None  # the output carries the mask to the loss
    model.compile(optimizer="sgd", loss="mse")
    x5 = np.array([[1, 2, 3, 0, 0], [4, 5, 0, 0, 0]])
    x7 = np.array([[1, 2, 3, 0, 0, 0, 0], [4, 5, 6, 7, 0, 0, 0]])
    model.train_on_batch(x5, np.ones((2, 5, 1), "float32"))  # builds, traces once
    before = calls[0]
    model.train_on_batch(x7, np.ones((2, 7, 1), "float32"))  # a new length: one new trace
    traced = calls[0] - before
    model.train_on_batch(x7, np.ones((2, 7, 1), "float32"))  # cached: no trace
    # Keras 3: 1, then 0. Running the graph again for `compute_mask` makes it 2.
    assert traced == 1
    assert calls[0] - before == 1


@pytest.mark.engine("torch")
def test_torch_train_step_runs_the_model_once_for_its_output_masks():
    """Stateful counterpart: each eager step runs the model once, masks included."""
    calls = [0]

    class CountsCalls(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, x, mask=None):
            calls[0] += 1  # once per forward pass
            return x * 2.0

    inputs = lamina.Input((None,), dtype="int32")
    hidden = layers.Embedding(10, 4, mask_zero=True)(inputs)
    outputs = layers.Dense(1)(CountsCalls()(hidden))
    model = lamina.Model(inputs, outputs)
    model.compile(optimizer="sgd", loss="mse")
    x5 = np.array([[1, 2, 3, 0, 0], [4, 5, 0, 0, 0]])
    model.train_on_batch(x5, np.ones((2, 5, 1), "float32"))  # builds
    for _ in range(2):
        before = calls[0]
        model.train_on_batch(x5, np.ones((2, 5, 1), "float32"))
        assert calls[0] - before == 1


def _numpy_simple_rnn(x, kernel, recurrent_kernel, bias):
    h = np.zeros((x.shape[0], kernel.shape[1]), "float32")
    outputs = []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ kernel + h @ recurrent_kernel + bias)
        outputs.append(h)
    return outputs


def test_predict_carries_a_stateful_rnn_state_between_calls():
    """As the classic engine (tf.keras) did and as `stateful` is documented ("the last
    state for each sample at index i in a batch will be used as initial state for the
    sample of index i in the following batch"). Keras 3 on JAX differs here: its
    `predict` drops the states (both between calls and between the batches of one
    call, checked on Keras 3.15), while its `model(x)` carries them."""
    rng = np.random.default_rng(0)
    inputs = lamina.Input(batch_shape=(1, None, 3))
    rnn = layers.SimpleRNN(4, stateful=True)
    model = lamina.Model(inputs, rnn(inputs))
    x = rng.normal(size=(1, 2, 3)).astype("float32")
    expected = _numpy_simple_rnn(x, *rnn.get_weights())
    # One step at a time, as in generation: the second call starts from the first's state.
    first = model.predict(x[:, :1], verbose=0)
    second = model.predict(x[:, 1:2], verbose=0)
    np.testing.assert_allclose(first, expected[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(second, expected[1], rtol=1e-5, atol=1e-6)
    rnn.reset_states()
    np.testing.assert_allclose(model.predict(x, verbose=0), expected[1], rtol=1e-5, atol=1e-6)
    # Between the batches of one call too: two one-step "samples" in batches of 1.
    rnn.reset_states()
    steps = np.concatenate([x[:, :1], x[:, 1:2]])
    both = model.predict(steps, batch_size=1, verbose=0)
    np.testing.assert_allclose(both, np.concatenate(expected), rtol=1e-5, atol=1e-6)


def _regression(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 8)).astype("float32")
    return x, (x @ rng.normal(size=(8, 1))).astype("float32")


def _linear_model():
    inputs = lamina.Input((8,))
    dense = layers.Dense(1)
    model = lamina.Model(inputs, dense(inputs))
    model.compile(optimizer=optimizers.SGD(0.1), loss="mse")
    return model, dense


class RecordsWeights(callbacks.Callback):
    """Reads the weights through `self.model` after each batch (which syncs them)."""

    def __init__(self):
        super().__init__()
        self.weights = []

    def on_train_batch_end(self, batch, logs=None):
        self.weights.append(self.model.get_weights()[0].copy())


def test_a_batch_hook_that_never_touches_the_model_does_not_force_a_write_back():
    x, y = _regression()
    model, dense = _linear_model()
    kernel = dense.kernel

    class Quiet(callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.batches = []
            self.held = []

        def on_train_batch_end(self, batch, logs=None):
            self.batches.append(batch)
            self.held.append(kernel._value)  # what the variable holds, not read through it

    quiet = Quiet()
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0, callbacks=[quiet])
    assert quiet.batches == list(range(8))
    # Keras 3: the variable holds the same thing after every batch of the epoch (the
    # state lives in the program until something asks for it).
    assert all(held is quiet.held[0] for held in quiet.held)

    # Read through `callback.model`, the weights are current after every batch.
    touching = RecordsWeights()
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0, callbacks=[touching])
    assert len(touching.weights) == 8
    for before, after in zip(touching.weights, touching.weights[1:]):
        assert not np.array_equal(before, after)


def test_a_learning_rate_set_in_a_batch_hook_applies_from_the_next_batch():
    x, y = _regression()
    model, _ = _linear_model()

    class StopLearningAtBatch2(callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 2:
                self.model.optimizer.learning_rate.assign(0.0)

    record = RecordsWeights()
    model.fit(
        x,
        y,
        batch_size=8,
        epochs=1,
        shuffle=False,
        verbose=0,
        callbacks=[StopLearningAtBatch2(), record],
    )
    # Keras 3: batches 0-2 move the kernel, batches 3-7 (learning rate 0) do not.
    assert not np.array_equal(record.weights[0], record.weights[1])
    assert not np.array_equal(record.weights[1], record.weights[2])
    for later in record.weights[3:]:
        np.testing.assert_array_equal(later, record.weights[2])
    np.testing.assert_array_equal(model.get_weights()[0], record.weights[2])
