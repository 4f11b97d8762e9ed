"""Initializers: shapes, statistics, seeds, names; regularizers and constraints too."""

import numpy as np
import pytest

import lamina
from lamina import constraints, initializers, regularizers

SHAPE = (200, 300)
FAN_IN, FAN_OUT = 200, 300


@pytest.mark.parametrize(
    "name, check",
    [
        ("zeros", lambda a: np.all(a == 0)),
        ("ones", lambda a: np.all(a == 1)),
        (
            "glorot_uniform",
            lambda a: (
                np.abs(a).max() <= np.sqrt(6 / (FAN_IN + FAN_OUT))
                and abs(a.std() - np.sqrt(2 / (FAN_IN + FAN_OUT))) < 0.003
            ),
        ),
        ("glorot_normal", lambda a: abs(a.std() - np.sqrt(2 / (FAN_IN + FAN_OUT))) < 0.003),
        (
            "he_uniform",
            lambda a: (
                np.abs(a).max() <= np.sqrt(6 / FAN_IN)
                and abs(a.std() - np.sqrt(2 / FAN_IN)) < 0.003
            ),
        ),
        ("he_normal", lambda a: abs(a.std() - np.sqrt(2 / FAN_IN)) < 0.004),
        ("lecun_uniform", lambda a: np.abs(a).max() <= np.sqrt(3 / FAN_IN)),
        ("lecun_normal", lambda a: abs(a.std() - np.sqrt(1 / FAN_IN)) < 0.003),
        ("random_normal", lambda a: abs(a.std() - 0.05) < 0.002),
        ("random_uniform", lambda a: np.abs(a).max() <= 0.05 and abs(a.mean()) < 0.002),
        ("truncated_normal", lambda a: np.abs(a).max() <= 0.1 + 1e-6),
    ],
)
def test_statistics(name, check):
    values = np.asarray(initializers.get(name)(SHAPE))
    assert values.shape == SHAPE and values.dtype == np.float32
    assert check(values)


def test_conv_kernel_fans_and_variance_scaling():
    assert initializers.compute_fans((3, 3, 16, 32)) == (144.0, 288.0)
    init = initializers.VarianceScaling(
        scale=2.0, mode="fan_out", distribution="untruncated_normal", seed=1
    )
    values = np.asarray(init((3, 3, 64, 128)))
    assert abs(values.std() - np.sqrt(2.0 / (9 * 128))) < 0.003
    with pytest.raises(ValueError, match="mode must be one of"):
        initializers.VarianceScaling(mode="fan")


def test_seeds_orthogonal_identity_constant():
    a, b = initializers.GlorotUniform(seed=3), initializers.GlorotUniform(seed=3)
    np.testing.assert_array_equal(np.asarray(a((4, 4))), np.asarray(b((4, 4))))
    assert not np.array_equal(np.asarray(a((4, 4))), np.asarray(a((4, 4))))  # new draws per call
    q = np.asarray(initializers.Orthogonal(seed=1)((6, 4)))
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-5)
    wide = np.asarray(initializers.Orthogonal(gain=2.0, seed=1)((3, 5)))
    np.testing.assert_allclose(wide @ wide.T, 4 * np.eye(3), atol=1e-5)
    np.testing.assert_array_equal(
        np.asarray(initializers.Identity(gain=3.0)((2, 3))), 3 * np.eye(2, 3)
    )
    np.testing.assert_array_equal(np.asarray(initializers.Constant(7)((2,))), [7, 7])


def test_initializer_config_and_errors():
    init = initializers.RandomNormal(mean=1.0, stddev=2.0, seed=4)
    config = initializers.serialize(init)
    assert config["class_name"] == "RandomNormal" and config["config"]["stddev"] == 2.0
    assert initializers.deserialize(config).get_config() == init.get_config()
    assert isinstance(initializers.get("GlorotUniform"), initializers.GlorotUniform)
    with pytest.raises(
        ValueError, match=r"Unknown initializer: 'glorot'. Valid names are \[.*'glorot_uniform'"
    ):
        initializers.get("glorot")


def test_regularizers():
    w = np.array([[1.0, -2.0], [3.0, 0.5]], "float32")
    np.testing.assert_allclose(float(regularizers.L1(0.1)(w)), 0.1 * np.abs(w).sum(), rtol=1e-6)
    np.testing.assert_allclose(float(regularizers.L2(0.1)(w)), 0.1 * (w**2).sum(), rtol=1e-6)
    np.testing.assert_allclose(
        float(regularizers.L1L2(0.1, 0.2)(w)), 0.1 * np.abs(w).sum() + 0.2 * (w**2).sum(), rtol=1e-6
    )
    assert isinstance(regularizers.get("l1_l2"), regularizers.L1L2)
    assert regularizers.deserialize(regularizers.serialize(regularizers.L2(0.3))).l2 == 0.3
    with pytest.raises(ValueError, match="Unknown regularizer"):
        regularizers.get("l3")
    with pytest.raises(ValueError, match="non-negative"):
        regularizers.L2(-1.0)


def test_constraints():
    w = np.array([[3.0, 0.1], [4.0, -0.2]], "float32")
    norms = np.sqrt((w**2).sum(axis=0, keepdims=True))
    eps = lamina.backend.epsilon()
    np.testing.assert_allclose(
        np.asarray(constraints.MaxNorm(2.0)(w)), w * np.clip(norms, 0, 2) / (eps + norms), rtol=1e-5
    )
    np.testing.assert_allclose(np.asarray(constraints.UnitNorm()(w)), w / (eps + norms), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(constraints.NonNeg()(w)), np.maximum(w, 0))
    mm = constraints.MinMaxNorm(0.5, 1.0, rate=0.5)
    desired = 0.5 * np.clip(norms, 0.5, 1.0) + 0.5 * norms
    np.testing.assert_allclose(np.asarray(mm(w)), w * desired / (eps + norms), rtol=1e-5)
    assert isinstance(constraints.get("non_neg"), constraints.NonNeg)
    with pytest.raises(ValueError, match="Unknown constraint"):
        constraints.get("positive")


def test_constraint_applied_after_each_update():
    x = np.ones((8, 2), "float32")
    model = lamina.Sequential(
        [lamina.Input((2,)), lamina.layers.Dense(1, kernel_constraint="non_neg")]
    )
    model.compile(optimizer=lamina.optimizers.SGD(1.0), loss="mse")
    model.fit(x, np.full((8, 1), -5.0, "float32"), epochs=2, verbose=0)
    assert (model.layers[0].kernel.numpy() >= 0).all()
