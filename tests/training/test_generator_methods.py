"""Keras 2's generator methods and state API on `Model` (issue 19, item 3)."""

import threading

import numpy as np
import pytest

import lamina
from lamina import layers, ops


def _model(seed=0):
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential(
        [lamina.Input((3,)), layers.Dense(4, activation="relu"), layers.Dense(1)]
    )
    model.compile(optimizer="sgd", loss="mse")
    return model


def _data(n=32):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 3)).astype("float32")
    return x, (x.sum(axis=1, keepdims=True)).astype("float32")


def _batches(x, y, batch_size=8):
    while True:
        for i in range(0, len(x), batch_size):
            yield x[i : i + batch_size], y[i : i + batch_size]


class _Sequence(lamina.utils.PyDataset):
    def __init__(self, x, y, batch_size=8):
        super().__init__()
        self.x, self.y, self.batch_size = x, y, batch_size
        self.threads = set()
        self.epochs_ended = 0

    def __len__(self):
        return len(self.x) // self.batch_size

    def __getitem__(self, i):
        self.threads.add(threading.get_ident())
        s = slice(i * self.batch_size, (i + 1) * self.batch_size)
        return self.x[s], self.y[s]

    def on_epoch_end(self):
        self.epochs_ended += 1


def test_fit_generator_trains_as_fit_and_names_the_modern_call():
    x, y = _data()
    reference = _model()
    ref_history = reference.fit(
        _batches(x, y), steps_per_epoch=4, epochs=2, verbose=0, shuffle=False
    )
    model = _model()
    with pytest.warns(UserWarning, match=r"fit_generator.*Model\.fit"):
        history = model.fit_generator(
            _batches(x, y), steps_per_epoch=4, epochs=2, verbose=0, max_queue_size=3
        )
    np.testing.assert_allclose(history.history["loss"], ref_history.history["loss"], rtol=1e-5)
    for a, b in zip(model.get_weights(), reference.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_fit_generator_on_a_sequence_with_workers_and_validation():
    x, y = _data()
    sequence = _Sequence(x, y)
    model = _model()
    with pytest.warns(UserWarning, match="fit_generator"):
        history = model.fit_generator(
            sequence,
            epochs=2,
            verbose=0,
            workers=3,
            validation_data=_Sequence(x, y),
            shuffle=False,
        )
    assert len(history.history["val_loss"]) == 2
    assert sequence.epochs_ended == 2
    assert threading.get_ident() not in sequence.threads  # loaded on the workers
    reference = _model()
    ref = reference.fit(_Sequence(x, y), epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["loss"], ref.history["loss"], rtol=1e-5)


def test_evaluate_and_predict_generator_match_the_modern_calls():
    x, y = _data()
    model = _model()
    with pytest.warns(UserWarning, match="evaluate_generator.*Model.evaluate"):
        loss = model.evaluate_generator(_batches(x, y), steps=4)
    np.testing.assert_allclose(loss, model.evaluate(x, y, batch_size=8, verbose=0), rtol=1e-5)
    with pytest.warns(UserWarning, match="predict_generator"):
        out = model.predict_generator(_Sequence(x, y), workers=2)
    np.testing.assert_allclose(out, model.predict(x, batch_size=8, verbose=0), rtol=1e-5)
    with pytest.warns(UserWarning, match="predict_generator"):
        out = model.predict_generator((batch for batch in _Sequence(x, y)), steps=4, workers=0)
    assert out.shape == (32, 1)


def test_a_generator_error_surfaces_with_its_own_type():
    def broken():
        yield _data(8)
        raise KeyError("bad record 7")

    model = _model()
    with (
        pytest.warns(UserWarning, match="fit_generator"),
        pytest.raises(KeyError, match="bad record 7"),
    ):
        model.fit_generator(broken(), steps_per_epoch=3, epochs=1, verbose=0)


def test_use_multiprocessing_says_threads_are_used_and_bad_workers_are_refused():
    x, y = _data()
    model = _model()
    with pytest.warns(UserWarning) as record:
        model.fit_generator(
            _Sequence(x, y), epochs=1, verbose=0, use_multiprocessing=True, workers=2
        )
    assert any("thread" in str(w.message) for w in record)
    with (
        pytest.warns(UserWarning, match="fit_generator"),
        pytest.raises(ValueError, match="workers"),
    ):
        model.fit_generator(_Sequence(x, y), workers=-1)


def test_reset_states_resets_every_stateful_layer_nested_included():
    inner = lamina.Sequential(
        [lamina.Input(batch_shape=(2, 3, 1)), layers.SimpleRNN(2, stateful=True, name="inner_rnn")]
    )
    outer = lamina.Sequential(
        [
            lamina.Input(batch_shape=(2, 3, 1)),
            layers.SimpleRNN(2, stateful=True, return_sequences=True, name="outer_rnn"),
            layers.Dense(1),
        ]
    )
    data = np.ones((2, 3, 1), "float32")
    fresh = ops.convert_to_numpy(outer(data))
    moved = ops.convert_to_numpy(outer(data))
    assert not np.allclose(fresh, moved)
    assert outer.stateful and inner.stateful
    outer.reset_states()
    np.testing.assert_allclose(ops.convert_to_numpy(outer(data)), fresh, rtol=1e-6)

    wrapper = lamina.Sequential([lamina.Input(batch_shape=(2, 3, 1)), inner])
    first = ops.convert_to_numpy(wrapper(data))
    wrapper(data)
    wrapper.reset_states()
    np.testing.assert_allclose(ops.convert_to_numpy(wrapper(data)), first, rtol=1e-6)


def test_stateful_uses_learning_phase_and_state_updates():
    plain = _model()
    assert plain.stateful is False
    assert plain.uses_learning_phase is False
    dropout = lamina.Sequential([lamina.Input((3,)), layers.Dropout(0.5)])
    assert dropout.uses_learning_phase is True
    with pytest.warns(UserWarning, match="always empty"):
        assert plain.state_updates == []
