"""NumPy integers are integers in every layer argument that takes an int or a tuple of
ints (issue 32, item 4): one shared check (`lamina.layers.argument_validation`), and
plain Python ints in what a layer stores and in its JSON config."""

from __future__ import annotations

import json

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.layers import argument_validation as av

I = np.int64  # noqa: E741 - short on purpose, the table reads better


def _plain_ints_only(value, path="config"):
    """Every int in `value` (a config) is a Python int, never a NumPy integer."""
    if isinstance(value, dict):
        for k, v in value.items():
            _plain_ints_only(v, f"{path}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _plain_ints_only(v, f"{path}[{i}]")
    else:
        assert not isinstance(value, np.generic), f"{path} is {type(value).__name__} {value!r}"


# (layer factory, input shape, expected output shape)
CASES = [
    (lambda: layers.Dense(I(46)), (2, 3), (2, 46)),
    (lambda: layers.Embedding(I(10), I(4)), (2, 5), (2, 5, 4)),
    (lambda: layers.Conv1D(I(8), I(3), strides=I(1)), (1, 7, 2), (1, 5, 8)),
    (lambda: layers.Conv2D(I(8), I(3)), (1, 5, 5, 1), (1, 3, 3, 8)),
    (
        lambda: layers.Conv2D(4, (I(3), I(2)), dilation_rate=(I(1), I(1))),
        (1, 5, 5, 1),
        (1, 3, 4, 4),
    ),
    (
        lambda: layers.Conv2DTranspose(I(2), I(3), strides=I(2), output_padding=I(1)),
        (1, 3, 3, 1),
        (1, 8, 8, 2),
    ),
    (lambda: layers.SeparableConv2D(I(4), I(3), depth_multiplier=I(2)), (1, 5, 5, 2), (1, 3, 3, 4)),
    (lambda: layers.DepthwiseConv2D(I(3), depth_multiplier=I(2)), (1, 5, 5, 2), (1, 3, 3, 4)),
    (lambda: layers.Conv2D(I(4), I(1), groups=I(2)), (1, 3, 3, 2), (1, 3, 3, 4)),
    (lambda: layers.MaxPooling2D(I(2)), (1, 4, 4, 1), (1, 2, 2, 1)),
    (lambda: layers.AveragePooling1D(pool_size=I(2), strides=I(1)), (1, 4, 3), (1, 3, 3)),
    (lambda: layers.UpSampling2D(size=(I(2),) * 2), (1, 2, 2, 1), (1, 4, 4, 1)),
    (lambda: layers.UpSampling1D(I(3)), (1, 2, 1), (1, 6, 1)),
    (lambda: layers.ZeroPadding2D(((I(1), I(0)), (I(2), I(2)))), (1, 2, 2, 1), (1, 3, 6, 1)),
    (lambda: layers.Cropping1D((I(1), I(1))), (1, 5, 2), (1, 3, 2)),
    (lambda: layers.Reshape((I(3), I(-1))), (2, 12), (2, 3, 4)),
    (lambda: layers.Permute((I(2), I(1))), (2, 3, 4), (2, 4, 3)),
    (lambda: layers.RepeatVector(I(3)), (2, 5), (2, 3, 5)),
    (lambda: layers.LSTM(I(3)), (1, 4, 2), (1, 3)),
    (lambda: layers.GRU(I(3), return_sequences=True), (1, 4, 2), (1, 4, 3)),
    (lambda: layers.SimpleRNN(I(2)), (1, 4, 2), (1, 2)),
    (lambda: layers.ConvLSTM2D(I(2), I(3), padding="same"), (1, 2, 4, 4, 1), (1, 4, 4, 2)),
    (lambda: layers.MultiHeadAttention(I(2), I(3)), None, None),
    (lambda: layers.Concatenate(axis=I(1)), None, None),
    (lambda: layers.Dot(axes=I(1)), None, None),
    (lambda: layers.Softmax(axis=I(-1)), (2, 3), (2, 3)),
    (lambda: layers.BatchNormalization(axis=I(-1)), (2, 3), (2, 3)),
    (lambda: layers.LayerNormalization(axis=I(-1)), (2, 3), (2, 3)),
    (lambda: layers.GroupNormalization(groups=I(1)), (2, 3, 4), (2, 3, 4)),
    (lambda: layers.PReLU(shared_axes=[I(1)]), (2, 3, 4), (2, 3, 4)),
    (lambda: layers.EinsumDense("ab,bc->ac", output_shape=I(5)), (2, 3), (2, 5)),
    (lambda: layers.AdaptiveAveragePooling2D(I(2)), (1, 4, 4, 1), (1, 2, 2, 1)),
    (lambda: layers.LocallyConnected1D(I(2), I(3)), (1, 5, 2), (1, 3, 2)),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_numpy_integers_build_run_and_serialize_as_ints(index):
    make, input_shape, output_shape = CASES[index]
    layer = make()
    config = layer.get_config()
    json.dumps(config)  # raises on a NumPy integer
    _plain_ints_only(config)
    if input_shape is not None:
        x = np.ones(
            input_shape, dtype="int32" if isinstance(layer, layers.Embedding) else "float32"
        )
        assert tuple(layer(x).shape) == output_shape
        _plain_ints_only(layer.get_config())
        again = type(layer).from_config(json.loads(json.dumps(layer.get_config())))
        assert tuple(again(x).shape) == output_shape


def test_numpy_integers_in_input_shapes():
    inputs = lamina.Input(shape=(I(3),))
    assert inputs.shape == (None, 3) and type(inputs.shape[1]) is int
    model = lamina.Sequential([layers.Dense(I(2), input_shape=(I(3),))])
    json.dumps(model.get_config())
    assert tuple(model(np.ones((4, 3))).shape) == (4, 2)


def test_a_classic_program_with_numpy_sizes_trains():
    # `num_classes = np.max(y) + 1` is a NumPy integer, as in Keras 2's examples.
    y = np.array([0, 1, 2, 1, 0, 2])
    num_classes = np.max(y) + 1
    model = lamina.Sequential(
        [
            layers.Input((4, 4, 1)),
            layers.Conv2D(np.int64(2), np.int64(3), padding="same"),
            layers.MaxPooling2D(pool_size=(np.int64(2), np.int64(2))),
            layers.Flatten(),
            layers.Dense(num_classes, activation="softmax"),
        ]
    )
    model.compile("sgd", "sparse_categorical_crossentropy")
    model.fit(np.ones((6, 4, 4, 1)), y, epochs=1, verbose=0)
    assert model.output_shape == (None, 3)
    json.dumps(model.get_config())


@pytest.mark.parametrize(
    "bad",
    [True, 2.5, "3", None, np.float32(2.0), np.bool_(True)],
)
def test_non_integers_are_refused_with_the_argument_named(bad):
    with pytest.raises(ValueError, match="Dense expects `units` to be a positive int"):
        layers.Dense(bad)


def test_shared_checks():
    assert av.integer(np.int32(3), "units", "X") == 3
    assert type(av.integer(np.uint8(3), "units", "X")) is int
    assert av.int_tuple((np.int64(2), 3.0), 2, "size", "X") == (2, 3)
    with pytest.raises(ValueError, match="tuple of 2 positive ints"):
        av.int_tuple((2, 2.5), 2, "size", "X")
    with pytest.raises(ValueError, match="non-negative"):
        av.int_pairs(-1, 2, "padding", "X")
    assert av.int_pairs((np.int64(1), 2), 1, "cropping", "X") == ((1, 2),)
    assert av.int_or_ints([np.int64(1), 2], "axis", "X") == [1, 2]
    assert av.is_integer(np.array(3)) and not av.is_integer(np.array([3]))


def test_tensors_out_of_layers_with_numpy_sizes_have_int_shapes():
    x = layers.Dense(np.int64(4))(lamina.Input((3,)))
    assert all(d is None or type(d) is int for d in x.shape)
    assert tuple(ops.shape(layers.Dense(np.int64(4))(np.ones((2, 3))))) == (2, 4)
