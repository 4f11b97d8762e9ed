"""Variables, the stateless scope, and seeded randomness."""

import numpy as np
import pytest

import lamina
from lamina import backend, ops
from lamina.ops import random


def test_variable_basics():
    v = lamina.Variable(np.array([1.0, 2.0]), name="v")
    assert v.shape == (2,) and v.dtype == "float32" and v.name == "v" and v.trainable
    v.assign([3.0, 4.0])
    v.assign_add([1.0, 1.0])
    v.assign_sub([0.5, 0.5])
    np.testing.assert_allclose(v.numpy(), [3.5, 4.5])
    np.testing.assert_allclose(ops.convert_to_numpy(v.value), [3.5, 4.5])
    np.testing.assert_allclose(ops.convert_to_numpy(v * 2), [7.0, 9.0])
    with pytest.raises(
        ValueError, match=r"has shape \(2,\); cannot assign a value of shape \(3,\)"
    ):
        v.assign([1.0, 2.0, 3.0])
    frozen = lamina.Variable(np.zeros((2, 2)), trainable=False, dtype="float64")
    assert not frozen.trainable and frozen.dtype in ("float32", "float64")
    init = lamina.Variable(lambda shape, dtype: np.ones(shape, dtype), shape=(3,))
    np.testing.assert_allclose(init.numpy(), np.ones(3))
    with pytest.raises(ValueError, match="needs `shape`"):
        lamina.Variable(lambda shape, dtype: np.ones(shape))


def test_stateless_scope_reads_and_records():
    v = lamina.Variable(np.ones(2, "float32"))
    with backend.StatelessScope([(v, ops.zeros(2))]) as scope:
        np.testing.assert_allclose(ops.convert_to_numpy(v.value), [0, 0])
        v.assign(v + 5.0)
        np.testing.assert_allclose(ops.convert_to_numpy(v.value), [5, 5])
    np.testing.assert_allclose(v.numpy(), [1, 1])
    ((var, value),) = scope.updates
    assert var is v
    np.testing.assert_allclose(ops.convert_to_numpy(value), [5, 5])


def test_convert_to_tensor_and_numpy():
    t = ops.convert_to_tensor(np.arange(3.0))
    assert ops.dtype(t) == "float32"
    assert ops.dtype(ops.convert_to_tensor(np.arange(3))) == "int32"
    assert isinstance(ops.convert_to_numpy(t), np.ndarray)
    with pytest.raises(TypeError, match="holds no data"):
        ops.convert_to_numpy(lamina.Input((2,)))


def test_seed_generator_and_set_random_seed():
    gen = random.SeedGenerator(7)
    a, b = random.normal((3,), seed=gen), random.normal((3,), seed=gen)
    assert not np.allclose(a, b)
    gen2 = random.SeedGenerator(7)
    np.testing.assert_allclose(random.normal((3,), seed=gen2), a)
    np.testing.assert_allclose(random.uniform((3,), seed=5), random.uniform((3,), seed=5))
    lamina.utils.set_random_seed(3)
    first = [random.normal((2,)) for _ in range(2)]
    w1 = lamina.layers.Dense(2)
    w1.build((None, 2))
    lamina.utils.set_random_seed(3)
    second = [random.normal((2,)) for _ in range(2)]
    w2 = lamina.layers.Dense(2)
    w2.build((None, 2))
    for x, y in zip(first, second, strict=True):
        np.testing.assert_allclose(x, y)
    np.testing.assert_allclose(w1.kernel.numpy(), w2.kernel.numpy())
    with pytest.raises(TypeError, match="seed must be an int"):
        random.SeedGenerator("x")


def test_random_distributions():
    n = ops.convert_to_numpy(random.normal((20000,), mean=1.0, stddev=2.0, seed=1))
    assert abs(float(np.mean(n)) - 1.0) < 0.05 and abs(float(np.std(n)) - 2.0) < 0.05
    u = ops.convert_to_numpy(random.uniform((20000,), minval=-1, maxval=3, seed=1))
    assert u.min() >= -1 and u.max() < 3 and abs(u.mean() - 1) < 0.05
    t = ops.convert_to_numpy(random.truncated_normal((20000,), stddev=1.0, seed=1))
    assert np.abs(t).max() <= 2.0
    d = ops.convert_to_numpy(random.dropout(np.ones(20000, "float32"), 0.25, seed=1))
    assert set(np.unique(d)) <= {0.0, np.float32(1 / 0.75)}
    assert abs(float(np.mean(d == 0)) - 0.25) < 0.02
    r = ops.convert_to_numpy(random.randint((1000,), 0, 4, seed=1))
    assert set(np.unique(r)) == {0, 1, 2, 3}
    s = ops.convert_to_numpy(random.shuffle(np.arange(10), seed=1))
    assert sorted(s.tolist()) == list(range(10))


# jax.jit over a stateless seed update.
@pytest.mark.engine("jax")
def test_dropout_inside_jit_advances_seed_state():
    import jax

    layer = lamina.layers.Dropout(0.5, seed=0)
    state = layer.non_trainable_variables
    assert len(state) == 1

    def step(values, x):
        with backend.StatelessScope(list(zip(state, values, strict=True))) as scope:
            y = layer(x, training=True)
        return y, [scope.get_update(v) for v in state]

    x = np.ones((1, 100), "float32")
    y1, values = jax.jit(step)([v.value for v in state], x)
    y2, _ = jax.jit(step)(values, x)
    assert not np.array_equal(ops.convert_to_numpy(y1), ops.convert_to_numpy(y2))


def test_variable_on_the_left_of_a_symbolic_tensor_builds_a_graph_node():
    total = backend.Variable(np.full((), 2.0, "float32"), name="total")
    x = lamina.Input((3,))
    y = total + ops.sum(x, axis=-1)
    z = total * ops.sum(x, axis=-1)
    assert type(y).__name__ == "KerasTensor" and y.shape == (None,)
    model = lamina.Model(x, [y, z])
    got = model(np.arange(6, dtype="float32").reshape(2, 3))
    np.testing.assert_allclose(ops.convert_to_numpy(got[0]), [2.0 + 3.0, 2.0 + 12.0])
    np.testing.assert_allclose(ops.convert_to_numpy(got[1]), [2.0 * 3.0, 2.0 * 12.0])
