"""Boston Housing: 506 neighbourhoods of 1970s Boston, 13 features each, with the
median house value (in k$) as target.

A warning Keras gives too: one feature ("B") was built on the assumption that racial
self-segregation affects house prices; use this data only to discuss such problems.

Reads Keras's `boston_housing.npz` from the cache (`<cache root>/datasets/`, see
`lamina.utils.get_file`), downloading it from Keras's origin when absent.
"""

from __future__ import annotations

import numpy as np

from lamina.datasets import _files

ORIGIN = f"{_files.ORIGIN_FOLDER}boston_housing.npz"
FILE_HASH = "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5"


def split(x, y, test_split, seed):
    """Keras's shuffle-then-split of the housing sets."""
    x, y = _files.shuffled(np.random.RandomState(seed), x, y)
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))


def load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """Load Boston Housing as `(x_train, y_train), (x_test, y_test)`.

    Args:
        path: file name of the data in the cache folder.
        test_split: fraction of the samples held out for testing, in [0, 1).
        seed: seed of the shuffle before the split.

    Returns:
        `x_*`: float arrays `(n, 13)`; `y_*`: float arrays `(n,)`, prices in k$.
    """
    _files.check_test_split(test_split)
    path = _files.fetch(path, ORIGIN, FILE_HASH)
    x, y = _files.load_arrays(path, ("x", "y"), "Boston Housing")
    return split(x, y, test_split, seed)
