"""clone_model: Keras 3's arguments (input_tensors, clone_function, call_function,
recursive), checked by what the clone is made of and what it computes."""

import numpy as np
import pytest

import lamina
from lamina import Input, Model, Sequential, layers, models, ops


def _functional():
    a, b = Input((4,), name="a"), Input((4,), name="b")
    shared = layers.Dense(3, name="shared")
    inner = Sequential([Input((3,)), layers.Dense(2, name="inner_dense")], name="inner")
    merged = layers.Concatenate(name="cat")([shared(a), shared(b)])
    out = layers.Dense(2, name="out")(merged)
    return Model({"a": a, "b": b}, {"x": out, "y": inner(shared(a))}, name="m")


def _data():
    rng = np.random.default_rng(0)
    return {k: rng.normal(size=(3, 4)).astype("float32") for k in "ab"}


def test_functional_clone_has_new_layers_same_graph_and_computes_the_same_with_weights():
    model = _functional()
    model.compile(optimizer="sgd", loss="mse")
    clone = models.clone_model(model)
    assert clone.name == "m" and clone.compiled
    assert [lyr.name for lyr in clone.layers] == [lyr.name for lyr in model.layers]
    for old, new in zip(model.layers, clone.layers):
        assert old is not new
    # The shared layer is cloned once and stays shared.
    assert len(clone.get_layer("shared")._inbound_nodes) == 3
    clone.set_weights(model.get_weights())
    x = _data()
    got, want = clone.predict(x, verbose=0), model.predict(x, verbose=0)
    for key in ("x", "y"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-6)
    # The compile settings came along, with a new optimizer.
    assert type(clone.optimizer) is type(model.optimizer)
    assert clone.optimizer is not model.optimizer
    clone.fit(x, {"x": np.zeros((3, 2)), "y": np.zeros((3, 2))}, epochs=1, verbose=0)


def test_clone_function_sees_each_layer_once_and_may_reuse_layers():
    model = _functional()
    seen = []

    def relu_dense(layer):
        seen.append(layer.name)
        if layer.name == "out":
            return layer  # reused as is, weights and all
        config = layer.get_config()
        if isinstance(layer, layers.Dense):
            config["activation"] = "relu"
        return layer.__class__.from_config(config)

    clone = models.clone_model(model, clone_function=relu_dense)
    assert sorted(seen) == ["cat", "inner", "out", "shared"]
    assert clone.get_layer("out") is model.get_layer("out")
    assert clone.get_layer("shared").activation is lamina.activations.relu
    assert clone.get_layer("inner") is not model.get_layer("inner")


def test_recursive_clones_the_layers_inside_nested_models():
    model = _functional()
    seen = []

    def record(layer):
        seen.append(layer.name)
        return layer.__class__.from_config(layer.get_config())

    models.clone_model(model, clone_function=record)
    assert "inner" in seen and "inner_dense" not in seen
    seen.clear()
    clone = models.clone_model(model, clone_function=record, recursive=True)
    assert "inner_dense" in seen and "inner" not in seen
    inner = clone.get_layer("inner")
    assert isinstance(inner, Sequential)
    assert inner.layers[0] is not model.get_layer("inner").layers[0]


def test_call_function_inserts_layers_in_the_new_graph():
    model = _functional()

    def call(layer, *args, **kwargs):
        y = layer(*args, **kwargs)
        if layer.name == "out":
            y = layers.Activation("sigmoid", name="post")(y)
        return y

    clone = models.clone_model(model, call_function=call)
    assert "post" in [lyr.name for lyr in clone.layers]
    out = clone.predict(_data(), verbose=0)["x"]
    assert out.shape == (3, 2) and np.all((out > 0) & (out < 1))


def test_input_tensors():
    model = _functional()
    a, b = Input((4,), name="new_a"), Input((4,), name="new_b")
    clone = models.clone_model(model, input_tensors=[a, b])
    assert [t.name for t in clone.inputs] == ["new_a", "new_b"]
    with pytest.raises(ValueError, match="has 2 input"):
        models.clone_model(model, input_tensors=[a])
    with pytest.raises(ValueError, match="symbolic tensors"):
        models.clone_model(model, input_tensors=[np.ones((1, 4)), np.ones((1, 4))])

    seq = Sequential([Input((4,), name="x"), layers.Dense(3, name="d")], name="s")
    new = Input((4,), name="fresh")
    clone = models.clone_model(seq, input_tensors=new)
    assert isinstance(clone, Sequential) and clone.inputs[0] is new
    assert [lyr.name for lyr in clone.layers] == ["d"] and clone.layers[0] is not seq.layers[0]


def test_sequential_clone_and_its_refusals():
    seq = Sequential([Input((4,), name="x"), layers.Dense(3, name="d")], name="s")
    clone = models.clone_model(seq)
    assert isinstance(clone, Sequential) and clone.name == "s"
    assert clone.inputs[0].shape == (None, 4) and not clone.compiled
    with pytest.raises(ValueError, match="functional models only"):
        models.clone_model(seq, call_function=lambda layer, *a, **k: layer(*a, **k))
    with pytest.raises(TypeError, match="must be callable"):
        models.clone_model(seq, clone_function="copy")
    with pytest.raises(TypeError, match="must return a Layer"):
        models.clone_model(seq, clone_function=lambda layer: None)
    with pytest.raises(TypeError, match="unexpected keyword"):
        models.clone_model(seq, share_weights=True)


class _Subclassed(Model):
    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = layers.Dense(units)

    def call(self, x):
        return self.dense(x)

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_subclassed_model_is_cloned_from_its_config():
    model = _Subclassed(units=3, name="sub")
    model(np.ones((1, 2), "float32"))
    clone = models.clone_model(model)
    assert type(clone) is _Subclassed and clone.units == 3 and clone is not model
    assert ops.convert_to_numpy(clone(np.ones((1, 2), "float32"))).shape == (1, 3)
    with pytest.raises(ValueError, match="subclassed"):
        models.clone_model(model, clone_function=lambda layer: layer)
