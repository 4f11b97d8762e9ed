"""`adapt` on pandas DataFrames and Series: their values, as `to_numpy()` gives them (a
DataFrame is not iterated, which would yield its column names). Keras 3 adapts these
layers only through TensorFlow; the references are NumPy's statistics and counts."""

import numpy as np
import pytest

from lamina import layers

pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(3)
FRAME = pd.DataFrame({"a": RNG.standard_normal(30) * 2 + 1, "b": RNG.random(30)})


def test_normalization_adapts_to_a_frames_columns():
    layer = layers.Normalization()
    layer.adapt(FRAME)
    values = FRAME.to_numpy()
    expected = (values - values.mean(axis=0)) / np.sqrt(values.var(axis=0))
    got = np.asarray(layer(values.astype("float32")))
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_normalization_and_discretization_adapt_to_a_series():
    norm = layers.Normalization(axis=None)
    norm.adapt(FRAME["a"])
    a = FRAME["a"].to_numpy()
    np.testing.assert_allclose(
        np.asarray(norm(np.array([0.0], "float32"))), (0.0 - a.mean()) / a.std(), rtol=1e-4
    )
    disc = layers.Discretization(num_bins=2)
    disc.adapt(FRAME["a"])
    median = np.quantile(a, 0.5)
    assert np.asarray(disc(np.array([median - 1.0, median + 1.0]))).tolist() == [0, 1]


def test_lookups_learn_a_frames_values_not_its_column_names():
    ints = pd.DataFrame({"x": [3, 3, 3, 5], "y": [5, 7, 3, 3]})
    lookup = layers.IntegerLookup()
    lookup.adapt(ints)
    assert lookup.get_vocabulary() == [-1, 3, 5, 7]  # OOV, then by decreasing count
    words = pd.Series(["red", "blue", "red", "green", "red", "blue"])
    strings = layers.StringLookup()
    strings.adapt(words)
    assert strings.get_vocabulary() == ["[UNK]", "red", "blue", "green"]
