"""Which samples fit sees, in which batches: arrays, generators, PyDataset."""

import numpy as np
import pytest

from lamina import Input, Model, Sequential, layers, utils
from lamina.training import data_adapter


class _Recorder(Model):
    """A linear model that, run eagerly, records the sample ids (column 0) of each batch."""

    def __init__(self):
        super().__init__()
        self.dense = layers.Dense(1)
        self.seen = []

    def call(self, x):
        try:
            self.seen.append(np.asarray(x)[:, 0].astype(int).tolist())
        except Exception:  # traced (shape inference): nothing to record
            pass
        return self.dense(x)


def _ids(n):
    x = np.zeros((n, 2), "float32")
    x[:, 0] = np.arange(n)
    return x, np.zeros((n, 1), "float32")


def test_generator_with_steps_per_epoch_drops_no_batch():
    pulled = []

    def gen():
        for i in range(100):
            pulled.append(i)
            yield np.full((2, 2), i, "float32"), np.zeros((2, 1), "float32")

    model = _Recorder()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    model.fit(gen(), steps_per_epoch=3, epochs=3, verbose=0)
    trained = [ids[0] for ids in model.seen if len(ids) == 2]
    assert trained[-9:] == list(range(9))  # the first call may be a build on batch 0
    assert pulled == list(range(9))


def test_pydataset_is_indexed_only_within_its_length():
    calls = []

    class Data(utils.PyDataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            calls.append(i)
            return np.full((2, 2), i, "float32"), np.zeros((2, 1), "float32")

    model = Sequential([Input((2,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(Data(), epochs=2, verbose=0)
    assert calls == [0, 1, 2, 0, 1, 2]
    calls.clear()
    model.fit(Data(), epochs=2, steps_per_epoch=2, verbose=0)
    assert calls == [0, 1, 0, 1]


def test_array_steps_per_epoch_continues_through_the_data():
    x, y = _ids(10)
    batches = data_adapter.make_batches(x, y, batch_size=2, steps=2)
    seen = []
    for _ in range(4):
        order = batches.epoch_order()
        seen.append([xb[:, 0].astype(int).tolist() for xb, _, _ in batches.batches(order)])
    # 5 batches per pass: epochs take batches 0-1, 2-3, 4 (the pass ends), then 0-1.
    assert seen == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9]], [[0, 1], [2, 3]]]


def test_array_steps_per_epoch_in_fit_continues_and_reshuffles_per_pass():
    x, y = _ids(8)
    utils.set_random_seed(3)
    model = _Recorder()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    model.fit(x, y, batch_size=2, steps_per_epoch=2, epochs=4, shuffle=True, verbose=0)
    batches = [b for b in model.seen if len(b) == 2][-8:]
    first_pass, second_pass = batches[:4], batches[4:]
    assert sorted(sum(first_pass, [])) == list(range(8))
    assert sorted(sum(second_pass, [])) == list(range(8))


def test_shuffle_batch_keeps_each_batch_one_aligned_chunk():
    x, y = _ids(10)
    batches = data_adapter.make_batches(x, y, batch_size=4, shuffle="batch")
    orders = set()
    for seed in range(6):
        np.random.seed(seed)
        got = [xb[:, 0].astype(int).tolist() for xb, _, _ in batches.batches(batches.epoch_order())]
        assert got[-1] == [8, 9]  # the partial chunk stays last
        assert sorted(map(tuple, got[:-1])) == [(0, 1, 2, 3), (4, 5, 6, 7)]
        orders.add(tuple(map(tuple, got)))
    assert len(orders) == 2  # and the whole chunks do change order


def test_shuffle_true_reorders_samples_and_false_keeps_them():
    x, y = _ids(16)
    np.random.seed(0)
    shuffled = data_adapter.make_batches(x, y, batch_size=4, shuffle=True)
    got = np.concatenate([xb[:, 0] for xb, _, _ in shuffled.batches(shuffled.epoch_order())])
    assert sorted(got.tolist()) == list(range(16)) and got.tolist() != list(range(16))
    utils.set_random_seed(1)
    model = _Recorder()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    model.fit(x, y, batch_size=4, epochs=1, shuffle=True, verbose=0)
    seen = sum([b for b in model.seen if len(b) == 4][-4:], [])
    assert sorted(seen) == list(range(16)) and seen != list(range(16))
    model.seen.clear()
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    assert sum(model.seen[-4:], []) == list(range(16))


def test_validation_data_as_a_list():
    x, y = _ids(8)
    model = Sequential([Input((2,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(x, y, epochs=1, verbose=0, validation_data=[x, y])
    assert "val_loss" in history.history
    history = model.fit(x, y, epochs=1, verbose=0, validation_data=[x, y, np.ones(8)])
    assert "val_loss" in history.history
    with pytest.raises(ValueError, match="tuple or list of 4"):
        model.fit(x, y, epochs=1, verbose=0, validation_data=[x, y, y, y])
