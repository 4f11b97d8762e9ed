"""Normalization layers: conformance (check_layer) and numerics against NumPy."""

import numpy as np
import pytest

from lamina import Input, Model, layers, ops
from lamina.testing import check_layer

# LayerNormalization(rms_scaling=True) warns that it is deprecated, as Keras 3's does.
pytestmark = pytest.mark.filterwarnings("ignore:You passed `rms_scaling=True`:UserWarning")

CONFORMANCE = [
    (layers.BatchNormalization, {}, (4, 3), (4, 3), 2, 2),
    (layers.BatchNormalization, {"axis": 1}, (2, 3, 4), (2, 3, 4), 2, 2),
    (layers.BatchNormalization, {"center": False, "scale": False}, (4, 3), (4, 3), 0, 2),
    (layers.LayerNormalization, {}, (2, 5, 4), (2, 5, 4), 2, 0),
    (layers.LayerNormalization, {"axis": [1, 2]}, (2, 5, 4), (2, 5, 4), 2, 0),
    (layers.LayerNormalization, {"rms_scaling": True}, (2, 4), (2, 4), 1, 0),
    (layers.GroupNormalization, {"groups": 2}, (2, 5, 4), (2, 5, 4), 2, 0),
    (layers.GroupNormalization, {"groups": -1, "axis": 1}, (2, 4, 5), (2, 4, 5), 2, 0),
    (layers.UnitNormalization, {}, (2, 3), (2, 3), 0, 0),
    (layers.RMSNormalization, {}, (2, 5, 4), (2, 5, 4), 1, 0),
]


@pytest.mark.parametrize(
    "cls, kwargs, shape, out_shape, n_train, n_non_train",
    CONFORMANCE,
    ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CONFORMANCE)],
)
def test_conformance(cls, kwargs, shape, out_shape, n_train, n_non_train):
    check_layer(
        cls,
        kwargs,
        input_shape=shape,
        expected_output_shape=out_shape,
        expected_num_trainable_weights=n_train,
        expected_num_non_trainable_weights=n_non_train,
        supports_masking=True,
        check_gradient=True,
        atol=1e-4,
    )


def _bn_layer(dim, **kwargs):
    layer = layers.BatchNormalization(**kwargs)
    layer.build((None, dim))
    rng = np.random.default_rng(1)
    gamma = rng.uniform(0.5, 1.5, dim).astype("float32")
    beta = rng.standard_normal(dim).astype("float32")
    mm = rng.standard_normal(dim).astype("float32")
    mv = rng.uniform(0.5, 2.0, dim).astype("float32")
    layer.set_weights([gamma, beta, mm, mv])
    return layer, gamma, beta, mm, mv


def test_batchnorm_weights_order():
    layer, *_ = _bn_layer(3)
    assert [w.name for w in layer.weights] == ["gamma", "beta", "moving_mean", "moving_variance"]
    assert [w.name for w in layer.trainable_weights] == ["gamma", "beta"]
    assert [w.name for w in layer.non_trainable_weights] == ["moving_mean", "moving_variance"]


def test_batchnorm_training_and_moving_stats():
    layer, gamma, beta, mm, mv = _bn_layer(3, momentum=0.9, epsilon=1e-3)
    x = np.random.default_rng(2).standard_normal((8, 3)).astype("float32") * 2 + 1
    out = ops.convert_to_numpy(layer(x, training=True))
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(out, gamma * (x - mean) / np.sqrt(var + 1e-3) + beta, atol=1e-5)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.9 * mm + 0.1 * mean, atol=1e-5)
    np.testing.assert_allclose(layer.moving_variance.numpy(), 0.9 * mv + 0.1 * var, atol=1e-5)


def test_batchnorm_inference_uses_moving_stats():
    layer, gamma, beta, mm, mv = _bn_layer(3)
    x = np.random.default_rng(3).standard_normal((4, 3)).astype("float32")
    out = ops.convert_to_numpy(layer(x))
    np.testing.assert_allclose(out, gamma * (x - mm) / np.sqrt(mv + 1e-3) + beta, atol=1e-5)
    np.testing.assert_allclose(layer.moving_mean.numpy(), mm)


def test_batchnorm_not_trainable_runs_in_inference_mode():
    layer, gamma, beta, mm, mv = _bn_layer(3)
    layer.trainable = False
    x = np.random.default_rng(4).standard_normal((4, 3)).astype("float32")
    out = ops.convert_to_numpy(layer(x, training=True))
    np.testing.assert_allclose(out, gamma * (x - mm) / np.sqrt(mv + 1e-3) + beta, atol=1e-5)
    np.testing.assert_allclose(layer.moving_mean.numpy(), mm)
    np.testing.assert_allclose(layer.moving_variance.numpy(), mv)


def test_batchnorm_mask_excludes_entries():
    layer = layers.BatchNormalization(momentum=0.0, center=False, scale=False)
    x = np.random.default_rng(5).standard_normal((2, 4, 3)).astype("float32")
    mask = np.array([[True, True, False, False], [True, True, True, False]])
    layer(x, training=True, mask=mask)
    kept = x[mask]
    np.testing.assert_allclose(layer.moving_mean.numpy(), kept.mean(0), atol=1e-5)
    np.testing.assert_allclose(layer.moving_variance.numpy(), kept.var(0), atol=1e-5)


def test_batchnorm_fit_updates_moving_stats():
    inputs = Input((3,))
    outputs = layers.Dense(1)(layers.BatchNormalization(momentum=0.5)(inputs))
    model = Model(inputs, outputs)
    bn = next(layer for layer in model.layers if isinstance(layer, layers.BatchNormalization))
    model.compile(optimizer="sgd", loss="mse")
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((32, 3)) * 3 + 5).astype("float32")
    y = rng.standard_normal((32, 1)).astype("float32")
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    mm = bn.moving_mean.numpy()
    assert np.all(mm > 2.0), mm  # moved from 0 toward the data mean (about 5)
    assert not np.allclose(bn.moving_variance.numpy(), 1.0)


def test_layernorm_matches_numpy():
    x = np.random.default_rng(7).standard_normal((2, 3, 4)).astype("float32")
    layer = layers.LayerNormalization(epsilon=1e-3)
    out = ops.convert_to_numpy(layer(x))
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-3), atol=1e-5)
    layer = layers.LayerNormalization(axis=[1, 2], epsilon=1e-3)
    out = ops.convert_to_numpy(layer(x))
    mean, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-3), atol=1e-5)
    assert tuple(layer.gamma.shape) == (3, 4)


def test_layernorm_rms_scaling_and_rmsnorm():
    x = np.random.default_rng(8).standard_normal((2, 5)).astype("float32")
    # Keras 3's (deprecated) rms_scaling divides by the standard deviation, uncentered.
    want = x / np.sqrt(x.var(-1, keepdims=True) + 1e-3)
    out = layers.LayerNormalization(rms_scaling=True, epsilon=1e-3)(x)
    np.testing.assert_allclose(ops.convert_to_numpy(out), want, atol=1e-5)
    layer = layers.RMSNormalization()
    layer.build((None, 5))
    scale = np.arange(1, 6, dtype="float32")
    layer.set_weights([scale])
    want = x / np.sqrt((x**2).mean(-1, keepdims=True) + 1e-6) * scale
    np.testing.assert_allclose(ops.convert_to_numpy(layer(x)), want, atol=1e-5)


@pytest.mark.parametrize("groups", [1, 2, 4])
def test_groupnorm_matches_numpy(groups):
    x = np.random.default_rng(9).standard_normal((2, 3, 5, 4)).astype("float32")
    out = ops.convert_to_numpy(layers.GroupNormalization(groups=groups, epsilon=1e-3)(x))
    g = x.reshape(2, 3, 5, groups, 4 // groups)
    mean = g.mean((1, 2, 4), keepdims=True)
    var = g.var((1, 2, 4), keepdims=True)
    want = ((g - mean) / np.sqrt(var + 1e-3)).reshape(x.shape)
    np.testing.assert_allclose(out, want, atol=1e-5)
    # channels_first equals channels_last on transposed data
    xt = np.moveaxis(x, -1, 1)
    out_cf = ops.convert_to_numpy(
        layers.GroupNormalization(groups=groups, axis=1, epsilon=1e-3)(xt)
    )
    np.testing.assert_allclose(np.moveaxis(out_cf, 1, -1), want, atol=1e-5)


def test_groupnorm_rejects_bad_groups():
    with pytest.raises(ValueError, match="must divide"):
        layers.GroupNormalization(groups=3)(np.ones((1, 4), "float32"))
    with pytest.raises(ValueError, match="cannot exceed"):
        layers.GroupNormalization(groups=8)(np.ones((1, 4), "float32"))


def test_unitnorm_matches_numpy():
    x = np.random.default_rng(10).standard_normal((2, 3, 4)).astype("float32")
    out = ops.convert_to_numpy(layers.UnitNormalization(axis=[1, 2])(x))
    np.testing.assert_allclose(out, x / np.sqrt((x**2).sum((1, 2), keepdims=True)), atol=1e-6)
    assert np.all(
        ops.convert_to_numpy(layers.UnitNormalization()(np.zeros((1, 3), "float32"))) == 0
    )
