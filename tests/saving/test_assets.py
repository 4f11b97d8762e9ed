"""Layer assets in `.keras` files: vocabularies travel as Keras 3 lays them out.

Keras 3 writes an adapted vocabulary as `assets/<layer path>/vocabulary.txt` (the
layer's path in the weights file; a TextVectorization also under its `_lookup_layer`),
special tokens first, one per line; a vocabulary given to the constructor stays in the
config. Keras cannot build these layers without TensorFlow, so the Keras-to-lamina
test takes a file Keras itself wrote (its Input, Embedding, Flatten and Dense) and adds
the lookup entries Keras's `get_config`/`save_assets` write, at Keras's paths.
"""

import io
import json
import os
import zipfile

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.saving import keras_file

TEXTS = np.array([["the cat sat"], ["the dog ran far"], ["a cat and a dog"]])
COLORS = np.array([["red"], ["blue"], ["red"], ["green"]])


def _text_model():
    vectorize = layers.TextVectorization(max_tokens=12, output_sequence_length=4)
    vectorize.adapt(TEXTS)
    colors = layers.StringLookup(output_mode="multi_hot")
    colors.adapt(COLORS)
    fixed = layers.StringLookup(vocabulary=["x", "y"], num_oov_indices=2)
    codes = layers.IntegerLookup()
    codes.adapt(np.array([[7], [7], [9], [3]]))
    text = lamina.Input(shape=(1,), dtype="string", name="text")
    color = lamina.Input(shape=(1,), dtype="string", name="color")
    tag = lamina.Input(shape=(1,), dtype="string", name="tag")
    code = lamina.Input(shape=(1,), dtype="int32", name="code")
    parts = [
        layers.Flatten()(layers.Embedding(12, 2)(vectorize(text))),
        colors(color),
        layers.Flatten()(layers.Embedding(4, 2)(fixed(tag))),
        layers.Flatten()(layers.Embedding(5, 2)(codes(code))),
    ]
    outputs = layers.Dense(1)(layers.Concatenate()(parts))
    return lamina.Model([text, color, tag, code], outputs)


INPUTS = [
    np.array([["the cat ran"], ["a bird"]]),
    np.array([["red"], ["pink"]]),
    np.array([["y"], ["q"]]),
    np.array([[9], [4]], "int32"),
]


def test_vocabularies_round_trip_through_a_keras_file(tmp_path):
    model = _text_model()
    expected = model.predict(INPUTS, verbose=0)
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        names = set(zf.namelist())
        vocab = zf.read("assets/layers/text_vectorization/vocabulary.txt").decode()
        config = json.loads(zf.read("config.json"))
    # Adapted vocabularies are assets (where Keras puts them); the given one stays in
    # the config, as Keras does, so no asset is written for it.
    assert {
        "assets/layers/text_vectorization/vocabulary.txt",
        "assets/layers/text_vectorization/_lookup_layer/vocabulary.txt",
        "assets/layers/integer_lookup/vocabulary.txt",
    } <= names
    # Of the two StringLookups (filed by class and position, as Keras files them), only
    # the adapted one has an asset.
    lookups = sorted(n for n in names if n.startswith("assets/layers/string_lookup"))
    assert len(lookups) == 1
    vectorize = next(x for x in model.layers if isinstance(x, layers.TextVectorization))
    assert vocab == "\n".join(vectorize.get_vocabulary())
    assert vocab.split("\n")[:4] == ["", "[UNK]", "the", "dog"]
    by_class = {layer["class_name"]: layer["config"] for layer in config["config"]["layers"]}
    assert by_class["TextVectorization"]["vocabulary"] is None
    assert by_class["TextVectorization"]["vocabulary_size"] == 10  # 8 words, "", [UNK]
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(INPUTS, verbose=0), expected, rtol=1e-6)
    for old, new in zip(model.layers, loaded.layers, strict=True):
        if hasattr(old, "get_vocabulary"):
            assert new.get_vocabulary() == old.get_vocabulary()


def _keras_written_file(tmp_path):
    """A file Keras 3 wrote for Input -> Embedding -> Flatten -> Dense, with a StringLookup
    (adapted, so its vocabulary is an asset) spliced in after the Input, written as
    Keras's StringLookup.get_config and save_assets write it."""
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    x = keras.Input((1,), dtype="int64", name="word")
    h = keras.layers.Embedding(5, 3, name="embedding")(x)
    h = keras.layers.Flatten(name="flatten")(h)
    model = keras.Model(x, keras.layers.Dense(1, name="dense")(h))
    path = tmp_path / "keras.keras"
    model.save(path)
    with zipfile.ZipFile(path) as zf:
        parts = {name: zf.read(name) for name in zf.namelist()}
    config = json.loads(parts["config.json"])
    graph = config["config"]["layers"]
    graph[0]["config"]["dtype"] = "string"
    lookup = {
        "module": "keras.layers",
        "class_name": "StringLookup",
        "config": {
            "name": "string_lookup",
            "trainable": True,
            "dtype": {
                "module": "keras",
                "class_name": "DTypePolicy",
                "config": {"name": "float32"},
                "registered_name": None,
            },
            "invert": False,
            "max_tokens": None,
            "num_oov_indices": 1,
            "oov_token": "[UNK]",
            "mask_token": None,
            "output_mode": "int",
            "sparse": False,
            "pad_to_max_tokens": False,
            "idf_weights": None,
            "vocabulary": None,
            "vocabulary_size": 5,
            "oov_method": "floormod",
            "salt": None,
            "encoding": "utf-8",
        },
        "registered_name": None,
        "build_config": {"input_shape": [None, 1]},
        "name": "string_lookup",
        "inbound_nodes": [
            {
                "args": [
                    {
                        "class_name": "__keras_tensor__",
                        "config": {
                            "shape": [None, 1],
                            "dtype": "string",
                            "keras_history": ["word", 0, 0],
                        },
                    }
                ],
                "kwargs": {},
            }
        ],
    }
    embedding_arg = graph[1]["inbound_nodes"][0]["args"][0]["config"]
    embedding_arg["keras_history"] = ["string_lookup", 0, 0]
    graph.insert(1, lookup)
    parts["config.json"] = json.dumps(config).encode()
    weights = io.BytesIO(parts["model.weights.h5"])
    with h5py.File(weights, "a") as f:
        f.create_group("layers/string_lookup/vars")
    parts["model.weights.h5"] = weights.getvalue()
    # Keras's save_assets: get_vocabulary(include_special_tokens=True), joined by "\n".
    parts["assets/layers/string_lookup/vocabulary.txt"] = "\n".join(
        ["[UNK]", "red", "green", "blue", "teal"]
    ).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    weights_of = {w.path: keras.ops.convert_to_numpy(w) for w in model.weights}
    return path, weights_of


# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
@pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)
def test_a_keras_written_lookup_file_loads_with_its_vocabulary(tmp_path):
    path, weights = _keras_written_file(tmp_path)
    model = lamina.saving.load_model(path)
    lookup = model.get_layer("string_lookup")
    assert lookup.get_vocabulary() == ["[UNK]", "red", "green", "blue", "teal"]
    words = np.array([["blue"], ["pink"], ["red"]])
    indices = np.array([3, 0, 1])
    embeddings = weights["embedding/embeddings"]
    expected = embeddings[indices] @ weights["dense/kernel"] + weights["dense/bias"]
    np.testing.assert_allclose(model.predict(words, verbose=0), expected, rtol=1e-5, atol=1e-6)
    # And lamina writes it back in the same layout.
    model.save(tmp_path / "again.keras")
    with zipfile.ZipFile(tmp_path / "again.keras") as zf:
        text = zf.read("assets/layers/string_lookup/vocabulary.txt").decode()
        config = json.loads(zf.read("config.json"))
    assert text == "[UNK]\nred\ngreen\nblue\nteal"
    saved = next(c for c in config["config"]["layers"] if c["class_name"] == "StringLookup")
    assert saved["module"] == "keras.layers"
    keras_keys = {
        "name", "trainable", "dtype", "invert", "max_tokens", "num_oov_indices",
        "oov_token", "mask_token", "output_mode", "sparse", "pad_to_max_tokens",
        "idf_weights", "vocabulary", "vocabulary_size", "oov_method", "salt", "encoding",
    }  # fmt: skip
    assert keras_keys <= set(saved["config"])


def _tamper(tmp_path, extra):
    model = lamina.Model(*_lookup_graph())
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        parts = {name: zf.read(name) for name in zf.namelist()}
    parts.update(extra)
    with zipfile.ZipFile(tmp_path / "bad.keras", "w") as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return tmp_path / "bad.keras"


def _lookup_graph():
    lookup = layers.StringLookup()
    lookup.adapt(COLORS)
    inputs = lamina.Input(shape=(1,), dtype="string")
    return inputs, lookup(inputs)


def test_asset_loading_keeps_the_loader_defences(tmp_path, monkeypatch):
    path = _tamper(tmp_path, {"assets/../../escape.txt": b"x"})
    with pytest.raises(ValueError, match="not a plain relative name"):
        lamina.saving.load_model(path)
    monkeypatch.setattr(keras_file, "MAX_ASSET_FILES", 2)
    path = _tamper(tmp_path, {f"assets/extra/{i}.txt": b"x" for i in range(3)})
    with pytest.raises(ValueError, match="asset files"):
        lamina.saving.load_model(path)
    monkeypatch.setattr(keras_file, "MAX_ASSET_FILES", 100)
    monkeypatch.setattr(keras_file, "MAX_ASSETS_BYTES", 1000)
    path = _tamper(tmp_path, {"assets/extra/big.txt": b"x" * 2000})
    with pytest.raises(ValueError, match="assets would unpack"):
        lamina.saving.load_model(path)
    assert not (tmp_path / "escape.txt").exists()


def test_a_vocabulary_file_named_by_a_config_is_refused_in_safe_mode(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("alpha\nbeta\n")
    inputs = lamina.Input(shape=(1,), dtype="string")
    model = lamina.Model(inputs, layers.StringLookup(vocabulary=["a"])(inputs))
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        parts = {name: zf.read(name) for name in zf.namelist()}
    config = json.loads(parts["config.json"])
    config["config"]["layers"][1]["config"]["vocabulary"] = str(secret)
    parts["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(tmp_path / "bad.keras", "w") as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    with pytest.raises(ValueError, match="refusing to read the vocabulary file"):
        lamina.saving.load_model(tmp_path / "bad.keras")
    loaded = lamina.saving.load_model(tmp_path / "bad.keras", safe_mode=False)
    assert loaded.layers[1].get_vocabulary() == ["[UNK]", "alpha", "beta"]


def test_an_adapted_tf_idf_layer_round_trips(tmp_path):
    vectorize = layers.TextVectorization(output_mode="tf_idf")
    vectorize.adapt(["the cat sat", "the dog", "a cat ran"])
    inputs = lamina.Input(shape=(1,), dtype="string")
    model = lamina.Model(inputs, vectorize(inputs))
    texts = np.array([["the cat"], ["a dog dog zebra"]])
    expected = model.predict(texts, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(texts, verbose=0), expected, rtol=1e-6)
