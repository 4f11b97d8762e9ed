"""Functional models: building, running, nesting, config round trips, errors."""

import json

import numpy as np
import pytest

import lamina
from lamina import Input, Model, layers, models, ops


def _data(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def test_list_and_dict_inputs_and_outputs():
    a, b = Input((3,), name="a"), Input((2,), name="b")
    h = layers.Concatenate()([a, b])
    model = Model(
        {"a": a, "b": b}, {"y1": layers.Dense(1, name="y1")(h), "y2": layers.Dense(2, name="y2")(h)}
    )
    out = model({"a": _data(4, 3), "b": _data(4, 2)})
    assert set(out) == {"y1", "y2"} and out["y1"].shape == (4, 1) and out["y2"].shape == (4, 2)
    with pytest.raises(ValueError, match=r"expects inputs named \['a', 'b'\].*unknown: \['c'\]"):
        model({"a": _data(4, 3), "c": _data(4, 2)})
    listed = Model([a, b], [layers.Dense(1)(h)])
    # One output in a list comes back bare from a call on data, as in Keras 3; a
    # symbolic call keeps the list (Keras does the same).
    assert listed([_data(4, 3), _data(4, 2)]).shape == (4, 1)
    assert isinstance(listed([Input((3,)), Input((2,))]), list)
    with pytest.raises(ValueError, match=r"expects 2 input\(s\) \['a', 'b'\], but it received 1"):
        listed(_data(4, 3))
    by_name = listed({"a": _data(4, 3), "b": _data(4, 2)})
    assert by_name.shape == (4, 1)


def test_dict_outputs_keep_the_order_the_model_was_built_with():
    # Keras 3 returns `model(x)` and a symbolic call's dict in the order the outputs were
    # given (a program iterating `model(x).items()` sees them so), and `model.output` is
    # the structure itself; `model.outputs` is the flat list.
    x = Input((3,))
    zeta, alpha = layers.Dense(1, name="zeta")(x), layers.Dense(2, name="alpha")(x)
    model = Model(x, {"zeta": zeta, "alpha": alpha})
    data = _data(4, 3)
    out = model(data)
    assert list(out) == ["zeta", "alpha"]
    w_z, b_z = model.get_layer("zeta").get_weights()
    np.testing.assert_allclose(
        ops.convert_to_numpy(out["zeta"]), data @ w_z + b_z, rtol=1e-5, atol=1e-6
    )
    assert list(model(Input((3,)))) == ["zeta", "alpha"]
    assert model.output == {"zeta": zeta, "alpha": alpha} and list(model.output) == [
        "zeta",
        "alpha",
    ]
    assert model.outputs == [alpha, zeta]  # flat: sorted by key, as Keras flattens
    assert isinstance(Model(x, [zeta]).output, list)
    assert Model(x, zeta).output is zeta


def test_model_on_numpy_input_matches_reference():
    x = Input((3,))
    dense = layers.Dense(2, activation="relu")
    model = Model(x, dense(x))
    data = _data(5, 3)
    expected = np.maximum(data @ dense.kernel.numpy() + dense.bias.numpy(), 0)
    np.testing.assert_allclose(ops.convert_to_numpy(model(data)), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        ops.convert_to_numpy(model(data.astype("float64"))), expected, rtol=1e-5, atol=1e-6
    )


def _abab_model():
    x = Input((4,), name="x")
    a, b = layers.Dense(4, name="A"), layers.Dense(4, name="B")
    return Model(x, a(b(a(b(x))))), a, b


def test_shared_layers_round_trip_through_config():
    model, a, b = _abab_model()
    assert len(a._inbound_nodes) == 2 and len(b._inbound_nodes) == 2
    config = model.get_config()
    json.dumps(config)  # the config is JSON
    entry = {layer["name"]: layer for layer in config["layers"]}
    assert len(entry["A"]["inbound_nodes"]) == 2
    history = entry["A"]["inbound_nodes"][1]["args"][0]["config"]["keras_history"]
    assert history == ["B", 1, 0]
    clone = Model.from_config(config)
    assert [lyr.name for lyr in clone.layers] == [lyr.name for lyr in model.layers]
    clone.set_weights(model.get_weights())
    data = _data(3, 4)
    np.testing.assert_allclose(
        ops.convert_to_numpy(clone(data)), ops.convert_to_numpy(model(data)), rtol=1e-6
    )
    assert clone.get_config() == config


def test_nested_models_round_trip_and_weights():
    x = Input((3,), name="inner_in")
    inner = Model(x, layers.Dense(2, name="inner_dense")(x), name="inner")
    a, b = Input((3,), name="a"), Input((3,), name="b")
    outer = Model([a, b], layers.Add(name="sum")([inner(a), inner(b)]), name="outer")
    assert len(outer.weights) == 2
    config = outer.get_config()
    inner_entry = next(e for e in config["layers"] if e["name"] == "inner")
    assert inner_entry["class_name"] == "Functional"
    # inner's node 0 is its own; the two calls in `outer` are serialized as 0 and 1.
    assert [n["args"][0]["config"]["keras_history"] for n in inner_entry["inbound_nodes"]] == [
        ["a", 0, 0],
        ["b", 0, 0],
    ]
    sum_entry = next(e for e in config["layers"] if e["name"] == "sum")
    assert [t["config"]["keras_history"] for t in sum_entry["inbound_nodes"][0]["args"][0]] == [
        ["inner", 0, 0],
        ["inner", 1, 0],
    ]
    clone = Model.from_config(config)
    clone.set_weights(outer.get_weights())
    data = [_data(2, 3), _data(2, 3, seed=1)]
    np.testing.assert_allclose(
        ops.convert_to_numpy(clone(data)), ops.convert_to_numpy(outer(data)), rtol=1e-6
    )


def test_nested_trainable_propagates():
    x = Input((3,))
    inner = Model(x, layers.Dense(2)(layers.Dense(3)(x)))
    y = Input((3,))
    outer = Model(y, layers.Dense(1)(inner(y)))
    assert len(outer.trainable_weights) == 6
    inner.trainable = False
    assert all(not lyr.trainable for lyr in inner.layers)
    assert len(outer.trainable_weights) == 2 and len(outer.non_trainable_weights) == 4
    outer.trainable = False
    assert outer.trainable_weights == [] and len(outer.non_trainable_weights) == 6
    outer.trainable = True
    assert len(outer.trainable_weights) == 6


def test_to_json_and_model_from_json_with_custom_objects():
    @lamina.utils.register_keras_serializable(package="tests")
    class Double(layers.Layer):
        def call(self, x):
            return x * 2.0

    x = Input((2,))
    model = Model(x, Double(name="double")(layers.Dense(2)(x)))
    text = model.to_json()
    clone = models.model_from_json(text)
    assert type(clone.get_layer("double")) is Double

    class Unregistered(layers.Layer):
        def call(self, x):
            return x + 1.0

    model2 = Model(x, Unregistered(name="plus")(x))
    with pytest.raises(ValueError, match="Unknown layer class 'Unregistered'"):
        models.model_from_json(model2.to_json())
    clone2 = models.model_from_json(model2.to_json(), custom_objects={"Unregistered": Unregistered})
    np.testing.assert_allclose(
        ops.convert_to_numpy(clone2(np.zeros((1, 2), "float32"))), [[1.0, 1.0]]
    )


def test_ops_in_graph_round_trip_through_config():
    x = Input((3,), name="x")
    y = lamina.ops.relu(x[:, 1:] * 2.0) + 1.0
    model = Model(x, y)
    clone = Model.from_config(json.loads(json.dumps(model.get_config())))
    data = _data(2, 3)
    np.testing.assert_allclose(
        ops.convert_to_numpy(clone(data)), ops.convert_to_numpy(model(data)), rtol=1e-6
    )


def test_get_layer_and_count_params():
    x = Input((3,), name="x")
    model = Model(x, layers.Dense(2, name="d")(x))
    assert model.get_layer("d") is model.get_layer(index=1)
    assert model.count_params() == 8
    with pytest.raises(ValueError, match="No layer named 'zz'.*'x', 'd'"):
        model.get_layer("zz")
    with pytest.raises(ValueError, match="out of range"):
        model.get_layer(index=5)


def test_model_input_output_properties():
    x = Input((3,), name="x")
    model = Model(x, layers.Dense(2, name="d")(x))
    assert model.inputs == [x] and model.input is x
    assert model.output is model.outputs[0]
    assert model.input_shape == (None, 3) and model.output_shape == (None, 2)
    assert model.input_names == ["x"] and model.output_names == ["d"]


def test_layer_called_on_wrong_shape_names_the_layer():
    x = Input((3,))
    dense = layers.Dense(2, name="dense_x")
    dense(x)
    with pytest.raises(
        ValueError,
        match=r"Dense 'dense_x' expected input with last dimension 3, received shape \(None, 5\)",
    ):
        dense(Input((5,)))
    with pytest.raises(
        ValueError,
        match=r"Dense 'dense_x' expected input with last dimension 3, received shape \(2, 5\)",
    ):
        dense(np.zeros((2, 5), "float32"))


def test_backend_function_with_updates():
    x = Input((2,))
    counter = lamina.Variable(np.zeros(2, "float32"), name="counter")
    total = x[0] + 1.0
    f = lamina.backend.function([x], [x * 3.0], updates=[(counter, total)])
    out = f([np.array([[1.0, 2.0]], "float32")])
    np.testing.assert_allclose(out[0], [[3.0, 6.0]])
    np.testing.assert_allclose(counter.numpy(), [2.0, 3.0])


def test_model_from_intermediate_tensors_excludes_upstream_layers():
    x = Input((4,), name="x")
    h = layers.Dense(3, name="h")(x)
    y = layers.Dense(2, name="y")(h)
    z = layers.Dense(5, name="z")(y)
    full = Model(x, z)
    middle = Model(h, y)
    assert [lyr.name for lyr in middle.layers][1:] == ["y"]
    assert middle.count_params() == 3 * 2 + 2
    assert [w.shape for w in middle.trainable_weights] == [(3, 2), (2,)]
    data = _data(2, 3)
    dense = middle.get_layer("y")
    expected = data @ dense.kernel.numpy() + dense.bias.numpy()
    np.testing.assert_allclose(ops.convert_to_numpy(middle(data)), expected, rtol=1e-5, atol=1e-6)
    # Config round trip: the input is written as an InputLayer of h's shape.
    config = middle.get_config()
    assert config["layers"][0]["class_name"] == "InputLayer"
    rebuilt = Model.from_config(config)
    assert [w.shape for w in rebuilt.weights] == [(3, 2), (2,)]
    rebuilt.set_weights(middle.get_weights())
    np.testing.assert_allclose(ops.convert_to_numpy(rebuilt(data)), expected, rtol=1e-5, atol=1e-6)
    # The whole model still runs and still owns every layer.
    assert [lyr.name for lyr in full.layers] == ["x", "h", "y", "z"]
    assert full(_data(2, 4)).shape == (2, 5)


def test_input_not_used_by_any_output_is_kept():
    a, b = Input((3,), name="a"), Input((2,), name="b")
    model = Model([a, b], layers.Dense(1, name="o")(a))
    # Keras keeps the unused input's layer (at depth 0, before the other depth-0 layers).
    assert [lyr.name for lyr in model.layers] == ["a", "b", "o"]
    config = model.get_config()
    assert config["input_layers"] == [["a", 0, 0], ["b", 0, 0]]
    rebuilt = Model.from_config(config)
    assert [lyr.name for lyr in rebuilt.layers] == ["a", "b", "o"]
    rebuilt.set_weights(model.get_weights())
    data = [_data(2, 3), _data(2, 2)]
    np.testing.assert_allclose(
        ops.convert_to_numpy(rebuilt(data)), ops.convert_to_numpy(model(data)), rtol=1e-6
    )


@pytest.mark.parametrize(
    "shape, received",
    [((2, 5), r"\(2, 5\)"), ((2, 3, 4), r"\(2, 3, 4\)"), ((3,), r"\(3,\)")],
)
def test_model_called_on_incompatible_shape_names_model_and_input(shape, received):
    x = Input((3,), name="feat")
    model = Model(x, layers.Dense(4)(x), name="net")
    message = (
        rf"Model 'net': input 0 \('feat'\) expected shape \(None, 3\), received shape {received}"
    )
    with pytest.raises(ValueError, match=message):
        model(np.zeros(shape, "float32"))
    with pytest.raises(ValueError, match="Model 'net': input 0 \\('feat'\\)"):
        model(Input(shape[1:] or (5,)))


def test_model_squeezes_or_adds_a_trailing_unit_axis_as_keras():
    x = Input((3,), name="feat")
    dense = layers.Dense(2)
    model = Model(x, dense(x))
    data = _data(2, 3)
    expected = data @ dense.kernel.numpy() + dense.bias.numpy()
    np.testing.assert_allclose(
        ops.convert_to_numpy(model(data[..., None])), expected, rtol=1e-5, atol=1e-6
    )
    column = Input((4, 1), name="col")
    flat = Model(column, layers.Flatten()(column))
    assert flat(_data(2, 4)).shape == (2, 4)
    with pytest.raises(ValueError, match=r"input 1 \('b'\) expected shape \(None, 2\)"):
        a, b = Input((3,), name="a"), Input((2,), name="b")
        Model([a, b], layers.Concatenate()([a, b]))([_data(2, 3), _data(2, 7)])


def test_training_flag_reaches_dropout_inside_models():
    x = Input((200,))
    model = Model(x, layers.Dropout(0.5)(x))
    data = np.ones((2, 200), "float32")

    def dropped(out):
        return float((ops.convert_to_numpy(out) == 0).mean())

    # Keras: an explicit training=True activates dropout; no argument means inference.
    assert 0.3 < dropped(model(data, training=True)) < 0.7
    assert dropped(model(data)) == 0.0 and dropped(model(data, training=False)) == 0.0
    y = Input((200,))
    outer = Model(y, model(y))
    assert 0.3 < dropped(outer(data, training=True)) < 0.7
    assert dropped(outer(data)) == 0.0

    class Wrapper(Model):
        def __init__(self):
            super().__init__()
            self.inner = model

        def call(self, inputs):
            return self.inner(inputs)  # no training argument: inherits the outer call's

    wrapper = Wrapper()
    assert 0.3 < dropped(wrapper(data, training=True)) < 0.7
    assert dropped(wrapper(data)) == 0.0


def test_stateful_rnn_carries_state_through_compiled_model_calls():
    x = Input(batch_shape=(2, 3, 4))
    lstm = layers.LSTM(5, stateful=True)
    model = Model(x, lstm(x))
    data = _data(2, 3, 4)
    fast = [ops.convert_to_numpy(model(data)) for _ in range(3)]
    assert not np.allclose(fast[0], fast[1])  # the state moved on
    lstm.reset_states()
    eager = [ops.convert_to_numpy(lstm(data)) for _ in range(3)]  # the layer alone, op by op
    for a, b in zip(fast, eager, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    lstm.reset_states()  # a reset is seen by the compiled program (not baked in)
    np.testing.assert_allclose(ops.convert_to_numpy(model(data)), fast[0], rtol=1e-5, atol=1e-6)


def test_nested_masked_model_runs_once_per_call():
    calls = []

    class Count(layers.Layer):
        supports_masking = True

        def call(self, x):
            calls.append(1)
            return x

    tokens = Input((4,), dtype="int32", name="tokens")
    inner = Model(tokens, Count()(layers.Embedding(5, 3, mask_zero=True)(tokens)), name="inner")
    outer_in = Input((4,), dtype="int32")
    outer = Model(outer_in, layers.GlobalAveragePooling1D()(inner(outer_in)))
    data = np.array([[1, 2, 0, 0], [3, 0, 0, 0]], "int32")
    calls.clear()
    out = ops.convert_to_numpy(outer(data, training=True))  # op by op, no compilation
    assert len(calls) == 1
    # The mask still reaches the pooling: only unmasked steps are averaged.
    table = inner.get_layer("embedding").embeddings.numpy()
    expected = np.stack([table[[1, 2]].mean(0), table[[3]].mean(0)])
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_model_from_json_refuses_json_nested_too_deeply():
    from lamina.models import model_from_json

    with pytest.raises(ValueError, match="nested too deeply"):
        model_from_json("[" * 100_000 + "]" * 100_000)


def test_config_round_trip_of_ops_written_from_other_ops():
    # was: "Config names op 'rearrange', which is not a lamina op" on from_config
    x = Input((6, 4))
    y = ops.rearrange(x, "b (h w) c -> b h w c", h=2)
    z = ops.math.extract_sequences(ops.reshape(x, (-1, 24)), 4, 2)
    model = Model(x, [y, z])
    revived = Model.from_config(model.get_config())
    data = np.random.default_rng(0).normal(size=(2, 6, 4)).astype("float32")
    got = revived.predict(data, verbose=0)
    np.testing.assert_allclose(got[0], data.reshape(2, 2, 3, 4), rtol=1e-6)
    frames = np.stack([data.reshape(2, 24)[:, i : i + 4] for i in range(0, 21, 2)], axis=1)
    np.testing.assert_allclose(got[1], frames, rtol=1e-6)


def test_an_overridden_call_of_a_graph_model_returns_its_own_dict():
    # A functional model whose subclass replaces `call` may return other keys: they come
    # back as the call made them (the graph's key order applies only to its own outputs).
    class Renamed(Model):
        def call(self, inputs, training=None):
            out = super().call(inputs, training=training)
            return {"renamed": out["zeta"]}

    x = Input((3,))
    model = Renamed(x, {"zeta": layers.Dense(1)(x), "alpha": layers.Dense(2)(x)})
    assert list(model(_data(4, 3))) == ["renamed"]
