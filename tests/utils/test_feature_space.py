"""FeatureSpace (Keras 3's keras.utils.FeatureSpace) on NumPy, against NumPy references of
Keras's documented behaviour: each feature's preprocessing, one-hot widths, and the
concatenation order (features sorted by name, then crosses sorted by name)."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.utils import FeatureSpace

DATA = {
    "age": np.array([20.0, 30.0, 40.0, 50.0, 60.0, 30.0]),
    "color": np.array(["red", "blue", "red", "green", "red", "blue"]),
    "code": np.array([3, 7, 7, 3, 9, 7]),
    "city": np.array(["a", "b", "c", "a", "b", "c"]),
    "score": np.array([0.5, -1.0, 2.0, 0.0, 1.5, 3.0]),
}


def _space(**kwargs):
    return FeatureSpace(
        features={
            "age": FeatureSpace.float_normalized(),
            "color": FeatureSpace.string_categorical(num_oov_indices=0),
            "code": FeatureSpace.integer_categorical(),
            "city": FeatureSpace.string_hashed(num_bins=4),
            "score": FeatureSpace.float_discretized(num_bins=3, bin_boundaries=[0.0, 1.0]),
        },
        crosses=[FeatureSpace.cross(("city", "code"), crossing_dim=5)],
        **kwargs,
    )


def _reference(data):
    """The encoding Keras documents, in NumPy."""
    n = len(data["age"])
    mean, std = DATA["age"].mean(), DATA["age"].std()
    age = ((data["age"] - mean) / std)[:, None]
    code_vocab = [7, 3, 9]  # by count, ties: larger first; OOV index 0
    code_index = np.array([code_vocab.index(c) + 1 if c in code_vocab else 0 for c in data["code"]])
    color_vocab = ["red", "blue", "green"]  # no OOV index
    color_index = np.array([color_vocab.index(c) for c in data["color"]])
    city_bins = layers.Hashing(num_bins=4)(data["city"])  # Keras's bins (test_hashing.py)
    score_index = np.digitize(data["score"], [0.0, 1.0])
    # Crosses take the preprocessed features (hash bins, lookup indices).
    cross = layers.HashedCrossing(5)((city_bins[:, None], code_index[:, None])).ravel()
    one_hot = lambda index, width: np.eye(width)[index]  # noqa: E731
    parts = [  # sorted: age, city, code, color, score; then the cross
        age,
        one_hot(city_bins, 4),
        one_hot(code_index, 4),
        one_hot(color_index, 3),
        one_hot(score_index, 3),
        one_hot(cross, 5),
    ]
    return np.concatenate(parts, axis=1).reshape(n, -1)


def test_encodes_as_keras_documents():
    space = _space()
    space.adapt(DATA)
    out = space(DATA)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_allclose(out, _reference(DATA), rtol=1e-5, atol=1e-6)
    one = space({name: values[0] for name, values in DATA.items()})
    np.testing.assert_allclose(one, _reference(DATA)[0], rtol=1e-5, atol=1e-6)
    parts = _space(output_mode="dict")
    parts.adapt(DATA)
    encoded = parts(DATA)
    assert list(encoded) == ["age", "city", "code", "color", "score", "city_X_code"]
    assert encoded["code"].shape == (6, 4)


def test_adapt_from_batches_and_string_names():
    space = FeatureSpace(
        {"age": "float_normalized", "color": "string_categorical", "n": "integer_hashed"},
        crosses=[("color", "n")],
        crossing_dim=8,
        hashing_dim=6,
    )
    batches = [{k: DATA[k][i : i + 2] for k in ("age", "color")} for i in range(0, 6, 2)]
    space.adapt(iter(batches))
    out = space({"age": DATA["age"], "color": DATA["color"], "n": DATA["code"]})
    assert out.shape == (6, 1 + 4 + 6 + 8)
    np.testing.assert_allclose(
        out[:, 0], (DATA["age"] - DATA["age"].mean()) / DATA["age"].std(), rtol=1e-5
    )


def test_models_on_raw_dicts_and_on_encoded_features():
    space = _space()
    space.adapt(DATA)
    encoded = space.get_encoded_features()
    assert encoded.shape == (None, 1 + 4 + 4 + 3 + 3 + 5)
    outputs = layers.Dense(1)(layers.Dense(4, activation="relu")(encoded))
    training_model = lamina.Model(encoded, outputs)
    training_model.compile(optimizer="adam", loss="mse")
    training_model.fit(space(DATA), np.ones((6, 1)), epochs=1, batch_size=3, verbose=0)
    inference_model = lamina.Model(space.get_inputs(), outputs)
    expected = ops.convert_to_numpy(training_model(space(DATA)))
    np.testing.assert_allclose(
        inference_model.predict(DATA, verbose=0), expected, rtol=1e-5, atol=1e-6
    )


def test_errors():
    with pytest.raises(ValueError, match="call `.adapt"):
        _space()(DATA)
    with pytest.raises(ValueError, match="unknown type 'text'"):
        FeatureSpace({"a": "text"})
    with pytest.raises(ValueError, match="not in `features`"):
        FeatureSpace({"a": "float"}, crosses=[("a", "b")])
    ints = FeatureSpace({"code": FeatureSpace.integer_categorical(output_mode="int")})
    ints.adapt({"code": DATA["code"]})
    with pytest.raises(ValueError, match="has not been encoded"):
        ints({"code": DATA["code"]})


def test_a_model_with_its_feature_space_saves_and_loads(tmp_path):
    space = _space()
    space.adapt(DATA)
    outputs = layers.Dense(2)(space.get_encoded_features())
    model = lamina.Model(space.get_inputs(), outputs)
    expected = model.predict(DATA, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(DATA, verbose=0), expected, rtol=1e-5, atol=1e-6)
    space.save(tmp_path / "space.keras")
    reloaded = lamina.saving.load_model(tmp_path / "space.keras")
    np.testing.assert_allclose(reloaded(DATA), space(DATA), rtol=1e-6)
