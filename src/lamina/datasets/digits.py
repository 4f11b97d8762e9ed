"""The UCI 8x8 handwritten digits: 1,797 images of 0..9, shipped with lamina (CC BY 4.0)."""

from __future__ import annotations

from importlib import resources

import numpy as np

NUM_SAMPLES = 1797


def load_data(test_split: float = 0.2, seed: int = 113):
    """Load the digits as `(x_train, y_train), (x_test, y_test)`.

    Args:
        test_split: fraction of the 1,797 images held out for testing, in (0, 1).
        seed: seed of the shuffle that precedes the split (the same seed, the same split).

    Returns:
        `x_*`: uint8 arrays of shape `(n, 8, 8)`, pixel values 0..16.
        `y_*`: uint8 arrays of shape `(n,)`, labels 0..9.

    >>> (x_train, y_train), (x_test, y_test) = load_data()
    >>> x_train.shape, x_test.shape, int(y_train.max())
    ((1438, 8, 8), (359, 8, 8), 9)
    """
    if isinstance(test_split, bool) or not isinstance(test_split, (int, float, np.floating)):
        raise TypeError(f"test_split must be a float in (0, 1); received {test_split!r}.")
    if not 0 < test_split < 1:
        raise ValueError(
            f"test_split must be in (0, 1) (the fraction held out for testing); "
            f"received {test_split!r}."
        )
    with resources.files("lamina.datasets").joinpath("data/digits.npz").open("rb") as f:
        data = np.load(f)
        images, labels = data["images"], data["labels"]
    order = np.random.RandomState(seed).permutation(len(images))
    images, labels = images[order], labels[order]
    n_test = int(round(len(images) * test_split))
    split = len(images) - n_test
    return (images[:split], labels[:split]), (images[split:], labels[split:])
