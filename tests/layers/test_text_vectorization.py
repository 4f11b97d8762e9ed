"""TextVectorization against Keras 3: its documented examples, the expected values of its
test suite (keras/src/layers/preprocessing/text_vectorization_test.py; Keras needs
TensorFlow to run the layer), and NumPy references of its documented steps."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.saving import register_keras_serializable

TV = layers.TextVectorization
SENTENCE = ["Hello, World!. This is just a nice test!"]


def test_keras_documented_examples():
    layer = TV(max_tokens=5000, output_mode="int", output_sequence_length=4)
    layer.adapt(["foo bar", "bar baz", "baz bada boom"])
    out = layer([["foo qux bar"], ["qux baz"]])
    assert isinstance(out, np.ndarray) and out.dtype == np.int64
    assert out.tolist() == [[4, 1, 3, 0], [1, 2, 0, 0]]
    given = TV(output_sequence_length=4, vocabulary=["earth", "wind", "and", "fire"])
    assert given.get_vocabulary() == ["", "[UNK]", "earth", "wind", "and", "fire"]
    assert given.vocabulary_size() == 6
    assert given.get_vocabulary(include_special_tokens=False) == ["earth", "wind", "and", "fire"]


@pytest.mark.parametrize(
    "kwargs, data, expected",
    [
        (
            {"output_mode": "multi_hot"},
            [["foo bar"], ["baz foo foo"]],
            [[0, 1, 1, 0], [0, 1, 0, 1]],
        ),
        ({"output_mode": "count"}, ["foo bar", "baz foo foo"], [[0, 1, 1, 0], [0, 2, 0, 1]]),
        (
            {"output_mode": "tf_idf", "idf_weights": [0.3, 0.5, 0.2]},
            ["foo bar", "baz foo foo"],
            [[0.0, 0.3, 0.5, 0.0], [0.0, 0.6, 0.0, 0.2]],
        ),
        ({"split": None}, [["foo"], ["bar"], ["unknown"]], [[2], [3], [1]]),
        ({}, ["foo bar baz unknown"], [[2, 3, 4, 1]]),
    ],
)
def test_keras_test_suite_values(kwargs, data, expected):
    layer = TV(vocabulary=["foo", "bar", "baz"], **kwargs)
    np.testing.assert_allclose(layer(data), expected, rtol=1e-6)


def test_standardize_and_split_options():
    words = ["hello", "world", "this", "is", "nice", "test"]
    assert TV(vocabulary=words)(SENTENCE).tolist() == [[2, 3, 4, 5, 1, 1, 6, 7]]
    lower = TV(standardize="lower", vocabulary=["hello,", *words])
    assert lower(SENTENCE).tolist() == [[2, 1, 5, 6, 1, 1, 7, 1]]
    strip = TV(standardize="strip_punctuation", vocabulary=["Hello", "World", "Test"])
    assert strip(["Hello, World! Test."]).tolist() == [[2, 3, 4]]
    assert TV(standardize=None, vocabulary=["Hello", "world"])(["Hello hello"]).tolist() == [[2, 1]]
    chars = TV(split="character", vocabulary=list("abcde"))
    assert chars(["abcf"]).tolist() == [[2, 3, 4, 1]]

    def pipes(texts):
        return [t.split("|") for t in texts]

    # Keras's case: the default standardize strips "|" before the split sees it.
    assert TV(split=pipes, vocabulary=["foo", "bar", "foobar"])(["foo|bar"]).tolist() == [[4]]
    piped = TV(standardize=None, split=pipes, vocabulary=["foo", "bar"])
    assert piped(["foo|bar"]).tolist() == [[2, 3]]
    # As tf.strings.lower does, only ASCII letters are lowercased.
    assert TV(standardize="lower", vocabulary=["école"])(["ÉCOLE école"]).tolist() == [[1, 2]]
    # Whitespace is ASCII whitespace, runs of it one separator.
    assert TV(vocabulary=["a", "b"])(["  a\t\nb  "]).tolist() == [[2, 3]]


def test_callable_standardize_gets_numpy_strings():
    seen = []

    def standardize(text):
        seen.append((type(text), text.dtype.kind))
        return np.char.replace(np.char.lower(text), ",", "")

    layer = TV(standardize=standardize)
    layer.adapt(["Hello, world."])
    assert set(seen) == {(np.ndarray, "U")}
    assert "hello" in layer.get_vocabulary() and "world." in layer.get_vocabulary()
    assert layer(["Hello, world."]).tolist() == [[3, 2]]


def test_ngrams_and_vocabulary_limits():
    bigrams = TV(ngrams=2)
    bigrams.adapt(["foo bar baz"])
    assert bigrams.get_vocabulary() == ["", "[UNK]", "foo bar", "foo", "baz", "bar baz", "bar"]
    # Each row lists its unigrams, then its bigrams (tf.strings.ngrams' order).
    assert bigrams(["foo bar"]).tolist() == [[3, 6, 2]]
    skip = TV(ngrams=(1, 3))
    skip.adapt(["foo bar baz"])
    assert "foo bar baz" in skip.get_vocabulary() and "foo bar" not in skip.get_vocabulary()
    capped = TV(max_tokens=5)
    capped.adapt(["a b c d e f g h i j"])
    assert capped.get_vocabulary() == ["", "[UNK]", "j", "i", "h"]
    padded = TV(
        output_mode="multi_hot", vocabulary=["foo", "bar"], max_tokens=8, pad_to_max_tokens=True
    )
    assert padded(["foo bar"]).tolist() == [[0, 1, 1, 0, 0, 0, 0, 0]]


def test_sequence_lengths():
    layer = TV(vocabulary=["a", "b", "c"], output_sequence_length=3)
    assert layer(["a b c a b", "c", ""]).tolist() == [[2, 3, 4], [4, 0, 0], [0, 0, 0]]
    free = TV(vocabulary=["a", "b", "c"])
    assert free(["a b", "c"]).tolist() == [[2, 3], [4, 0]]  # padded to the longest row
    assert free("a c").tolist() == [2, 4]  # one string in, one row out


def test_tf_idf_adapt_matches_the_documented_formula():
    docs = ["the cat sat", "the dog", "the cat ran the race"]
    layer = TV(output_mode="tf_idf")
    layer.adapt(docs)
    vocab = layer.get_vocabulary(include_special_tokens=False)
    tokens = [d.split() for d in docs]
    counts = {t: sum(d.count(t) for d in tokens) for t in vocab}
    assert vocab == sorted(counts, key=lambda t: (counts[t], t), reverse=True)
    idf = np.log(1 + 3 / (1 + np.array([sum(t in d for d in tokens) for t in vocab])))
    out = layer(["the the race unknown"])
    expected = np.zeros(len(vocab) + 1)
    expected[0] = idf.mean()
    expected[1 + vocab.index("the")] = 2 * idf[vocab.index("the")]
    expected[1 + vocab.index("race")] = idf[vocab.index("race")]
    np.testing.assert_allclose(out[0], expected, rtol=1e-6)


def test_adapt_sources(tmp_path):
    batches = (np.array([["x y"], ["y"]]) for _ in range(5))
    layer = TV()
    layer.adapt(batches, steps=2)
    assert layer.get_vocabulary() == ["", "[UNK]", "y", "x"]
    chunked = TV()
    chunked.adapt(["b a", "b"], batch_size=1)
    assert chunked.get_vocabulary() == ["", "[UNK]", "b", "a"]
    path = tmp_path / "vocab.txt"
    path.write_text("foo\nbar\nbaz\n", encoding="utf-8")
    assert TV(vocabulary=str(path))(["foo bar baz unknown"]).tolist() == [[2, 3, 4, 1]]
    layer.set_vocabulary(["p", "q"])
    assert layer(["q p"]).tolist() == [[3, 2]]


@register_keras_serializable(package="test_text_vectorization")
def _dashes_to_spaces(text):
    return np.char.replace(text, "-", " ")


def test_config_round_trip_with_a_registered_callable():
    layer = TV(
        standardize=_dashes_to_spaces,
        ngrams=(1, 2),
        vocabulary=["foo", "bar"],
        output_sequence_length=3,
    )
    config = layer.get_config()
    assert config["ngrams"] == [1, 2] and config["ragged"] is False
    clone = TV.from_config(config)
    assert clone(["foo-bar"]).tolist() == layer(["foo-bar"]).tolist() == [[2, 3, 1]]


def test_errors():
    with pytest.raises(ValueError, match="ragged=True"):
        TV(ragged=True)
    with pytest.raises(ValueError, match="sparse=True"):
        TV(output_mode="multi_hot", sparse=True)
    with pytest.raises(ValueError, match="output_sequence_length only applies"):
        TV(output_mode="count", output_sequence_length=3)
    with pytest.raises(ValueError, match="ngrams must be"):
        TV(ngrams="2")
    with pytest.raises(ValueError, match="standardize must be"):
        TV(standardize="upper")
    with pytest.raises(ValueError, match=r"shape \(batch,\) or \(batch, 1\)"):
        TV(vocabulary=["a"])([["a b", "c"]])
    with pytest.raises(TypeError, match="takes strings"):
        TV(vocabulary=["a"])(np.array([1, 2]))
    with pytest.raises(ValueError, match="cannot adapt"):
        TV(vocabulary=["a"]).adapt(["a"])


def test_first_layer_of_a_model_on_raw_strings():
    texts = np.array(["the cat sat", "the dog ran", "a cat and a dog", "birds fly"])
    labels = np.array([[1.0], [0.0], [1.0], [0.0]])
    vectorize = TV(max_tokens=20, output_sequence_length=4)
    vectorize.adapt(texts)
    inputs = lamina.Input(shape=(1,), dtype="string")
    ids = vectorize(inputs)
    assert ids.shape == (None, 4) and ids.dtype == "int64"
    embedded = layers.Embedding(20, 3)(ids)
    outputs = layers.Dense(1, activation="sigmoid")(layers.GlobalAveragePooling1D()(embedded))
    model = lamina.Model(inputs, outputs)
    model.compile(optimizer="adam", loss="binary_crossentropy")
    history = model.fit(texts, labels, epochs=1, batch_size=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    # The engine part alone, on the host part's output, gives the same numbers.
    engine_in = lamina.Input(shape=(4,), dtype="int32")
    engine = lamina.Model(
        engine_in, model.layers[-1](model.layers[-2](model.layers[-3](engine_in)))
    )
    query = ["a cat ran", "unknown words here"]
    expected = ops.convert_to_numpy(engine(vectorize(query).astype("int32")))
    np.testing.assert_allclose(model.predict(query, verbose=0), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        ops.convert_to_numpy(model(np.array(query))), expected, rtol=1e-5, atol=1e-6
    )
    # A Sequential without an Input builds from the first batch of strings.
    stacked = lamina.Sequential([vectorize, *model.layers[-3:]])
    np.testing.assert_allclose(
        stacked.predict(np.array(query), verbose=0), expected, rtol=1e-5, atol=1e-6
    )


def test_multi_hot_model_shapes():
    layer = TV(output_mode="multi_hot", vocabulary=["a", "b", "c"])
    inputs = lamina.Input(shape=(1,), dtype="string")
    encoded = layer(inputs)
    assert encoded.shape == (None, 4) and encoded.dtype == "float32"
    model = lamina.Model(inputs, layers.Dense(2)(encoded))
    assert model.predict(["a b", "c c q"], verbose=0).shape == (2, 2)


def test_generators_and_steps_per_execution_take_raw_strings():
    vectorize = TV(max_tokens=20, output_sequence_length=4)
    vectorize.adapt(["a b c", "b c d"])
    inputs = lamina.Input(shape=(1,), dtype="string")
    embedded = layers.Embedding(20, 2)(vectorize(inputs))
    model = lamina.Model(inputs, layers.Dense(1)(layers.Flatten()(embedded)))
    model.compile(optimizer="sgd", loss="mse", steps_per_execution=2)
    texts = np.array(["a b", "c", "d a", "b b", "c d", "a"])
    targets = np.ones((6, 1), "float32")

    def batches():
        for i in range(0, 6, 2):
            yield texts[i : i + 2], targets[i : i + 2]

    assert np.isfinite(model.fit(batches(), epochs=1, verbose=0).history["loss"]).all()
    assert np.isfinite(model.evaluate(texts, targets, batch_size=2, verbose=0))
    assert model.predict(texts, batch_size=2, verbose=0).shape == (6, 1)
