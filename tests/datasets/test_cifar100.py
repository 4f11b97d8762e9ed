"""`datasets.cifar100` on a tiny `cifar-100-python.tar.gz`, compared with Keras 3's
own loader reading the same cache."""

from __future__ import annotations

import io
import pickle
import tarfile

import numpy as np
import pytest
from _dataset_helpers import assert_same, keras_reading, sha256, use_tmp_home

from lamina.datasets import cifar100


def _batch(rng, n):
    return {
        b"filenames": [b"x.png"] * n,
        b"fine_labels": [int(v) for v in rng.integers(0, 100, n)],
        b"coarse_labels": [int(v) for v in rng.integers(0, 20, n)],
        b"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8),
    }


def test_fine_and_coarse_match_keras(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    rng = np.random.default_rng(3)
    train, test = _batch(rng, 4), _batch(rng, 2)
    archive = datasets / "cifar-100-python-target_archive"
    with tarfile.open(archive, "w:gz") as tf:
        for name, batch in (("train", train), ("test", test)):
            payload = pickle.dumps(batch, protocol=4)
            info = tarfile.TarInfo(f"cifar-100-python/{name}")
            info.size = len(payload)
            tf.addfile(info, io.BytesIO(payload))
    monkeypatch.setattr(cifar100, "FILE_HASH", sha256(archive))
    (x_train, y_train), (x_test, y_test) = cifar100.load_data("coarse")
    assert x_train.shape == (4, 32, 32, 3) and x_train.dtype == np.uint8
    np.testing.assert_array_equal(x_train, np.moveaxis(train[b"data"].reshape(4, 3, 32, 32), 1, -1))
    np.testing.assert_array_equal(y_train[:, 0], train[b"coarse_labels"])
    np.testing.assert_array_equal(y_test[:, 0], test[b"coarse_labels"])
    assert y_train.shape == (4, 1) and y_test.shape == (2, 1)
    keras = keras_reading(monkeypatch, datasets)
    for mode in ("fine", "coarse"):
        assert_same(cifar100.load_data(mode), keras.datasets.cifar100.load_data(mode))
    with pytest.raises(ValueError, match="label_mode"):
        cifar100.load_data("medium")
