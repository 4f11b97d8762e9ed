"""`.keras` files move both ways between Keras 3 and lamina (skipped without Keras)."""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402

# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

DATA = np.random.default_rng(0).random((5, 6)).astype("float32")
TOKENS = np.array([[1, 2, 0], [3, 0, 0], [4, 5, 6], [1, 1, 1], [2, 0, 0]])


def _keras_sequential():
    return keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.Dense(8, activation="relu"),
            keras.layers.Dropout(0.2),
            keras.layers.Dense(3, activation="softmax"),
        ]
    )


def _keras_functional():
    inner_in = keras.Input((4,))
    inner = keras.Model(inner_in, keras.layers.Dense(4, activation="tanh")(inner_in), name="inner")
    x = keras.Input((6,), name="x")
    shared = keras.layers.Dense(4, name="shared")
    h = inner(shared(x))
    merged = keras.layers.Concatenate()([h, shared(keras.layers.Dense(6)(x))])
    return keras.Model(x, keras.layers.Dense(2, name="out")(merged))


def _keras_embedding():
    x = keras.Input((3,), dtype="int32")
    h = keras.layers.Embedding(8, 4)(x)
    h = keras.layers.Flatten()(h)
    return keras.Model(x, keras.layers.Dense(2, activation="sigmoid")(h))


def _lamina_sequential():
    L = lamina.layers
    return lamina.Sequential(
        [
            lamina.Input((6,)),
            L.Dense(8, activation="relu"),
            L.Dropout(0.2),
            L.Dense(3, activation="softmax"),
        ]
    )


def _lamina_functional():
    L = lamina.layers
    inner_in = lamina.Input((4,))
    inner = lamina.Model(inner_in, L.Dense(4, activation="tanh")(inner_in), name="inner")
    x = lamina.Input((6,), name="x")
    shared = L.Dense(4, name="shared")
    h = inner(shared(x))
    merged = L.Concatenate()([h, shared(L.Dense(6)(x))])
    return lamina.Model(x, L.Dense(2, name="out")(merged))


@pytest.mark.parametrize(
    "build, data",
    [(_keras_sequential, DATA), (_keras_functional, DATA), (_keras_embedding, TOKENS)],
    ids=["sequential", "functional-shared-nested", "embedding"],
)
def test_keras_file_loads_in_lamina(tmp_path, build, data):
    model = build()
    model.compile(optimizer="adam", loss="mse")
    path = str(tmp_path / "from_keras.keras")
    model.save(path)
    loaded = lamina.models.load_model(path)
    np.testing.assert_allclose(
        loaded.predict(data, verbose=0), model.predict(data, verbose=0), rtol=1e-5, atol=1e-6
    )
    assert type(loaded.optimizer).__name__ == "Adam"


@pytest.mark.parametrize(
    "build",
    [_lamina_sequential, _lamina_functional],
    ids=["sequential", "functional-shared-nested"],
)
def test_lamina_file_loads_in_keras(tmp_path, build):
    model = build()
    model.compile(optimizer="adam", loss="mse")
    model.fit(DATA, np.zeros((5, model.output_shape[-1]), "float32"), epochs=1, verbose=0)
    path = str(tmp_path / "from_lamina.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(
        loaded.predict(DATA, verbose=0), model.predict(DATA, verbose=0), rtol=1e-5, atol=1e-6
    )
    assert int(loaded.optimizer.iterations.numpy()) == int(model.optimizer.iterations.numpy())
