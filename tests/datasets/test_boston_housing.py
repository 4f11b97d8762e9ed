"""`datasets.boston_housing` on a tiny `boston_housing.npz`, against a NumPy reference
of Keras's shuffle-then-split and against Keras 3."""

from __future__ import annotations

import numpy as np
import pytest
from _dataset_helpers import assert_same, keras_reading, sha256, use_tmp_home

from lamina.datasets import boston_housing


def reference(x, y, test_split, seed):
    order = np.random.RandomState(seed).permutation(len(x))
    cut = int(len(x) * (1 - test_split))
    return (x[order[:cut]], y[order[:cut]]), (x[order[cut:]], y[order[cut:]])


@pytest.mark.parametrize("test_split, seed", [(0.2, 113), (0.0, 1), (0.45, 9)])
def test_split_matches_reference_and_keras(tmp_path, monkeypatch, test_split, seed):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=(17, 13)), rng.uniform(5, 50, 17)
    np.savez(datasets / "boston_housing.npz", x=x, y=y)
    monkeypatch.setattr(boston_housing, "FILE_HASH", sha256(datasets / "boston_housing.npz"))
    ours = boston_housing.load_data(test_split=test_split, seed=seed)
    assert_same(ours, reference(x, y, test_split, seed))
    assert ours[0][0].shape[1] == 13 and ours[0][0].dtype == np.float64
    keras = keras_reading(monkeypatch, datasets)
    assert_same(ours, keras.datasets.boston_housing.load_data(test_split=test_split, seed=seed))


def test_bad_test_split(tmp_path, monkeypatch):
    use_tmp_home(tmp_path, monkeypatch)
    for bad in (1.0, -0.1):
        with pytest.raises(ValueError, match="test_split"):
            boston_housing.load_data(test_split=bad)
