"""The classic backend's graph vocabulary: placeholders, variables, `K.gradients`,
updates and `K.function`, the learning phase (issue 19, item 2).

References are NumPy formulas written here (least squares, hand-derived gradients of a
two-layer network, momentum SGD)."""

import numpy as np
import pytest

import lamina
from lamina import backend as K
from lamina import ops


def _regression_data(n=48, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).astype("float32")
    w = np.array([[1.5], [-2.0], [0.5]], "float32")
    y = (x @ w + 0.7 + 0.05 * rng.normal(size=(n, 1))).astype("float32")
    return x, y


def test_linear_regression_with_k_reaches_least_squares():
    x_data, y_data = _regression_data()
    x = K.placeholder(shape=(None, 3))
    y = K.placeholder(shape=(None, 1))
    w = K.variable(np.zeros((3, 1)), name="w")
    b = K.variable(np.zeros((1,)), name="b")
    # Written only with K, as a classic program would.
    loss = K.mean(K.square(K.dot(x, w) + b - y))
    grad_w, grad_b = K.gradients(loss, [w, b])
    lr = 0.2
    train = K.function([x, y], [loss], updates=[(w, w - lr * grad_w), K.update_sub(b, lr * grad_b)])
    losses = [float(train([x_data, y_data])[0]) for _ in range(300)]

    design = np.concatenate([x_data, np.ones((len(x_data), 1), "float32")], axis=1)
    solution = np.linalg.lstsq(design.astype("float64"), y_data.astype("float64"), rcond=None)[0]
    np.testing.assert_allclose(K.get_value(w).ravel(), solution[:3].ravel(), atol=1e-4)
    np.testing.assert_allclose(K.get_value(b), solution[3], atol=1e-4)
    assert losses[-1] < losses[0] / 10


def _two_layer_reference(params, x, y):
    """Loss and gradients of mean((tanh(x W1 + b1) W2 + b2 - y)^2), by hand."""
    w1, b1, w2, b2 = params
    pre = x @ w1 + b1
    h = np.tanh(pre)
    out = h @ w2 + b2
    diff = out - y
    loss = np.mean(diff**2)
    d_out = 2 * diff / diff.size
    g_w2 = h.T @ d_out
    g_b2 = d_out.sum(axis=0)
    d_pre = (d_out @ w2.T) * (1 - h**2)
    return loss, [x.T @ d_pre, d_pre.sum(axis=0), g_w2, g_b2]


def test_two_layer_network_with_momentum_matches_numpy_and_learns():
    rng = np.random.default_rng(1)
    x_data = rng.normal(size=(32, 4)).astype("float32")
    y_data = np.sin(x_data[:, :1]) + 0.5 * x_data[:, 1:2]
    init = [
        (0.5 * rng.normal(size=(4, 8))).astype("float32"),
        np.zeros(8, "float32"),
        (0.5 * rng.normal(size=(8, 1))).astype("float32"),
        np.zeros(1, "float32"),
    ]
    x = K.placeholder(shape=(None, 4))
    y = K.placeholder(shape=(None, 1))
    params = [K.variable(p) for p in init]
    w1, b1, w2, b2 = params
    out = K.bias_add(K.dot(K.tanh(K.dot(x, w1) + b1), w2), b2)
    loss = K.mean(K.square(out - y))
    grads = K.gradients(loss, params)
    lr, mu = 0.1, 0.9
    velocities = [K.zeros(K.int_shape(p)) for p in params]
    updates = []
    for p, g, v in zip(params, grads, velocities, strict=True):
        v_new = mu * v - lr * g  # classic: reads v when the function runs
        updates += [K.update(v, v_new), K.update(p, p + v_new)]
    train = K.function([x, y], [loss], updates=updates)

    ref = [p.astype("float64") for p in init]
    ref_v = [np.zeros_like(p) for p in ref]
    for _ in range(5):
        (value,) = train([x_data, y_data])
        ref_loss, ref_grads = _two_layer_reference(ref, x_data.astype("float64"), y_data)
        np.testing.assert_allclose(value, ref_loss, rtol=1e-4)
        ref_v = [mu * v - lr * g for v, g in zip(ref_v, ref_grads, strict=True)]
        ref = [p + v for p, v in zip(ref, ref_v, strict=True)]
    for p, r in zip(params, ref, strict=True):
        np.testing.assert_allclose(K.get_value(p), r, rtol=1e-4, atol=1e-5)
    first = float(train([x_data, y_data])[0])
    for _ in range(150):
        last = float(train([x_data, y_data])[0])
    assert last < first / 5


def test_gradients_of_a_layer_loss_match_the_closed_form():
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    target = K.placeholder(shape=(None, 2))
    loss = ops.sum(ops.square(model.output - target))
    grad_kernel, grad_bias = K.gradients(loss, model.trainable_weights)
    f = K.function([model.input, target], [grad_kernel, grad_bias])
    rng = np.random.default_rng(2)
    x_data = rng.normal(size=(5, 3)).astype("float32")
    t_data = rng.normal(size=(5, 2)).astype("float32")
    kernel, bias = (K.get_value(v) for v in model.trainable_weights)
    residual = 2 * (x_data @ kernel + bias - t_data)
    g_kernel, g_bias = f([x_data, t_data])
    np.testing.assert_allclose(g_kernel, x_data.T @ residual, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(g_bias, residual.sum(axis=0), rtol=1e-4, atol=1e-5)


def test_non_scalar_loss_is_summed_and_gradients_use_current_values():
    w = K.variable([2.0, 3.0])
    x = K.placeholder(shape=(None, 2))
    (g,) = K.gradients(ops.square(x * w), [w])
    f = K.function([x], [g])
    data = np.array([[1.0, 2.0]], "float32")
    np.testing.assert_allclose(f([data])[0], 2 * data[0] ** 2 * np.array([2.0, 3.0]))
    K.set_value(w, np.array([1.0, 1.0]))
    np.testing.assert_allclose(f([data])[0], 2 * data[0] ** 2)


def test_constant_updates_apply_on_every_call():
    counter = K.variable(0.0)
    average = K.variable(0.0)
    x = K.placeholder(shape=(None,))
    step = K.function(
        [x],
        [x * 1.0],
        updates=[
            K.update_add(counter, 1.0),
            K.moving_average_update(average, ops.mean(x), 0.5),
        ],
    )
    for value in (4.0, 8.0, 2.0):
        step([np.array([value], "float32")])
    assert K.get_value(counter) == 3.0
    expected = 0.0
    for value in (4.0, 8.0, 2.0):
        expected = expected * 0.5 + value * 0.5
    np.testing.assert_allclose(K.get_value(average), expected)


def test_classic_variable_arithmetic_is_symbolic_and_eval_computes_it():
    v = K.variable([1.0, 2.0])
    expr = 0.5 * v - v * v
    assert isinstance(expr, lamina.graph.KerasTensor)
    np.testing.assert_allclose(K.eval(expr), [-0.5, -3.0])
    K.set_value(v, [2.0, 2.0])
    np.testing.assert_allclose(K.eval(expr), [-3.0, -3.0])
    np.testing.assert_allclose(K.eval(-v), [-2.0, -2.0])
    # Beside data, a variable is read at once (eager code such as a layer's call).
    out = v + ops.convert_to_tensor(np.array([1.0, 1.0], "float32"))
    np.testing.assert_allclose(ops.convert_to_numpy(out), [3.0, 3.0])


def test_eval_of_a_placeholder_expression_says_what_to_feed():
    x = K.placeholder(shape=(None, 2), name="feed_me")
    with pytest.raises(ValueError, match="feed_me.*K.function"):
        K.eval(x * 2.0)


def test_variable_value_helpers():
    v = K.variable(np.arange(6).reshape(2, 3), name="table")
    assert K.get_value(v).dtype == np.float32
    assert v.dtype == "float32"
    assert K.count_params(v) == 6
    K.batch_set_value([(v, np.ones((2, 3)))])
    np.testing.assert_array_equal(K.batch_get_value([v])[0], np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*\(3,\)"):
        K.set_value(v, np.ones(3))
    with pytest.raises(TypeError, match="variable"):
        K.set_value(np.ones(2), np.ones(2))
    assert K.variable(3, dtype="int32").dtype == "int32"
    constraint = lamina.constraints.NonNeg()
    assert K.variable([1.0], constraint=constraint).constraint is constraint
    np.testing.assert_array_equal(K.eval(K.constant(2.0, shape=(2, 2))), np.full((2, 2), 2.0))
    np.testing.assert_array_equal(K.eval(K.ones((2,))), [1.0, 1.0])
    np.testing.assert_array_equal(K.eval(K.eye(2)), np.eye(2))


def test_placeholders():
    x = K.placeholder(shape=(None, 4, 2), dtype="int32", name="ids")
    assert x.shape == (None, 4, 2) and x.dtype == "int32"
    assert K.is_placeholder(x)
    assert not K.is_placeholder(x * 2)
    assert not K.is_placeholder(np.ones(2))
    assert K.placeholder(ndim=3).shape == (None, None, None)
    with pytest.raises(ValueError, match="rank"):
        K.placeholder()
    with pytest.raises(ValueError, match="sparse"):
        K.placeholder(shape=(None, 2), sparse=True)


def test_learning_phase_switches_in_train_phase():
    x = K.placeholder(shape=(None, 2))
    out = K.in_train_phase(x * 2.0, x * 3.0)
    f = K.function([x, K.learning_phase()], [out])
    data = np.array([[1.0, -1.0]], "float32")
    np.testing.assert_allclose(f([data, 1])[0], data * 2)
    np.testing.assert_allclose(f([data, 0])[0], data * 3)
    g = K.function([x], [K.in_test_phase(lambda: x * 2.0, lambda: x * 3.0)])
    np.testing.assert_allclose(g([data])[0], data * 2)  # not fed: inference
    # Concrete branches pick at once: the phase of the current call, else inference.
    assert K.in_train_phase(1.0, 2.0) == 2.0
    assert K.in_train_phase(1.0, 2.0, training=True) == 1.0
    with K.learning_phase_scope(1):
        assert K.learning_phase() == 1
        assert K.in_train_phase(1.0, 2.0) == 1.0
    assert isinstance(K.learning_phase(), lamina.graph.KerasTensor)


def test_learning_phase_reaches_the_layers_of_a_model():
    model = lamina.Sequential([lamina.Input((200,)), lamina.layers.Dropout(0.5, seed=3)])
    f = K.function([model.input, K.learning_phase()], [model.output])
    data = np.ones((1, 200), "float32")
    np.testing.assert_array_equal(f([data, 0])[0], data)
    dropped = f([data, 1])[0]
    assert 40 < int((dropped == 0).sum()) < 160
    np.testing.assert_allclose(dropped[dropped != 0], 2.0)


def test_in_train_phase_inside_a_lambda_follows_fit():
    seen = []

    def branch(t):
        value = K.in_train_phase(t * 0.0, t)
        seen.append(value)
        return value

    inputs = lamina.Input((1,))
    model = lamina.Model(inputs, lamina.layers.Lambda(branch)(lamina.layers.Dense(1)(inputs)))
    data = np.ones((4, 1), "float32")
    np.testing.assert_allclose(
        ops.convert_to_numpy(model(data, training=True)), np.zeros((4, 1)), atol=0
    )
    assert np.all(ops.convert_to_numpy(model(data, training=False)) != 0)


def test_gradient_errors_name_the_problem():
    x = K.placeholder(shape=(None, 1))
    with pytest.raises(TypeError, match="already computed"):
        K.gradients(ops.convert_to_tensor(np.ones(1, "float32")), [K.variable(1.0)])
    with pytest.raises(ValueError, match="floating-point"):
        K.gradients(ops.sum(x), [K.variable(1, dtype="int32")])
    with pytest.raises(TypeError, match="Variable"):
        K.gradients(ops.sum(x), [np.ones(1)])
    with pytest.raises(TypeError, match="updates a variable"):
        K.update(np.ones(1), 2.0)


def test_unfed_placeholder_is_a_clear_error():
    x = K.placeholder(shape=(None, 1), name="x_in")
    y = K.placeholder(shape=(None, 1), name="y_in")
    with pytest.raises(ValueError, match="y_in"):
        K.function([x], [x + y])


def test_omitted_session_functions_say_why():
    assert not hasattr(K, "get_session")
    with pytest.raises(AttributeError, match="no TensorFlow sessions.*K.get_value"):
        K.get_session()  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        K.no_such_name  # noqa: B018


def test_cast_shape_stop_gradient_work_on_graph_tensors_and_arrays():
    x = K.placeholder(shape=(None, 3))
    assert K.cast(x, "int32").dtype == "int32"
    assert K.int_shape(x) == (None, 3)
    assert K.int_shape(K.shape(x)) == (2,)  # Keras 2: a 1-D tensor, symbolic here
    assert K.stop_gradient(x).shape == (None, 3)
    array = ops.convert_to_tensor(np.array([1.7, -2.2], "float32"))
    np.testing.assert_array_equal(ops.convert_to_numpy(K.cast(array, "int32")), [1, -2])
    assert np.asarray(K.shape(array)).tolist() == [2]
    counter = K.variable(0, dtype="int32")
    as_float = K.cast(counter, "float32") + 1.0  # an expression over the variable
    K.set_value(counter, 4)
    assert float(K.eval(as_float)) == 5.0


def test_name_scope_is_a_harmless_context():
    with K.name_scope("block"):
        v = K.variable(1.0)
    assert K.get_value(v) == 1.0
