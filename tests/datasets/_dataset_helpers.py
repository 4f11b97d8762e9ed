"""Shared by the data set tests: a private cache folder, tiny files in Keras's formats,
and Keras 3's own loaders pointed at the same folder.

Keras's loaders pass the real files' hashes to `get_file`, and a cached file whose hash
does not match is downloaded again (in Keras and in lamina). The tests therefore set
each lamina module's `FILE_HASH` to the tiny file's own hash (so lamina's check runs
and passes) and, for Keras, replace its `validate_file` with one that accepts the file.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np


def use_tmp_home(tmp_path, monkeypatch):
    """Point the cache at `tmp_path/home` (never ~/.keras); return its datasets folder."""
    home = tmp_path / "home"
    monkeypatch.setenv("LAMINA_HOME", str(home))
    monkeypatch.delenv("KERAS_HOME", raising=False)
    datasets = home / "datasets"
    datasets.mkdir(parents=True)
    return datasets


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def md5(path):
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


def ragged(sequences):
    """A 1-D object array of lists of Python ints, as Keras's imdb/reuters files hold."""
    out = np.empty(len(sequences), dtype=object)
    for i, seq in enumerate(sequences):
        out[i] = [int(w) for w in seq]
    return out


def keras_reading(monkeypatch, datasets_folder):
    """Keras 3, with its cache root at the folder holding `datasets_folder` and its hash
    check accepting the tiny files. Returns the `keras` module."""
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras
    from keras.src.backend import config
    from keras.src.utils import file_utils

    monkeypatch.setattr(config, "_KERAS_DIR", str(datasets_folder.parent))
    monkeypatch.setattr(file_utils, "validate_file", lambda *args, **kwargs: True)

    def no_download(*args, **kwargs):
        raise AssertionError("Keras tried to download in a test")

    monkeypatch.setattr(file_utils, "urlretrieve", no_download)
    return keras


def assert_same(ours, theirs):
    """Nested tuples of arrays equal in shape, dtype and values (object arrays by
    element)."""
    assert type(ours) is type(theirs)
    if isinstance(ours, tuple):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
        return
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    if ours.dtype == object:
        assert ours.tolist() == theirs.tolist()
    else:
        np.testing.assert_array_equal(ours, theirs)
