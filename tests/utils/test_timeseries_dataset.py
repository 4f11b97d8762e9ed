"""timeseries_dataset_from_array against a NumPy reference of Keras's window arithmetic."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.utils import PyDataset, timeseries_dataset_from_array


def _reference(data, targets, length, stride, rate, start, end, shuffle=False, seed=None):
    """Windows and targets as Keras documents them, written out with loops."""
    start = start or 0
    end = end or len(data)
    count = end - start - (length - 1) * rate
    if targets is not None:
        count = min(count, len(targets))
    starts = list(range(0, count, stride))
    if shuffle:
        starts = np.array(starts)
        np.random.RandomState(seed).shuffle(starts)
    windows = [[data[start + s + j * rate] for j in range(length)] for s in starts]
    target_values = None if targets is None else [targets[start + s] for s in starts]
    return np.array(windows), None if targets is None else np.array(target_values)


def _collect(ds, with_targets=True):
    parts = [batch for batch in ds]
    if not with_targets:
        return np.concatenate(parts), None
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


@pytest.mark.parametrize(
    "length,stride,rate,start,end,batch",
    [(3, 1, 1, None, None, 4), (4, 2, 3, 2, 40, 5), (5, 3, 2, 7, None, 128), (2, 5, 1, 0, 10, 1)],
)
def test_windows_match_reference(length, stride, rate, start, end, batch):
    data = np.arange(50 * 2, dtype="float32").reshape(50, 2)
    targets = np.arange(50) * 10
    ds = timeseries_dataset_from_array(
        data, targets, length, stride, rate, batch_size=batch, start_index=start, end_index=end
    )
    assert isinstance(ds, PyDataset)
    x, y = _collect(ds)
    ref_x, ref_y = _reference(data, targets, length, stride, rate, start, end)
    assert len(ds) == -(-len(ref_x) // batch)
    np.testing.assert_array_equal(x, ref_x)
    np.testing.assert_array_equal(y, ref_y)
    assert x.dtype == data.dtype and y.dtype == targets.dtype


def test_no_targets_short_targets_and_unbatched():
    data = np.arange(20)
    ds = timeseries_dataset_from_array(data, None, sequence_length=4, batch_size=None)
    assert len(ds) == 17 and ds[0].tolist() == [0, 1, 2, 3] and ds[-1].tolist() == [16, 17, 18, 19]
    x, y = _collect(timeseries_dataset_from_array(data, data[:6], 3, batch_size=4))
    ref_x, ref_y = _reference(data, data[:6], 3, 1, 1, None, None)
    np.testing.assert_array_equal(x, ref_x)
    np.testing.assert_array_equal(y, ref_y)
    # The Keras docs' example: predict the step after each window.
    steps = np.arange(100)
    ds = timeseries_dataset_from_array(steps[:-10], steps[10:], sequence_length=10, batch_size=16)
    first_x, first_y = ds[0]
    assert first_x[0].tolist() == list(range(10)) and first_y[0] == 10
    too_long = timeseries_dataset_from_array(np.arange(5), None, sequence_length=9)
    assert len(too_long) == 0


def test_shuffle_is_seeded():
    data = np.arange(30, dtype="float32")
    ds = timeseries_dataset_from_array(data, data, 3, batch_size=4, shuffle=True, seed=4)
    x, y = _collect(ds)
    ref_x, ref_y = _reference(data, data, 3, 1, 1, None, None, shuffle=True, seed=4)
    np.testing.assert_array_equal(x, ref_x)
    np.testing.assert_array_equal(y, ref_y)
    ds.on_epoch_end()
    x2, _ = _collect(ds)
    assert sorted(map(tuple, x2)) == sorted(map(tuple, ref_x)) and not np.array_equal(x2, x)
    again = timeseries_dataset_from_array(data, data, 3, batch_size=4, shuffle=True, seed=4)
    again.on_epoch_end()
    np.testing.assert_array_equal(_collect(again)[0], x2)


def test_fit_and_predict():
    lamina.utils.set_random_seed(0)
    series = np.sin(np.arange(60, dtype="float32") / 5)[:, None]
    ds = timeseries_dataset_from_array(series[:-5], series[5:, 0], sequence_length=5, batch_size=8)
    model = lamina.Sequential([lamina.Input((5, 1)), layers.Flatten(), layers.Dense(1)])
    model.compile("sgd", "mse")
    history = model.fit(ds, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    predictions = ops.convert_to_numpy(model.predict(ds, verbose=0))
    assert predictions.shape == (51, 1)


def test_errors():
    data = np.arange(10)
    with pytest.raises(ValueError, match="start_index=-1"):
        timeseries_dataset_from_array(data, None, 2, start_index=-1)
    with pytest.raises(ValueError, match="end_index=3"):
        timeseries_dataset_from_array(data, None, 2, start_index=5, end_index=3)
    with pytest.raises(ValueError, match="end_index=10, for data of length 10"):
        timeseries_dataset_from_array(data, None, 2, end_index=10)
    with pytest.raises(ValueError, match="sampling_rate=0"):
        timeseries_dataset_from_array(data, None, 2, sampling_rate=0)
    with pytest.raises(ValueError, match="sequence_stride=10"):
        timeseries_dataset_from_array(data, None, 2, sequence_stride=10)
    with pytest.raises(TypeError, match="sequence_length"):
        timeseries_dataset_from_array(data, None, 2.5)
    with pytest.raises(ValueError, match="batch_size"):
        timeseries_dataset_from_array(data, None, 2, batch_size=0)


def test_iterated_batches_answer_numpy_as_tf_tensors_do():
    """keras-io programs written for Keras's tf.data datasets read a batch with
    `inputs.numpy()` (timeseries_weather_forecasting); iterating a lamina dataset gives
    NumPy arrays that answer it, with the values of the plain batch."""
    data = np.arange(40.0).reshape(20, 2)
    dataset = timeseries_dataset_from_array(data, np.arange(20.0), sequence_length=3, batch_size=4)
    for inputs, targets in dataset.take(1):
        plain = inputs.numpy()
        assert type(plain) is np.ndarray and plain.shape == (4, 3, 2)
        np.testing.assert_array_equal(plain, np.stack([data[i : i + 3] for i in range(4)]))
        np.testing.assert_array_equal(targets.numpy(), np.arange(4.0))
    unbatched = timeseries_dataset_from_array(data, None, sequence_length=3, batch_size=None)
    assert next(iter(unbatched)).numpy().shape == (3, 2)
