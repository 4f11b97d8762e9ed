"""California Housing: 20,640 census block groups of 1990 California, 8 features
each (median income, house age, average rooms and bedrooms, population, average
occupancy, latitude, longitude), with the median house value (in $) as target.

Reads Keras's `california_housing.npz` from the cache (`<cache root>/datasets/`, see
`lamina.utils.get_file`), downloading it from Keras's origin when absent.
"""

from __future__ import annotations

from lamina.datasets import _files
from lamina.datasets.boston_housing import split

ORIGIN = f"{_files.ORIGIN_FOLDER}california_housing.npz"
FILE_HASH = "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f"
SMALL_SAMPLES = 600


def load_data(version="large", path="california_housing.npz", test_split=0.2, seed=113):
    """Load California Housing as `(x_train, y_train), (x_test, y_test)`.

    Args:
        version: `"large"` (all 20,640 samples) or `"small"` (the first 600, a
            stand-in for the Boston Housing data).
        path: file name of the data in the cache folder.
        test_split: fraction of the samples held out for testing, in [0, 1).
        seed: seed of the shuffle before the split.

    Returns:
        `x_*`: float arrays `(n, 8)`; `y_*`: float arrays `(n,)`, prices in dollars.
    """
    _files.check_test_split(test_split)
    if version not in ("small", "large"):
        raise ValueError(
            f"Argument `version` must be one of 'small', 'large'. Received: version={version!r}"
        )
    path = _files.fetch(path, ORIGIN, FILE_HASH)
    x, y = _files.load_arrays(path, ("x", "y"), "California Housing")
    if version == "small":
        x, y = x[:SMALL_SAMPLES], y[:SMALL_SAMPLES]
    return split(x, y, test_split, seed)
