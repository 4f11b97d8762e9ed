"""`datasets.reuters` on a tiny `reuters.npz` (ragged object arrays, as Keras's file
holds), against a NumPy reference of Keras's documented arithmetic and against Keras 3."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _dataset_helpers import assert_same, keras_reading, md5, ragged, sha256, use_tmp_home

from lamina.datasets import reuters

CASES = [
    {},
    {"num_words": 9, "skip_top": 5, "test_split": 0.3},
    {"maxlen": 6, "seed": 3},
    {"oov_char": None, "num_words": 7},
    {"start_char": None, "index_from": 0, "test_split": 0.5},
]


def _write(path):
    rng = np.random.default_rng(5)
    x = ragged([list(rng.integers(1, 12, rng.integers(1, 9))) for _ in range(12)])
    y = rng.integers(0, 46, 12)
    np.savez(path, x=x, y=y)
    return x, y


def reference(x, y, num_words=None, skip_top=0, maxlen=None, test_split=0.2, seed=113,
              start_char=1, oov_char=2, index_from=3):  # fmt: skip
    """Keras's documented steps, written out independently."""
    order = np.random.RandomState(seed).permutation(len(x))
    head = [] if start_char is None else [start_char]
    seqs = [head + [int(w) + index_from for w in x[i]] for i in order]
    labels = [y[i] for i in order]
    if maxlen:
        keep = [i for i, s in enumerate(seqs) if len(s) < maxlen]
        seqs, labels = [seqs[i] for i in keep], [labels[i] for i in keep]
    top = num_words or max(w for s in seqs for w in s)
    if oov_char is None:
        seqs = [[w for w in s if skip_top <= w < top] for s in seqs]
    else:
        seqs = [[w if skip_top <= w < top else oov_char for w in s] for s in seqs]
    cut = int(len(seqs) * (1 - test_split))
    return (seqs[:cut], np.array(labels[:cut])), (seqs[cut:], np.array(labels[cut:]))


@pytest.mark.parametrize("kwargs", CASES, ids=lambda kw: ",".join(map(str, kw)) or "defaults")
def test_arithmetic_matches_reference_and_keras(tmp_path, monkeypatch, kwargs):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    x, y = _write(datasets / "reuters.npz")
    monkeypatch.setattr(reuters, "FILE_HASH", sha256(datasets / "reuters.npz"))
    ours = reuters.load_data(**kwargs)
    for (got_x, got_y), (ref_x, ref_y) in zip(ours, reference(x, y, **kwargs)):
        assert got_x.dtype == object and got_x.tolist() == ref_x
        np.testing.assert_array_equal(got_y, ref_y)
    keras = keras_reading(monkeypatch, datasets)
    assert_same(ours, keras.datasets.reuters.load_data(**kwargs))


def test_test_split_checked(tmp_path, monkeypatch):
    use_tmp_home(tmp_path, monkeypatch)
    with pytest.raises(ValueError, match="test_split"):
        reuters.load_data(test_split=1.5)
    with pytest.raises(TypeError, match="test_split"):
        reuters.load_data(test_split="0.2")


def test_word_index_and_label_names(tmp_path, monkeypatch):
    datasets = use_tmp_home(tmp_path, monkeypatch)
    path = datasets / "reuters_word_index.json"
    path.write_text(json.dumps({"the": 1, "of": 2}))
    monkeypatch.setattr(reuters, "WORD_INDEX_HASH", md5(path))
    assert reuters.get_word_index() == {"the": 1, "of": 2}
    keras = keras_reading(monkeypatch, datasets)
    names = reuters.get_label_names()
    assert len(names) == 46 and names == tuple(keras.datasets.reuters.get_label_names())
