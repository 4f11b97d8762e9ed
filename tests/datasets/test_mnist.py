"""`datasets.mnist` on a tiny `mnist.npz` in Keras's format, in a private cache."""

from __future__ import annotations

import numpy as np
import pytest
from _dataset_helpers import assert_same, keras_reading, sha256, use_tmp_home

from lamina.datasets import mnist


def _write(path, n_train=5, n_test=3, seed=0):
    rng = np.random.default_rng(seed)
    arrays = {
        "x_train": rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8),
        "y_train": rng.integers(0, 10, n_train, dtype=np.uint8),
        "x_test": rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8),
        "y_test": rng.integers(0, 10, n_test, dtype=np.uint8),
    }
    np.savez(path, **arrays)
    return arrays


def test_reads_keras_file_from_cache(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    arrays = _write(datasets / "mnist.npz")
    monkeypatch.setattr(mnist, "FILE_HASH", sha256(datasets / "mnist.npz"))
    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    for name, got in zip(
        ("x_train", "y_train", "x_test", "y_test"), (x_train, y_train, x_test, y_test)
    ):
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got, arrays[name])
    assert x_train.shape == (5, 28, 28) and y_test.shape == (3,)
    keras = keras_reading(monkeypatch, datasets)
    assert_same(mnist.load_data(), keras.datasets.mnist.load_data())


def test_downloads_when_absent_and_checks_hash(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    source = tmp_path / "served.npz"
    arrays = _write(source)
    monkeypatch.setattr(mnist, "ORIGIN", source.as_uri())
    monkeypatch.setattr(mnist, "FILE_HASH", sha256(source))
    (x_train, _), _ = mnist.load_data(path="my_mnist.npz")
    np.testing.assert_array_equal(x_train, arrays["x_train"])
    assert (datasets / "my_mnist.npz").is_file()
    # A stale cached copy (wrong hash) is replaced by a fresh download.
    (datasets / "mnist.npz").write_bytes(b"stale")
    (x_train, _), _ = mnist.load_data()
    np.testing.assert_array_equal(x_train, arrays["x_train"])
    # A download that does not match the expected hash is refused, naming both hashes.
    monkeypatch.setattr(mnist, "FILE_HASH", "f" * 64)
    with pytest.raises(ValueError, match="hash is [0-9a-f]{64}, expected f{64}"):
        mnist.load_data()


def test_corrupt_file_named(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    (datasets / "mnist.npz").write_bytes(b"PK\x03\x04 not really a zip")
    monkeypatch.setattr(mnist, "FILE_HASH", None)
    with pytest.raises(ValueError, match="mnist.npz.*MNIST.*corrupt"):
        mnist.load_data()
    np.savez(datasets / "mnist.npz", x_train=np.zeros(3))
    with pytest.raises(ValueError, match="mnist.npz"):
        mnist.load_data()
