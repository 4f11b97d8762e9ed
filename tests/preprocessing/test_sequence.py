"""preprocessing.sequence against Keras's legacy implementations; TimeseriesGenerator
feeds fit."""

import json
import os
import random
import warnings

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.preprocessing import sequence

os.environ.setdefault("KERAS_BACKEND", "jax")
keras_sequence = pytest.importorskip("keras.src.legacy.preprocessing.sequence")


def test_pad_sequences_is_the_utils_one():
    assert sequence.pad_sequences is lamina.utils.pad_sequences
    assert sequence.pad_sequences([[1, 2], [3]]).tolist() == [[1, 2], [0, 3]]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"length": 3},
        {"length": 4, "sampling_rate": 2, "stride": 3, "batch_size": 2},
        {"length": 2, "start_index": 3, "end_index": 15, "reverse": True, "batch_size": 4},
        {"length": 5, "batch_size": 100},
    ],
)
def test_timeseries_generator_matches_keras(kwargs):
    data = np.arange(40, dtype="float32").reshape(20, 2)
    targets = np.arange(20) * 10
    ours = sequence.TimeseriesGenerator(data, targets, **kwargs)
    theirs = keras_sequence.TimeseriesGenerator(data, targets, **kwargs)
    assert len(ours) == len(theirs)
    for i in range(len(ours)):
        (x, y), (kx, ky) = ours[i], theirs[i]
        np.testing.assert_array_equal(x, kx)
        np.testing.assert_array_equal(y, ky)
        assert x.dtype == kx.dtype
    # Keras 3's legacy get_config is broken (it calls a PyDataset.get_config that does
    # not exist); Keras 2 stored data/targets as JSON text and the shifted start_index.
    config = ours.get_config()
    assert json.loads(config["data"]) == data.tolist()
    assert json.loads(config["targets"]) == targets.tolist()
    for key in ("length", "sampling_rate", "stride", "start_index", "end_index", "batch_size"):
        assert config[key] == getattr(theirs, key), key
    assert json.loads(ours.to_json())["class_name"] == "TimeseriesGenerator"


def test_timeseries_generator_shuffle_draws_like_keras():
    data = list(range(30))
    ours = sequence.TimeseriesGenerator(data, data, length=4, shuffle=True, batch_size=5)
    theirs = keras_sequence.TimeseriesGenerator(data, data, length=4, shuffle=True, batch_size=5)
    np.random.seed(3)
    ours_batch = ours[0]
    np.random.seed(3)
    theirs_batch = theirs[0]
    for a, b in zip(ours_batch, theirs_batch):
        np.testing.assert_array_equal(a, b)


def test_timeseries_generator_errors():
    with pytest.raises(ValueError, match="data has 5 time steps, targets 4"):
        sequence.TimeseriesGenerator(np.zeros(5), np.zeros(4), length=2)
    with pytest.raises(ValueError, match="start_index \\+ length = 6 is past end_index = 4"):
        sequence.TimeseriesGenerator(np.zeros(5), np.zeros(5), length=6)
    with pytest.raises(ValueError, match="length must be an int >= 1; received 0"):
        sequence.TimeseriesGenerator(np.zeros(5), np.zeros(5), length=0)
    generator = sequence.TimeseriesGenerator(np.zeros(5), np.zeros(5), length=2)
    with pytest.raises(IndexError, match="it has 1 batches"):
        generator[1]


def test_timeseries_generator_feeds_fit():
    lamina.utils.set_random_seed(0)
    series = np.sin(np.arange(64, dtype="float32") / 4).reshape(-1, 1)
    generator = sequence.TimeseriesGenerator(series, series, length=6, batch_size=16)
    assert isinstance(generator, lamina.utils.PyDataset)
    model = lamina.Sequential([lamina.Input((6, 1)), layers.Flatten(), layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    history = model.fit(generator, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    predictions = ops.convert_to_numpy(model.predict(generator, verbose=0))
    assert predictions.shape == (64 - 6, 1)


def test_make_sampling_table_matches_keras_and_formula():
    for size in (1, 5, 1000):
        for factor in (1e-5, 1e-3):
            np.testing.assert_array_equal(
                sequence.make_sampling_table(size, factor),
                keras_sequence.make_sampling_table(size, factor),
            )
    # Zipf estimate of the frequency of rank r, then word2vec's keep probability.
    rank = np.array([1.0, 1.0, 2.0, 3.0])
    inverse_frequency = rank * (np.log(rank) + 0.577) + 0.5 - 1 / (12 * rank)
    expected = np.minimum(1.0, np.sqrt(1e-5 * inverse_frequency))
    np.testing.assert_allclose(sequence.make_sampling_table(4), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="size must be a positive int; received 0"):
        sequence.make_sampling_table(0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"window_size": 2, "negative_samples": 0.5, "seed": 7},
        {"categorical": True, "shuffle": False},
        {"negative_samples": 0.0, "seed": 1},
        {"sampling_table": "table", "window_size": 1, "seed": 2},
    ],
)
def test_skipgrams_match_keras_for_the_same_random_seed(kwargs):
    words = [3, 0, 5, 1, 2, 9, 0, 4, 7, 7, 2]
    if kwargs.get("sampling_table") == "table":
        kwargs = dict(kwargs, sampling_table=np.linspace(0.2, 1.0, 10))
    random.seed(11)
    ours = sequence.skipgrams(words, vocabulary_size=10, **kwargs)
    random.seed(11)
    with warnings.catch_warnings():
        # Keras draws its shuffle seed with random.randint(0, 10e6): a float bound.
        warnings.simplefilter("ignore", DeprecationWarning)
        theirs = keras_sequence.skipgrams(words, vocabulary_size=10, **kwargs)
    assert ours == theirs
    couples, labels = ours
    assert len(couples) == len(labels)
    assert all(0 not in pair for pair in couples)


def test_skipgrams_positive_pairs_by_hand():
    couples, labels = sequence.skipgrams(
        [1, 2, 0, 3], vocabulary_size=4, window_size=1, negative_samples=0, shuffle=False
    )
    assert couples == [[1, 2], [2, 1]]
    assert labels == [1, 1]
    with pytest.raises(ValueError, match="vocabulary_size must be an int >= 2"):
        sequence.skipgrams([1, 2], vocabulary_size=1)
