"""`datasets.cifar10` on a tiny `cifar-10-python.tar.gz` in Keras's layout and format
(pickled dicts with byte-string keys, rows of 3072 channel-first pixels).

Keras's own loader assumes 50,000 training images, so the comparison here is with a
NumPy reference; `test_cifar100.py` compares with Keras itself.
"""

from __future__ import annotations

import io
import os
import pickle
import tarfile

import numpy as np
import pytest
from _dataset_helpers import sha256, use_tmp_home

from lamina import backend
from lamina.datasets import cifar10


def _batch(rng, n):
    return {
        b"batch_label": b"tiny",
        b"labels": [int(v) for v in rng.integers(0, 10, n)],
        b"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8),
        b"filenames": [b"x.png"] * n,
    }


def _tar(path, members):
    with tarfile.open(path, "w:gz") as tf:
        for name, payload in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tf.addfile(info, io.BytesIO(payload))


def _write_archive(path):
    rng = np.random.default_rng(2)
    batches = {f"data_batch_{i}": _batch(rng, i) for i in range(1, 6)}  # 1+2+3+4+5 images
    batches["test_batch"] = _batch(rng, 3)
    _tar(
        path, {f"cifar-10-batches-py/{k}": pickle.dumps(v, protocol=3) for k, v in batches.items()}
    )
    return batches


def _reference(batches, channels_last=True):
    train = [batches[f"data_batch_{i}"] for i in range(1, 6)]
    x_train = np.concatenate([b[b"data"] for b in train]).reshape(-1, 3, 32, 32)
    y_train = np.array(sum((b[b"labels"] for b in train), []), dtype=np.uint8)[:, None]
    x_test = batches["test_batch"][b"data"].reshape(-1, 3, 32, 32)
    y_test = np.array(batches["test_batch"][b"labels"], dtype=np.uint8)[:, None]
    if channels_last:
        x_train, x_test = np.moveaxis(x_train, 1, -1), np.moveaxis(x_test, 1, -1)
    return x_train, y_train, x_test, y_test


def test_download_extract_and_read(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    source = tmp_path / "cifar-10-python.tar.gz"
    batches = _write_archive(source)
    monkeypatch.setattr(cifar10, "ORIGIN", source.as_uri())
    monkeypatch.setattr(cifar10, "FILE_HASH", sha256(source))
    (x_train, y_train), (x_test, y_test) = cifar10.load_data()
    assert (datasets / "cifar-10-batches-py-target_archive").is_file()
    assert (
        datasets / "cifar-10-batches-py-target" / "cifar-10-batches-py" / "test_batch"
    ).is_file()
    assert x_train.shape == (15, 32, 32, 3) and y_train.shape == (15, 1)
    assert x_test.shape == (3, 32, 32, 3) and y_test.shape == (3, 1)
    for got, want in zip((x_train, y_train, x_test, y_test), _reference(batches)):
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got, want)
    # channels_first keeps Keras's stored order.
    previous = backend.image_data_format()
    backend.set_image_data_format("channels_first")
    try:
        (x_train, _), (x_test, _) = cifar10.load_data()
    finally:
        backend.set_image_data_format(previous)
    want = _reference(batches, channels_last=False)
    np.testing.assert_array_equal(x_train, want[0])
    np.testing.assert_array_equal(x_test, want[2])


def test_archive_escaping_its_folder_is_refused(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    archive = datasets / "cifar-10-batches-py-target_archive"
    _tar(archive, {"cifar-10-batches-py/../../../escaped": b"x"})
    monkeypatch.setattr(cifar10, "FILE_HASH", sha256(archive))
    with pytest.raises(ValueError, match="Refusing to extract.*cifar-10-batches-py-target_archive"):
        cifar10.load_data()
    assert not (tmp_path / "escaped").exists() and not (datasets.parent / "escaped").exists()


def test_pickle_with_code_is_refused(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    archive = datasets / "cifar-10-batches-py-target_archive"

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    _tar(archive, {"cifar-10-batches-py/data_batch_1": pickle.dumps({b"data": Evil()})})
    monkeypatch.setattr(cifar10, "FILE_HASH", sha256(archive))
    with pytest.raises(ValueError, match="data_batch_1.*refusing to load `(posix|nt).system`"):
        cifar10.load_data()
