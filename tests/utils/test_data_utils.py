"""to_categorical, normalize and pad_sequences against NumPy formulas."""

import numpy as np
import pytest

from lamina import Input, Model, ops
from lamina.utils import normalize, pad_sequences, to_categorical


def test_to_categorical():
    labels = np.array([2, 0, 1, 2])
    np.testing.assert_array_equal(to_categorical(labels), np.eye(3)[labels])
    out = to_categorical(labels.reshape(4, 1), num_classes=5)
    assert out.shape == (4, 5) and out.dtype == np.float32
    np.testing.assert_array_equal(out, np.eye(5)[labels])
    grid = np.array([[0, 1], [1, 3]])
    np.testing.assert_array_equal(to_categorical(grid, 4), np.eye(4)[grid])
    np.testing.assert_array_equal(to_categorical([1.0, 0.0]), [[0, 1], [1, 0]])
    tensor = to_categorical(ops.convert_to_tensor(labels), 3)
    assert ops.is_tensor(tensor)
    np.testing.assert_array_equal(np.asarray(tensor), np.eye(3)[labels])
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 3\).*from -1 to 2"):
        to_categorical([-1, 2], 3)
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 2\).*from 0 to 2"):
        to_categorical([0, 2], 2)
    with pytest.raises(ValueError, match="non-integer values such as \\[0.5\\]"):
        to_categorical([0.5, 1.0])
    with pytest.raises(TypeError, match="dtype <U1"):
        to_categorical(np.array(["a"]))


def test_normalize():
    x = np.random.default_rng(0).standard_normal((4, 3)).astype("float32")
    np.testing.assert_allclose(
        normalize(x), x / np.linalg.norm(x, axis=-1, keepdims=True), rtol=1e-6
    )
    l1 = normalize(x, axis=0, order=1)
    np.testing.assert_allclose(l1, x / np.abs(x).sum(axis=0, keepdims=True), rtol=1e-6)
    np.testing.assert_array_equal(normalize(np.zeros((2, 2))), np.zeros((2, 2)))
    tensor = normalize(ops.convert_to_tensor(x))
    np.testing.assert_allclose(np.asarray(tensor), normalize(x), rtol=1e-5)
    inputs = Input((3,))
    model = Model(inputs, normalize(inputs))
    np.testing.assert_allclose(np.asarray(model(x)), normalize(x), rtol=1e-5)


def test_pad_sequences_padding_and_truncating():
    seqs = [[1, 2, 3, 4], [5], [], [6, 7]]
    np.testing.assert_array_equal(
        pad_sequences(seqs), [[1, 2, 3, 4], [0, 0, 0, 5], [0, 0, 0, 0], [0, 0, 6, 7]]
    )
    np.testing.assert_array_equal(
        pad_sequences(seqs, maxlen=3, padding="post", truncating="post", value=-1),
        [[1, 2, 3], [5, -1, -1], [-1, -1, -1], [6, 7, -1]],
    )
    np.testing.assert_array_equal(pad_sequences(seqs, maxlen=2)[0], [3, 4])
    floats = pad_sequences([[0.5], [1.5, 2.5]], dtype="float32", value=np.nan)
    assert floats.dtype == np.float32 and np.isnan(floats[0, 0])
    vectors = pad_sequences([np.ones((1, 3)), np.ones((2, 3))], dtype="float32")
    assert vectors.shape == (2, 2, 3) and vectors[0, 0].sum() == 0
    words = pad_sequences([["a"], ["b", "c"]], dtype=object, value="")
    assert words.tolist() == [["", "a"], ["b", "c"]]
    assert pad_sequences([], maxlen=3).shape == (0, 3)


def test_pad_sequences_errors():
    with pytest.raises(ValueError, match="padding must be 'pre' or 'post'; received 'left'"):
        pad_sequences([[1]], padding="left")
    with pytest.raises(ValueError, match="truncating must be 'pre' or 'post'"):
        pad_sequences([[1]], truncating="middle")
    with pytest.raises(ValueError, match="sequence 1 is 5, not a sequence"):
        pad_sequences([[1], 5])
    with pytest.raises(ValueError, match="value 'x' is a string but dtype is int32"):
        pad_sequences([[1]], value="x")
    with pytest.raises(ValueError, match=r"items of shape \(2,\).*\(3,\)"):
        pad_sequences([np.ones((1, 3)), np.ones((1, 2))], dtype="float32")
