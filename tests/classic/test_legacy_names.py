"""Keras 2 era names Keras 3 still exports: `keras.legacy.saving`, `keras.utils.legacy`
(Keras 2's object configs) and `keras.optimizers.legacy` (which Keras 3 refuses and
lamina runs, with Keras 2's arguments)."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina import layers, optimizers  # noqa: E402


def test_the_paths_exist_as_in_keras():
    import lamina.legacy.saving as legacy_saving
    import lamina.utils.legacy as utils_legacy

    for module in (legacy_saving, utils_legacy):
        assert module.serialize_keras_object is lamina.legacy.saving.serialize_keras_object
        assert module.deserialize_keras_object is lamina.legacy.saving.deserialize_keras_object
    for name in ("SGD", "Adagrad", "Adam", "Ftrl", "RMSprop", "Optimizer"):
        assert getattr(optimizers.legacy, name) is getattr(optimizers, name)


def test_configs_have_keras_2_shape_and_round_trip():
    dense = layers.Dense(3, activation="relu", name="d")
    ours = lamina.legacy.saving.serialize_keras_object(dense)
    theirs = keras.legacy.saving.serialize_keras_object(
        keras.layers.Dense(3, activation="relu", name="d")
    )
    assert set(ours) == set(theirs) == {"class_name", "config"}
    assert ours["class_name"] == theirs["class_name"] == "Dense"
    assert set(ours["config"]) >= {"units", "activation", "name"}
    for key in ("units", "activation", "name", "use_bias"):
        assert ours["config"][key] == theirs["config"][key], key
    table = {"Dense": layers.Dense}
    again = lamina.utils.legacy.deserialize_keras_object(ours, module_objects=table)
    assert isinstance(again, layers.Dense) and again.units == 3 and again.name == "d"
    # A config Keras 3's legacy serializer wrote, read by lamina's.
    made = lamina.legacy.saving.deserialize_keras_object(theirs, module_objects=table)
    assert isinstance(made, layers.Dense) and made.get_config()["activation"] == "relu"


def _halve(x):
    return x / 2


def test_names_functions_and_errors():
    assert lamina.legacy.saving.serialize_keras_object(None) is None
    assert lamina.legacy.saving.serialize_keras_object(_halve) == "_halve"
    assert keras.legacy.saving.serialize_keras_object(_halve) == "_halve"
    table = {"Zeros": lamina.initializers.Zeros, "halve": _halve}
    deserialize = lamina.legacy.saving.deserialize_keras_object
    assert isinstance(deserialize("Zeros", module_objects=table), lamina.initializers.Zeros)
    assert deserialize("halve", module_objects=table) is _halve
    assert deserialize(_halve) is _halve
    assert deserialize("mine", custom_objects={"mine": _halve}) is _halve
    with pytest.raises(ValueError, match="Unknown object: 'Dense'"):
        deserialize({"class_name": "Dense", "config": {"units": 1}})  # no built-ins
    with pytest.raises(ValueError, match="Improper config"):
        deserialize({"class_name": "Dense"}, module_objects=table)
    with pytest.raises(ValueError, match="no `get_config"):
        lamina.legacy.saving.serialize_keras_object(object())


def test_keras_3_refuses_the_legacy_optimizers_and_lamina_runs_them():
    with pytest.raises(ImportError, match="not supported in Keras 3"):
        keras.optimizers.legacy.SGD()
    # Keras 2's time-based decay: step t uses lr / (1 + decay * t).
    with pytest.warns(DeprecationWarning, match="`lr`"):
        opt = optimizers.legacy.SGD(lr=0.5, decay=1.0)
    weight = lamina.Variable(np.array([1.0], "float32"))
    for _ in range(3):
        opt.apply_gradients([(np.array([1.0], "float32"), weight)])
    expected = 1.0 - sum(0.5 / (1 + 1.0 * t) for t in range(3))
    np.testing.assert_allclose(weight.numpy(), [expected], rtol=1e-6)
    adam = optimizers.legacy.Adam(learning_rate=0.01, clipnorm=1.0, amsgrad=True)
    assert isinstance(adam, optimizers.Adam) and adam.amsgrad
