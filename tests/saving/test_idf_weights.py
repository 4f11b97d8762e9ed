"""A tf_idf lookup's idf weights in `.keras` files, where Keras 3 keeps them.

Keras 3's IndexLookup (StringLookup, IntegerLookup, and TextVectorization through its
lookup layer) files an adapted tf_idf layer's weights with `save_own_variables` as the
weights-file entry `<layer path>/vars/idf_weights`: one float32 weight per index, the
special tokens first, zero-padded to `max_tokens` with `pad_to_max_tokens`. Its
vocabulary is the `vocabulary.txt` asset. Keras needs TensorFlow to adapt these layers,
so the Keras-layout files here are written by hand, following Keras's source for the
names; outputs are checked against a NumPy tf-idf formula
(count * log(1 + documents / (1 + document frequency))).
"""

import io
import zipfile

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers

WORDS = [["red", "blue", "red"], ["blue", "green", "blue"], ["red", "teal", "pink"]]
CODES = [[7, 3, 7], [3, 5, 3], [7, 9, 11]]
TEXTS = ["red blue red", "blue green blue", "red teal pink"]


def _idf(vocabulary, documents, token_start=1):
    """Keras's idf layout: the weight of each index, OOV indices first (the mean)."""
    frequency = np.array([sum(t in set(d) for d in documents) for t in vocabulary], float)
    weights = np.log(1 + len(documents) / (1 + frequency))
    return np.concatenate([np.full(token_start, weights.mean()), weights])


def _tf_idf(rows, vocabulary, idf):
    """NumPy tf-idf: each row's token counts over the indices (OOV at 0), times idf."""
    index = {t: i + 1 for i, t in enumerate(vocabulary)}
    out = np.zeros((len(rows), len(idf)))
    for r, row in enumerate(rows):
        for token in row:
            out[r, index.get(token, 0)] += 1
    return out * idf


def _adapted(kind):
    if kind == "string_lookup":
        layer = layers.StringLookup(output_mode="tf_idf")
        layer.adapt(np.array(WORDS))
        return layer, WORDS, lamina.Input(shape=(3,), dtype="string")
    if kind == "integer_lookup":
        layer = layers.IntegerLookup(output_mode="tf_idf")
        layer.adapt(np.array(CODES))
        return layer, CODES, lamina.Input(shape=(3,), dtype="int64")
    layer = layers.TextVectorization(output_mode="tf_idf")
    layer.adapt(TEXTS)
    return layer, [t.split() for t in TEXTS], lamina.Input(shape=(1,), dtype="string")


def _model(kind):
    layer, documents, inputs = _adapted(kind)
    return lamina.Model(inputs, layer(inputs)), layer, documents


def _data(kind, rows):
    if kind == "text_vectorization":
        return np.array([[" ".join(map(str, row))] for row in rows])
    return np.array(rows, dtype="int64" if kind == "integer_lookup" else object)


KINDS = ["string_lookup", "integer_lookup", "text_vectorization"]


def _paths(kind):
    """Where Keras files the layer: its own path, and a TextVectorization's lookup too."""
    base = f"layers/{kind}"
    return [base, f"{base}/_lookup_layer"] if kind == "text_vectorization" else [base]


def _rewrite(path, out, edit_weights, assets):
    """Copy the `.keras` file at `path` to `out`, editing its weights file in place and
    replacing its assets with `assets` (name -> bytes)."""
    with zipfile.ZipFile(path) as zf:
        parts = {n: zf.read(n) for n in zf.namelist() if not n.startswith("assets/")}
    weights = io.BytesIO(parts["model.weights.h5"])
    with h5py.File(weights, "a") as f:
        edit_weights(f)
    parts["model.weights.h5"] = weights.getvalue()
    parts.update(assets)
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return out


# The layers' own store protocol (what the weights file calls) ---------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_save_own_variables_files_keras_idf_layout(kind):
    layer, documents, _ = _adapted(kind)
    store = {}
    layer.save_own_variables(store)
    assert set(store) == {"idf_weights"}
    vocabulary = layer.get_vocabulary()[1:]
    assert store["idf_weights"].dtype == np.float32
    np.testing.assert_allclose(store["idf_weights"], _idf(vocabulary, documents), rtol=1e-6)
    # Other modes store nothing, as in Keras.
    plain = {}
    layers.StringLookup(vocabulary=["a"]).save_own_variables(plain)
    assert plain == {}


def test_pad_to_max_tokens_pads_the_idf_entry_with_zeros():
    layer = layers.StringLookup(output_mode="tf_idf", max_tokens=8, pad_to_max_tokens=True)
    layer.adapt(np.array(WORDS))
    store = {}
    layer.save_own_variables(store)
    expected = _idf(layer.get_vocabulary()[1:], WORDS)
    assert store["idf_weights"].shape == (8,)
    np.testing.assert_allclose(store["idf_weights"][: expected.size], expected, rtol=1e-6)
    assert not store["idf_weights"][expected.size :].any()


def test_load_own_variables_then_the_vocabulary_asset(tmp_path):
    """What loading does: the weights entry first, then `vocabulary.txt`."""
    vocabulary = ["teal", "red", "blue", "green"]
    idf = np.array([0.5, 1.5, 0.25, 2.0, 1.0], "float32")
    (tmp_path / "vocabulary.txt").write_text("\n".join(["[UNK]"] + vocabulary))
    layer = layers.StringLookup(output_mode="tf_idf")
    layer.load_own_variables({"idf_weights": idf})
    layer.load_assets(str(tmp_path))
    rows = [["red", "red", "pink"], ["teal", "blue", "green"]]
    np.testing.assert_allclose(layer(np.array(rows)), _tf_idf(rows, vocabulary, idf), rtol=1e-6)
    with pytest.raises(ValueError, match="1-D array of finite numbers"):
        layers.StringLookup(output_mode="tf_idf").load_own_variables(
            {"idf_weights": np.ones((2, 2))}
        )
    bare = layers.StringLookup(output_mode="tf_idf")
    with pytest.raises(ValueError, match="'idf_weights' entry for this layer"):
        bare.load_assets(str(tmp_path))


# Whole files ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_lamina_files_hold_idf_weights_where_keras_reads_them(tmp_path, kind):
    model, layer, documents = _model(kind)
    model.save(tmp_path / "m.keras")
    expected = _idf(layer.get_vocabulary()[1:], documents)
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        with h5py.File(io.BytesIO(zf.read("model.weights.h5")), "r") as f:
            for path in _paths(kind):
                stored = f[f"{path}/vars"]
                assert list(stored) == ["idf_weights"]
                assert stored["idf_weights"].dtype == np.float32
                np.testing.assert_allclose(stored["idf_weights"][()], expected, rtol=1e-6)
    rows = [documents[0], documents[2]]
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(
        loaded.predict(_data(kind, rows), verbose=0),
        _tf_idf(rows, layer.get_vocabulary()[1:], expected),
        rtol=1e-5,
    )


@pytest.mark.parametrize("kind", KINDS)
def test_a_keras_layout_tf_idf_file_loads_with_its_idf_weights(tmp_path, kind):
    model, layer, _ = _model(kind)
    model.save(tmp_path / "m.keras")
    # A vocabulary and weights of Keras's layout, unlike what lamina's adapt gave, so
    # the outputs can only come from the file's entries.
    vocabulary = layer.get_vocabulary()[1:][::-1]
    idf = np.linspace(0.25, 2.0, len(vocabulary) + 1).astype("float32")

    def edit(f):
        for path in _paths(kind):
            stored = f[f"{path}/vars"]
            for key in list(stored):
                del stored[key]
            stored.create_dataset("idf_weights", data=idf)

    text = "\n".join(str(t) for t in ["[UNK]" if kind != "integer_lookup" else -1, *vocabulary])
    assets = {f"assets/{p}/vocabulary.txt": text.encode() for p in _paths(kind)}
    path = _rewrite(tmp_path / "m.keras", tmp_path / "keras.keras", edit, assets)
    loaded = lamina.saving.load_model(path)
    rows = [[vocabulary[0], vocabulary[0], vocabulary[2]], [vocabulary[1], vocabulary[3], 999]]
    if kind != "integer_lookup":
        rows[1][2] = "zebra"
    np.testing.assert_allclose(
        loaded.predict(_data(kind, rows), verbose=0), _tf_idf(rows, vocabulary, idf), rtol=1e-5
    )


def test_older_lamina_files_with_the_idf_asset_still_load(tmp_path):
    model, layer, documents = _model("string_lookup")
    model.save(tmp_path / "m.keras")
    vocabulary = layer.get_vocabulary()[1:]
    idf = _idf(vocabulary, documents)

    def drop_entry(f):
        del f["layers/string_lookup/vars/idf_weights"]

    assets = {
        "assets/layers/string_lookup/vocabulary.txt": "\n".join(["[UNK]", *vocabulary]).encode(),
        "assets/layers/string_lookup/idf_weights.txt": "\n".join(
            repr(float(w)) for w in idf
        ).encode(),
    }
    path = _rewrite(tmp_path / "m.keras", tmp_path / "old.keras", drop_entry, assets)
    loaded = lamina.saving.load_model(path)
    np.testing.assert_allclose(
        loaded.predict(np.array(WORDS, object), verbose=0),
        _tf_idf(WORDS, vocabulary, idf),
        rtol=1e-5,
    )


def test_the_weights_loader_still_checks_named_entries(tmp_path):
    model, _, _ = _model("string_lookup")
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        assets = {n: zf.read(n) for n in zf.namelist() if n.startswith("assets/")}

    def as_text(f):
        del f["layers/string_lookup/vars/idf_weights"]
        f["layers/string_lookup/vars"].create_dataset("idf_weights", data=np.array([b"x"]))

    path = _rewrite(tmp_path / "m.keras", tmp_path / "bad.keras", as_text, assets)
    with pytest.raises(ValueError, match="not numbers"):
        lamina.saving.load_model(path)

    def as_group(f):
        del f["layers/string_lookup/vars/idf_weights"]
        f["layers/string_lookup/vars"].create_group("idf_weights")

    path = _rewrite(tmp_path / "m.keras", tmp_path / "bad2.keras", as_group, assets)
    with pytest.raises(ValueError, match="not an internal dataset"):
        lamina.saving.load_model(path)
