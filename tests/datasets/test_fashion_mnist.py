"""`datasets.fashion_mnist` on tiny gzipped IDX files in Keras's cache layout."""

from __future__ import annotations

import gzip
import struct

import numpy as np
import pytest
from _dataset_helpers import assert_same, keras_reading, use_tmp_home

from lamina.datasets import fashion_mnist


def _idx_labels(path, labels):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">II", 0x801, len(labels)) + labels.tobytes())


def _idx_images(path, images):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">IIII", 0x803, len(images), 28, 28) + images.tobytes())


def _write(folder, n_train=4, n_test=2):
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    data = (
        rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8),
        rng.integers(0, 10, n_train, dtype=np.uint8),
        rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8),
        rng.integers(0, 10, n_test, dtype=np.uint8),
    )
    _idx_labels(folder / "train-labels-idx1-ubyte.gz", data[1])
    _idx_images(folder / "train-images-idx3-ubyte.gz", data[0])
    _idx_labels(folder / "t10k-labels-idx1-ubyte.gz", data[3])
    _idx_images(folder / "t10k-images-idx3-ubyte.gz", data[2])
    return data


def test_reads_keras_files(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    x_train, y_train, x_test, y_test = _write(datasets / "fashion-mnist")
    result = fashion_mnist.load_data()
    assert_same(result, ((x_train, y_train), (x_test, y_test)))
    assert result[0][0].flags.writeable
    keras = keras_reading(monkeypatch, datasets)
    assert_same(fashion_mnist.load_data(), keras.datasets.fashion_mnist.load_data())


def test_downloads_from_origin_folder(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    served = tmp_path / "served"
    x_train, *_ = _write(served)
    monkeypatch.setattr(fashion_mnist, "ORIGIN_FOLDER", served.as_uri() + "/")
    (got, _), _ = fashion_mnist.load_data()
    np.testing.assert_array_equal(got, x_train)
    assert (datasets / "fashion-mnist" / "t10k-images-idx3-ubyte.gz").is_file()


def test_corrupt_files_named(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    folder = datasets / "fashion-mnist"
    _write(folder)
    (folder / "t10k-labels-idx1-ubyte.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="t10k-labels-idx1-ubyte.gz.*corrupt"):
        fashion_mnist.load_data()
    _write(folder)
    _idx_labels(folder / "train-labels-idx1-ubyte.gz", np.zeros(3, np.uint8))  # 3 labels, 4 images
    with pytest.raises(ValueError, match="train-images-idx3-ubyte.gz.*4 images for 3 labels"):
        fashion_mnist.load_data()
