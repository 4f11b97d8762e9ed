"""Every NumPy array lamina hands a user is writable (`out *= 255`), as Keras's are
(issue 33: on JAX, NumPy's view of an engine array is read-only)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import lamina
from lamina import backend, layers, ops

X = np.ones((5, 3), "float32")
Y = np.ones((5, 2), "float32")


def _compiled():
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    model.compile("sgd", "mse", metrics=["mae"])
    return model


def _handed_out(model):
    kernel = model.layers[0].kernel
    yield "predict (one batch)", model.predict(X, verbose=0)
    yield "predict (one batch, again)", model.predict(X, verbose=0)  # the served path
    yield "predict (many batches)", model.predict(np.ones((20, 3), "float32"), batch_size=8)
    yield "predict_on_batch", model.predict_on_batch(X)
    yield "ops.convert_to_numpy", ops.convert_to_numpy(model(X))
    yield "backend.convert_to_numpy", backend.convert_to_numpy(model(X))
    yield "ops.convert_to_numpy(Variable)", ops.convert_to_numpy(kernel)
    yield "Model.get_weights", model.get_weights()[0]
    yield "Layer.get_weights", model.layers[0].get_weights()[0]
    yield "Variable.numpy", kernel.numpy()
    yield "np.asarray(Variable)", np.asarray(kernel)
    yield "evaluate", np.asarray(model.evaluate(X, Y, verbose=0))
    for key, value in model.evaluate(X, Y, return_dict=True, verbose=0).items():
        yield f"evaluate(return_dict)[{key!r}]", np.asarray(value)


def test_arrays_handed_to_the_user_are_writable():
    model = _compiled()
    model.fit(X, Y, verbose=0)
    for what, array in _handed_out(model):
        assert isinstance(array, np.ndarray), what
        assert array.flags.writeable, f"{what} is read-only"
        array *= 2  # what a user does with it


def test_writing_to_a_handed_out_array_changes_nothing_inside():
    model = _compiled()
    before = model.predict(X, verbose=0).copy()
    model.get_weights()[0][...] = 100.0
    model.layers[0].kernel.numpy()[...] = 100.0
    np.asarray(model.layers[0].kernel)[...] = 100.0
    model.predict(X, verbose=0)[...] = 100.0
    np.testing.assert_array_equal(model.predict(X, verbose=0), before)


def test_keras_hands_out_writable_arrays_too():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    assert model.predict(X, verbose=0).flags.writeable
    assert keras.ops.convert_to_numpy(model(X)).flags.writeable
