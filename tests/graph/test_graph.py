"""The symbolic graph: every bullet of ARCHITECTURE.md §2."""

import numpy as np
import pytest

import lamina
from lamina import Input, Model, layers, ops
from lamina.graph import Function, KerasTensor, Node


def test_input_history_points_at_its_input_layer():
    x = Input(shape=(3,), dtype="float32", name="x")
    assert isinstance(x, KerasTensor)
    assert x.shape == (None, 3) and x.dtype == "float32" and x.name == "x"
    layer, node_index, tensor_index = x._keras_history
    assert isinstance(layer, lamina.InputLayer)
    assert (node_index, tensor_index) == (0, 0)
    assert layer._inbound_nodes[0].output_tensors[0] is x


def test_node_fields_and_coordinate_invariant():
    a, b = Input((4,), name="a"), Input((4,), name="b")
    dense = layers.Dense(3, name="d")
    ha = dense(a)
    merged = layers.Concatenate(name="cat")([ha, b])
    node = merged._keras_history.operation._inbound_nodes[0]
    assert node.outbound_layer.name == "cat"
    assert [lyr.name for lyr in node.inbound_layers] == ["d", "b"]
    assert node.node_indices == [0, 0] and node.tensor_indices == [0, 0]
    assert node.input_shapes == [(None, 3), (None, 4)]
    assert node.output_shapes == [(None, 7)]
    assert node.arguments == {}
    assert node.parent_nodes == [
        dense._inbound_nodes[0],
        b._keras_history.operation._inbound_nodes[0],
    ]
    for i, x in enumerate(node.input_tensors):
        layer = node.inbound_layers[i]
        assert (
            layer._inbound_nodes[node.node_indices[i]].output_tensors[node.tensor_indices[i]] is x
        )
    # Creating a node registers it on both ends.
    assert node in dense._outbound_nodes
    assert merged._keras_history == (node.operation, 0, 0)


def test_node_records_non_tensor_arguments():
    x = Input((4,))
    y = layers.Dropout(0.5)(x, training=True)
    node = y._keras_history.operation._inbound_nodes[0]
    assert node.arguments == {"training": True}


def test_shared_layer_has_two_inbound_nodes():
    a, b = Input((4,)), Input((4,))
    shared = layers.Dense(2, name="shared")
    ya, yb = shared(a), shared(b)
    assert len(shared._inbound_nodes) == 2
    assert shared.get_output_at(0) is ya
    assert shared.get_output_at(1) is yb
    assert shared.get_input_at(1) is b
    assert shared.get_input_shape_at(1) == (None, 4)
    assert shared.get_output_shape_at(1) == (None, 2)
    assert yb._keras_history.node_index == 1
    with pytest.raises(AttributeError, match="multiple inbound nodes"):
        _ = shared.output
    with pytest.raises(ValueError, match="only 2 inbound node"):
        shared.get_output_at(2)


def test_ops_on_keras_tensors_become_nodes():
    x = Input((3,), name="x")
    y = x + 1.0
    z = ops.relu(y) * 2.0
    w = z[:, 0]
    v = -w
    for t in (y, z, w, v):
        assert isinstance(t, KerasTensor)
        op = t._keras_history.operation
        assert not isinstance(op, lamina.Layer)
        assert op._inbound_nodes[0].output_tensors[0] is t
    assert w.shape == (None,)
    model = Model(x, [z, v])
    data = np.array([[-1.0, 2.0, 3.0]], "float32")
    out_z, out_v = model(data)
    np.testing.assert_allclose(out_z, np.maximum(data + 1, 0) * 2)
    np.testing.assert_allclose(out_v, -(np.maximum(data + 1, 0) * 2)[:, 0])


@pytest.mark.parametrize(
    "expr, reference",
    [
        (lambda t: t + 2, lambda a: a + 2),
        (lambda t: 2 - t, lambda a: 2 - a),
        (lambda t: t * t, lambda a: a * a),
        (lambda t: t / 2, lambda a: a / 2),
        (lambda t: t // 2, lambda a: a // 2),
        (lambda t: t % 3, lambda a: a % 3),
        (lambda t: t**2, lambda a: a**2),
        (lambda t: t @ np.ones((3, 2), "float32"), lambda a: a @ np.ones((3, 2))),
        (lambda t: -t, lambda a: -a),
        (lambda t: t > 1, lambda a: a > 1),
        (lambda t: t <= 1, lambda a: a <= 1),
        (lambda t: t == 2, lambda a: a == 2),
        (lambda t: t != 2, lambda a: a != 2),
        (lambda t: t[:, 1:], lambda a: a[:, 1:]),
    ],
)
def test_keras_tensor_operators(expr, reference):
    x = Input((3,))
    model = Model(x, expr(x))
    data = np.array([[1.0, 2.0, 5.0], [-3.0, 0.5, 2.0]], "float32")
    np.testing.assert_allclose(ops.convert_to_numpy(model(data)), reference(data), rtol=1e-6)


def test_depths_and_layer_order():
    x = Input((4,), name="in")
    a = layers.Dense(4, name="a")(x)
    b = layers.Dense(4, name="b")(a)
    c = layers.Add(name="c")([a, b])
    model = Model(x, c)
    depth = {lyr.name: d for d, lyrs in model.layers_by_depth.items() for lyr in lyrs}
    assert depth == {"c": 0, "b": 1, "a": 2, "in": 3}
    assert [lyr.name for lyr in model.layers] == ["in", "a", "b", "c"]
    assert sorted(model.nodes_by_depth) == [0, 1, 2, 3]


def test_classic_private_depth_maps_are_the_public_ones():
    # Programs written against classic Keras read model._nodes_by_depth and
    # model._layers_by_depth (e.g. to walk a graph from its outputs).
    x = Input((4,), name="in")
    y = layers.Dense(2, name="out")(layers.Dense(3, name="hidden")(x))
    model = Model(x, y)
    assert model._nodes_by_depth is model.nodes_by_depth
    assert model._layers_by_depth is model.layers_by_depth
    assert [lyr.name for lyr in model._layers_by_depth[0]] == ["out"]
    outputs = [node.operation.name for node in model._nodes_by_depth[0]]
    assert outputs == ["out"]
    seq = lamina.Sequential([layers.Input((4,)), layers.Dense(3, name="d1")])
    before = seq._layers_by_depth
    seq.add(layers.Dense(2, name="d2"))
    assert seq._layers_by_depth is not before
    assert [lyr.name for lyr in seq._layers_by_depth[0]] == ["d2"]


def test_shared_embedding_inputs_sit_at_equal_depth():
    a, b = Input((5,), dtype="int32", name="a"), Input((5,), dtype="int32", name="b")
    emb = layers.Embedding(10, 4, name="emb")
    merged = layers.Concatenate(name="cat")([emb(a), emb(b)])
    model = Model([a, b], merged)
    depth_of_node = {id(n): d for d, ns in model.nodes_by_depth.items() for n in ns}
    na, nb = emb._inbound_nodes
    assert depth_of_node[id(na)] == depth_of_node[id(nb)] == 1
    ia, ib = (
        a._keras_history.operation._inbound_nodes[0],
        b._keras_history.operation._inbound_nodes[0],
    )
    assert depth_of_node[id(ia)] == depth_of_node[id(ib)] == 2
    assert [lyr.name for lyr in model.layers] == ["a", "b", "emb", "cat"]


def test_shared_layer_takes_its_deepest_use():
    x = Input((4,), name="x")
    shared = layers.Dense(4, name="shared")
    y = shared(layers.Dense(4, name="mid")(shared(x)))
    model = Model(x, y)
    depth = {lyr.name: d for d, lyrs in model.layers_by_depth.items() for lyr in lyrs}
    assert depth["shared"] == 2 and depth["mid"] == 1
    data = np.ones((2, 4), "float32")
    k, bias = shared.kernel.numpy(), shared.bias.numpy()
    mid = model.get_layer("mid")
    expected = ((data @ k + bias) @ mid.kernel.numpy() + mid.bias.numpy()) @ k + bias
    np.testing.assert_allclose(ops.convert_to_numpy(model(data)), expected, rtol=1e-5, atol=1e-6)


def test_graph_disconnected_names_the_tensor():
    a, b = Input((2,), name="a"), Input((2,), name="b")
    y = layers.Add(name="sum")([a, b])
    with pytest.raises(ValueError, match=r"Graph disconnected: layer 'sum' needs tensor 'b'"):
        Model(a, y)
    # Deeper: the message names the Input that is missing and the layer that needs it.
    h = layers.Dense(2, name="h")(b)
    z = layers.Dense(1, name="z")(layers.Add(name="add")([layers.Dense(2, name="g")(a), h]))
    with pytest.raises(
        ValueError,
        match=r"layer 'h' needs tensor 'b' \(shape \(None, 2\), from Input 'b'\).*"
        r"\['a'\].*reached without issue so far: \['g'\]. Add Input 'b'",
    ):
        Model(a, z)


def test_input_listed_twice():
    a = Input((2,), name="a")
    with pytest.raises(ValueError, match="'a' is listed more than once"):
        Model([a, a], layers.Dense(1)(a))


def test_output_not_symbolic():
    a = Input((2,))
    with pytest.raises(TypeError, match="must be a symbolic tensor.*ndarray"):
        Model(a, np.ones((1, 2)))


def test_duplicate_layer_names():
    a = Input((2,), name="a")
    y = layers.Dense(2, name="same")(layers.Dense(2, name="same")(a))
    with pytest.raises(ValueError, match="'same' is used by two different layers"):
        Model(a, y)


def test_cycle_is_detected():
    x = Input((2,), name="x")
    d1, d2 = layers.Dense(2, name="d1"), layers.Dense(2, name="d2")
    y = d2(d1(x))
    # Rewire d1's call so that its input is d2's output: a cycle.
    node = d1._inbound_nodes[0]
    node.input_tensors[0] = y
    node.call_args = (y,)
    with pytest.raises(ValueError, match="cycle"):
        Function(x, y)


def test_mask_from_embedding_reaches_the_next_layer():
    class Probe(layers.Layer):
        """Outputs the mask it receives, so the test can see it."""

        supports_masking = True

        def call(self, inputs, mask=None):
            return ops.cast(mask, "float32") if mask is not None else ops.zeros(inputs.shape[:2])

    x = Input((4,), dtype="int32")
    y = Probe()(layers.Embedding(10, 3, mask_zero=True)(x))
    assert y._keras_mask is not None and y._keras_mask.shape == (None, 4)
    model = Model(x, y)
    out = model(np.array([[3, 1, 0, 0], [2, 0, 0, 0]]))
    np.testing.assert_array_equal(ops.convert_to_numpy(out), [[1, 1, 0, 0], [1, 0, 0, 0]])


def test_training_written_into_graph_wins():
    x = Input((1000,))
    y = layers.Dropout(0.5, seed=1)(x, training=True)
    z = layers.Dropout(0.5, seed=2)(x)
    model = Model(x, [y, z])
    data = np.ones((1, 1000), "float32")
    out_y, out_z = model(data, training=False)
    assert 0.3 < float(np.mean(ops.convert_to_numpy(out_y) == 0)) < 0.7
    np.testing.assert_array_equal(ops.convert_to_numpy(out_z), data)
    _, out_z = model(data, training=True)
    assert 0.3 < float(np.mean(ops.convert_to_numpy(out_z) == 0)) < 0.7


def test_training_flag_reaches_layers_in_nested_models():
    x = Input((1000,))
    inner = Model(x, layers.Dropout(0.5)(x))
    outer_in = Input((1000,))
    outer = Model(outer_in, inner(outer_in))
    data = np.ones((1, 1000), "float32")
    np.testing.assert_array_equal(ops.convert_to_numpy(outer(data)), data)
    dropped = ops.convert_to_numpy(outer(data, training=True))
    assert 0.3 < float(np.mean(dropped == 0)) < 0.7


def test_new_functional_model_has_node_zero_and_call_adds_node_one():
    x = Input((3,))
    model = Model(x, layers.Dense(2)(x))
    assert len(model._inbound_nodes) == 1
    node0 = model._inbound_nodes[0]
    assert node0.input_tensors == [x] and node0.output_tensors == model.outputs
    new_in = Input((3,))
    out = model(new_in)
    assert len(model._inbound_nodes) == 2
    assert out._keras_history == (model, 1, 0)
    assert model.get_input_at(1) is new_in
    # The inner layer's tensors keep their history.
    assert model.outputs[0]._keras_history.operation is model.layers[-1]


def test_model_nested_and_shared():
    x = Input((3,), name="x")
    inner = Model(x, layers.Dense(2, name="inner_dense")(x), name="inner")
    a, b = Input((3,), name="a"), Input((3,), name="b")
    outer = Model([a, b], layers.Add()([inner(a), inner(b)]))
    data_a, data_b = np.ones((2, 3), "float32"), np.full((2, 3), 2.0, "float32")
    expected = ops.convert_to_numpy(inner(data_a)) + ops.convert_to_numpy(inner(data_b))
    np.testing.assert_allclose(ops.convert_to_numpy(outer([data_a, data_b])), expected, rtol=1e-6)
    assert len(inner._inbound_nodes) == 3
    assert len(outer.weights) == 2


def test_slicing_a_graph_from_an_intermediate_tensor():
    x = Input((4,), name="x")
    h = layers.Dense(3, name="h")(x)
    y = layers.Dense(2, name="y")(h)
    head = Model(h, y)
    # As in Keras, the sliced model starts at a new InputLayer standing for `h`: the
    # layer that produced `h` lies upstream of the model and is not part of it.
    assert [lyr.name for lyr in head.layers] == [f"{h.name}CLONE", "y"]
    assert isinstance(head.layers[0], layers.InputLayer) and head.inputs[0].shape == (None, 3)
    assert head.count_params() == 3 * 2 + 2 and len(head.trainable_weights) == 2
    data = np.ones((2, 3), "float32")
    layer = head.get_layer("y")
    np.testing.assert_allclose(
        ops.convert_to_numpy(head(data)),
        data @ layer.kernel.numpy() + layer.bias.numpy(),
        rtol=1e-6,
    )


def test_layer_without_history_input_is_an_error():
    with pytest.raises(ValueError, match="no history"):
        Model(Input((2,)), layers.Dense(1)(KerasTensor((None, 2))))


def test_node_class_exposes_is_input():
    x = Input((2,))
    node = x._keras_history.operation._inbound_nodes[0]
    assert isinstance(node, Node) and node.is_input
