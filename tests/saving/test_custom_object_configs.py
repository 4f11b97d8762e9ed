"""Custom objects' configs, build configs and compile configs, as Keras 3 treats them.

Each test runs one small program (from Keras's guides "customizing_saving_and_serialization"
and "serialization_and_saving") on Keras 3 itself and on lamina and compares what they
give: Keras objects returned by a custom `get_config()` are serialized to dicts, a saved
`build_config` rebuilds a nested layer through its `build_from_config`, and a model's
own `get_compile_config` / `compile_from_config` are what a `.keras` file stores and uses.
"""

import json
import os
import zipfile

import numpy as np
import pytest

import lamina
from lamina.common import serialization

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

PACKAGE = "lamina_custom_configs"
FRAMEWORKS = {"keras": keras, "lamina": lamina}


@pytest.fixture(autouse=True)
def _isolated_registry(monkeypatch):
    monkeypatch.setattr(serialization, "_CUSTOM_OBJECTS", dict(serialization._CUSTOM_OBJECTS))
    monkeypatch.setattr(serialization, "_CUSTOM_NAMES", dict(serialization._CUSTOM_NAMES))


def _both(program, *args):
    """`program(K, *args)` run on Keras 3 and on lamina: `(keras_result, lamina_result)`."""
    return program(keras, *args), program(lamina, *args)


# D4: Keras objects in a custom get_config() ----------------------------------------------
def _wrapper_class(K, module=None):
    class Wrapper(K.layers.Layer):
        def __init__(self, first_layer, **kwargs):
            super().__init__(**kwargs)
            self.first_layer = first_layer

        def get_config(self):
            return {**super().get_config(), "first_layer": self.first_layer}

        @classmethod
        def from_config(cls, config):
            config["first_layer"] = K.layers.deserialize(config["first_layer"])
            return cls(**config)

        def call(self, x):
            return self.first_layer(x)

    if module is not None:
        Wrapper.__module__ = module
    return K.saving.register_keras_serializable(package=PACKAGE)(Wrapper)


def _nested_layer_config(K):
    Wrapper = _wrapper_class(K)
    inner = K.layers.Dense(2, name="inner")
    inner(np.ones((1, 3), "float32"))
    config = K.layers.serialize(Wrapper(inner, name="wrapper"))
    nested = config["config"]["first_layer"]
    return {
        "type": type(nested).__name__,
        "entry": {k: nested[k] for k in ("module", "class_name", "registered_name")},
        "units": nested["config"]["units"],
        # (Keras also writes the nested Dense's `build_config`; lamina writes it only for
        # a class with its own `build_from_config`, and leaves its own layers to be built
        # by what is rebuilt around them: see `serialization._from_config`.)
        "json": json.loads(json.dumps(config))["config"]["first_layer"]["class_name"],
    }


def test_layer_returned_by_get_config_is_serialized_to_a_dict():
    expected, got = _both(_nested_layer_config)
    assert expected["type"] == "dict"
    assert got == expected


def _model_from_config_with_nested_layer(K):
    Wrapper = _wrapper_class(K)
    inputs = K.Input((3,))
    model = K.Model(inputs, Wrapper(K.layers.Dense(2, kernel_initializer="ones"))(inputs))
    restored = K.Model.from_config(model.get_config())
    wrapper = restored.layers[-1]
    out = K.ops.convert_to_numpy(restored(np.ones((1, 3), "float32")))
    return type(wrapper.first_layer).__name__, wrapper.first_layer.units, out.tolist()


def test_model_from_config_rebuilds_a_layer_held_in_a_custom_config():
    expected, got = _both(_model_from_config_with_nested_layer)
    assert got == expected


def _custom_layer_module(K, module):
    return K.layers.serialize(_wrapper_class(K, module)(K.layers.Dense(2)))["module"]


@pytest.mark.parametrize("module", ["__main__", "my_project.layers"])
def test_module_of_a_registered_custom_class(module):
    expected, got = _both(_custom_layer_module, module)
    assert got == expected


def _builtin_objects(K):
    return [
        K.regularizers.L1(0.005),
        K.regularizers.L1L2(l1=1e-5, l2=1e-4),
        K.initializers.Ones(),
        K.constraints.NonNeg(),
        K.layers.Dense(3),
    ]


def _builtin_entries(K):
    entries = []
    for obj in _builtin_objects(K):
        config = K.saving.serialize_keras_object(obj)
        entries.append({k: config[k] for k in ("module", "class_name", "registered_name")})
    return entries


def test_builtin_objects_serialize_with_their_keras_module():
    expected, got = _both(_builtin_entries)
    assert got == expected


def _regularizer_round_trip(K):
    config = K.saving.serialize_keras_object(K.regularizers.L1(0.005))
    restored = K.saving.deserialize_keras_object(config)
    # Keras keeps the factor as a float32 tensor, so its config reads 0.004999...
    factor = round(config["config"]["l1"], 6)
    return config["module"], config["class_name"], factor, type(restored).__name__


def test_regularizer_serializes_as_keras_does():
    expected, got = _both(_regularizer_round_trip)
    assert expected == ("keras.regularizers", "L1", 0.005, "L1")
    assert got == expected


def _guide_my_dense(K):
    # serialization_and_saving: a layer whose config holds a regularizer object and a
    # nested (unbuilt) layer of its own class.
    @K.saving.register_keras_serializable(package=PACKAGE, name="KernelMult")
    class MyDense(K.layers.Layer):
        def __init__(
            self, units, *, kernel_regularizer=None, kernel_initializer=None, nested_model=None,
            **kwargs,
        ):  # fmt: skip
            super().__init__(**kwargs)
            self.hidden_units = units
            self.kernel_regularizer = kernel_regularizer
            self.kernel_initializer = kernel_initializer
            self.nested_model = nested_model

        def get_config(self):
            config = super().get_config()
            config.update(
                {
                    "units": self.hidden_units,
                    "kernel_regularizer": self.kernel_regularizer,
                    "kernel_initializer": self.kernel_initializer,
                    "nested_model": self.nested_model,
                }
            )
            return config

    inner = MyDense(units=16, kernel_regularizer="l1", kernel_initializer="ones", name="inner")
    outer = MyDense(
        units=8,
        kernel_regularizer=K.regularizers.L1L2(l1=1e-5, l2=1e-4),
        nested_model=inner,
        name="outer",
    )
    config = K.layers.serialize(outer)
    restored = K.layers.deserialize(config)
    inner_config = config["config"]["nested_model"]
    return {
        "regularizer": config["config"]["kernel_regularizer"],
        "nested": {k: inner_config[k] for k in ("module", "class_name", "registered_name")},
        "nested_units": inner_config["config"]["units"],
        "nested_regularizer": inner_config["config"]["kernel_regularizer"],
        "restored_units": restored.hidden_units,
        "json_ok": bool(json.dumps(config)),
    }


def test_guide_layer_with_regularizer_and_nested_layer_in_its_config():
    expected, got = _both(_guide_my_dense)
    assert got == expected


# D2: a nested layer's build_config ---------------------------------------------------------
def _custom_build_layer(K):
    @K.saving.register_keras_serializable(package=PACKAGE)
    class LayerWithCustomBuild(K.layers.Layer):
        def __init__(self, units=32, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def call(self, inputs):
            return K.ops.matmul(inputs, self.w)

        def get_config(self):
            return dict(units=self.units, **super().get_config())

        def build(self, input_shape, layer_init):
            super().build(input_shape)
            self._input_shape = input_shape
            self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer=layer_init)
            self.layer_init = layer_init

        def get_build_config(self):
            return {"layer_init": self.layer_init, "input_shape": self._input_shape}

        def build_from_config(self, config):
            self.build(config["input_shape"], config["layer_init"])

    return LayerWithCustomBuild


def _save_and_load_custom_build(K, path):
    layer = _custom_build_layer(K)(units=4)
    layer.build(input_shape=(8,), layer_init="random_normal")
    model = K.Sequential([layer, K.layers.Dense(1)])
    x = np.linspace(0, 1, 16, dtype="float32").reshape(2, 8)
    y = K.ops.convert_to_numpy(model(x))
    model.save(path)
    restored = K.models.load_model(path)
    same = np.allclose(K.ops.convert_to_numpy(restored(x)), y, atol=1e-6)
    return restored.layers[0].layer_init, restored.layers[0].built, restored.built, same


def test_nested_build_config_goes_through_build_from_config_on_load(tmp_path):
    expected, got = _both(
        lambda K: _save_and_load_custom_build(K, str(tmp_path / f"{K.__name__}.keras"))
    )
    assert expected == ("random_normal", True, True, True)
    assert got == expected


def _deserialize_with_build_config(K):
    cls = _custom_build_layer(K)
    config = {
        "module": None,
        "class_name": cls.__name__,
        "config": {"units": 3, "name": "custom", "trainable": True},
        "registered_name": f"{PACKAGE}>{cls.__name__}",
        "build_config": {"layer_init": "zeros", "input_shape": [None, 5]},
    }
    layer = K.saving.deserialize_keras_object(config)
    return layer.built, layer.layer_init, tuple(layer.w.shape)


def test_deserialize_keras_object_builds_from_the_build_config():
    expected, got = _both(_deserialize_with_build_config)
    assert expected == (True, "zeros", (5, 3))
    assert got == expected


# D3: get_compile_config / compile_from_config overrides ---------------------------------
def _compile_override_model(K):
    @K.saving.register_keras_serializable(package=PACKAGE)
    class CompileOverride(K.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = K.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def compile(self, optimizer, loss_fn):
            super().compile(optimizer=optimizer, loss=loss_fn)
            self.loss_fn = loss_fn

        def get_compile_config(self):
            return {"opt": "sgd", "loss_fn": self.loss_fn, "marker": 42}

        def compile_from_config(self, config):
            self.compile(optimizer=config["opt"], loss_fn=config["loss_fn"])
            self.marker = config["marker"]

    return CompileOverride


def _save_and_load_compile_override(K, path):
    model = _compile_override_model(K)()
    model.compile(optimizer="sgd", loss_fn="mse")
    model.fit(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), verbose=0)
    model.save(path)
    with zipfile.ZipFile(path) as zf:
        saved = json.loads(zf.read("config.json"))["compile_config"]
    restored = K.models.load_model(path)
    return saved, restored.marker, restored.loss_fn, restored.compiled


def test_overridden_compile_config_is_saved_and_used_on_load(tmp_path):
    expected, got = _both(
        lambda K: _save_and_load_compile_override(K, str(tmp_path / f"{K.__name__}.keras"))
    )
    assert expected == ({"opt": "sgd", "loss_fn": "mse", "marker": 42}, 42, "mse", True)
    assert got == expected


def _unregistered_loss(y_true, y_pred):
    return (y_true - y_pred) ** 2


def _compile_from_config_sees_custom_objects(K, path):
    class OwnCompileConfig(K.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = K.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def get_compile_config(self):
            return {"loss": self.loss}

        def compile_from_config(self, config):
            loss = K.saving.deserialize_keras_object(config["loss"])
            self.compile(optimizer="sgd", loss=loss)

    model = OwnCompileConfig()
    model.compile(optimizer="sgd", loss=_unregistered_loss)
    model.fit(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), verbose=0)
    model.save(path)
    restored = K.models.load_model(
        path,
        custom_objects={
            "OwnCompileConfig": OwnCompileConfig,
            "_unregistered_loss": _unregistered_loss,
        },
    )
    return restored.loss is _unregistered_loss, restored.compiled


def test_compile_from_config_override_sees_load_model_custom_objects(tmp_path):
    expected, got = _both(
        lambda K: _compile_from_config_sees_custom_objects(K, str(tmp_path / f"{K.__name__}.keras"))
    )
    assert expected == (True, True)
    assert got == expected


def _guide_custom_compile(K, path):
    # customizing_saving_and_serialization's ModelWithCustomCompile, unchanged.
    @K.saving.register_keras_serializable(package=PACKAGE)
    def small_square_sum_loss(y_true, y_pred):
        loss = K.ops.square(y_pred - y_true)
        return K.ops.sum(loss / 10.0, axis=1)

    @K.saving.register_keras_serializable(package=PACKAGE)
    def mean_pred(y_true, y_pred):
        return K.ops.mean(y_pred)

    @K.saving.register_keras_serializable(package=PACKAGE)
    class ModelWithCustomCompile(K.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense1 = K.layers.Dense(8, activation="relu")
            self.dense2 = K.layers.Dense(4, activation="softmax")

        def call(self, inputs):
            return self.dense2(self.dense1(inputs))

        def compile(self, optimizer, loss_fn, metrics):
            super().compile(optimizer=optimizer, loss=loss_fn, metrics=metrics)
            self.model_optimizer = optimizer
            self.loss_fn = loss_fn
            self.loss_metrics = metrics

        def get_compile_config(self):
            return {
                "model_optimizer": self.model_optimizer,
                "loss_fn": self.loss_fn,
                "metric": self.loss_metrics,
            }

        def compile_from_config(self, config):
            optimizer = K.utils.deserialize_keras_object(config["model_optimizer"])
            loss_fn = K.utils.deserialize_keras_object(config["loss_fn"])
            metrics = K.utils.deserialize_keras_object(config["metric"])
            self.compile(optimizer=optimizer, loss_fn=loss_fn, metrics=metrics)

    model = ModelWithCustomCompile()
    model.compile(optimizer="SGD", loss_fn=small_square_sum_loss, metrics=["accuracy", mean_pred])
    x = np.linspace(0, 1, 32, dtype="float32").reshape(4, 8)
    model.fit(x, np.linspace(0, 1, 4, dtype="float32"), verbose=0)
    model.save(path)
    restored = K.models.load_model(path)
    return (
        restored.model_optimizer == model.model_optimizer,
        restored.loss_fn is model.loss_fn,
        restored.loss_metrics == model.loss_metrics,
    )


def test_guide_model_with_custom_compile(tmp_path):
    expected, got = _both(lambda K: _guide_custom_compile(K, str(tmp_path / f"{K.__name__}.keras")))
    assert expected == (True, True, True)
    assert got == expected


def _default_compile_config_round_trip(K, path):
    inputs = K.Input((3,))
    model = K.Model(inputs, K.layers.Dense(2, activation="softmax")(inputs))
    model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
    model.fit(np.ones((4, 3), "float32"), np.eye(2, dtype="float32")[[0, 1, 0, 1]], verbose=0)
    model.save(path)
    restored = K.models.load_model(path)
    return type(restored.optimizer).__name__, restored.loss, restored.compiled


def test_default_compile_config_still_round_trips(tmp_path):
    expected, got = _both(
        lambda K: _default_compile_config_round_trip(K, str(tmp_path / f"{K.__name__}.keras"))
    )
    assert got == expected


def test_a_reloaded_models_variables_keep_their_paths(tmp_path):
    """Building nested layers from their `build_config` is left to the model being
    rebuilt (inside its name scope) for lamina's own layers: the variable paths, which
    an Orbax checkpoint's state tree is keyed by, stay those of the saved model."""
    model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])
    path = str(tmp_path / "m.keras")
    model.save(path)
    again = lamina.saving.load_model(path)
    assert [v.path for v in again.variables] == [v.path for v in model.variables]
