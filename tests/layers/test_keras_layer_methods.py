"""Keras 3's smaller Layer/Model methods: add_variable, path, metrics,
call_signature_parameters, supports_jit, rematerialized_call, get/set_state_tree,
compute_loss_and_updates, jax_state_sync. Expected values come from Keras 3's
documented behaviour (paths, tree layout) and NumPy formulas."""

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.training import structures


def _model():
    model = lamina.Sequential(
        [lamina.Input((3,)), layers.Dense(2, name="my_dense")], name="my_sequential"
    )
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    return model


def test_add_variable_is_add_weight_in_keras_order():
    layer = layers.Layer(name="holder")
    v = layer.add_variable((2, 3), "ones", "float32", False, True, None, None, "v")
    assert v.shape == (2, 3) and not v.trainable and v.name == "v"
    np.testing.assert_array_equal(v.numpy(), np.ones((2, 3)))
    assert layer.weights == [v]


def test_path_call_signature_and_supports_jit():
    dense = layers.Dense(2)
    assert dense.path is None  # not built
    model = _model()
    inner = model.layers[0]
    assert inner.path == "my_sequential/my_dense"
    assert inner.kernel.path.startswith(inner.path + "/")
    assert inner.call_signature_parameters[0] == "inputs"

    class Two(layers.Layer):
        def call(self, x, mask=None, training=None, *args, **kwargs):
            return x

    assert Two().call_signature_parameters == ["x", "mask", "training"]
    assert dense.supports_jit is True
    dense.supports_jit = False
    assert dense.supports_jit is False


def test_layer_metrics_are_attribute_metrics_of_it_and_sublayers():
    class WithMetric(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.tracker = lamina.metrics.Mean(name="tracker")
            self.inner = layers.Dense(1)

        def call(self, x):
            self.tracker.update_state(x)
            return self.inner(x)

    outer = layers.Layer()
    outer.child = WithMetric()
    outer.child(np.ones((2, 3), "float32"))
    assert [m.name for m in outer.metrics] == ["tracker"]
    assert len(outer.metrics_variables) == 2  # Mean: total and count
    np.testing.assert_allclose(outer.child.tracker.result(), 1.0)


def test_rematerialized_call_is_identity_outside_remat_scope():
    dense = layers.Dense(2)

    def call(x):
        return x

    assert dense.rematerialized_call(call, np.ones((1, 2))) is call
    with lamina.RematScope(mode="full"):
        remat = layers.Dense(2)
    remat.build((None, 2))
    wrapped = remat.rematerialized_call(remat.call, np.ones((1, 2), "float32"))
    assert wrapped is not remat.call
    np.testing.assert_allclose(
        lamina.ops.convert_to_numpy(wrapped(np.ones((1, 2), "float32"))),
        np.ones((1, 2)) @ remat.kernel.numpy() + remat.bias.numpy(),
        rtol=1e-6,
    )


def test_state_tree_layout_and_round_trip():
    model = _model()
    x = np.ones((2, 3), "float32")
    y = np.zeros((2, 2), "float32")
    model.fit(x, y, epochs=1, verbose=0)
    tree = model.get_state_tree(value_format="numpy_array")
    assert set(tree) == {
        "trainable_variables",
        "non_trainable_variables",
        "optimizer_variables",
        "metrics_variables",
    }
    # Keras 3's layout for this model (its `get_state_tree` docstring).
    assert set(tree["trainable_variables"]["my_sequential"]["my_dense"]) == {"kernel", "bias"}
    assert tree["non_trainable_variables"] == {}
    assert {"loss", "mean_absolute_error"} <= set(tree["metrics_variables"])
    assert set(tree["metrics_variables"]["loss"]) == {"total", "count"}
    kernel = tree["trainable_variables"]["my_sequential"]["my_dense"]["kernel"]
    assert isinstance(kernel, np.ndarray)
    np.testing.assert_array_equal(kernel, model.layers[0].kernel.numpy())
    assert len(_leaves(tree["optimizer_variables"])) == len(model.optimizer.variables)
    new = np.full((3, 2), 0.5, "float32")
    model.set_state_tree({"trainable_variables": {"my_sequential": {"my_dense": {"kernel": new}}}})
    np.testing.assert_array_equal(model.layers[0].kernel.numpy(), new)
    with pytest.raises(ValueError, match="value_format"):
        model.get_state_tree("list")
    with pytest.raises(ValueError, match="unknown group 'weights'"):
        model.set_state_tree({"weights": {}})


def _leaves(tree):
    return [
        v
        for value in tree.values()
        for v in (_leaves(value) if isinstance(value, dict) else [value])
    ]


def test_compute_loss_and_updates_is_pure():
    model = _model()
    x = np.array([[1.0, 2.0, 3.0]], "float32")
    y = np.array([[1.0, -1.0]], "float32")
    model.build((None, 3))
    structures.ensure_built(model, x, y)
    kernel, bias = model.layers[0].kernel.numpy(), model.layers[0].bias.numpy()
    state = (
        [v.value for v in model.trainable_variables],
        [v.value for v in model.non_trainable_variables],
        [v.value for v in model.metrics_variables],
    )
    loss, (unscaled, y_pred, _, metrics) = model.compute_loss_and_updates(*state, x, y, None)
    expected = x @ kernel + bias
    np.testing.assert_allclose(lamina.ops.convert_to_numpy(y_pred), expected, rtol=1e-6)
    np.testing.assert_allclose(
        float(lamina.ops.convert_to_numpy(loss)), np.mean((expected - y) ** 2), rtol=1e-6
    )
    assert unscaled is loss  # no optimizer scaling outside training
    assert len(metrics) == len(model.metrics_variables)
    np.testing.assert_array_equal(model.layers[0].kernel.numpy(), kernel)  # untouched
    model.jax_state_sync()  # no fit running: nothing to do


def test_a_layer_without_jit_support_makes_auto_compile_run_eagerly():
    # Keras resolves jit_compile="auto" to False when a layer sets supports_jit = False:
    # this layer reads a value in Python, which a compiled step could not do.
    class HostRead(lamina.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_jit = False

        def call(self, x):
            scale = float(lamina.ops.convert_to_numpy(lamina.ops.max(lamina.ops.abs(x)))) + 1.0
            return x / scale

        def compute_output_shape(self, input_shape):
            return input_shape  # its call cannot be traced to find out

    model = lamina.Sequential([lamina.Input((3,)), HostRead(), lamina.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    assert model.jit_compile is False and model.run_eagerly is True
    x = np.ones((4, 3), "float32")
    model.fit(x, np.ones((4, 1)), epochs=1, verbose=0)
    assert model.predict(x, verbose=0).shape == (4, 1)
    plain = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(1)])
    plain.compile(optimizer="sgd", loss="mse")
    assert plain.jit_compile == "auto" and plain.run_eagerly is False
