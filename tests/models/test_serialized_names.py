"""Models are told apart by their class, never by their class's name."""

import numpy as np

import lamina
from lamina import layers
from lamina.common import serialization


def _graph():
    inputs = lamina.Input((3,))
    return inputs, layers.Dense(2)(inputs)


def test_a_user_class_named_model_is_rebuilt_with_keyword_inputs_and_outputs():
    class Model(lamina.Model):  # a user's subclass that happens to be called "Model"
        def __init__(self, outputs=None, inputs=None, **kwargs):
            super().__init__(inputs=inputs, outputs=outputs, **kwargs)

    inputs, outputs = _graph()
    model = Model(outputs=outputs, inputs=inputs)
    clone = Model.from_config(model.get_config())
    assert type(clone) is Model
    assert clone.input_shape == (None, 3) and clone.output_shape == (None, 2)


def test_a_user_class_named_sequential_serializes_under_its_own_name():
    class Sequential(lamina.Model):  # not lamina's Sequential, whatever its name
        pass

    inputs, outputs = _graph()
    entry = serialization.serialize_keras_object(Sequential(inputs, outputs))
    assert entry["class_name"] == "Sequential"
    assert entry["module"] == __name__


def test_lamina_sequential_and_its_subclasses_serialize_as_keras_expects():
    class MyStack(lamina.Sequential):
        pass

    assert (
        serialization.serialize_keras_object(lamina.Sequential([layers.Dense(1)]))["module"]
        == "keras"
    )
    entry = serialization.serialize_keras_object(MyStack([layers.Dense(1)]))
    assert (entry["module"], entry["class_name"]) == (__name__, "MyStack")


def test_functional_model_serializes_as_keras_functional():
    inputs, outputs = _graph()
    entry = serialization.serialize_keras_object(lamina.Model(inputs, outputs))
    assert (entry["module"], entry["class_name"]) == ("keras.src.models.functional", "Functional")
    model = lamina.Model.from_config(entry["config"])
    assert model(np.ones((1, 3))).shape == (1, 2)


def test_weights_file_names_a_model_by_its_keras_class():
    from lamina.saving.weights_h5 import _class_key

    class Model(lamina.Model):  # Keras files it as "model", not as "functional"
        pass

    inputs, outputs = _graph()
    assert _class_key(lamina.Model(inputs, outputs)) == "functional"
    assert _class_key(Model(inputs, outputs)) == "model"
    assert _class_key(lamina.Sequential([lamina.Input((3,)), layers.Dense(1)])) == "sequential"
