"""The eager call's short paths (one tensor into a built layer, ops on plain arguments,
the graph runner's per-node steps, cached dtype names) behave as the general paths do."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import backend, layers, ops
from lamina.backend.common.variables import standardize_dtype
from lamina.graph.keras_tensor import KerasTensor


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


class _Probe(layers.Layer):
    """Records what `call` received."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = []

    def call(self, x, training=None):
        self.seen.append((ops.dtype(x), training))
        return x


class _AddsLoss(layers.Layer):
    def call(self, x):
        self.add_loss(ops.sum(x))
        return x


def test_one_tensor_and_numpy_give_the_general_paths_result():
    dense = layers.Dense(3, activation="relu", kernel_initializer="ones")
    x = np.arange(8, dtype="float32").reshape(2, 4) - 3.0
    expected = np.maximum(x @ np.ones((4, 3), "float32"), 0.0)
    dense(x)  # builds
    for given in (x, ops.convert_to_tensor(x)):
        np.testing.assert_allclose(_np(dense(given)), expected)
    # `inputs=` and a list go the general way, with the same result.
    np.testing.assert_allclose(_np(dense(inputs=x)), expected)


def test_input_spec_is_checked_on_every_call_of_a_built_layer():
    dense = layers.Dense(2)
    dense(np.ones((1, 4), "float32"))
    with pytest.raises(ValueError, match="last dimension 4"):
        dense(ops.ones((1, 5)))
    with pytest.raises(ValueError, match="last dimension 4"):
        dense(np.ones((1, 5), "float32"))


def test_autocast_casts_floats_only():
    probe = _Probe()
    probe(np.ones((2,), "float32"))
    probe(np.ones((2,), "float64"))
    probe(ops.convert_to_tensor(np.ones((2,), "float16")))
    probe(np.ones((2,), "int32"))
    assert [dtype for dtype, _ in probe.seen] == ["float32", "float32", "float32", "int32"]
    keep = _Probe(autocast=False)
    keep(ops.convert_to_tensor(np.ones((2,), "float16")))
    assert keep.seen[-1][0] == "float16"


def test_training_flag_routing():
    probe = _Probe()
    x = ops.ones((1, 2))
    probe(x)
    probe(x, training=True)
    probe(x, training=False, mask=None)  # a mask the call does not take is dropped
    assert [t for _, t in probe.seen] == [None, True, False]
    # Inside a model the outer call's flag reaches the layer.
    inputs = lamina.Input((2,))
    inner = _Probe()
    model = lamina.Model(inputs, inner(inputs))
    inner.seen.clear()  # the symbolic call's abstract evaluations
    model(x, training=True)
    model(x, training=False)
    assert [t for _, t in inner.seen] == [True, False]


def test_losses_are_cleared_by_the_next_top_level_call():
    adds = _AddsLoss()
    x = np.ones((1, 3), "float32")
    adds(x)
    adds(x)
    assert len(adds.losses) == 1
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, layers.Dense(2)(adds(inputs)))
    model(x)
    model(x)
    assert len(model.losses) == 1
    np.testing.assert_allclose(_np(model.losses[0]), 3.0)
    # A regularized activity is added once per call, then cleared.
    reg = layers.Dense(2, activity_regularizer="l2", kernel_initializer="ones")
    reg(x)
    reg(x)
    assert len(reg.losses) == 1
    # Calling a parent clears what a sublayer kept from a call of its own.
    adds(x)
    model(x)
    assert len(model.losses) == 1


def test_ops_read_variables_in_direct_and_nested_arguments():
    v = backend.Variable(np.array([1.0, 2.0], "float32"))
    x = ops.convert_to_tensor(np.array([10.0, 20.0], "float32"))
    np.testing.assert_allclose(_np(ops.add(x, v)), [11.0, 22.0])
    np.testing.assert_allclose(_np(ops.add(v, 1.0)), [2.0, 3.0])
    np.testing.assert_allclose(_np(ops.stack([v, x])), [[1.0, 2.0], [10.0, 20.0]])
    np.testing.assert_allclose(_np(ops.concatenate((v, v), axis=0)), [1.0, 2.0, 1.0, 2.0])
    symbolic = ops.add(lamina.Input((2,)), v)
    assert isinstance(symbolic, KerasTensor)


def test_graph_with_constants_keywords_and_op_nodes_runs_as_written():
    inputs = lamina.Input((3,))
    scale = backend.Variable(np.array(2.0, "float32"))
    y = ops.sum(inputs * scale, axis=-1, keepdims=True)
    z = ops.concatenate([y, inputs], axis=1)
    model = lamina.Model(inputs, {"z": z, "y": y})
    x = np.arange(6, dtype="float32").reshape(2, 3)
    out = model(x)
    np.testing.assert_allclose(_np(out["y"]), (x * 2).sum(-1, keepdims=True))
    np.testing.assert_allclose(_np(out["z"]), np.concatenate([(x * 2).sum(-1)[:, None], x], 1))
    scale.assign(3.0)
    np.testing.assert_allclose(_np(model(x)["y"]), (x * 3).sum(-1, keepdims=True))


def test_masks_travel_through_the_graph():
    inputs = lamina.Input((4,), dtype="int32")
    embedded = layers.Embedding(10, 2, mask_zero=True)(inputs)
    pooled = layers.GlobalAveragePooling1D()(embedded)
    model = lamina.Model(inputs, pooled)
    x = np.array([[1, 2, 0, 0]], "int32")
    table = _np(model.layers[1].embeddings)
    np.testing.assert_allclose(_np(model(x)), table[[1, 2]].mean(0, keepdims=True), rtol=1e-6)


@pytest.mark.parametrize(
    "dtype, name",
    [
        ("float32", "float32"),
        (np.float32, "float32"),
        (np.dtype("int64"), "int64"),
        ("int", "int32"),  # compares equal to np.dtype("int64"), normalises differently
        (int, "int64"),
        (float, "float64"),
        ("double", "float64"),
        ("bfloat16", "bfloat16"),
        (np.dtype("bool"), "bool"),
    ],
)
def test_standardize_dtype_names_are_stable(dtype, name):
    assert standardize_dtype(np.dtype("int64")) == "int64"
    assert standardize_dtype(dtype) == name
    assert standardize_dtype(dtype) == name  # from the cache


def test_standardize_dtype_refuses_unknown_names_every_time():
    for _ in range(2):
        with pytest.raises(ValueError, match="Unknown dtype 'nope'"):
            standardize_dtype("nope")


def test_a_copied_layer_clears_the_losses_it_was_copied_with():
    import copy
    import gc

    adds = _AddsLoss()
    x = np.ones((1, 3), "float32")
    adds(x)
    twin = copy.deepcopy(adds)
    adds(x)  # clears the original's loss, then adds one
    del adds
    gc.collect()
    twin(x)
    assert len(twin.losses) == 1
    np.testing.assert_allclose(_np(twin.losses[0]), 3.0)


class _EqualByName(_AddsLoss):
    def __eq__(self, other):  # no __hash__: instances cannot be hashed
        return isinstance(other, _EqualByName) and other.name == self.name


def test_an_unhashable_layer_still_has_its_losses_cleared():
    layer = _EqualByName()
    x = np.ones((1, 3), "float32")
    layer(x)
    layer(x)
    assert len(layer.losses) == 1
