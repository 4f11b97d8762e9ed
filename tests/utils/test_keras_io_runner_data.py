"""A smoke test of tools/keras_io_examples/'s stand-in for `tf.data` (the runner of
keras-io's programs; the runner itself is a tool, not run here): a dataset built from
slices, mapped and batched gives the NumPy batches TensorFlow would, as a PyDataset."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np

import lamina

_PATH = pathlib.Path(__file__).parents[2] / "tools" / "keras_io_examples" / "fake_tf.py"


def test_fake_tf_data_batches_like_tf_data():
    spec = importlib.util.spec_from_file_location("fake_tf", _PATH)
    fake_tf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fake_tf)
    tf = fake_tf.build(lamina.utils.PyDataset)  # build only: `import tensorflow` unchanged
    x, y = np.arange(10.0).reshape(5, 2), np.arange(5)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).map(lambda a, b: (a * 2, b)).batch(2)
    assert isinstance(ds, lamina.utils.PyDataset) and len(ds) == 3
    np.testing.assert_array_equal(ds[0][0], [[0.0, 2.0], [4.0, 6.0]])
    np.testing.assert_array_equal(ds[2][1], [4])  # the last, short batch kept
    dropped = tf.data.Dataset.from_tensor_slices(x).batch(2, drop_remainder=True)
    assert len(dropped) == 2
