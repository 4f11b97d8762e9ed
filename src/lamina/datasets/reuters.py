"""Reuters newswires: 11,228 newswires labelled with 46 topics, each a list of word ids
(a word's id is its frequency rank).

Reads Keras's `reuters.npz` and `reuters_word_index.json` from the cache
(`<cache root>/datasets/`, see `lamina.utils.get_file`), downloading them from
Keras's origin when absent. The ragged sequences are pickled object arrays, read with
an unpickler that builds NumPy arrays and nothing else.
"""

from __future__ import annotations

import numpy as np

from lamina.datasets import _files
from lamina.datasets.imdb import _read_json

ORIGIN = f"{_files.ORIGIN_FOLDER}reuters.npz"
FILE_HASH = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916"
WORD_INDEX_ORIGIN = f"{_files.ORIGIN_FOLDER}reuters_word_index.json"
WORD_INDEX_HASH = "4d44cc38712099c9e383dc6e5f11a921"

LABEL_NAMES = (
    "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing",
    "money-supply", "coffee", "sugar", "trade", "reserves", "ship", "cotton", "carcass",
    "crude", "nat-gas", "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum",
    "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail", "ipi",
    "iron-steel", "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem",
    "dlr", "gas", "silver", "wpi", "hog", "lead",
)  # fmt: skip


def load_data(
    path="reuters.npz",
    num_words=None,
    skip_top=0,
    maxlen=None,
    test_split=0.2,
    seed=113,
    start_char=1,
    oov_char=2,
    index_from=3,
):
    """Load Reuters as `(x_train, y_train), (x_test, y_test)`, exactly as Keras does.

    The newswires are shuffled with `np.random.RandomState(seed)`, word ids are
    shifted by `index_from`, each sequence starts with `start_char`, sequences of
    `maxlen` or more ids are dropped, ids outside `[skip_top, num_words)` become
    `oov_char` (or are removed when it is `None`), and the first
    `int(n * (1 - test_split))` newswires are the training set.

    Args:
        path: file name of the data in the cache folder.
        num_words: ids at or past `num_words` become `oov_char`; `None` keeps all.
        skip_top: ids below it (the most frequent words) become `oov_char`.
        maxlen: drop sequences of `maxlen` or more ids; `None` keeps all.
        test_split: fraction of the newswires held out for testing.
        seed: seed of the shuffle.
        start_char: id put at the start of each sequence (`None` for none).
        oov_char: id of dropped words (`None` removes them instead).
        index_from: offset added to every word id.

    Returns:
        `x_train`, `x_test`: object arrays of lists of ints; `y_train`, `y_test`:
        integer arrays of topic ids 0..45 (names in `get_label_names()`).
    """
    if isinstance(test_split, bool) or not isinstance(test_split, (int, float, np.floating)):
        raise TypeError(f"test_split must be a float in [0, 1]; received {test_split!r}.")
    if not 0 <= test_split <= 1:
        raise ValueError(
            f"Invalid `test_split` argument: {test_split}. It must be between 0 and 1: "
            "the fraction of the newswires held out for testing."
        )
    path = _files.fetch(path, ORIGIN, FILE_HASH)
    xs, labels = _files.load_object_arrays(path, ("x", "y"), "Reuters")
    rng = np.random.RandomState(seed)
    xs, labels = _files.shuffled(rng, xs, labels)

    if start_char is not None:
        xs = [[start_char] + [w + index_from for w in x] for x in xs]
    elif index_from:
        xs = [[w + index_from for w in x] for x in xs]

    if maxlen:
        xs, labels = _files.remove_long_seq(maxlen, xs, labels)
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        xs = [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    else:
        xs = [[w for w in x if skip_top <= w < num_words] for x in xs]

    idx = int(len(xs) * (1 - test_split))
    x_train, y_train = np.array(xs[:idx], dtype="object"), np.array(labels[:idx])
    x_test, y_test = np.array(xs[idx:], dtype="object"), np.array(labels[idx:])
    return (x_train, y_train), (x_test, y_test)


def get_word_index(path="reuters_word_index.json"):
    """The `{word: id}` dictionary of the Reuters data (ids before the `index_from`
    shift: "the" is 1 here and 1 + 3 = 4 in `load_data`'s sequences).

    Args:
        path: file name of the index in the cache folder.

    Returns:
        A dict from word to its frequency rank.
    """
    path = _files.fetch(path, WORD_INDEX_ORIGIN, WORD_INDEX_HASH)
    return _read_json(path, "Reuters word index")


def get_label_names():
    """The 46 topic names, indexed by the labels `load_data` returns.

    >>> get_label_names()[:3]
    ('cocoa', 'grain', 'veg-oil')
    """
    return LABEL_NAMES
