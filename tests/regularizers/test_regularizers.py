"""Regularizers against NumPy formulas; names, configs and errors."""

import numpy as np
import pytest

import lamina
from lamina import backend, ops, regularizers

W = np.array([[1.0, -2.0, 0.5], [3.0, 0.5, -1.5]], "float32")


def np_orthogonal(w, factor, mode):
    w = w.astype("float64")
    vectors = w if mode == "rows" else w.T
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    n = len(vectors)
    cosines = np.abs(vectors @ vectors.T)[~np.eye(n, dtype=bool)]
    return factor * cosines.mean()  # the mean over the n * (n - 1) ordered pairs


# (regularizer, reference penalty on w)
CASES = [
    (regularizers.L1(), lambda w: 0.01 * np.abs(w).sum()),
    (regularizers.L1(0.3), lambda w: 0.3 * np.abs(w).sum()),
    (regularizers.L2(), lambda w: 0.01 * (w**2).sum()),
    (regularizers.L2(0.2), lambda w: 0.2 * (w**2).sum()),
    (regularizers.L1L2(), lambda w: 0.0),
    (regularizers.L1L2(l2=0.1), lambda w: 0.1 * (w**2).sum()),
    (regularizers.L1L2(0.1, 0.2), lambda w: 0.1 * np.abs(w).sum() + 0.2 * (w**2).sum()),
    (regularizers.OrthogonalRegularizer(), lambda w: np_orthogonal(w, 0.01, "rows")),
    (
        regularizers.OrthogonalRegularizer(0.5, "columns"),
        lambda w: np_orthogonal(w, 0.5, "columns"),
    ),
]


@pytest.mark.parametrize("regularizer, reference", CASES, ids=[repr(c[0]) for c in CASES])
def test_penalty_matches_formula(regularizer, reference):
    penalty = regularizer(W)
    assert ops.shape(penalty) == () and ops.dtype(penalty) == "float32"
    np.testing.assert_allclose(float(penalty), reference(W), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("regularizer, reference", CASES[:7], ids=[repr(c[0]) for c in CASES[:7]])
def test_gradient_matches_formula(regularizer, reference):
    _, grad = backend.value_and_grad(regularizer)(ops.convert_to_tensor(W))
    l1 = getattr(regularizer, "l1", 0.0)
    l2 = getattr(regularizer, "l2", 0.0)
    np.testing.assert_allclose(ops.convert_to_numpy(grad), l1 * np.sign(W) + 2 * l2 * W, rtol=1e-5)


def test_orthogonal_weights_have_no_penalty():
    q = np.linalg.qr(np.random.default_rng(0).normal(size=(5, 3)))[0]
    assert abs(float(regularizers.OrthogonalRegularizer(1.0, "columns")(q))) < 1e-6
    with pytest.raises(ValueError, match="rank-2 weight; received shape \\(3,\\)"):
        regularizers.OrthogonalRegularizer()(np.ones(3))
    with pytest.raises(ValueError, match="mode must be 'rows' or 'columns'"):
        regularizers.OrthogonalRegularizer(mode="diagonal")


@pytest.mark.parametrize("regularizer", [c[0] for c in CASES], ids=repr)
def test_config_round_trip(regularizer):
    config = regularizers.serialize(regularizer)
    assert config["module"] == "keras.regularizers"
    assert config["class_name"] == type(regularizer).__name__
    restored = regularizers.deserialize(config)
    assert type(restored) is type(regularizer)
    assert restored.get_config() == regularizer.get_config()


@pytest.mark.parametrize(
    "name, cls",
    [
        ("l1", regularizers.L1),
        ("L1", regularizers.L1),
        ("l2", regularizers.L2),
        ("L2", regularizers.L2),
        ("l1_l2", regularizers.L1L2),
        ("l1l2", regularizers.L1L2),
        ("L1L2", regularizers.L1L2),
        ("orthogonal_regularizer", regularizers.OrthogonalRegularizer),
    ],
)
def test_string_names(name, cls):
    assert type(regularizers.get(name)) is cls
    assert getattr(regularizers, name, cls) is cls  # "l1l2" is a registry name only


def test_get_and_errors():
    assert regularizers.get(None) is None
    reg = regularizers.L2(0.3)
    assert regularizers.get(reg) is reg
    assert type(regularizers.get(regularizers.L1)) is regularizers.L1
    assert regularizers.L1(None).l1 == 0.01 and regularizers.L1L2(None, None).l2 == 0.0
    with pytest.raises(ValueError, match=r"Unknown regularizer: 'l3'.*'l1_l2'"):
        regularizers.get("l3")
    with pytest.raises(ValueError, match="Could not interpret regularizer"):
        regularizers.get(3)
    for bad in (-1.0, float("nan"), float("inf"), "0.1"):
        with pytest.raises(ValueError, match="expected a non-negative float"):
            regularizers.L2(bad)


def test_kernel_regularizer_adds_to_layer_losses():
    layer = lamina.layers.Dense(2, kernel_regularizer="l2", kernel_initializer="ones")
    layer(np.ones((1, 3), "float32"))
    np.testing.assert_allclose(float(ops.convert_to_numpy(sum(layer.losses))), 0.01 * 6, rtol=1e-6)


def test_l1l2_on_a_float64_numpy_array_computes_in_the_tensor_dtype():
    # ops.dtype reports a NumPy array's own dtype (float64, as Keras does); the penalty
    # must still be made in the dtype the array converts to, with no float64 request.
    import warnings

    x = np.array([1.0, -2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = lamina.regularizers.L1L2(l1=0.5, l2=0.25)(x)
    np.testing.assert_allclose(float(value), 0.5 * 3.0 + 0.25 * 5.0)
