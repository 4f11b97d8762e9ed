"""Sequential models: add, pop, deferred build, input_shape, config."""

import numpy as np
import pytest

from lamina import Input, Model, Sequential, layers, models, ops


def test_built_from_input_has_node_zero():
    model = Sequential([Input((4,)), layers.Dense(3), layers.Dense(1)])
    assert model.built and [lyr.name for lyr in model.layers] == ["dense", "dense_1"]
    assert len(model._inbound_nodes) == 1
    assert model.output_shape == (None, 1) and model.input_shape == (None, 4)
    assert model.count_params() == 4 * 3 + 3 + 3 + 1


def test_input_shape_on_first_layer():
    model = Sequential([layers.Dense(3, input_shape=(5,)), layers.Dense(2)])
    assert model.built and model.input_shape == (None, 5)
    assert model(np.ones((2, 5), "float32")).shape == (2, 2)


def test_deferred_build_on_first_call():
    model = Sequential()
    model.add(layers.Dense(3))
    model.add(layers.Dense(2))
    assert not model.built
    # Keras 3 lists an unbuilt model's layers rather than refusing.
    printed = []
    model.summary(print_fn=printed.append)
    assert printed[0].count("0 (unbuilt)") == 2
    out = model(np.ones((4, 7), "float32"))
    assert out.shape == (4, 2) and model.built and model.input_shape == (None, 7)
    assert len(model.weights) == 4


def test_add_and_pop():
    model = Sequential([Input((2,)), layers.Dense(4), layers.Dense(3)])
    popped = model.pop()
    assert isinstance(popped, layers.Dense) and model.output_shape == (None, 4)
    model.add(layers.Dense(5))
    assert model.output_shape == (None, 5)
    with pytest.raises(TypeError, match="expects a Layer instance"):
        model.add("dense")
    with pytest.raises(ValueError, match="InputLayer can only be the first"):
        model.add(layers.InputLayer(shape=(2,)))


def test_sequential_matches_reference():
    model = Sequential([Input((3,)), layers.Dense(2, activation="relu"), layers.Dense(1)])
    data = np.random.default_rng(0).standard_normal((5, 3)).astype("float32")
    d1, d2 = model.layers
    h = np.maximum(data @ d1.kernel.numpy() + d1.bias.numpy(), 0)
    np.testing.assert_allclose(
        ops.convert_to_numpy(model(data)),
        h @ d2.kernel.numpy() + d2.bias.numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def test_config_round_trip():
    model = Sequential([Input((3,)), layers.Dense(2, activation="relu"), layers.Dropout(0.2)])
    config = model.get_config()
    assert config["layers"][0]["class_name"] == "InputLayer"
    clone = Sequential.from_config(config)
    clone.set_weights(model.get_weights())
    data = np.ones((2, 3), "float32")
    np.testing.assert_allclose(ops.convert_to_numpy(clone(data)), ops.convert_to_numpy(model(data)))
    again = models.model_from_json(model.to_json())
    assert isinstance(again, Sequential) and len(again.layers) == 2


def test_sequential_nested_in_functional():
    inner = Sequential([Input((3,)), layers.Dense(2)])
    x = Input((3,))
    outer = __import__("lamina").Model(x, layers.Dense(1)(inner(x)))
    assert len(outer.weights) == 4
    assert outer(np.ones((2, 3), "float32")).shape == (2, 1)


def test_add_calls_only_the_new_layer():
    # Each add must not re-call the layers already stacked: one inbound node each, so
    # `layer.output` stays defined (it raises on a layer with several nodes).
    model = Sequential([Input((3,))])
    first, second, third = layers.Dense(4), layers.Dense(2), layers.Dense(5)
    model.add(first)
    model.add(second)
    assert [len(lyr._inbound_nodes) for lyr in (first, second)] == [1, 1]
    assert first.output.shape == (None, 4) and second.output.shape == (None, 2)
    assert model.pop() is second
    assert len(first._inbound_nodes) == 1 and model.output_shape == (None, 4)
    model.add(third)
    assert [len(lyr._inbound_nodes) for lyr in (first, third)] == [1, 1]
    assert model.output_shape == (None, 5) and len(model._inbound_nodes) == 1
    assert model(np.ones((2, 3), "float32")).shape == (2, 5)
    assert [lyr.name for lyr in model.layers] == [first.name, third.name]


def test_pop_to_empty_then_add_again():
    model = Sequential([Input((3,)), layers.Dense(4)])
    model.pop()
    assert model.layers == [] and not model.built
    model.add(layers.Dense(2))
    assert model.built and model.output_shape == (None, 2)


def test_failed_add_leaves_the_model_unchanged():
    model = Sequential([Input((3,)), layers.Reshape((3,))])
    with pytest.raises(ValueError):
        model.add(layers.Reshape((7,)))
    assert len(model.layers) == 1 and model.output_shape == (None, 3)
    model.add(layers.Dense(2))
    assert model(np.ones((1, 3), "float32")).shape == (1, 2)


def test_built_functional_model_first_builds_the_sequential():
    x = Input((3,), name="x")
    base = Model(x, layers.Dense(4, activation="relu", name="d")(x), name="base")
    model = Sequential([base, layers.Dense(2, name="head")])
    # Keras builds at once from the functional model's input.
    assert model.built and model.inputs[0].shape == (None, 3)
    assert model.outputs[0].shape == (None, 2)
    assert [lyr.name for lyr in model.layers] == ["base", "head"]
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert "base (Functional)" in text and "Total params: 26" in text
    data = np.random.default_rng(0).standard_normal((2, 3)).astype("float32")
    d, head = base.get_layer("d"), model.get_layer("head")
    hidden = np.maximum(data @ d.kernel.numpy() + d.bias.numpy(), 0)
    expected = hidden @ head.kernel.numpy() + head.bias.numpy()
    np.testing.assert_allclose(ops.convert_to_numpy(model(data)), expected, rtol=1e-5, atol=1e-6)
    clone = Sequential.from_config(model.get_config())
    assert clone.built
    clone.set_weights(model.get_weights())
    np.testing.assert_allclose(ops.convert_to_numpy(clone(data)), expected, rtol=1e-5, atol=1e-6)
