"""Activations against independent NumPy/SciPy formulas: forward, gradient, names."""

import numpy as np
import pytest
from scipy import special

import lamina
from lamina import activations, backend, ops
from lamina.common.serialization import register_keras_serializable

X = np.linspace(-4, 4, 18).astype("float32").reshape(3, 6)  # avoids exactly 0 and ±1
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def np_softplus(x):
    return np.logaddexp(0.0, x)


def np_sparsemax(x):
    """Row-wise projection onto the simplex (Martins & Astudillo, 2016, Algorithm 1)."""
    out = np.empty_like(x)
    for i, z in enumerate(x):
        s = np.sort(z)[::-1]
        k = np.arange(1, len(z) + 1)
        support = 1 + k * s > np.cumsum(s)
        kz = k[support][-1]
        tau = (s[:kz].sum() - 1) / kz
        out[i] = np.maximum(z - tau, 0)
    return out


# (name, keyword arguments, reference formula)
CASES = [
    ("linear", {}, lambda x: x),
    ("relu", {}, lambda x: np.maximum(x, 0)),
    ("relu6", {}, lambda x: np.clip(x, 0, 6)),
    ("sigmoid", {}, special.expit),
    ("hard_sigmoid", {}, lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    ("hard_silu", {}, lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    ("hard_swish", {}, lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    ("hard_tanh", {}, lambda x: np.clip(x, -1, 1)),
    ("tanh", {}, np.tanh),
    ("softplus", {}, np_softplus),
    ("softsign", {}, lambda x: x / (np.abs(x) + 1)),
    ("squareplus", {}, lambda x: (x + np.sqrt(x**2 + 4)) / 2),
    ("squareplus", {"b": 1.0}, lambda x: (x + np.sqrt(x**2 + 1)) / 2),
    ("sparse_plus", {}, lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4))),
    ("sparse_sigmoid", {}, lambda x: np.clip((x + 1) / 2, 0, 1)),
    ("elu", {}, lambda x: np.where(x > 0, x, np.expm1(x))),
    ("elu", {"alpha": 0.5}, lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    ("celu", {"alpha": 2.0}, lambda x: np.where(x >= 0, x, 2.0 * np.expm1(x / 2.0))),
    ("selu", {}, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    ("gelu", {}, lambda x: 0.5 * x * (1 + special.erf(x / np.sqrt(2)))),
    (
        "gelu",
        {"approximate": True},
        lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
    ),
    ("silu", {}, lambda x: x * special.expit(x)),
    ("swish", {}, lambda x: x * special.expit(x)),
    ("leaky_relu", {}, lambda x: np.where(x > 0, x, 0.2 * x)),
    ("leaky_relu", {"negative_slope": 0.5}, lambda x: np.where(x > 0, x, 0.5 * x)),
    ("exponential", {}, np.exp),
    ("log_sigmoid", {}, lambda x: -np_softplus(-x)),
    ("mish", {}, lambda x: x * np.tanh(np_softplus(x))),
    ("softmax", {}, lambda x: special.softmax(x, axis=-1)),
    ("softmax", {"axis": 0}, lambda x: special.softmax(x, axis=0)),
    ("log_softmax", {}, lambda x: special.log_softmax(x, axis=-1)),
    ("log_softmax", {"axis": 0}, lambda x: special.log_softmax(x, axis=0)),
    ("sparsemax", {}, np_sparsemax),
    ("glu", {}, lambda x: x[:, :3] * special.expit(x[:, 3:])),
    ("hard_shrink", {}, lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    ("hard_shrink", {"threshold": 2.0}, lambda x: np.where(np.abs(x) > 2.0, x, 0)),
    ("soft_shrink", {}, lambda x: np.sign(x) * np.maximum(np.abs(x) - 0.5, 0)),
    ("tanh_shrink", {}, lambda x: x - np.tanh(x)),
    ("threshold", {"threshold": 1.0, "default_value": -3.0}, lambda x: np.where(x > 1, x, -3.0)),
]
SMOOTH = {
    "sigmoid",
    "tanh",
    "softplus",
    "softsign",
    "squareplus",
    "elu",
    "celu",
    "selu",
    "gelu",
    "silu",
    "exponential",
    "log_sigmoid",
    "mish",
    "softmax",
    "log_softmax",
    "glu",
    "tanh_shrink",
    "leaky_relu",
}


def _id(case):
    name, kwargs, _ = case
    return name + "".join(f"-{k}={v}" for k, v in kwargs.items())


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_forward_matches_formula(case):
    name, kwargs, reference = case
    out = activations.get(name)(X, **kwargs)
    np.testing.assert_allclose(
        ops.convert_to_numpy(out), reference(X.astype("float64")), rtol=1e-5, atol=1e-6
    )


GRADIENT_CASES = [c for c in CASES if c[0] in SMOOTH]


@pytest.mark.parametrize("case", GRADIENT_CASES, ids=[_id(c) for c in GRADIENT_CASES])
def test_gradient_matches_finite_differences(case):
    name, kwargs, reference = case
    fn = activations.get(name)
    x = X if name == "glu" else X[:, :4]  # X holds no kink points (0, ±1)
    weights = np.random.default_rng(0).normal(size=reference(x.astype("float64")).shape)
    _, grad = backend.value_and_grad(lambda v: ops.sum(ops.multiply(fn(v, **kwargs), weights)))(
        ops.convert_to_tensor(x)
    )
    x64, eps = x.astype("float64"), 1e-5
    numeric = np.zeros_like(x64)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x64)
        step[index] = eps
        numeric[index] = ((reference(x64 + step) - reference(x64 - step)) * weights).sum() / (
            2 * eps
        )
    np.testing.assert_allclose(ops.convert_to_numpy(grad), numeric, rtol=2e-3, atol=1e-4)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_value": 2.0},
        {"max_value": 6.0},
        {"negative_slope": 0.1},
        {"threshold": 1.0},
        {"negative_slope": 0.1, "max_value": 2.0, "threshold": 1.0},
        {"negative_slope": 0.3, "threshold": -0.5},
    ],
    ids=str,
)
def test_relu_arguments_follow_keras(kwargs):
    slope = kwargs.get("negative_slope", 0.0)
    cap = kwargs.get("max_value")
    t = kwargs.get("threshold", 0.0)
    x = np.concatenate([X.ravel(), [t]]).astype("float32")  # the threshold itself maps to 0
    positive = np.where(x > t, x, 0.0)
    if cap is not None:
        positive = np.clip(positive, 0.0, cap)
    expected = positive - slope * np.maximum(t - x, 0.0)
    np.testing.assert_allclose(
        ops.convert_to_numpy(activations.relu(x, **kwargs)), expected, rtol=1e-6
    )


def test_gelu_defaults_to_the_exact_form_and_sparsemax_sums_to_one():
    exact, approximate = activations.gelu(X), activations.gelu(X, approximate=True)
    assert not np.allclose(
        ops.convert_to_numpy(exact), ops.convert_to_numpy(approximate), atol=1e-5
    )
    np.testing.assert_allclose(
        ops.convert_to_numpy(activations.sparsemax(X)).sum(axis=-1), 1.0, rtol=1e-6
    )


def test_glu_needs_an_even_axis():
    with pytest.raises(ValueError, match="must be even; received shape \\(3, 6\\)"):
        activations.glu(X, axis=0)


@pytest.mark.parametrize("name", ["relu", "gelu", "softmax", "sparsemax", "glu", "hard_tanh"])
def test_symbolic_call_builds_a_graph_node(name):
    inputs = lamina.Input((6,))
    outputs = activations.get(name)(inputs)
    assert tuple(outputs.shape)[1:] == ((3,) if name == "glu" else (6,))


def test_get_serialize_deserialize():
    assert activations.get(None) is activations.linear
    assert activations.get("swish") is activations.silu
    assert activations.get("hard_swish") is activations.hard_silu
    assert activations.serialize(activations.swish) == "silu"
    assert activations.serialize(None) is None
    for name in activations.__all__:
        if name not in ("get", "serialize", "deserialize", "swish", "hard_swish"):
            fn = activations.get(name)
            assert activations.serialize(fn) == name
            assert activations.deserialize(activations.serialize(fn)) is fn
    assert activations.get({"class_name": "function", "config": "tanh"}) is activations.tanh
    fn = lambda x: x  # noqa: E731
    assert activations.get(fn) is fn


def test_custom_registered_activation_round_trips():
    @register_keras_serializable(package="test_activations")
    def double(x):
        return x * 2

    config = activations.serialize(double)
    assert config["config"] == "test_activations>double"
    assert activations.deserialize(config) is double
    assert activations.get("test_activations>double") is double


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(ValueError, match=r"Unknown activation function: 'relux'.*'relu'"):
        activations.get("relux")
    with pytest.raises(ValueError, match=r"Could not interpret activation 5.*'sigmoid'"):
        activations.get(5)
