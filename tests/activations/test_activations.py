"""Activations against NumPy formulas; names, serialization, errors."""

import numpy as np
import pytest
from scipy import special

from lamina import activations, backend, ops

X = np.linspace(-4, 4, 17).astype("float32")
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805

REFERENCES = {
    "linear": lambda x: x,
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "sigmoid": special.expit,
    "hard_sigmoid": lambda x: np.clip(x / 6 + 0.5, 0, 1),
    "hard_silu": lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
    "tanh": np.tanh,
    "softplus": lambda x: np.log1p(np.exp(x)),
    "softsign": lambda x: x / (np.abs(x) + 1),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)),
    "gelu": lambda x: 0.5 * x * (1 + special.erf(x / np.sqrt(2))),
    "silu": lambda x: x * special.expit(x),
    "swish": lambda x: x * special.expit(x),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.2 * x),
    "exponential": np.exp,
    "mish": lambda x: x * np.tanh(np.log1p(np.exp(x))),
    "softmax": lambda x: special.softmax(x, axis=-1),
    "log_softmax": lambda x: special.log_softmax(x, axis=-1),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_forward_matches_formula(name):
    fn = activations.get(name)
    np.testing.assert_allclose(
        np.asarray(fn(X)), REFERENCES[name](X.astype("float64")), rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize(
    "name", ["sigmoid", "tanh", "softplus", "gelu", "silu", "mish", "elu", "selu"]
)
def test_gradient_matches_finite_differences(name):
    fn = activations.get(name)
    x = np.array([-1.3, -0.2, 0.4, 1.7], "float32")
    _, grad = backend.value_and_grad(lambda v: ops.sum(fn(v)))(ops.convert_to_tensor(x))
    eps = 1e-3
    ref = REFERENCES[name]
    numeric = (ref(x.astype("float64") + eps) - ref(x.astype("float64") - eps)) / (2 * eps)
    np.testing.assert_allclose(np.asarray(grad), numeric, rtol=1e-3, atol=1e-4)


def test_relu_options():
    out = activations.relu(X, negative_slope=0.1, max_value=2.0, threshold=1.0)
    expected = np.where(X >= 1.0, np.minimum(X, 2.0), 0.1 * (X - 1.0))
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-6)


def test_get_serialize_deserialize():
    assert activations.get(None) is activations.linear
    assert activations.get("swish") is activations.silu
    assert activations.serialize(activations.get("relu")) == "relu"
    assert activations.deserialize("tanh") is activations.tanh
    fn = lambda x: x  # noqa: E731
    assert activations.get(fn) is fn
    with pytest.raises(
        ValueError, match=r"Unknown activation function: 'relux'. Valid names are \[.*'relu'"
    ):
        activations.get("relux")
