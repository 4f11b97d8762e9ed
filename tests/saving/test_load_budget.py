"""What building a model from a config may allocate: bounded in total, not per dimension.

A hostile config asking for absurd sizes is refused when its first oversized variable is
about to be created; honest large layers (an Embedding with more than 2**24 rows) load.
"""

import json

import numpy as np
import pytest

from lamina import Input, Model, Sequential, Variable, layers, models
from lamina.common import serialization


def _dense_model_json(units, input_dim=16):
    inp = Input((input_dim,))
    model = Model(inp, layers.Dense(2, name="head")(inp))
    config = json.loads(model.to_json())
    config["config"]["layers"][1]["config"]["units"] = units
    return json.dumps(config)


def test_an_embedding_over_2_24_rows_loads_from_its_config():
    inp = Input((3,), dtype="int32")
    emb = layers.Embedding(2**24 + 1, 1, name="emb")
    model = Model(inp, emb(inp))
    clone = models.model_from_json(model.to_json())
    assert clone.get_layer("emb").embeddings.shape == (2**24 + 1, 1)


def test_a_config_asking_for_64_gib_is_refused_before_allocating():
    # 16 inputs x 2**30 units of float32: each dimension is allowed, the total is not.
    with pytest.raises(ValueError, match=r"'kernel' of shape \(16, 1073741824\) .* over its limit"):
        models.model_from_json(_dense_model_json(2**30))


def test_the_budget_counts_every_variable_of_the_model(monkeypatch):
    # The first Dense takes (16*6 + 6) * 4 = 408 bytes; the second (84) crosses 450.
    monkeypatch.setattr(serialization, "MAX_CONFIG_BUILD_BYTES", 450)
    inp = Input((16,))
    model = Model(inp, layers.Dense(3, name="b")(layers.Dense(6, name="a")(inp)))
    with pytest.raises(
        ValueError, match=r"'kernel' of shape \(6, 3\).*limit of 450\. .*MAX_CONFIG_BUILD_BYTES"
    ):
        models.model_from_json(model.to_json())
    # Each load starts a fresh count, and nothing stays capped after a refused load.
    monkeypatch.setattr(serialization, "MAX_CONFIG_BUILD_BYTES", 2000)
    clone = models.model_from_json(model.to_json())
    assert [w.shape for w in clone.weights] == [(16, 6), (6,), (6, 3), (3,)]
    Variable(np.zeros(10_000, "float32"))  # outside a load: no cap
    layers.Dense(1000).build((None, 16))


@pytest.mark.parametrize("how", ["Model.from_config", "Sequential.from_config", "deserialize"])
def test_every_way_in_from_a_config_is_capped(monkeypatch, how):
    monkeypatch.setattr(serialization, "MAX_CONFIG_BUILD_BYTES", 100)
    if how == "Sequential.from_config":
        model = Sequential([Input((16,)), layers.Dense(4)])
        with pytest.raises(ValueError, match="over its limit of 100"):
            Sequential.from_config(model.get_config())
        return
    inp = Input((16,))
    model = Model(inp, layers.Dense(4)(inp))
    with pytest.raises(ValueError, match="over its limit of 100"):
        if how == "Model.from_config":
            Model.from_config(model.get_config())
        else:
            serialization.deserialize_keras_object(
                json.loads(model.to_json()), "layers", printable_module_name="model"
            )


def test_a_keras_file_may_allocate_what_its_weights_could_hold(tmp_path):
    inp = Input((4,))
    model = Model(inp, layers.Dense(8, name="dense")(inp))
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = models.load_model(path)
    np.testing.assert_array_equal(loaded.get_weights()[0], model.get_weights()[0])


@pytest.mark.filterwarnings(  # Keras's own Variable.__array__, under NumPy 2
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)
def test_a_keras_file_saved_before_training_loads_without_making_optimizer_slots(
    tmp_path, monkeypatch
):
    # Keras stores a compiled, never-trained optimizer as its iteration count and learning
    # rate only. Building the Adam slots at load would allocate twice the weights more
    # than the file holds (and, for a model over 64 MiB, trip the load's budget).
    import os

    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    from lamina.saving import keras_file

    inp = keras.Input((256,))
    model = keras.Model(inp, keras.layers.Dense(256, name="dense")(inp))
    model.compile(optimizer="adam", loss="mse")
    path = tmp_path / "untrained.keras"
    model.save(path)
    monkeypatch.setattr(keras_file, "LOAD_SLACK_BYTES", 0)
    loaded = models.load_model(path)
    assert not loaded.optimizer.built
    x = np.ones((4, 256), "float32")
    loaded.fit(x, x, epochs=1, verbose=0)
    assert loaded.optimizer.built and int(loaded.optimizer.iterations.numpy()) == 1
