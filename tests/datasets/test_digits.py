"""The shipped digits data set."""

import numpy as np
import pytest

from lamina.datasets import digits


def test_shapes_counts_dtypes_and_values():
    (x_train, y_train), (x_test, y_test) = digits.load_data()
    assert x_train.shape == (1438, 8, 8) and x_test.shape == (359, 8, 8)
    assert y_train.shape == (1438,) and y_test.shape == (359,)
    assert {a.dtype for a in (x_train, y_train, x_test, y_test)} == {np.dtype(np.uint8)}
    x = np.concatenate([x_train, x_test])
    y = np.concatenate([y_train, y_test])
    assert len(x) == digits.NUM_SAMPLES == 1797
    assert x.min() == 0 and x.max() == 16 and y.min() == 0 and y.max() == 9
    # The UCI test set's class counts.
    np.testing.assert_array_equal(
        np.bincount(y, minlength=10), [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    )
    assert np.bincount(y_test, minlength=10).min() > 20  # every class is in the test split


def test_real_images_not_noise():
    (x_train, y_train), _ = digits.load_data()
    zeros = x_train[y_train == 0].mean(axis=0)
    ones = x_train[y_train == 1].mean(axis=0)
    # A 0 is a ring (an empty centre), a 1 a stroke down the middle.
    assert zeros[3:5, 3:5].mean() < 5 < zeros[3:5, 1].mean()
    assert ones[3:5, 3:5].mean() > 8


def test_split_is_deterministic_and_seeded():
    a = digits.load_data(seed=1)
    b = digits.load_data(seed=1)
    c = digits.load_data(seed=2)
    for left, right in zip(a, b):
        for u, v in zip(left, right):
            np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[1][1], c[1][1])


def test_test_split_fraction_and_errors():
    (x_train, _), (x_test, _) = digits.load_data(test_split=0.5)
    assert abs(len(x_train) - len(x_test)) <= 1
    (x_train, _), (x_test, _) = digits.load_data(test_split=0.1)
    assert len(x_test) == 180 and len(x_train) == 1617
    for bad in (0, 1.0, -0.2, 1.5):
        with pytest.raises(ValueError, match=r"test_split must be in \(0, 1\)"):
            digits.load_data(test_split=bad)
    with pytest.raises(TypeError, match="test_split must be a float"):
        digits.load_data(test_split="0.2")
