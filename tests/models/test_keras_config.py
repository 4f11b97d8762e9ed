"""Functional configs move both ways between Keras 3 and lamina (skipped without Keras).

Keras 3 writes a nested functional model's calls in `inbound_nodes` counting only the
calls made in the outer graph (the first call is node 0), but writes `output_layers` and
`input_layers` entries that point at a nested functional model one higher (its "built-in"
node comes first) and subtracts one when reading them back. lamina writes and reads both.
"""

import json
import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina import Input, Model, layers, models, ops  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

DATA = np.random.default_rng(0).standard_normal((2, 3)).astype("float32")


def _lamina_nested():
    x = Input((3,), name="x")
    base = Model(x, layers.Dense(4, name="d")(x), name="base")
    y = Input((3,), name="y")
    h = base(y)
    out = layers.Dense(2, name="head")(h)
    return Model(y, [out, h], name="outer"), base


def _keras_nested():
    x = keras.Input((3,), name="x")
    base = keras.Model(x, keras.layers.Dense(4, name="d")(x), name="base")
    y = keras.Input((3,), name="y")
    h = base(y)
    out = keras.layers.Dense(2, name="head")(h)
    return keras.Model(y, [out, h], name="outer")


def _histories(config):
    entries = {e["name"]: e for e in config["layers"]}
    head = entries["head"]["inbound_nodes"][0]["args"][0]["config"]["keras_history"]
    return head, config["output_layers"]


def _assert_same(a, b):
    for u, v in zip(a, b, strict=True):
        np.testing.assert_allclose(
            ops.convert_to_numpy(u), ops.convert_to_numpy(v), rtol=1e-6, atol=1e-6
        )


def test_nested_model_feeding_a_layer_writes_keras_histories():
    model, base = _lamina_nested()
    # The nested model's own node 0 exists; the call in `outer` is its node 1.
    assert len(base._inbound_nodes) == 2
    assert model.outputs[1]._keras_history[:2] == (base, 1)
    ours = _histories(model.get_config())
    theirs = _histories(_keras_nested().get_config())
    assert ours == theirs == (["base", 0, 0], [["head", 0, 0], ["base", 1, 0]])


def test_nested_model_config_round_trip():
    model, _ = _lamina_nested()
    config = model.get_config()
    clone = Model.from_config(json.loads(json.dumps(config)))
    clone.set_weights(model.get_weights())
    _assert_same(clone(DATA), model(DATA))
    assert clone.get_config() == config
    rebuilt = models.model_from_json(model.to_json())
    rebuilt.set_weights(model.get_weights())
    _assert_same(rebuilt(DATA), model(DATA))


def test_keras_loads_lamina_nested_config():
    model, _ = _lamina_nested()
    theirs = keras.models.model_from_json(model.to_json())
    theirs.set_weights(model.get_weights())
    _assert_same(theirs(DATA), model(DATA))
    theirs = keras.Model.from_config(model.get_config())
    theirs.set_weights(model.get_weights())
    _assert_same(theirs(DATA), model(DATA))


def test_lamina_loads_keras_nested_config():
    theirs = _keras_nested()
    # Straight from get_config (tuples in place) and through JSON.
    for config in (theirs.get_config(), json.loads(theirs.to_json())["config"]):
        ours = Model.from_config(config)
        ours.set_weights(theirs.get_weights())
        _assert_same(ours(DATA), theirs(DATA))
    ours = models.model_from_json(theirs.to_json())
    ours.set_weights(theirs.get_weights())
    _assert_same(ours(DATA), theirs(DATA))


def test_nested_model_called_twice_and_output_directly():
    x = Input((3,), name="x")
    base = Model(x, layers.Dense(3, name="d")(x), name="base")
    y = Input((3,), name="y")
    model = Model(y, base(base(y)), name="outer")
    config = model.get_config()
    entries = {e["name"]: e for e in config["layers"]}
    assert [n["args"][0]["config"]["keras_history"] for n in entries["base"]["inbound_nodes"]] == [
        ["y", 0, 0],
        ["base", 0, 0],
    ]
    assert config["output_layers"] == ["base", 2, 0]
    clone = Model.from_config(config)
    clone.set_weights(model.get_weights())
    _assert_same([clone(DATA)], [model(DATA)])
    theirs = keras.Model.from_config(config)
    theirs.set_weights(model.get_weights())
    _assert_same([theirs(DATA)], [model(DATA)])
    assert lamina  # keep the import used


def test_stateful_lstm_model_matches_keras_across_calls():
    data = np.random.default_rng(1).standard_normal((2, 3, 4)).astype("float32")
    x = Input(batch_shape=(2, 3, 4))
    ours = Model(x, layers.LSTM(5, stateful=True)(x))
    kx = keras.Input(batch_shape=(2, 3, 4))
    theirs = keras.Model(kx, keras.layers.LSTM(5, stateful=True)(kx))
    theirs.set_weights(ours.get_weights())
    for _ in range(3):
        np.testing.assert_allclose(
            ops.convert_to_numpy(ours(data)),
            np.asarray(theirs(data)),
            rtol=1e-5,
            atol=1e-5,
        )


def test_ops_with_data_dependent_lengths_rebuild_from_their_config():
    # `nonzero` and `unique` have a length known only from the data: the rebuilt graph
    # keeps it unknown (None), as the original does, on every engine.
    x = lamina.Input((5,), dtype="int32")
    model = lamina.Model(x, [*lamina.ops.nonzero(x), lamina.ops.unique(x)])
    rebuilt = lamina.Model.from_config(model.get_config())
    shapes = [tuple(t.shape) for t in model.outputs]
    assert shapes == [(None,), (None,), (None,)]
    assert [tuple(t.shape) for t in rebuilt.outputs] == shapes
