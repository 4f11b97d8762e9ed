"""IMDB movie reviews: 25,000 training and 25,000 test reviews labelled by sentiment,
each a list of word ids (a word's id is its frequency rank in the training set).

Reads Keras's `imdb.npz` and `imdb_word_index.json` from the cache
(`<cache root>/datasets/`, see `lamina.utils.get_file`), downloading them from
Keras's origin when absent. The ragged sequences in `imdb.npz` are pickled object
arrays; they are read with an unpickler that builds NumPy arrays and nothing else.
"""

from __future__ import annotations

import json

import numpy as np

from lamina.datasets import _files

ORIGIN = f"{_files.ORIGIN_FOLDER}imdb.npz"
FILE_HASH = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f"
WORD_INDEX_ORIGIN = f"{_files.ORIGIN_FOLDER}imdb_word_index.json"
WORD_INDEX_HASH = "bfafd718b763782e994055a2d397834f"


def load_data(
    path="imdb.npz",
    num_words=None,
    skip_top=0,
    maxlen=None,
    seed=113,
    start_char=1,
    oov_char=2,
    index_from=3,
    **kwargs,
):
    """Load IMDB as `(x_train, y_train), (x_test, y_test)`, exactly as Keras does.

    Each set is shuffled with `np.random.RandomState(seed)` (training set first),
    word ids are shifted by `index_from`, each sequence starts with `start_char`,
    sequences of `maxlen` or more words are dropped, and ids outside
    `[skip_top, num_words)` become `oov_char` (or are removed when it is `None`).

    Args:
        path: file name of the data in the cache folder.
        num_words: keep the `num_words - 1` most frequent ids (ids at or past
            `num_words` become `oov_char`); `None` keeps all.
        skip_top: ids below it (the most frequent words) become `oov_char`.
        maxlen: drop sequences of `maxlen` or more ids; `None` keeps all.
        seed: seed of the shuffle.
        start_char: id put at the start of each sequence (`None` for none).
        oov_char: id of dropped words (`None` removes them instead).
        index_from: offset added to every word id (ids 0..index_from-1 are reserved:
            0 padding, 1 start, 2 out of vocabulary).

    Returns:
        `x_train`, `x_test`: object arrays of lists of ints; `y_train`, `y_test`:
        integer arrays of 0/1 labels.

    Example:

    ```python
    (x_train, y_train), _ = lamina.datasets.imdb.load_data(num_words=10000)
    word = {i + 3: w for w, i in lamina.datasets.imdb.get_word_index().items()}
    print(" ".join(word.get(i, "?") for i in x_train[0][1:]))
    ```
    """
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {sorted(kwargs)}.")
    path = _files.fetch(path, ORIGIN, FILE_HASH)
    x_train, labels_train, x_test, labels_test = _files.load_object_arrays(
        path, ("x_train", "y_train", "x_test", "y_test"), "IMDB"
    )
    rng = np.random.RandomState(seed)
    x_train, labels_train = _files.shuffled(rng, x_train, labels_train)
    x_test, labels_test = _files.shuffled(rng, x_test, labels_test)

    if start_char is not None:
        x_train = [[start_char] + [w + index_from for w in x] for x in x_train]
        x_test = [[start_char] + [w + index_from for w in x] for x in x_test]
    elif index_from:
        x_train = [[w + index_from for w in x] for x in x_train]
        x_test = [[w + index_from for w in x] for x in x_test]
    else:
        x_train = [list(x) for x in x_train]
        x_test = [list(x) for x in x_test]

    if maxlen:
        x_train, labels_train = _files.remove_long_seq(maxlen, x_train, labels_train)
        x_test, labels_test = _files.remove_long_seq(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(
                f"After dropping the sequences of maxlen={maxlen} or more ids, no sequence "
                "was left in the training or the test set. Increase maxlen."
            )

    xs = x_train + x_test
    labels = np.concatenate([labels_train, labels_test])
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        xs = [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    else:
        xs = [[w for w in x if skip_top <= w < num_words] for x in xs]

    idx = len(x_train)
    x_train, y_train = np.array(xs[:idx], dtype="object"), labels[:idx]
    x_test, y_test = np.array(xs[idx:], dtype="object"), labels[idx:]
    return (x_train, y_train), (x_test, y_test)


def get_word_index(path="imdb_word_index.json"):
    """The `{word: id}` dictionary of the IMDB data (ids before the `index_from` shift).

    Args:
        path: file name of the index in the cache folder.

    Returns:
        A dict from word to its frequency rank (1 for the most frequent word).
    """
    path = _files.fetch(path, WORD_INDEX_ORIGIN, WORD_INDEX_HASH)
    return _read_json(path, "IMDB word index")


def _read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise _files.unreadable(path, e, what) from e
