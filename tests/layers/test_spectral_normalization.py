"""SpectralNormalization and Wrapper: training calls against a NumPy power iteration and
against Keras 3 (weights copied across), weight names and order as Keras saves them,
configs, `.keras` files both ways, fit, and the errors; plus `layers.serialize` /
`layers.deserialize`."""

import inspect
import json
import os

import numpy as np
import pytest

import lamina
from lamina import Input, Model, layers, ops

os.environ.setdefault("KERAS_BACKEND", "jax")

# Keras's NumPy-level `__array__` trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

RNG = np.random.default_rng(5)
EPSILON = 1e-7


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _np(x):
    return ops.convert_to_numpy(x)


def _keras():
    return pytest.importorskip("keras")


def _power_iteration(kernel, vector_u, steps):
    """Miyato et al.'s estimate: `(new u, kernel / sigma)`, with the kernel as a matrix
    whose columns are its last axis and norms floored at epsilon (as Keras)."""
    matrix = kernel.reshape(-1, kernel.shape[-1]).astype("float64")
    u = vector_u.astype("float64")
    for _ in range(steps):
        v = u @ matrix.T
        v = v / max(np.linalg.norm(v), EPSILON)
        u = v @ matrix
        u = u / max(np.linalg.norm(u), EPSILON)
    sigma = (v @ matrix @ u.T).item()
    return u, kernel / sigma


def test_training_call_matches_numpy_power_iteration():
    # Every kernel reshapes to a (12, 3) matrix, so the engine compiles each op once.
    cases = [
        ("dense", layers.Dense(3), _rand(2, 12), 1),
        ("conv2d", layers.Conv2D(3, 2), _rand(1, 4, 4, 3), 3),
        ("embedding", layers.Embedding(12, 3), np.array([[1, 11, 2]]), 2),
    ]
    for what, inner, x, steps in cases:
        layer = layers.SpectralNormalization(inner, power_iterations=steps)
        layer(x)
        kernel, vector_u = _np(layer.kernel), _np(layer.vector_u)
        assert vector_u.shape == (1, kernel.shape[-1]), what
        u, expected_kernel = _power_iteration(kernel, vector_u, steps)

        before = _np(layer(x, training=False))
        np.testing.assert_allclose(_np(inner.weights[0]), kernel, err_msg=what)  # unchanged
        np.testing.assert_allclose(before, _np(inner(x)), rtol=1e-6, err_msg=what)

        out = _np(layer(x, training=True))
        np.testing.assert_allclose(_np(layer.vector_u), u, rtol=1e-4, atol=1e-6, err_msg=what)
        np.testing.assert_allclose(
            _np(inner.weights[0]), expected_kernel, rtol=1e-4, atol=1e-6, err_msg=what
        )
        np.testing.assert_allclose(out, _np(inner(x)), rtol=1e-5, atol=1e-6, err_msg=what)
        if steps == 3:  # more training calls refine sigma: the top singular value nears 1
            for _ in range(4):
                layer(x, training=True)
            matrix = _np(layer.kernel).reshape(-1, kernel.shape[-1])
            assert abs(np.linalg.svd(matrix, compute_uv=False)[0] - 1) < 0.05


def test_zero_kernel_and_weight_order():
    layer = layers.SpectralNormalization(layers.Dense(3, kernel_initializer="zeros"))
    x = _rand(2, 12)
    layer(x)
    vector_u = _np(layer.vector_u)
    out = _np(layer(x, training=True))
    np.testing.assert_array_equal(_np(layer.kernel), np.zeros((12, 3)))
    np.testing.assert_array_equal(_np(layer.vector_u), vector_u)
    assert np.all(np.isfinite(out))
    # Weights in Keras's order: the wrapper's own (kernel, vector_u), then the layer's.
    dense = layers.Dense(3, name="dense")
    layer = layers.SpectralNormalization(dense, name="sn")
    layer.build((None, 4))
    assert [w.name for w in layer.weights] == ["kernel", "vector_u", "bias"]
    assert [w.name for w in layer.trainable_weights] == ["kernel", "bias"]
    assert [w.name for w in layer.non_trainable_weights] == ["vector_u"]
    assert layer.kernel is dense.kernel
    assert isinstance(layer, layers.Wrapper)


def test_matches_keras_with_copied_weights():
    keras = _keras()
    # A convolution's kernel is reshaped to a matrix: the NumPy test above covers it.
    x = _rand(2, 12)
    ours = layers.SpectralNormalization(layers.Dense(3), power_iterations=2)
    theirs = keras.layers.SpectralNormalization(keras.layers.Dense(3), power_iterations=2)
    ours(x)
    theirs(x)
    assert [v.shape for v in theirs.weights] == [tuple(v.shape) for v in ours.weights]
    theirs.set_weights(ours.get_weights())
    for _ in range(2):
        np.testing.assert_allclose(
            _np(ours(x, training=True)), np.asarray(theirs(x, training=True)), rtol=1e-4, atol=1e-5
        )
    for mine, other in zip(ours.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_allclose(mine, other, rtol=1e-4, atol=1e-6)


def test_config_matches_keras_and_round_trips():
    keras = _keras()
    # The names of this task have Keras's signatures (parameter names and defaults).
    for name in [
        "AdaptiveAveragePooling1D",
        "AdaptiveMaxPooling3D",
        "ReversibleEmbedding",
        "SpectralNormalization",
        "Wrapper",
        "serialize",
        "deserialize",
    ]:
        ours, theirs = getattr(layers, name), getattr(keras.layers, name)
        expected = [(p.name, p.default) for p in inspect.signature(theirs).parameters.values()]
        got = [(p.name, p.default) for p in inspect.signature(ours).parameters.values()]
        assert got == expected, name
    for name in ("ReversibleEmbedding", "SpectralNormalization"):
        theirs = inspect.signature(getattr(keras.layers, name).call)
        assert str(inspect.signature(getattr(layers, name).call)) == str(theirs), name
    theirs = keras.layers.SpectralNormalization(keras.layers.Dense(3, name="d"), 2, name="sn")
    theirs.build((None, 4))
    keras_config = json.loads(json.dumps(keras.layers.serialize(theirs)))
    revived = lamina.layers.deserialize(keras_config)
    assert type(revived) is layers.SpectralNormalization
    assert revived.power_iterations == 2 and revived.built
    assert type(revived.layer) is layers.Dense and revived.layer.units == 3
    ours = layers.SpectralNormalization(layers.Dense(3, name="d"), 2, name="sn")
    ours(Input((4,)))
    our_config = json.loads(json.dumps(lamina.layers.serialize(ours)))
    assert set(our_config) == set(keras_config)
    assert set(our_config["config"]) == set(keras_config["config"])
    assert our_config["config"]["layer"]["build_config"] == {"input_shape": [None, 4]}
    again = layers.SpectralNormalization.from_config(ours.get_config())
    assert again.get_config() == ours.get_config()
    assert again.layer is not ours.layer


def test_keras_file_loads_in_lamina_and_back(tmp_path):
    keras = _keras()
    k_in = keras.Input((12,))
    k_h = keras.layers.SpectralNormalization(keras.layers.Dense(3, activation="tanh"))(k_in)
    k_out = keras.layers.SpectralNormalization(keras.layers.Dense(3), power_iterations=2)(k_h)
    keras_model = keras.Model(k_in, k_out)
    x = _rand(2, 12)
    keras_model(x, training=True)  # vector_u and kernels move away from their initial values
    path = str(tmp_path / "keras.keras")
    keras_model.save(path)
    loaded = lamina.models.load_model(path)
    for mine, other in zip(loaded.get_weights(), keras_model.get_weights(), strict=True):
        np.testing.assert_allclose(mine, other, rtol=1e-6)
    expected = np.asarray(keras_model(x))
    np.testing.assert_allclose(_np(loaded(x)), expected, rtol=1e-5, atol=1e-6)
    # And lamina's file is Keras's layout: Keras reads it back.
    ours_path = str(tmp_path / "lamina.keras")
    loaded.save(ours_path)
    again = keras.models.load_model(ours_path)
    np.testing.assert_allclose(np.asarray(again(x)), expected, rtol=1e-5, atol=1e-6)


def test_fit_runs_and_keeps_weights_finite():
    # The first kernel starts at zero: its skipped normalization must not leak NaN
    # into the gradient.
    inputs = Input((4,))
    hidden = layers.SpectralNormalization(layers.Dense(3, kernel_initializer="zeros"))(inputs)
    outputs = layers.SpectralNormalization(layers.Dense(2))(hidden)
    model = Model(inputs, outputs)
    model.compile(optimizer="sgd", loss="mse")
    vector_u = _np(model.layers[2].vector_u)
    model.fit(_rand(8, 4), _rand(8, 2), epochs=2, batch_size=4, verbose=0)
    assert all(np.all(np.isfinite(w)) for w in model.get_weights())
    assert not np.allclose(_np(model.layers[2].vector_u), vector_u)


def test_errors_wrapper_base_and_layer_serialization():
    with pytest.raises(ValueError, match="power_iterations"):
        layers.SpectralNormalization(layers.Dense(2), power_iterations=0)
    with pytest.raises(ValueError, match="wraps a layer"):
        layers.SpectralNormalization("dense")
    with pytest.raises(ValueError, match="neither"):
        layers.SpectralNormalization(layers.Dropout(0.5))(np.ones((1, 2), "float32"))

    # The Wrapper base and `layers.serialize` / `layers.deserialize`.
    class Twice(layers.Wrapper):
        def call(self, inputs):
            return self.layer(self.layer(inputs))

    wrapper = Twice(layers.Dense(3, kernel_initializer="ones", use_bias=False))
    out = wrapper(np.ones((1, 3), "float32"))
    np.testing.assert_allclose(_np(out), np.full((1, 3), 9.0))
    config = wrapper.get_config()
    assert config["layer"]["class_name"] == "Dense"
    rebuilt = Twice.from_config(config)
    assert rebuilt.layer.units == 3 and rebuilt.layer.built

    dense = layers.Dense(2, name="head")
    dense(Input((5,)))
    serialized = layers.serialize(dense)
    assert serialized["class_name"] == "Dense"
    assert serialized["build_config"] == {"input_shape": [None, 5]}
    copy = layers.deserialize(serialized)
    assert copy.built and copy.get_config() == dense.get_config()
    with pytest.raises(ValueError, match="Unknown layer"):
        layers.deserialize({"class_name": "NoSuchLayer", "config": {}})
    with pytest.raises(TypeError, match="Layer"):
        layers.serialize("dense")
