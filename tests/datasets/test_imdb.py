"""`datasets.imdb` on a tiny `imdb.npz` (ragged object arrays, as Keras's file holds),
against a NumPy reference of Keras's documented arithmetic and against Keras 3."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _dataset_helpers import assert_same, keras_reading, md5, ragged, sha256, use_tmp_home

from lamina.datasets import imdb

CASES = [
    {},
    {"num_words": 8, "skip_top": 4},
    {"maxlen": 5},
    {"num_words": 6, "oov_char": None},
    {"start_char": None, "index_from": 0},
    {"start_char": None, "index_from": 2, "seed": 7},
]


def _data(seed=4):
    rng = np.random.default_rng(seed)
    seqs = [list(rng.integers(1, 11, rng.integers(1, 8))) for _ in range(11)]
    labels = rng.integers(0, 2, 11)
    return ragged(seqs[:6]), labels[:6], ragged(seqs[6:]), labels[6:]


def _write(path):
    x_train, y_train, x_test, y_test = _data()
    np.savez(path, x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test)
    return x_train, y_train, x_test, y_test


def reference(data, num_words=None, skip_top=0, maxlen=None, seed=113, start_char=1,
              oov_char=2, index_from=3):  # fmt: skip
    """Keras's documented steps, written out independently."""
    rng = np.random.RandomState(seed)
    sets = []
    for x, y in ((data[0], data[1]), (data[2], data[3])):
        order = rng.permutation(len(x))
        head = [] if start_char is None else [start_char]
        seqs = [head + [int(w) + index_from for w in x[i]] for i in order]
        labels = [y[i] for i in order]
        if maxlen:
            keep = [i for i, s in enumerate(seqs) if len(s) < maxlen]
            seqs, labels = [seqs[i] for i in keep], [labels[i] for i in keep]
        sets.append((seqs, np.array(labels)))
    top = num_words or max(w for seqs, _ in sets for s in seqs for w in s)
    out = []
    for seqs, labels in sets:
        if oov_char is None:
            seqs = [[w for w in s if skip_top <= w < top] for s in seqs]
        else:
            seqs = [[w if skip_top <= w < top else oov_char for w in s] for s in seqs]
        out.append((seqs, labels))
    return out


@pytest.mark.parametrize("kwargs", CASES, ids=lambda kw: ",".join(map(str, kw)) or "defaults")
def test_arithmetic_matches_reference_and_keras(tmp_path, monkeypatch, kwargs):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    data = _write(datasets / "imdb.npz")
    monkeypatch.setattr(imdb, "FILE_HASH", sha256(datasets / "imdb.npz"))
    ours = imdb.load_data(**kwargs)
    for (x, y), (ref_x, ref_y) in zip(ours, reference(data, **kwargs)):
        assert x.dtype == object and x.tolist() == ref_x
        np.testing.assert_array_equal(y, ref_y)
        assert y.dtype == data[1].dtype
    keras = keras_reading(monkeypatch, datasets)
    assert_same(ours, keras.datasets.imdb.load_data(**kwargs))


def test_errors(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    _write(datasets / "imdb.npz")
    monkeypatch.setattr(imdb, "FILE_HASH", None)
    with pytest.raises(ValueError, match="maxlen=2"):
        imdb.load_data(maxlen=2)
    with pytest.raises(TypeError, match="nb_words"):
        imdb.load_data(nb_words=10)
    (datasets / "imdb.npz").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="imdb.npz.*IMDB.*corrupt"):
        imdb.load_data()


def test_get_word_index(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    index = {"the": 1, "and": 2, "film": 3}
    path = datasets / "imdb_word_index.json"
    path.write_text(json.dumps(index))
    monkeypatch.setattr(imdb, "WORD_INDEX_HASH", md5(path))
    assert imdb.get_word_index() == index
    keras = keras_reading(monkeypatch, datasets)
    assert keras.datasets.imdb.get_word_index() == index
    path.write_text("{not json")
    monkeypatch.setattr(imdb, "WORD_INDEX_HASH", md5(path))
    with pytest.raises(ValueError, match="imdb_word_index.json"):
        imdb.get_word_index()
