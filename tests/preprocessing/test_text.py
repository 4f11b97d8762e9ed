"""preprocessing.text against Keras's own legacy implementation on the same inputs."""

import json
import os

import numpy as np
import pytest

from lamina.preprocessing import text

os.environ.setdefault("KERAS_BACKEND", "jax")
keras_text = pytest.importorskip("keras.src.legacy.preprocessing.text")

TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "The dog barks; the FOX runs!",
    "A quick-quick test: tabs\tand\nnew lines, (brackets) & symbols #1",
    "",
    "zebra fox dog the",
]


def _assert_same_state(ours, theirs):
    assert list(ours.word_counts.items()) == list(theirs.word_counts.items())
    assert dict(ours.word_docs) == dict(theirs.word_docs)
    assert dict(ours.index_docs) == dict(theirs.index_docs)
    assert ours.word_index == theirs.word_index
    assert ours.index_word == theirs.index_word
    assert ours.document_count == theirs.document_count


def test_text_to_word_sequence_matches_keras():
    for sample in TEXTS:
        for kwargs in ({}, {"lower": False}, {"split": ","}, {"filters": "", "split": "-"}):
            assert text.text_to_word_sequence(sample, **kwargs) == (
                keras_text.text_to_word_sequence(sample, **kwargs)
            )
    with pytest.raises(TypeError, match="expects a string; received int"):
        text.text_to_word_sequence(3)


def test_hashing_trick_and_one_hot_match_keras():
    for sample in TEXTS:
        for n in (2, 7, 1000):
            assert text.hashing_trick(sample, n, hash_function="md5") == (
                keras_text.hashing_trick(sample, n, hash_function="md5")
            )
            # Python's hash is salted per process, but the same within one.
            assert text.one_hot(sample, n) == keras_text.one_hot(sample, n)
            assert text.hashing_trick(sample, n, hash_function=len) == (
                keras_text.hashing_trick(sample, n, hash_function=len)
            )
    analyzer = str.split
    assert text.hashing_trick("A b, c", 5, "md5", analyzer=analyzer) == (
        keras_text.hashing_trick("A b, c", 5, "md5", analyzer=analyzer)
    )
    values = text.hashing_trick("the cat", 10, hash_function="md5")
    assert all(1 <= v < 10 for v in values)
    with pytest.raises(ValueError, match="n must be an int >= 2; received 1"):
        text.hashing_trick("a", 1)
    with pytest.raises(ValueError, match="hash_function must be None, 'md5'"):
        text.hashing_trick("a", 5, hash_function="sha1")


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"num_words": 5},
        {"num_words": 5, "oov_token": "<oov>"},
        {"oov_token": "<oov>", "lower": False},
        {"char_level": True, "num_words": 8},
        {"analyzer": lambda s: s.split()},
    ],
)
def test_tokenizer_matches_keras(kwargs):
    ours, theirs = text.Tokenizer(**kwargs), keras_text.Tokenizer(**kwargs)
    corpus = TEXTS + [["Pre", "split", "tokens", "fox"]]
    ours.fit_on_texts(corpus)
    theirs.fit_on_texts(corpus)
    _assert_same_state(ours, theirs)
    queries = ["the unknown fox and the dog", "Quick QUICK zebra!", "", ["fox", "nope"]]
    sequences = ours.texts_to_sequences(queries)
    assert sequences == theirs.texts_to_sequences(queries)
    assert list(ours.texts_to_sequences_generator(queries)) == sequences
    probe = sequences + [[0, 1, 2, 3, 99]]
    assert ours.sequences_to_texts(probe) == theirs.sequences_to_texts(probe)
    for mode in ("binary", "count", "tfidf", "freq"):
        ours_matrix = ours.texts_to_matrix(queries, mode=mode)
        np.testing.assert_array_equal(ours_matrix, theirs.texts_to_matrix(queries, mode=mode))
        assert ours_matrix.dtype == np.float64
        np.testing.assert_array_equal(
            ours.sequences_to_matrix(probe, mode=mode), theirs.sequences_to_matrix(probe, mode=mode)
        )


def test_fit_on_sequences_and_tfidf_match_keras():
    sequences = [[1, 2, 2, 3], [3, 4], [], [4, 4, 4, 1]]
    ours, theirs = text.Tokenizer(num_words=6), keras_text.Tokenizer(num_words=6)
    ours.fit_on_sequences(sequences)
    theirs.fit_on_sequences(sequences)
    assert ours.document_count == theirs.document_count == 4
    assert dict(ours.index_docs) == dict(theirs.index_docs)
    np.testing.assert_array_equal(
        ours.sequences_to_matrix(sequences, mode="tfidf"),
        theirs.sequences_to_matrix(sequences, mode="tfidf"),
    )
    # The tfidf formula, written out for one cell: word 4 appears 3 times in row 3 and in
    # 2 of the 4 documents.
    expected = (1 + np.log(3)) * np.log(1 + 4 / (1 + 2))
    assert ours.sequences_to_matrix(sequences, mode="tfidf")[3, 4] == pytest.approx(expected)


def test_json_round_trip_both_ways():
    ours, theirs = text.Tokenizer(oov_token="?"), keras_text.Tokenizer(oov_token="?")
    ours.fit_on_texts(TEXTS)
    theirs.fit_on_texts(TEXTS)
    assert json.loads(ours.to_json()) == json.loads(theirs.to_json())
    assert ours.get_config() == theirs.get_config()
    restored = text.tokenizer_from_json(theirs.to_json())
    from_ours = keras_text.tokenizer_from_json(ours.to_json())
    for loaded in (restored,):
        assert isinstance(loaded, text.Tokenizer)
    assert restored.word_index == from_ours.word_index
    assert restored.index_word == from_ours.index_word
    assert restored.index_docs == from_ours.index_docs
    assert restored.document_count == from_ours.document_count == len(TEXTS)
    queries = ["the fox", "unseen words"]
    assert restored.texts_to_sequences(queries) == ours.texts_to_sequences(queries)
    np.testing.assert_array_equal(
        restored.texts_to_matrix(queries, "tfidf"), from_ours.texts_to_matrix(queries, "tfidf")
    )
    assert json.loads(ours.to_json(indent=2))["class_name"] == "Tokenizer"


def test_tokenizer_errors():
    with pytest.raises(ValueError, match="matrix width is unknown"):
        text.Tokenizer().texts_to_matrix(["a"])
    with pytest.raises(ValueError, match="tfidf mode needs document counts"):
        text.Tokenizer(num_words=3).sequences_to_matrix([[1]], mode="tfidf")
    tokenizer = text.Tokenizer()
    tokenizer.fit_on_texts(["a b"])
    with pytest.raises(ValueError, match="unknown vectorization mode 'onehot'"):
        tokenizer.texts_to_matrix(["a"], mode="onehot")
    with pytest.raises(TypeError, match="single string"):
        tokenizer.fit_on_texts("a b")
    with pytest.raises(TypeError, match="received int 5"):
        tokenizer.texts_to_sequences([5])
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['bogus'\]"):
        text.Tokenizer(bogus=1)
    with pytest.raises(ValueError, match="'config' entry"):
        text.tokenizer_from_json("[1, 2]")
    with pytest.warns(UserWarning, match="renamed `num_words`"):
        assert text.Tokenizer(nb_words=3).num_words == 3
