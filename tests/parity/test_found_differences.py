"""Regression tests for the differences from Keras 3 that the op, loss, metric and
optimizer harnesses found (issue 33), each checked against Keras itself on both engines.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina import ops  # noqa: E402


def _dtypes(values):
    return [str(ops.dtype(v)) for v in values]


def test_functional_model_converts_each_input_to_its_input_dtype():
    """Keras's Functional converts each input to its `Input`'s dtype: a float16 Input
    computes in float16 (lamina cast every float input to float32), ints given to a
    float Input become floats, float16 data into a float32 Input becomes float32."""
    x32 = np.array([[1.5, -2.0, 3.0]], "float32")
    results = {}
    for lib, o in ((keras, keras.ops), (lamina, ops)):
        half = lib.Input(shape=(3,), dtype="float16")
        full = lib.Input(shape=(3,), dtype="float32")
        model = lib.Model([half, full], [o.abs(half), o.abs(full), o.sum(half, axis=-1)])
        results[lib.__name__] = [
            _dtypes(model([x32, x32.astype("float16")])),
            _dtypes(model([x32.astype("int32"), x32.astype("int32")])),
            _dtypes(model.predict([x32, x32], verbose=0)),
        ]
    assert results["lamina"] == results["keras"], results
    assert results["lamina"][0] == ["float16", "float32", "float16"]


def test_functional_model_input_cast_keeps_the_mask():
    """The cast to the Input's dtype keeps the mask riding on the tensor: a float16
    Input gives the same masked average as a float32 one."""
    x = np.ones((1, 4, 2), "float32")
    x[0, 2:] = 100.0
    results = []
    for dtype in ("float32", "float16"):
        inputs = lamina.Input(shape=(4, 2), dtype=dtype)
        model = lamina.Model(inputs, lamina.layers.GlobalAveragePooling1D()(inputs))
        results.append(ops.convert_to_numpy(model(lamina.layers.Masking(100.0)(x))))
    np.testing.assert_allclose(results[0], [[1.0, 1.0]])  # the padding left out
    np.testing.assert_allclose(results[1], results[0])


@pytest.mark.parametrize("dtype", ["int32", "int8", "float16", "float32"])
def test_hard_tanh_keeps_the_input_dtype(dtype):
    """Keras's hard_tanh keeps an integer input's dtype (lamina made it float32)."""
    x = np.array([-3, 0, 1, 5], dtype)
    want = keras.ops.hard_tanh(x)
    for got in (ops.hard_tanh(x), lamina.activations.hard_tanh(x)):
        assert str(ops.dtype(got)) == str(want.dtype)
        np.testing.assert_array_equal(ops.convert_to_numpy(got), np.asarray(want))


@pytest.mark.parametrize("op", ["convert_to_tensor", "array"])
def test_convert_to_tensor_takes_a_symbolic_tensor(op):
    """Keras converts a KerasTensor symbolically (lamina raised "holds no data")."""
    inputs = lamina.Input(shape=(3,), dtype="float32")
    plain = getattr(ops, op)(inputs)
    cast = getattr(ops, op)(inputs, dtype="float16")
    assert (plain.shape, plain.dtype) == ((None, 3), "float32")
    assert (cast.shape, cast.dtype) == ((None, 3), "float16")
    model = lamina.Model(inputs, [plain, cast])
    out = model(np.array([[1.0, 2.0, 3.0]], "float32"))
    assert _dtypes(out) == ["float32", "float16"]
    np.testing.assert_array_equal(ops.convert_to_numpy(out[1]), [[1.0, 2.0, 3.0]])


def _two_outputs(lib):
    inputs = lib.Input((2,))
    outputs = [lib.layers.Identity(name=name)(inputs) for name in ("a", "b")]
    model = lib.Model(inputs, outputs)
    model.compile(loss=["mse", "mae"])
    return model


def test_one_sample_weight_array_weighs_every_output():
    """Keras 3 weighs each output of a multi-output model with one `sample_weight`
    array (lamina asked for a list), and refuses one that is not a weight per sample."""
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]], "float32")
    y = np.zeros_like(x)
    weights = np.array([1.0, 0.0, 2.0], "float32")
    logs = {
        lib.__name__: _two_outputs(lib).evaluate(
            x, [y, y], sample_weight=weights, verbose=0, return_dict=True
        )
        for lib in (keras, lamina)
    }
    assert logs["lamina"].keys() == logs["keras"].keys()
    for key, value in logs["keras"].items():
        np.testing.assert_allclose(logs["lamina"][key], float(value), rtol=1e-6, err_msg=key)
    with pytest.raises(ValueError, match="one weight per sample.*received shape \\(3, 2\\)"):
        _two_outputs(lamina).evaluate(x, [y, y], sample_weight=np.ones((3, 2)), verbose=0)


def test_a_metric_of_several_values_is_logged_as_an_array():
    """Keras logs a metric whose result is not one number (one value per threshold) as
    that array; lamina's loops turned every log into a float and failed."""
    x = np.array([[0.2], [0.7], [0.9], [0.4]], "float32")
    y = np.array([[0.0], [1.0], [1.0], [1.0]], "float32")
    results = {}
    for lib in (keras, lamina):
        inputs = lib.Input((1,))
        model = lib.Model(inputs, lib.layers.Identity()(inputs))
        model.compile(metrics=[lib.metrics.TruePositives(thresholds=[0.3, 0.8], name="tp")])
        results[lib.__name__] = model.evaluate(x, y, verbose=0, return_dict=True)
    got = results["lamina"]["tp"]
    assert isinstance(got, np.ndarray) and got.flags.writeable
    np.testing.assert_array_equal(got, np.asarray(results["keras"]["tp"]))
    np.testing.assert_array_equal(got, [3.0, 1.0])
