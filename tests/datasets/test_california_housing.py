"""`datasets.california_housing` on a tiny `california_housing.npz` (610 rows, so the
"small" version's first-600 cut matters), against a NumPy reference and Keras 3."""

from __future__ import annotations

import numpy as np
import pytest
from _dataset_helpers import assert_same, keras_reading, sha256, use_tmp_home

from lamina.datasets import california_housing


def reference(x, y, test_split, seed):
    order = np.random.RandomState(seed).permutation(len(x))
    cut = int(len(x) * (1 - test_split))
    return (x[order[:cut]], y[order[:cut]]), (x[order[cut:]], y[order[cut:]])


def test_versions_match_reference_and_keras(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(610, 8)).astype(np.float32), rng.uniform(1e4, 5e5, 610)
    np.savez(datasets / "california_housing.npz", x=x, y=y)
    monkeypatch.setattr(
        california_housing, "FILE_HASH", sha256(datasets / "california_housing.npz")
    )
    keras = keras_reading(monkeypatch, datasets)
    for version, kwargs in (("large", {}), ("small", {"test_split": 0.3, "seed": 2})):
        ours = california_housing.load_data(version, **kwargs)
        n = 610 if version == "large" else 600
        want = reference(x[:n], y[:n], kwargs.get("test_split", 0.2), kwargs.get("seed", 113))
        assert_same(ours, want)
        assert_same(ours, keras.datasets.california_housing.load_data(version, **kwargs))
    assert len(ours[0][0]) + len(ours[1][0]) == 600


def test_bad_arguments(tmp_path, monkeypatch):
    use_tmp_home(tmp_path, monkeypatch)
    with pytest.raises(ValueError, match="version"):
        california_housing.load_data("medium")
    with pytest.raises(ValueError, match="test_split"):
        california_housing.load_data(test_split=1)
