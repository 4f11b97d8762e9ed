"""text_dataset_from_directory: Keras's listing and split (compared with Keras's own
`index_directory`), file contents read back as NumPy string arrays."""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras_dataset_utils = pytest.importorskip("keras.src.utils.dataset_utils")

from lamina.utils import PyDataset, split_dataset, text_dataset_from_directory  # noqa: E402


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("texts")
    texts = {}
    for cls, count in (("neg", 4), ("pos", 5)):
        (root / cls).mkdir()
        for i in range(count):
            text = f"{cls} review {i}: " + "word " * i + "\r\nsecond line é"
            path = root / cls / f"r{i}.txt"
            path.write_bytes(text.encode("utf-8"))
            texts[str(path)] = text
    (root / "pos" / "ignored.md").write_text("not a .txt")
    (root / "pos" / "UPPER.TXT").write_bytes(b"upper")
    texts[str(root / "pos" / "UPPER.TXT")] = "upper"
    return str(root), texts


def _all(ds):
    xs, ys = [], []
    for x, y in ds:
        xs.extend(x.tolist())
        ys.extend(np.asarray(y).tolist())
    return xs, ys


@pytest.mark.parametrize("shuffle,seed", [(False, None), (True, 42)])
def test_listing_contents_and_labels(folder, shuffle, seed):
    root, texts = folder
    ds = text_dataset_from_directory(root, batch_size=4, shuffle=shuffle, seed=seed, verbose=False)
    paths, labels, class_names = keras_dataset_utils.index_directory(
        root, "inferred", formats=(".txt",), shuffle=shuffle, seed=seed, verbose=False
    )
    assert isinstance(ds, PyDataset) and len(ds) == 3
    assert ds.file_paths == paths and ds.class_names == class_names == ["neg", "pos"]
    x, y = ds[0]
    assert isinstance(x, np.ndarray) and x.dtype.kind == "U" and x.shape == (4,)
    assert np.asarray(y).dtype == np.int32
    got_texts, got_labels = _all(ds)
    assert got_texts == [texts[p] for p in paths]  # "\r\n" kept as the bytes are
    assert got_labels == list(labels)


def test_max_length_label_modes_and_unbatched(folder):
    root, texts = folder
    common = dict(shuffle=False, verbose=False)
    ds = text_dataset_from_directory(root, max_length=5, batch_size=None, **common)
    assert len(ds) == 10
    text, label = ds[0]
    assert text == texts[ds.file_paths[0]][:5] and np.asarray(label).shape == ()
    _, labels = _all(text_dataset_from_directory(root, label_mode="binary", **common))
    assert np.asarray(labels).shape == (10, 1)
    ds = text_dataset_from_directory(root, label_mode="categorical", **common)
    np.testing.assert_array_equal(ds[0][1], np.eye(2, dtype="float32")[[0] * 4 + [1] * 6])
    assert ds[0][1].dtype == np.float32
    only_text = text_dataset_from_directory(root, labels=None, **common)
    assert only_text.class_names is None and only_text[0].shape == (10,)


def test_validation_split(folder, capsys):
    root, _ = folder
    common = dict(validation_split=0.3, seed=9, batch_size=2)
    train, val = text_dataset_from_directory(root, subset="both", **common)
    out = capsys.readouterr().out
    assert "Found 10 files belonging to 2 classes." in out
    assert "Using 7 files for training." in out and "Using 3 files for validation." in out
    paths, labels, _ = keras_dataset_utils.index_directory(
        root, "inferred", formats=(".txt",), seed=9, verbose=False
    )
    assert train.file_paths == paths[:7] and val.file_paths == paths[7:]
    again = text_dataset_from_directory(root, subset="validation", verbose=False, **common)
    assert again.file_paths == val.file_paths
    # split_dataset on a built dataset splits by sample, keeping batching and names.
    left, right = split_dataset(train, left_size=5)
    assert left.file_paths == train.file_paths[:5] and right.file_paths == train.file_paths[5:]
    assert left.batch_size == 2 and left.class_names == ["neg", "pos"]
    assert _all(left)[1] == list(labels[:5])


def test_errors(folder, tmp_path):
    root, _ = folder
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="No text files found in directory .*empty"):
        text_dataset_from_directory(tmp_path / "empty", verbose=False)
    with pytest.raises(ValueError, match="len\\(labels\\) is 2 while we found 10 files"):
        text_dataset_from_directory(root, labels=[0, 1], verbose=False)
    with pytest.raises(ValueError, match="`validation_split` must be set"):
        text_dataset_from_directory(root, subset="both", verbose=False)
    with pytest.raises(ValueError, match="max_length"):
        text_dataset_from_directory(root, max_length=-1, verbose=False)
    gap = tmp_path / "gap"
    for name in ("has", "none"):
        (gap / name).mkdir(parents=True)
    (gap / "has" / "t.txt").write_text("x")
    (gap / "none" / "t.md").write_text("not .txt")
    with pytest.raises(ValueError, match=r"no files of the allowed formats \(\.txt\).*\['none'\]"):
        text_dataset_from_directory(gap, verbose=False)
    bad = tmp_path / "bad" / "a"
    bad.mkdir(parents=True)
    (bad / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    ds = text_dataset_from_directory(tmp_path / "bad", verbose=False)
    with pytest.raises(ValueError, match="latin1.txt.*not valid UTF-8"):
        ds[0]


def test_max_length_counts_bytes_as_keras_does(tmp_path):
    # Keras cuts with tf.strings.substr, which counts bytes of the UTF-8 encoding; lamina
    # yields str, so a character cut in two is dropped whole.
    raw = "héllo wörld 😀 ok".encode()
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "t.txt").write_bytes(raw)
    for max_length in range(len(raw) + 2):
        ds = text_dataset_from_directory(
            tmp_path, max_length=max_length, batch_size=None, shuffle=False, verbose=False
        )
        text, _ = ds[0]
        keras_bytes = raw[:max_length]  # tf.strings.substr(raw, 0, max_length)
        assert text == keras_bytes.decode("utf-8", errors="ignore")
        assert len(text.encode()) >= len(keras_bytes) - 3
    assert text_dataset_from_directory(tmp_path, max_length=2, verbose=False)[0][0][0] == "h"
    assert text_dataset_from_directory(tmp_path, max_length=3, verbose=False)[0][0][0] == "hé"
