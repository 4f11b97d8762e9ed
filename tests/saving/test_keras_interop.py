"""`.keras` files move both ways between Keras 3 and lamina (skipped without Keras)."""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina import ops  # noqa: E402

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


# Keras op nodes (`x != 0`, `x + 1`, ops.cast ...) in functional graphs -----------------
def _keras_masked_lstm():
    x = keras.Input((3,), dtype="int32")
    h = keras.layers.Embedding(8, 4, mask_zero=True)(x)  # writes a `NotEqual` op node
    return keras.Model(x, keras.layers.LSTM(5)(h))


def _keras_op_graph():
    from keras import ops as K

    x = keras.Input((6,))
    h = keras.layers.Dense(4)(x)
    y = (h + 1.0) * h - h[:, 0:1]
    y = K.concatenate([y, K.cast(h > 0, "float32"), 1.0 - K.abs(h) / 2.0], axis=-1)
    y = K.where(y > 0.5, y, K.clip(y, -1.0, 0.5)) ** 2
    y = K.sum(K.reshape(y, (-1, 3, 4)), axis=1) + K.mean(y, axis=-1, keepdims=True)
    return keras.Model(x, K.softmax(y, axis=-1))


@pytest.mark.parametrize(
    "build, data",
    [(_keras_masked_lstm, TOKENS), (_keras_op_graph, DATA)],
    ids=["embedding-mask-zero-lstm", "op-nodes"],
)
def test_keras_op_nodes_load_in_lamina_and_back(tmp_path, build, data):
    model = build()
    path = str(tmp_path / "from_keras.keras")
    model.save(path)
    loaded = lamina.models.load_model(path)
    expected = model.predict(data, verbose=0)
    np.testing.assert_allclose(loaded.predict(data, verbose=0), expected, rtol=1e-5, atol=1e-6)
    again = str(tmp_path / "from_lamina.keras")
    loaded.save(again)
    back = keras.models.load_model(again)
    np.testing.assert_allclose(back.predict(data, verbose=0), expected, rtol=1e-5, atol=1e-6)


def test_keras_op_registry_matches_keras_signatures():
    import inspect

    from keras.src import ops as keras_ops_package

    from lamina import ops
    from lamina.saving.keras_ops import KERAS_OPS

    for class_name, op_name in KERAS_OPS.items():
        keras_cls = getattr(keras_ops_package, class_name, None)
        if keras_cls is None:  # e.g. Keras's Divide sits in ops.numpy only
            keras_cls = getattr(keras_ops_package.numpy, class_name)
        keras_args = set(inspect.signature(keras_cls.__init__).parameters) - {
            "self",
            "name",
            "initial",
            "kwargs",
        }
        assert keras_args <= set(inspect.signature(getattr(ops, op_name)).parameters), class_name


def test_unknown_keras_op_is_refused_without_import():
    config = {
        "module": "keras.src.ops.numpy",
        "class_name": "Eval",
        "config": {"name": "eval"},
        "registered_name": "Eval",
    }
    with pytest.raises(ValueError, match="Unknown Keras op 'Eval'"):
        lamina.common.serialization.deserialize_keras_object(config, "layers")


# The same architectures built in both frameworks, compared in both directions --------
def _conv(ns):
    L = ns.layers
    x = ns.Input((8, 8, 3))
    h = L.Conv2D(4, 3, padding="same")(x)
    h = L.Activation("relu")(L.BatchNormalization()(h))
    h = L.MaxPooling2D()(h)
    h = L.Conv2D(4, 3, strides=2)(h)
    h = L.AveragePooling2D(pool_size=1)(h)
    return ns.Model(x, L.Dense(2)(L.GlobalAveragePooling2D()(h)))


def _masked_lstm(ns):
    L = ns.layers
    x = ns.Input((3,), dtype="int32")
    return ns.Model(x, L.LSTM(5)(L.Embedding(8, 4, mask_zero=True)(x)))


def _gru(ns):
    L = ns.layers
    return ns.Sequential([ns.Input((5, 3)), L.GRU(4, return_sequences=True), L.GRU(3)])


def _bidirectional(ns):
    L = ns.layers
    return ns.Sequential(
        [ns.Input((5, 3)), L.Bidirectional(L.LSTM(3, return_sequences=True)), L.Flatten()]
    )


def _nested_feeding_layers(ns):
    L = ns.layers
    inner = ns.Sequential([ns.Input((4,)), L.Dense(5, activation="tanh"), L.Dense(3)], name="inner")
    x = ns.Input((6,))
    h = inner(L.Dense(4)(x))
    h = L.Dense(3, activation="relu")(h)
    return ns.Model(x, L.Dense(2)(L.Concatenate()([h, inner(L.Dense(4)(x))])))


_RNG = np.random.default_rng(2)
SAME_BOTH_WAYS = {
    "conv-bn-pooling": (_conv, _RNG.random((4, 8, 8, 3)).astype("float32")),
    "embedding-mask-zero-lstm": (_masked_lstm, TOKENS),
    "gru": (_gru, _RNG.random((4, 5, 3)).astype("float32")),
    "bidirectional-lstm": (_bidirectional, _RNG.random((4, 5, 3)).astype("float32")),
    "nested-model-feeding-layers": (_nested_feeding_layers, DATA),
}


def _randomize(model):
    """Random weights (variances positive), so every weight matters in the comparison."""
    rng = np.random.default_rng(3)
    values = []
    for w in model.weights:
        shape = tuple(w.shape)
        if "variance" in w.name:
            values.append(rng.uniform(0.5, 1.5, shape).astype("float32"))
        else:
            values.append(rng.uniform(-0.5, 0.5, shape).astype(w.dtype))
    model.set_weights(values)


# Keras -> lamina for the masked LSTM is test_keras_op_nodes_load_in_lamina_and_back.
BOTH_WAYS_CASES = [
    (case, direction)
    for case in sorted(SAME_BOTH_WAYS)
    for direction in ("keras-to-lamina", "lamina-to-keras")
    if (case, direction) != ("embedding-mask-zero-lstm", "keras-to-lamina")
]


@pytest.mark.parametrize(
    "case, direction", BOTH_WAYS_CASES, ids=[f"{c}:{d}" for c, d in BOTH_WAYS_CASES]
)
def test_architectures_move_both_ways(tmp_path, case, direction):
    build, data = SAME_BOTH_WAYS[case]
    source, target = (keras, lamina) if direction == "keras-to-lamina" else (lamina, keras)
    model = build(source)
    _randomize(model)
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = target.models.load_model(path)
    # Eager calls in inference mode (no compilation: keeps these tests fast).
    np.testing.assert_allclose(
        ops.convert_to_numpy(loaded(data, training=False)),
        ops.convert_to_numpy(model(data, training=False)),
        rtol=1e-5,
        atol=1e-5,
    )
