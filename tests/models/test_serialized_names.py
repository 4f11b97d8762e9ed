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


def test_default_names_follow_keras_a_subclass_by_its_class():
    """keras-io's packaging example: a functional subclass is named after its class in
    snake case, with its own counter; a plain functional model stays "functional"."""
    import os

    import pytest

    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    names = {}
    for K in (keras, lamina):
        K.backend.clear_session()

        class MnistModel(K.Model):
            def __init__(self, K=K, **kwargs):
                inputs = K.Input((4,))
                super().__init__(inputs=inputs, outputs=K.layers.Dense(2)(inputs), **kwargs)

        first, second = MnistModel(), MnistModel()
        plain = K.Model(first.input, K.layers.Dense(1)(first.input))
        named = MnistModel(name="given")
        names[K.__name__] = [first.name, second.name, plain.name, named.name]
    assert (
        names["lamina"] == names["keras"] == ["mnist_model", "mnist_model_1", "functional", "given"]
    )


def test_a_layer_whose_call_has_no_module_trains():
    """A class made by `exec` without a `__name__` in its globals (notebook tools do
    this): its `call.__module__` is None; the step capture must not trip on it."""
    scope = {"lamina": lamina}
    exec(  # noqa: S102
        "class Double(lamina.layers.Layer):\n    def call(self, x):\n        return x * 2.0\n",
        scope,
    )
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2), scope["Double"]()])
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(np.ones((8, 3), "float32"), np.zeros((8, 2), "float32"), verbose=0)
    assert np.isfinite(history.history["loss"]).all()
