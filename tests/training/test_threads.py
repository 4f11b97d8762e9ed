"""One model used from several threads at once (issue 18 item 3).

`predict`, `model(x)` and `evaluate` from 8 threads give what serial calls give and
leave the state whole; `predict` beside `fit` in another thread sees the weights of one
complete step; what cannot be shared (the metrics during `fit`) is refused clearly.
"""

import threading

import numpy as np
import pytest

import lamina
from lamina import layers, ops

THREADS = 8


def _linear_model(seed=1, lr=0.1):
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3)])
    model.compile(lamina.optimizers.SGD(lr), "mse", metrics=["mae"])
    return model


def _run_threads(target, count=THREADS):
    errors = []

    def guarded(i):
        try:
            target(i)
        except BaseException as error:  # reported by the test's thread
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]


def _data(seed=0, n=THREADS):
    rng = np.random.default_rng(seed)
    xs = [rng.normal(size=(6, 4)).astype("float32") for _ in range(n)]
    ys = [rng.normal(size=(6, 3)).astype("float32") for _ in range(n)]
    return xs, ys


def _forward(weights, x):
    kernel, bias = weights
    return x @ kernel + bias


def test_predict_call_and_evaluate_from_8_threads_match_serial_calls():
    model = _linear_model()
    xs, ys = _data()
    weights = [w.copy() for w in model.get_weights()]
    # Independent references: the layer's formula, and Keras-style mean metrics in NumPy.
    ref_out = [_forward(weights, x) for x in xs]
    ref_eval = [
        [float(np.mean((o - y) ** 2)), float(np.mean(np.abs(o - y)))]
        for o, y in zip(ref_out, ys, strict=True)
    ]

    def work(i):
        for _ in range(5):
            np.testing.assert_allclose(model.predict(xs[i], verbose=0), ref_out[i], atol=1e-5)
            out = ops.convert_to_numpy(model(xs[i]))
            np.testing.assert_allclose(out, ref_out[i], atol=1e-5)
            # batch_size=2: three batches accumulate in the shared metric variables.
            result = model.evaluate(xs[i], ys[i], batch_size=2, verbose=0)
            np.testing.assert_allclose(result, ref_eval[i], rtol=1e-4, atol=1e-6)

    _run_threads(work)
    for got, want in zip(model.get_weights(), weights, strict=True):
        np.testing.assert_array_equal(got, want)
    # The state is whole afterwards: a serial evaluate still counts from zero.
    result = model.evaluate(xs[0], ys[0], batch_size=2, verbose=0)
    np.testing.assert_allclose(result, ref_eval[0], rtol=1e-4, atol=1e-6)


def test_concurrent_test_on_batch_and_steps_per_execution_evaluate():
    model = _linear_model()
    model.compile(lamina.optimizers.SGD(0.1), "mse", steps_per_execution=2)
    xs, ys = _data(seed=3)
    weights = model.get_weights()
    ref = [float(np.mean((_forward(weights, x) - y) ** 2)) for x, y in zip(xs, ys, strict=True)]

    def work(i):
        for _ in range(3):
            np.testing.assert_allclose(model.test_on_batch(xs[i], ys[i]), ref[i], rtol=1e-4)
            got = model.evaluate(xs[i], ys[i], batch_size=2, verbose=0)
            np.testing.assert_allclose(got, ref[i], rtol=1e-4)

    _run_threads(work)


def test_stateful_rnn_predicts_from_threads_carry_the_state_as_serial_calls():
    lamina.utils.set_random_seed(4)
    model = lamina.Sequential(
        [lamina.Input((3, 2), batch_size=2), layers.SimpleRNN(4, stateful=True)]
    )
    x = np.random.default_rng(5).normal(size=(2, 3, 2)).astype("float32")
    kernel, recurrent, bias = model.get_weights()
    state = np.zeros((2, 4), "float32")
    for _ in range(THREADS + 1):  # the RNN's formula, call after call
        for t in range(x.shape[1]):
            state = np.tanh(x[:, t] @ kernel + state @ recurrent + bias)

    _run_threads(lambda i: model.predict(x, verbose=0))
    # Eight calls ran one after another (in some order; the input is the same): the
    # next call continues from the state after all eight.
    np.testing.assert_allclose(model.predict(x, verbose=0), state, rtol=1e-5, atol=1e-5)


def _reference_steps(x, y, batch_size):
    """The weights after each step of a serial `fit` (recorded by a callback)."""
    model = _linear_model()
    seen = [[w.copy() for w in model.get_weights()]]

    class Record(lamina.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append([w.copy() for w in self.model.get_weights()])

    model.fit(x, y, batch_size=batch_size, shuffle=False, verbose=0, callbacks=[Record()])
    return seen


def test_predict_and_call_beside_fit_see_the_weights_of_one_complete_step():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(64, 4)).astype("float32")
    y = rng.normal(size=(64, 3)).astype("float32")
    steps = _reference_steps(x, y, batch_size=2)
    probe = rng.normal(size=(5, 4)).astype("float32")
    candidates = np.stack([_forward(w, probe) for w in steps])

    model = _linear_model()
    model.predict(probe, verbose=0)  # compiled before the race starts
    started = threading.Event()
    done = threading.Event()
    outputs = []

    class Signal(lamina.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            started.set()

    def train():
        try:
            model.fit(x, y, batch_size=2, shuffle=False, verbose=0, callbacks=[Signal()])
        finally:
            done.set()

    trainer = threading.Thread(target=train)
    trainer.start()
    started.wait(30)
    while not done.is_set() or len(outputs) < 6:
        outputs.append(model.predict(probe, verbose=0))
        outputs.append(ops.convert_to_numpy(model(probe)))  # the compiled call path too
    trainer.join(60)
    for out in outputs:
        # Within float tolerance of the output under the weights of some step.
        distance = np.abs(candidates - out).max(axis=(1, 2))
        assert distance.min() < 1e-4, f"predict mixed weights of two steps: {distance.min()}"
    for got, want in zip(model.get_weights(), steps[-1], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_evaluate_or_fit_from_another_thread_during_fit_is_refused_clearly():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(32, 4)).astype("float32")
    y = rng.normal(size=(32, 3)).astype("float32")
    model = _linear_model()
    inside = threading.Event()
    release = threading.Event()

    class Hold(lamina.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 0:
                inside.set()
                release.wait(30)

    trainer = threading.Thread(
        target=lambda: model.fit(x, y, batch_size=4, verbose=0, callbacks=[Hold()])
    )
    trainer.start()
    try:
        assert inside.wait(30)
        with pytest.raises(RuntimeError, match="while `fit` is training it in another"):
            model.evaluate(x, y, verbose=0)
        with pytest.raises(RuntimeError, match="fit was called .* from one thread"):
            model.fit(x, y, verbose=0)
        with pytest.raises(RuntimeError, match="train_on_batch was called"):
            model.train_on_batch(x[:4], y[:4])
        # predict still works beside it.
        assert model.predict(x[:2], verbose=0).shape == (2, 3)
    finally:
        release.set()
        trainer.join(60)
    # After fit, evaluate from any thread works again.
    _run_threads(lambda i: model.evaluate(x, y, verbose=0), count=2)


def test_many_threads_share_one_trace_count_and_program():
    model = _linear_model()
    x = np.ones((4, 4), "float32")
    _run_threads(lambda i: model.predict(x, verbose=0))
    program = model.predict_function["one"]
    assert 1 <= program.trace_count <= THREADS
    before = program.trace_count
    model.predict(x, verbose=0)
    assert program.trace_count == before
