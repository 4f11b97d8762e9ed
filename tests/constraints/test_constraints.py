"""Constraints against NumPy formulas; names, configs, and use during training."""

import numpy as np
import pytest

import lamina
from lamina import backend, constraints, ops

W = np.array([[3.0, 0.1, -1.0], [4.0, -0.2, 2.0]], "float32")
EPS = backend.epsilon()


def norms(w, axis):
    return np.sqrt((w.astype("float64") ** 2).sum(axis=axis, keepdims=True))


def max_norm(w, m, axis):
    n = norms(w, axis)
    return w * np.clip(n, 0, m) / (EPS + n)


def min_max_norm(w, low, high, rate, axis):
    n = norms(w, axis)
    return w * (rate * np.clip(n, low, high) + (1 - rate) * n) / (EPS + n)


# (constraint, reference projection of w)
CASES = [
    (constraints.MaxNorm(), lambda w: max_norm(w, 2, 0)),
    (constraints.MaxNorm(1.0, axis=1), lambda w: max_norm(w, 1.0, 1)),
    (constraints.MaxNorm(1.0, axis=[0, 1]), lambda w: max_norm(w, 1.0, (0, 1))),
    (constraints.NonNeg(), lambda w: np.maximum(w, 0)),
    (constraints.UnitNorm(), lambda w: w / (EPS + norms(w, 0))),
    (constraints.UnitNorm(axis=1), lambda w: w / (EPS + norms(w, 1))),
    (constraints.MinMaxNorm(), lambda w: min_max_norm(w, 0.0, 1.0, 1.0, 0)),
    (constraints.MinMaxNorm(0.5, 1.0, rate=0.5), lambda w: min_max_norm(w, 0.5, 1.0, 0.5, 0)),
    (constraints.MinMaxNorm(1.0, 3.0, axis=1), lambda w: min_max_norm(w, 1.0, 3.0, 1.0, 1)),
    (constraints.Constraint(), lambda w: w),
]


@pytest.mark.parametrize("constraint, reference", CASES, ids=[repr(c[0]) for c in CASES])
def test_projection_matches_formula(constraint, reference):
    np.testing.assert_allclose(
        ops.convert_to_numpy(constraint(W)), reference(W), rtol=1e-5, atol=1e-7
    )


def test_norms_after_projection():
    assert np.all(norms(ops.convert_to_numpy(constraints.MaxNorm(1.5)(W)), 0) <= 1.5 + 1e-5)
    np.testing.assert_allclose(
        norms(ops.convert_to_numpy(constraints.UnitNorm(1)(W)), 1), 1.0, rtol=1e-5
    )
    projected = ops.convert_to_numpy(constraints.MinMaxNorm(1.0, 2.0)(W))
    assert np.all((norms(projected, 0) >= 1.0 - 1e-5) & (norms(projected, 0) <= 2.0 + 1e-5))


@pytest.mark.parametrize("constraint", [c[0] for c in CASES[:-1]], ids=repr)
def test_config_round_trip(constraint):
    config = constraints.serialize(constraint)
    assert config["module"] == "keras.constraints"
    assert config["class_name"] == type(constraint).__name__
    restored = constraints.deserialize(config)
    assert type(restored) is type(constraint)
    assert restored.get_config() == constraint.get_config()


@pytest.mark.parametrize(
    "name, cls",
    [
        ("max_norm", constraints.MaxNorm),
        ("MaxNorm", constraints.MaxNorm),
        ("non_neg", constraints.NonNeg),
        ("NonNeg", constraints.NonNeg),
        ("unit_norm", constraints.UnitNorm),
        ("UnitNorm", constraints.UnitNorm),
        ("min_max_norm", constraints.MinMaxNorm),
        ("MinMaxNorm", constraints.MinMaxNorm),
    ],
)
def test_string_names(name, cls):
    assert type(constraints.get(name)) is cls
    assert getattr(constraints, name) is cls


def test_get_and_errors():
    assert constraints.get(None) is None
    constraint = constraints.UnitNorm()
    assert constraints.get(constraint) is constraint
    assert type(constraints.get(constraints.NonNeg)) is constraints.NonNeg
    fn = lambda w: w  # noqa: E731
    assert constraints.get(fn) is fn
    with pytest.raises(ValueError, match=r"Unknown constraint: 'positive'.*'non_neg'"):
        constraints.get("positive")
    with pytest.raises(ValueError, match="Could not interpret constraint"):
        constraints.get(1.0)


def test_constraint_applied_after_each_update():
    x = np.ones((8, 2), "float32")
    model = lamina.Sequential(
        [lamina.Input((2,)), lamina.layers.Dense(1, kernel_constraint="non_neg")]
    )
    model.compile(optimizer=lamina.optimizers.SGD(1.0), loss="mse")
    model.fit(x, np.full((8, 1), -5.0, "float32"), epochs=2, verbose=0)
    assert (model.layers[0].kernel.numpy() >= 0).all()
