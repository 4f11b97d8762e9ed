"""The shipped digits data set."""

import numpy as np
import pytest

from lamina.datasets import digits


def test_shapes_counts_and_values():
    (x_train, y_train), (x_test, y_test) = digits.load_data()
    assert len(x_train) + len(x_test) == 1797
    assert x_train.shape[1:] == (8, 8) and x_train.dtype == np.uint8
    assert x_train.max() == 16 and x_train.min() == 0
    counts = np.bincount(np.concatenate([y_train, y_test]), minlength=10)
    assert counts.sum() == 1797 and counts.min() > 170
    assert set(np.unique(y_test)) == set(range(10))


def test_split_is_deterministic_and_configurable():
    a = digits.load_data(seed=1)
    b = digits.load_data(seed=1)
    np.testing.assert_array_equal(a[0][0], b[0][0])
    (x_train, _), (x_test, _) = digits.load_data(test_split=0.5)
    assert abs(len(x_train) - len(x_test)) <= 1
    with pytest.raises(ValueError, match=r"test_split must be in \(0, 1\)"):
        digits.load_data(test_split=1.0)
