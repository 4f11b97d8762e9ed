"""split_dataset: Keras's size arithmetic and shuffle (Python's `random` with the seed),
against a reference written out here, on arrays, tuples, lists and PyDatasets."""

import inspect
import os
import random

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.utils import PyDataset, split_dataset


def _reference_positions(total, left, right, shuffle=False, seed=None):
    order = list(range(total))
    if shuffle:
        random.seed(seed)  # what Keras does: seed the global generator, then shuffle
        random.shuffle(order)
    if isinstance(left, float):
        left = round(left * total)
    if isinstance(right, float):
        right = round(right * total)
    left = total - right if left is None else left
    right = total - left if right is None else right
    return order[:left], order[total - right :]


@pytest.mark.parametrize(
    "left,right,shuffle",
    [(0.8, None, False), (None, 3, False), (0.25, 0.5, True), (7, None, True), (0.33, None, True)],
)
def test_arrays_match_reference(left, right, shuffle):
    data = np.arange(40).reshape(20, 2)
    state = random.getstate()
    try:
        ref_left, ref_right = _reference_positions(20, left, right, shuffle, seed=13)
    finally:
        random.setstate(state)
    a, b = split_dataset(data, left_size=left, right_size=right, shuffle=shuffle, seed=13)
    np.testing.assert_array_equal(a, data[ref_left])
    np.testing.assert_array_equal(b, data[ref_right])
    # Tuples and lists of arrays split sample by sample, keeping their kind.
    labels = np.arange(20) % 3
    (xa, ya), (xb, yb) = split_dataset(
        (data, labels), left_size=left, right_size=right, shuffle=shuffle, seed=13
    )
    np.testing.assert_array_equal(xa, data[ref_left])
    np.testing.assert_array_equal(yb, labels[ref_right])
    as_list = split_dataset([data, labels], left_size=left, right_size=right)
    assert isinstance(as_list[0], list) and len(as_list[0]) == 2


def test_same_seed_same_split_and_no_overlap():
    data = np.arange(100)
    a1, b1 = split_dataset(data, left_size=0.7, shuffle=True, seed=3)
    a2, b2 = split_dataset(data, left_size=0.7, shuffle=True, seed=3)
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(b1, b2)
    assert not set(a1.tolist()) & set(b1.tolist()) and len(a1) + len(b1) == 100


class _Batches(PyDataset):
    def __init__(self):
        super().__init__()
        self.x = np.arange(22, dtype="float32").reshape(11, 2)
        self.y = np.arange(11, dtype="float32")

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return self.x[i * 4 : (i + 1) * 4], self.y[i * 4 : (i + 1) * 4]


def test_pydataset_split_then_fit():
    left, right = split_dataset(_Batches(), left_size=8)
    assert isinstance(left, PyDataset) and len(left) == 2 and len(right) == 1
    np.testing.assert_array_equal(np.concatenate([b[1] for b in left]), np.arange(8))
    np.testing.assert_array_equal(right[0][0], np.arange(16, 22).reshape(3, 2))
    model = lamina.Sequential([lamina.Input((2,)), layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(left, validation_data=right, epochs=1, verbose=0)
    assert ops.convert_to_numpy(model.predict(right, verbose=0)).shape == (3, 1)


def test_errors():
    data = np.arange(10)
    with pytest.raises(ValueError, match="At least one of the `left_size` or `right_size`"):
        split_dataset(data)
    with pytest.raises(TypeError, match="left_size"):
        split_dataset(data, left_size="half")
    with pytest.raises(ValueError, match="left_size=1.5"):
        split_dataset(data, left_size=1.5)
    with pytest.raises(ValueError, match="right_size=10"):
        split_dataset(data, right_size=10)
    with pytest.raises(ValueError, match="greater than 1"):
        split_dataset(data, left_size=0.6, right_size=0.6)
    with pytest.raises(ValueError, match="left split is empty"):
        split_dataset(data, left_size=0.01)
    with pytest.raises(ValueError, match="different lengths.*index 1 has 3"):
        split_dataset((data, np.arange(3)), left_size=2)
    with pytest.raises(TypeError, match="dict"):
        split_dataset({"x": data}, left_size=2)


def test_preferred_backend_is_accepted_and_checked():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    ours = inspect.signature(split_dataset).parameters
    theirs = inspect.signature(keras.utils.split_dataset).parameters
    assert list(ours) == list(theirs)
    assert ours["preferred_backend"].default is theirs["preferred_backend"].default is None
    data = (np.arange(10), np.arange(10) * 2)
    expected = _reference_positions(10, 0.7, None, shuffle=True, seed=3)
    for name in (None, "tensorflow", "jax", "torch", "numpy"):
        left, right = split_dataset(data, 0.7, shuffle=True, seed=3, preferred_backend=name)
        assert left[0].tolist() == expected[0] and right[1].tolist() == [2 * i for i in expected[1]]
    dataset = _Batches()
    left, right = split_dataset(dataset, left_size=4, preferred_backend="torch")
    assert isinstance(left, PyDataset) and isinstance(right, PyDataset)
    for bad in ("pytorch", 1):
        with pytest.raises(ValueError, match="preferred_backend=.*leave it None"):
            split_dataset(data, left_size=2, preferred_backend=bad)
