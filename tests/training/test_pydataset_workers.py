"""A PyDataset's `workers` read batches ahead during fit/evaluate/predict, in order."""

import threading

import numpy as np

import lamina
from lamina import layers, ops

rng = np.random.default_rng(0)
X = rng.normal(size=(24, 3)).astype("float32")
Y = rng.normal(size=(24, 1)).astype("float32")


class Rows(lamina.utils.PyDataset):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.readers = set()

    def __len__(self):
        return 6

    def __getitem__(self, index):
        self.readers.add(threading.current_thread().name)
        return X[4 * index : 4 * index + 4], Y[4 * index : 4 * index + 4]


def _trained(data):
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(data, epochs=2, verbose=0)
    return model


def test_workers_read_ahead_and_training_sees_the_batches_in_order():
    serial, ahead = Rows(), Rows(workers=3)
    one, many = _trained(serial), _trained(ahead)
    assert serial.readers == {threading.current_thread().name}
    assert ahead.readers - {threading.current_thread().name}  # workers did read
    for a, b in zip(one.get_weights(), many.get_weights()):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(
        ops.convert_to_numpy(many.predict(Rows(workers=2), verbose=0)),
        ops.convert_to_numpy(many.predict(X, batch_size=4, verbose=0)),
    )
    before = set(threading.enumerate())
    many.evaluate(Rows(workers=2, use_multiprocessing=True), verbose=0)
    assert [t.name for t in threading.enumerate() if t not in before] == []
