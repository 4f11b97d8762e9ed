"""`register_serializable` / `register_keras_serializable`, as `keras.saving` has them."""

import numpy as np
import pytest

import lamina
from lamina import Input, Sequential, layers, models
from lamina.common import serialization


@pytest.fixture(autouse=True)
def _isolated_registry(monkeypatch):
    monkeypatch.setattr(serialization, "_CUSTOM_OBJECTS", dict(serialization._CUSTOM_OBJECTS))
    monkeypatch.setattr(serialization, "_CUSTOM_NAMES", dict(serialization._CUSTOM_NAMES))


def _scale_layer(factor_name="factor"):
    class Scale(layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return {**super().get_config(), factor_name: self.factor}

    return Scale


def test_exported_like_keras():
    assert lamina.saving.register_serializable is lamina.saving.register_keras_serializable
    assert lamina.utils.register_serializable is lamina.saving.register_keras_serializable
    assert lamina.saving.custom_object_scope is lamina.utils.custom_object_scope
    assert lamina.saving.serialize_keras_object is lamina.utils.serialize_keras_object
    assert lamina.saving.deserialize_keras_object is lamina.utils.deserialize_keras_object


def test_registered_layer_round_trips_without_custom_objects(tmp_path):
    Scale = lamina.saving.register_keras_serializable(package="demo", name="Scale")(_scale_layer())
    assert lamina.saving.get_registered_name(Scale) == "demo>Scale"
    assert lamina.saving.get_registered_object("demo>Scale") is Scale
    model = Sequential([Input((3,)), Scale(3.0), layers.Dense(2)])
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = models.load_model(path)
    assert type(loaded.layers[0]) is Scale and loaded.layers[0].factor == 3.0
    x = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def test_registering_a_name_again_overwrites(tmp_path):
    register = lamina.saving.register_serializable(package="demo", name="Scale")
    first = register(_scale_layer())
    model = Sequential([Input((3,)), first(2.0)])
    path = tmp_path / "m.keras"
    model.save(path)
    second = register(_scale_layer())  # e.g. a re-run notebook cell: no error
    assert second is not first
    assert lamina.saving.get_registered_object("demo>Scale") is second
    assert type(models.load_model(path).layers[0]) is second


def test_registered_function_round_trips():
    @lamina.saving.register_keras_serializable(package="demo")
    def halve(x):
        return x / 2

    config = lamina.saving.serialize_keras_object(halve)
    assert config["config"] == "demo>halve"
    assert lamina.saving.deserialize_keras_object(config) is halve


def test_class_without_get_config_is_refused():
    class NoConfig:
        pass

    with pytest.raises(ValueError, match="'NoConfig': it has no get_config"):
        lamina.saving.register_keras_serializable()(NoConfig)


def test_decorator_without_parentheses_is_a_clear_error():
    with pytest.raises(TypeError, match="with parentheses"):
        lamina.saving.register_keras_serializable(_scale_layer())
