"""`TFSMLayer` takes Keras 3's arguments and refuses to be made: a TensorFlow SavedModel
needs TensorFlow's runtime, which lamina does not use."""

import inspect
import os

import pytest

from lamina import layers

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")


def test_tfsm_layer_has_keras_signature():
    ours = inspect.signature(layers.TFSMLayer.__init__)
    theirs = inspect.signature(keras.layers.TFSMLayer.__init__)
    assert list(ours.parameters) == list(theirs.parameters)
    for name, param in theirs.parameters.items():
        assert ours.parameters[name].default == param.default, name
    assert issubclass(layers.TFSMLayer, layers.Layer)


@pytest.mark.parametrize(
    "kwargs", [{}, {"call_endpoint": "serving_default", "trainable": False, "name": "sm"}]
)
def test_tfsm_layer_is_refused_with_the_reason(kwargs):
    with pytest.raises(ValueError, match="TensorFlow SavedModel") as info:
        layers.TFSMLayer("path/to/saved_model", **kwargs)
    message = str(info.value)
    assert "'path/to/saved_model'" in message and "load_model" in message
