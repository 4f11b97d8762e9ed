"""StringLookup, IntegerLookup (one lookup core) and CategoryEncoding against Keras 3.

Keras needs TensorFlow for the lookups, so their references are Keras's documented
examples and NumPy formulas of its documented behaviour (index layout, adapt order,
idf weights). CategoryEncoding runs in Keras without TensorFlow: it is compared with
Keras itself.
"""

import os

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.utils import PyDataset

VOCAB = ["a", "b", "c", "d"]
DATA = [["a", "c", "d"], ["d", "z", "b"]]


def test_keras_documented_examples():
    assert layers.StringLookup(vocabulary=VOCAB)(DATA).tolist() == [[1, 3, 4], [4, 0, 2]]
    masked = layers.StringLookup(vocabulary=VOCAB, mask_token="")
    assert masked([["a", "c", "d"], ["", "z", "b"]]).tolist() == [[2, 4, 5], [0, 1, 3]]
    two_oov = layers.StringLookup(vocabulary=VOCAB, num_oov_indices=2)
    # Unknown strings pick an OOV index by FarmHash, as Keras does ("m" -> 0, "z" -> 1).
    assert two_oov([["a", "c", "d"], ["m", "z", "b"]]).tolist() == [[2, 4, 5], [0, 1, 3]]
    one_hot = layers.StringLookup(vocabulary=VOCAB, output_mode="one_hot")
    np.testing.assert_array_equal(one_hot(["a", "b", "c", "d", "z"]), np.eye(5)[[1, 2, 3, 4, 0]])
    rows = [["a", "c", "d", "d"], ["d", "z", "b", "z"]]
    multi = layers.StringLookup(vocabulary=VOCAB, output_mode="multi_hot")
    np.testing.assert_array_equal(multi(rows), [[0, 1, 0, 1, 1], [1, 0, 1, 0, 1]])
    count = layers.StringLookup(vocabulary=VOCAB, output_mode="count")
    np.testing.assert_array_equal(count(rows), [[0, 1, 0, 1, 2], [2, 0, 1, 0, 1]])
    tf_idf = layers.StringLookup(
        vocabulary=VOCAB, output_mode="tf_idf", idf_weights=[0.25, 0.75, 0.6, 0.4]
    )
    np.testing.assert_allclose(tf_idf(rows), [[0, 0.25, 0, 0.6, 0.8], [1.0, 0, 0.75, 0, 0.4]])
    with_oov = layers.StringLookup(
        vocabulary=["[UNK]"] + VOCAB, output_mode="tf_idf", idf_weights=[0.9, 0.25, 0.75, 0.6, 0.4]
    )
    np.testing.assert_allclose(with_oov(rows), [[0, 0.25, 0, 0.6, 0.8], [1.8, 0, 0.75, 0, 0.4]])
    inverse = layers.StringLookup(vocabulary=VOCAB, invert=True)
    assert inverse([[1, 3, 4], [4, 0, 2]]).tolist() == [["a", "c", "d"], ["d", "[UNK]", "b"]]
    adapted = layers.StringLookup()
    adapted.adapt(DATA)
    assert adapted.get_vocabulary() == ["[UNK]", "d", "z", "c", "b", "a"]


def test_inputs_of_every_kind_give_the_same_indices():
    layer = layers.StringLookup(vocabulary=VOCAB)
    expected = [[1, 3, 4], [4, 0, 2]]
    for data in (DATA, np.array(DATA), np.array(DATA, dtype="S"), np.array(DATA, dtype=object)):
        out = layer(data)
        assert isinstance(out, np.ndarray) and out.dtype == np.int64
        assert out.tolist() == expected
    assert layer("c").tolist() == 3
    assert layer(["é", "a"]).tolist() == [0, 1]
    inverse = layers.StringLookup(vocabulary=VOCAB, invert=True)
    assert inverse(ops.convert_to_tensor(np.array([2, 9]))).tolist() == ["b", "[UNK]"]


def test_adapt_counts_orders_and_weights_like_keras():
    # Keras: tokens by decreasing count, ties broken by the larger token; max_tokens
    # counts the special indices; idf = log(1 + documents / (1 + documents with it)).
    docs = [["x", "y", "y"], ["y", "z", ""], ["w", "x", "x"]]
    layer = layers.StringLookup(max_tokens=4, mask_token="")
    layer.adapt(docs)
    assert layer.get_vocabulary() == ["", "[UNK]", "y", "x"]  # 3 each: larger first
    tf_idf = layers.StringLookup(output_mode="tf_idf")
    tf_idf.adapt(docs)
    vocab = tf_idf.get_vocabulary(include_special_tokens=False)
    assert vocab == ["y", "x", "z", "w", ""]
    containing = np.array([sum(token in d for d in docs) for token in vocab])
    idf = np.log(1 + 3 / (1 + containing))
    out = tf_idf([["x", "x", "q"]])
    np.testing.assert_allclose(out[0, 1:], [0, 2 * idf[1], 0, 0, 0], rtol=1e-6)
    np.testing.assert_allclose(out[0, 0], idf.mean(), rtol=1e-6)  # OOV: the mean weight

    class Batches(PyDataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return np.array([["a"], ["b"], ["b"]]) if i < 2 else np.array([["c"]] * 9)

    from_batches = layers.StringLookup()
    from_batches.adapt(Batches(), steps=2)
    assert from_batches.get_vocabulary() == ["[UNK]", "b", "a"]
    generator = layers.StringLookup()
    generator.adapt(np.array(["q", "r", "r"]) for _ in range(2))
    assert generator.get_vocabulary() == ["[UNK]", "r", "q"]


def test_vocabulary_sources_and_sizes(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\nc\n", encoding="utf-8")
    from_file = layers.StringLookup(vocabulary=str(path))
    assert from_file.get_vocabulary() == ["[UNK]", "a", "b", "c"]
    assert from_file.get_config()["vocabulary"] is None  # a path travels as an asset
    layer = layers.StringLookup(vocabulary=VOCAB, mask_token="")
    assert layer.vocabulary_size() == 6
    assert layer.get_vocabulary(include_special_tokens=False) == VOCAB
    layer.set_vocabulary(["", "[UNK]", "x", "y"])  # special tokens leading: dropped
    assert layer.get_vocabulary() == ["", "[UNK]", "x", "y"]
    padded = layers.StringLookup(
        vocabulary=VOCAB, max_tokens=8, pad_to_max_tokens=True, output_mode="count"
    )
    assert padded([["a", "a"]]).tolist() == [[0, 2, 0, 0, 0, 0, 0, 0]]
    clone = layers.StringLookup.from_config(layer.get_config())
    assert clone([["x", "", "q"]]).tolist() == layer([["x", "", "q"]]).tolist() == [[2, 0, 1]]


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"received unknown tokens \['z'\]"):
        layers.StringLookup(vocabulary=VOCAB, num_oov_indices=0)(DATA)
    with pytest.raises(ValueError, match="empty vocabulary"):
        layers.StringLookup(vocabulary=[])
    with pytest.raises(ValueError, match=r"repeated tokens \['a'\]"):
        layers.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="holds the mask token"):
        layers.StringLookup(vocabulary=["a", ""], mask_token="")
    with pytest.raises(ValueError, match="sparse=True"):
        layers.StringLookup(output_mode="multi_hot", sparse=True)
    with pytest.raises(ValueError, match="no vocabulary yet"):
        layers.StringLookup(output_mode="multi_hot")([["a"]])
    with pytest.raises(ValueError, match="exceeds max_tokens=3"):
        layers.StringLookup(vocabulary=VOCAB, max_tokens=3)
    with pytest.raises(TypeError, match="looks up strings"):
        layers.StringLookup(vocabulary=VOCAB)(np.array([1, 2]))
    with pytest.raises(ValueError, match="ragged"):
        layers.StringLookup(vocabulary=VOCAB)([["a", "b"], ["c"]])
    with pytest.raises(ValueError, match="cannot adapt a layer created with a fixed"):
        layers.StringLookup(vocabulary=VOCAB).adapt(DATA)


def test_integer_lookup_parity():
    vocab = [12, 36, 1138, 42]
    # In encoded modes Keras keeps no column for the mask token and drops it.
    masked = layers.IntegerLookup(vocabulary=vocab, mask_token=0, output_mode="multi_hot")
    out = ops.convert_to_numpy(masked(np.array([[12, 0, 42], [7, 0, 0]])))
    np.testing.assert_array_equal(out, [[0, 1, 0, 0, 1], [1, 0, 0, 0, 0]])
    assert masked.get_vocabulary() == [-1] + vocab
    # oov_method="farmhash" hashes the decimal text of unknown tokens, as Hashing does.
    farm = layers.IntegerLookup(vocabulary=vocab, num_oov_indices=3, oov_method="farmhash")
    unknown = np.array([[5, 6, 7, 8, 9, 10, 11]])
    np.testing.assert_array_equal(farm(unknown), layers.Hashing(num_bins=3)(unknown))
    floormod = layers.IntegerLookup(vocabulary=vocab, num_oov_indices=3)
    np.testing.assert_array_equal(ops.convert_to_numpy(floormod(unknown)), unknown % 3)
    # Keras's config arguments are accepted (they were refused before).
    layer = layers.IntegerLookup(vocabulary=vocab, vocabulary_size=5, autocast=False)
    assert layer.vocabulary_size() == 5
    assert layers.IntegerLookup.from_config(layer.get_config()).get_vocabulary() == [-1] + vocab


def test_string_input_dtype():
    x = lamina.Input(shape=(1,), dtype="string")
    assert x.dtype == "string"
    out = layers.StringLookup(vocabulary=VOCAB, output_mode="one_hot")(x)
    assert out.shape == (None, 5) and out.dtype == "float32"
    assert layers.StringLookup(vocabulary=VOCAB)(x).dtype == "int64"


def test_string_lookup_first_in_a_model_trains_and_predicts():
    inputs = lamina.Input(shape=(1,), dtype="string")
    indices = layers.StringLookup(vocabulary=VOCAB)(inputs)
    outputs = layers.Dense(1)(layers.Flatten()(layers.Embedding(5, 3)(indices)))
    model = lamina.Model(inputs, outputs)
    model.compile(optimizer="adam", loss="mse")
    words = np.array(["a", "b", "c", "d", "z", "a"])  # rank 1: the trailing 1 is added
    history = model.fit(words, np.arange(6.0)[:, None], epochs=1, batch_size=4, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    embedding = ops.convert_to_numpy(model.layers[2].embeddings)
    dense = model.layers[4]
    kernel, bias = (ops.convert_to_numpy(w) for w in (dense.kernel, dense.bias))
    expected = embedding[[1, 0, 4]] @ kernel + bias
    for result in (
        model.predict(np.array([["a"], ["q"], ["d"]]), verbose=0),
        model.predict(["a", "q", "d"], verbose=0),
        ops.convert_to_numpy(model(np.array(["a", "q", "d"]))),
        model.predict_on_batch(np.array(["a", "q", "d"])),
    ):
        np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-6)
    assert np.isfinite(model.evaluate(words, np.zeros((6, 1)), verbose=0))


def test_numeric_inputs_beside_a_string_input_are_conformed_as_keras_conforms_them():
    """keras-io's structured-data example: a numeric `Input(shape=(1,))` given a 1-D int
    array, beside a string input feeding a StringLookup. Keras's Functional adds the
    trailing axis and casts to the Input's float32 (as lamina does without the string
    input); both must hold in every calling mode, and a wrong shape is named."""
    number = lamina.Input(shape=(1,), name="number")
    word = lamina.Input(shape=(1,), name="word", dtype="string")
    as_given = layers.Lambda(lambda t: t, name="as_given")(number)
    index = layers.StringLookup(vocabulary=VOCAB)(word)
    both = layers.Concatenate()([as_given, ops.cast(index, "float32")])
    model = lamina.Model({"number": number, "word": word}, [as_given, layers.Dense(1)(both)])
    model.compile(optimizer="sgd", loss=["mse", "mse"])
    data = {"number": np.arange(4), "word": np.array(["a", "b", "q", "d"])}
    expected = np.arange(4, dtype="float32")[:, None]
    for got in (
        model.predict(data, verbose=0)[0],
        model.predict_on_batch(data)[0],
        ops.convert_to_numpy(model(data)[0]),
    ):
        assert got.shape == (4, 1) and got.dtype == np.float32
        np.testing.assert_array_equal(got, expected)
    targets = [np.zeros((4, 1)), np.zeros((4, 1))]
    assert np.isfinite(model.fit(data, targets, epochs=1, verbose=0).history["loss"]).all()
    assert np.isfinite(model.evaluate(data, targets, verbose=0)).all()
    with pytest.raises(ValueError, match=r"input 0 \('number'\) expected shape \(None, 1\)"):
        model.predict({"number": np.zeros((4, 3)), "word": data["word"]}, verbose=0)


def test_models_that_cannot_take_strings_say_so():
    numeric = lamina.Sequential([lamina.Input((1,)), layers.Dense(1)])
    with pytest.raises(TypeError, match="this model takes no strings"):
        numeric.predict(np.array([["a"], ["b"]]), verbose=0)
    inputs = lamina.Input(shape=(1,), dtype="string")
    late = layers.StringLookup(vocabulary=VOCAB)
    dense_first = lamina.Model(inputs, layers.Dense(1)(inputs))
    with pytest.raises(ValueError, match="takes the string tensor"):
        dense_first.predict(np.array([["a"]]), verbose=0)
    numbers = lamina.Input(shape=(1,))
    after = lamina.Model(numbers, layers.Hashing(4)(layers.Dense(1)(numbers)))
    with pytest.raises(ValueError, match="must take the model's inputs"):
        after.predict(np.ones((2, 1)), verbose=0)
    inverted = lamina.Model(
        inputs, layers.StringLookup(vocabulary=VOCAB, invert=True)(late(inputs))
    )
    with pytest.raises(ValueError, match="holds strings"):
        inverted.predict(np.array([["a"]]), verbose=0)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_category_encoding_matches_keras():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    cases = [
        ({"num_tokens": 4, "output_mode": "multi_hot"}, np.array([[0, 1], [0, 0], [1, 2], [3, 1]])),
        ({"num_tokens": 4, "output_mode": "one_hot"}, np.array([[3], [2], [0], [1]])),
        ({"num_tokens": 5, "output_mode": "count"}, np.array([[0, 1, 1, 4], [2, 2, 2, 0]])),
        ({"num_tokens": 3, "output_mode": "binary"}, np.array([[0, 1], [2, 2]])),
    ]
    for kwargs, data in cases:
        ours = ops.convert_to_numpy(layers.CategoryEncoding(**kwargs)(data))
        theirs = keras.ops.convert_to_numpy(keras.layers.CategoryEncoding(**kwargs)(data))
        np.testing.assert_allclose(ours, theirs, err_msg=str(kwargs))
        assert ours.shape == theirs.shape
    weights = np.array([[0.5, 1.0, 2.0, 0.25], [1.0, 1.0, 1.0, 3.0]], "float32")
    data = np.array([[0, 1, 1, 4], [2, 2, 2, 0]])
    ours = layers.CategoryEncoding(5, output_mode="count")(data, count_weights=weights)
    theirs = keras.layers.CategoryEncoding(5, output_mode="count")(data, count_weights=weights)
    np.testing.assert_allclose(ops.convert_to_numpy(ours), keras.ops.convert_to_numpy(theirs))
