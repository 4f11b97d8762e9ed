"""Regression tests for the differences from Keras 3 found by running keras-io's Keras 3
example programs on lamina (issue 33, tools/keras_io_examples/), each checked against
Keras itself or NumPy on both engines.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina import ops  # noqa: E402
from lamina.layers.layer_arguments import shapes_to_specs  # noqa: E402

# Every op Keras 3 takes a Python list for (found by calling each public op with a list
# and with the same values as an array): lamina's JAX engine refused these.
_LIST_OPS = [
    "elu", "erf", "erfc", "erfinv", "gelu", "glu", "hard_sigmoid", "hard_silu",
    "hard_swish", "leaky_relu", "log_sigmoid", "log_softmax", "norm", "relu", "relu6",
    "rsqrt", "selu", "sigmoid", "silu", "softplus", "softsign", "swish",
]  # fmt: skip


@pytest.mark.parametrize("name", _LIST_OPS)
def test_ops_take_a_python_list_as_keras_does(name):
    values = [0.5, -0.5, 0.25, 0.75]
    got = ops.convert_to_numpy(getattr(ops, name)(values))
    want = keras.ops.convert_to_numpy(getattr(keras.ops, name)(values))
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["qr", "hstack", "softmax", "logsumexp", "mish"])
def test_more_ops_take_python_lists(name):
    """qr and hstack as Keras; softmax, logsumexp and mish on lists too (Keras's JAX
    backend refuses these three, its other backends take them): NumPy formulas."""
    rows = [[0.5, -0.5], [0.25, 0.75]]
    a = np.array(rows, "float32")
    fn = getattr(ops, name)
    if name == "qr":
        q, r = (ops.convert_to_numpy(t) for t in fn(rows))
        np.testing.assert_allclose(q @ r, a, atol=1e-6)
        return
    if name == "hstack":
        np.testing.assert_allclose(ops.convert_to_numpy(fn([rows, rows])), np.hstack([a, a]))
        return
    want = {
        "softmax": np.exp(a) / np.exp(a).sum(-1, keepdims=True),
        "logsumexp": np.log(np.exp(a).sum()),
        "mish": a * np.tanh(np.log1p(np.exp(a))),
    }[name]
    np.testing.assert_allclose(ops.convert_to_numpy(fn(rows)), want, rtol=1e-5)


def test_a_list_of_numbers_as_a_layer_input_is_refused_clearly():
    """Keras 3 refuses `Dense(1)([[1.0, 1.0]])` ("only input tensors may be passed as
    positional arguments"); lamina said "expected input of rank at least 2, received
    shape ()", which points at the wrong thing. The array of the same data works."""
    with pytest.raises(ValueError, match="Only input tensors"):
        keras.layers.Dense(1)([[1.0, 1.0]])
    dense = lamina.layers.Dense(1, kernel_initializer="ones")
    with pytest.raises(ValueError, match=r"Python list holding the number 1\.0.*np\.array"):
        dense([[1.0, 1.0]])
    out = dense(np.array([[1.0, 1.0]], "float32"))
    np.testing.assert_allclose(ops.convert_to_numpy(out), [[2.0]])


def test_shapes_to_specs_refuses_a_string_instead_of_recursing():
    with pytest.raises(TypeError, match="received 'abc' of type str"):
        shapes_to_specs("abc", "float32")
    specs = shapes_to_specs([(None, 2), {"a": (3,)}], "float32")
    assert specs[0].shape == (None, 2) and specs[1]["a"].shape == (3,)


def _contrastive_loss(lib):
    class HalfSquares(lib.losses.Loss):
        # Overrides `__call__` with Keras 3's signature (no `mask`), as keras-io's
        # supervised contrastive loss does; lamina passed `mask=` and failed.
        def __call__(self, labels, preds, sample_weight=None):
            return lib.ops.mean(lib.ops.square(preds - labels)) / 2.0

    return HalfSquares()


def test_a_loss_overriding_call_without_mask_trains_as_in_keras():
    x = np.linspace(-1.0, 1.0, 24, dtype="float32").reshape(4, 2, 3)
    x[:, 1] = 0.0  # masked timesteps: a Loss that overrides __call__ sees no mask in Keras
    y = np.ones((4, 2, 1), "float32")
    results = {}
    for lib in (keras, lamina):
        inputs = lib.Input(shape=(2, 3))
        dense = lib.layers.Dense(1, kernel_initializer="ones")
        model = lib.Model(inputs, dense(lib.layers.Masking(0.0)(inputs)))
        model.compile(optimizer=lib.optimizers.SGD(0.1), loss=_contrastive_loss(lib))
        before = model.fit(x, y, batch_size=4, epochs=1, verbose=0).history["loss"][0]
        kernel = np.asarray(dense.kernel.value) if lib is keras else dense.get_weights()[0]
        results[lib.__name__] = (before, kernel)
    np.testing.assert_allclose(results["lamina"][0], results["keras"][0], rtol=1e-6)
    np.testing.assert_allclose(results["lamina"][1], results["keras"][1], rtol=1e-5)
