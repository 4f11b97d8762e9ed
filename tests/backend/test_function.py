"""`backend.function`: the classic `K.function`, compiled once per input shape."""

import numpy as np
import pytest

import lamina
from lamina import Input, layers


def test_compiled_once_per_input_shape_and_matches_numpy():
    x = Input((3,))
    dense = layers.Dense(2)
    f = lamina.backend.function([x], [dense(x)])
    data = np.random.default_rng(0).standard_normal((4, 3)).astype("float32")
    for _ in range(3):
        out = f([data])[0]
        np.testing.assert_allclose(
            out, data @ dense.kernel.numpy() + dense.bias.numpy(), rtol=1e-5, atol=1e-6
        )
    assert f.trace_count == 1
    f([data[:2]])
    assert f.trace_count == 2  # a new batch size compiles a second program
    f([data[:2] + 1.0])
    assert f.trace_count == 2


def test_weights_changed_after_compiling_are_read_not_baked_in():
    x = Input((2,))
    dense = layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")
    scale = lamina.Variable(np.float32(2.0), name="scale")
    f = lamina.backend.function([x], [dense(x) * scale])
    data = np.array([[1.0, 2.0]], "float32")
    np.testing.assert_allclose(f([data])[0], [[6.0]])
    dense.kernel.assign(np.full((2, 1), 2.0, "float32"))
    scale.assign(np.float32(10.0))
    np.testing.assert_allclose(f([data])[0], [[60.0]])
    assert f.trace_count == 1


def test_updates_apply_each_call_symbolic_and_constant():
    x = Input((2,))
    total = lamina.Variable(np.zeros(2, "float32"), name="total")
    calls = lamina.Variable(np.float32(0.0), name="calls")
    f = lamina.backend.function(
        [x], [x * 3.0], updates=[(total, lamina.ops.sum(x, axis=0) + total), (calls, 7.0)]
    )
    batch = np.array([[1.0, 2.0], [3.0, 4.0]], "float32")
    f([batch])
    f([batch])
    np.testing.assert_allclose(total.numpy(), [8.0, 12.0])
    assert float(calls.numpy()) == 7.0
    assert f.trace_count == 1


def test_random_state_moves_on_between_compiled_calls():
    x = Input((64,))
    f = lamina.backend.function([x], layers.Dropout(0.5)(x, training=True))
    data = np.ones((1, 64), "float32")
    first, second = np.asarray(f([data])), np.asarray(f([data]))
    assert f.trace_count == 1
    assert not np.array_equal(first, second)  # the seed state was written back


def test_bad_updates_are_refused():
    x = Input((2,))
    with pytest.raises(ValueError, match=r"\(variable, new_value\) pairs"):
        lamina.backend.function([x], [x], updates=[x])
    with pytest.raises(TypeError, match="start with a Variable"):
        lamina.backend.function([x], [x], updates=[(np.zeros(2), x)])
