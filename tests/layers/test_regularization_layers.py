"""Regularization layers: conformance, identity at inference, statistics in training."""

import numpy as np
import pytest

from lamina import Input, Model, layers, ops
from lamina.testing import check_layer

CONFORMANCE = [
    (layers.SpatialDropout1D, {"rate": 0.5}, (2, 4, 3)),
    (layers.SpatialDropout2D, {"rate": 0.5}, (2, 4, 4, 3)),
    (layers.SpatialDropout2D, {"rate": 0.5, "data_format": "channels_first"}, (2, 3, 4, 4)),
    (layers.SpatialDropout3D, {"rate": 0.5}, (1, 2, 2, 2, 3)),
    (layers.GaussianDropout, {"rate": 0.3, "seed": 1}, (2, 3)),
    (layers.GaussianNoise, {"stddev": 0.1, "seed": 1}, (2, 3)),
    (layers.AlphaDropout, {"rate": 0.2, "seed": 1}, (2, 3)),
    (layers.ActivityRegularization, {"l1": 0.1, "l2": 0.2}, (2, 3)),
]


@pytest.mark.parametrize(
    "cls, kwargs, shape",
    CONFORMANCE,
    ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CONFORMANCE)],
)
def test_conformance(cls, kwargs, shape):
    check_layer(
        cls,
        kwargs,
        input_shape=shape,
        expected_output_shape=shape,
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=0,
        supports_masking=True,
    )


RANDOM = [
    layers.SpatialDropout1D(0.5, seed=0),
    layers.GaussianDropout(0.5, seed=0),
    layers.GaussianNoise(1.0, seed=0),
    layers.AlphaDropout(0.5, seed=0),
]


@pytest.mark.parametrize("layer", RANDOM, ids=lambda x: type(x).__name__)
def test_identity_at_inference(layer):
    x = np.random.default_rng(0).standard_normal((4, 5, 6)).astype("float32")
    np.testing.assert_array_equal(ops.convert_to_numpy(layer(x)), x)
    np.testing.assert_array_equal(ops.convert_to_numpy(layer(x, training=False)), x)
    assert not np.allclose(ops.convert_to_numpy(layer(x, training=True)), x)


def test_spatial_dropout_drops_whole_channels():
    x = np.ones((8, 5, 6), "float32")
    out = ops.convert_to_numpy(layers.SpatialDropout1D(0.5, seed=1)(x, training=True))
    assert set(np.unique(out)) <= {0.0, 2.0}
    np.testing.assert_array_equal(out, np.broadcast_to(out[:, :1, :], out.shape))
    x = np.ones((8, 3, 4, 4), "float32")
    layer = layers.SpatialDropout2D(0.5, data_format="channels_first", seed=1)
    out = ops.convert_to_numpy(layer(x, training=True))
    np.testing.assert_array_equal(out, np.broadcast_to(out[:, :, :1, :1], out.shape))
    assert 0 < (out == 0).mean() < 1
    out = ops.convert_to_numpy(
        layers.SpatialDropout3D(0.5, seed=1)(np.ones((4, 2, 3, 2, 5)), training=True)
    )
    np.testing.assert_array_equal(out, np.broadcast_to(out[:, :1, :1, :1, :], out.shape))


def test_gaussian_dropout_statistics():
    x = np.ones((200, 100), "float32")
    out = ops.convert_to_numpy(layers.GaussianDropout(0.2, seed=3)(x, training=True))
    assert abs(out.mean() - 1.0) < 0.02
    assert abs(out.std() - np.sqrt(0.2 / 0.8)) < 0.02


def test_gaussian_noise_statistics():
    x = np.full((200, 100), 3.0, "float32")
    out = ops.convert_to_numpy(layers.GaussianNoise(0.5, seed=3)(x, training=True))
    assert abs(out.mean() - 3.0) < 0.02
    assert abs(out.std() - 0.5) < 0.02


def test_alpha_dropout_keeps_mean_and_variance():
    x = np.random.default_rng(4).standard_normal((300, 100)).astype("float32")
    out = ops.convert_to_numpy(layers.AlphaDropout(0.3, seed=3)(x, training=True))
    assert abs(out.mean()) < 0.05
    assert abs(out.std() - 1.0) < 0.05


def test_activity_regularization_loss():
    layer = layers.ActivityRegularization(l1=0.5, l2=0.25)
    x = np.array([[1.0, -2.0]], "float32")
    np.testing.assert_array_equal(ops.convert_to_numpy(layer(x)), x)
    assert len(layer.losses) == 1
    np.testing.assert_allclose(float(ops.convert_to_numpy(layer.losses[0])), 0.5 * 3 + 0.25 * 5)
    assert layer.get_config()["l1"] == 0.5 and "activity_regularizer" not in layer.get_config()


def test_bad_arguments():
    with pytest.raises(ValueError, match="SpatialDropout2D"):
        layers.SpatialDropout2D(0.5, data_format="nhwc")
    with pytest.raises(ValueError, match="rate"):
        layers.GaussianDropout(1.5)
    with pytest.raises(ValueError, match="stddev"):
        layers.GaussianNoise(-1.0)


def test_activity_regularizer_loss_is_divided_by_the_batch_size_as_keras():
    x = np.array([[1.0, -2.0], [3.0, 0.5], [-1.0, 1.0]], "float32")
    layer = layers.ActivityRegularization(l1=0.5, l2=0.25)
    layer(x)
    expected = (0.5 * np.abs(x).sum() + 0.25 * (x**2).sum()) / 3
    np.testing.assert_allclose(float(ops.convert_to_numpy(layer.losses[0])), expected, rtol=1e-6)
    dense = layers.Dense(2, activity_regularizer="l2", kernel_initializer="ones")
    y = x @ np.ones((2, 2), "float32")
    dense(x)
    np.testing.assert_allclose(
        float(ops.convert_to_numpy(dense.losses[0])), 0.01 * (y**2).sum() / 3, rtol=1e-6
    )


def test_activity_regularizer_enters_the_training_loss():
    # Zero data loss (targets equal the identity outputs): the logged loss is the penalty.
    x = np.array([[1.0, -2.0], [3.0, 0.5], [-1.0, 1.0], [2.0, 2.0]], "float32")
    inp = Input((2,))
    model = Model(inp, layers.ActivityRegularization(l1=0.1)(inp))
    model.compile(optimizer="sgd", loss="mse")
    loss = model.evaluate(x, x, batch_size=4, verbose=0)
    np.testing.assert_allclose(loss, 0.1 * np.abs(x).sum() / 4, rtol=1e-5)
