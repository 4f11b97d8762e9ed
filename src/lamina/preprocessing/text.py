"""Classic text preprocessing: `Tokenizer`, `text_to_word_sequence`, `one_hot`,
`hashing_trick`.

These are the Keras 2.x (`keras.preprocessing.text`) utilities that Keras-2-era programs
use to turn raw strings into integer sequences or bag-of-words matrices. They work on
plain Python strings and lists and give the same numbers as Keras's implementation
(word indices by decreasing frequency, ties in first-seen order; index 0 reserved).
For new code, `lamina.layers.TextVectorization` does the same job as a layer.
"""

from __future__ import annotations

import collections
import hashlib
import json
import warnings

import numpy as np

DEFAULT_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'

_MATRIX_MODES = ("binary", "count", "tfidf", "freq")


def text_to_word_sequence(
    input_text: str,
    filters: str = DEFAULT_FILTERS,
    lower: bool = True,
    split: str = " ",
) -> list[str]:
    """Split a text into a list of words.

    Every character in `filters` is treated as a separator, then the text is split on
    `split` and empty pieces are dropped.

    Args:
        input_text: the text (a `str`).
        filters: characters to remove (each acts as a separator).
        lower: whether to lower-case the text first.
        split: the word separator.

    Returns:
        A list of words.

    >>> text_to_word_sequence("The cat, the HAT!")
    ['the', 'cat', 'the', 'hat']
    """
    if not isinstance(input_text, str):
        raise TypeError(
            f"text_to_word_sequence expects a string; received {type(input_text).__name__} "
            f"{input_text!r}."
        )
    if lower:
        input_text = input_text.lower()
    if filters:
        input_text = input_text.translate(str.maketrans(dict.fromkeys(filters, split)))
    return [word for word in input_text.split(split) if word]


def _md5_hash(word: str) -> int:
    return int(hashlib.md5(word.encode()).hexdigest(), 16)


def hashing_trick(
    text: str,
    n: int,
    hash_function=None,
    filters: str = DEFAULT_FILTERS,
    lower: bool = True,
    split: str = " ",
    analyzer=None,
) -> list[int]:
    """Turn a text into a list of word indices in `[1, n)` by hashing each word.

    Index 0 is never produced (it is kept for padding). Different words may share an
    index (hash collisions).

    Args:
        text: the text.
        n: the size of the hashing space; indices fall in `[1, n - 1]`.
        hash_function: `None` (Python's `hash`, which is salted per process unless
            `PYTHONHASHSEED` is set), `"md5"` (stable across processes), or a callable
            from a word to an int.
        filters: characters to remove (see `text_to_word_sequence`).
        lower: whether to lower-case the text.
        split: the word separator.
        analyzer: optional callable from the text to its list of words (replaces the
            filters/lower/split splitting).

    Returns:
        A list of integer word indices.

    >>> hashing_trick("the cat the", 10, hash_function="md5")
    [6, 3, 6]
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"hashing_trick: n must be an int >= 2; received {n!r}.")
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        hash_function = _md5_hash
    elif not callable(hash_function):
        raise ValueError(
            "hashing_trick: hash_function must be None, 'md5' or a callable; received "
            f"{hash_function!r}."
        )
    if analyzer is None:
        words = text_to_word_sequence(text, filters=filters, lower=lower, split=split)
    else:
        words = analyzer(text)
    return [hash_function(word) % (n - 1) + 1 for word in words]


def one_hot(
    input_text: str,
    n: int,
    filters: str = DEFAULT_FILTERS,
    lower: bool = True,
    split: str = " ",
    analyzer=None,
) -> list[int]:
    """Turn a text into a list of word indices in `[1, n)` with Python's `hash`.

    Despite its name this returns indices, not one-hot vectors: it is
    `hashing_trick(input_text, n, hash_function=hash, ...)`. Python salts `hash` of
    strings per process, so indices change between runs unless `PYTHONHASHSEED` is set;
    use `hashing_trick(..., hash_function="md5")` for stable indices.

    Args:
        input_text: the text.
        n: the size of the hashing space.
        filters: characters to remove.
        lower: whether to lower-case the text.
        split: the word separator.
        analyzer: optional callable from the text to its list of words.

    Returns:
        A list of integer word indices.
    """
    return hashing_trick(
        input_text,
        n,
        hash_function=hash,
        filters=filters,
        lower=lower,
        split=split,
        analyzer=analyzer,
    )


class Tokenizer:
    """Vectorize texts into integer sequences or bag-of-words matrices.

    `fit_on_texts` builds the vocabulary: `word_index` ranks words by decreasing count
    (ties keep first-seen order), starting at 1; index 0 is never a word. With
    `oov_token`, that token takes index 1 and stands in for unknown words. `num_words`
    limits *use* of the vocabulary (only indices below `num_words` are emitted), not its
    size.

    Args:
        num_words: keep only words with index `< num_words` when converting (`None`:
            all of them).
        filters: characters removed from texts (each acts as a separator).
        lower: whether to lower-case texts.
        split: the word separator.
        char_level: treat every character as a token.
        oov_token: a token for out-of-vocabulary words (added to `word_index` as 1).
        analyzer: optional callable from a text to its list of tokens (replaces the
            filters/lower/split splitting).
        document_count: the starting document count (restored by `tokenizer_from_json`).

    >>> tokenizer = Tokenizer(num_words=4, oov_token="<unk>")
    >>> tokenizer.fit_on_texts(["the cat sat", "the cat ran", "the dog"])
    >>> tokenizer.word_index
    {'<unk>': 1, 'the': 2, 'cat': 3, 'sat': 4, 'ran': 5, 'dog': 6}
    >>> tokenizer.texts_to_sequences(["the dog sat on the cat"])
    [[2, 1, 1, 1, 2, 3]]
    """

    def __init__(
        self,
        num_words: int | None = None,
        filters: str = DEFAULT_FILTERS,
        lower: bool = True,
        split: str = " ",
        char_level: bool = False,
        oov_token: str | None = None,
        analyzer=None,
        document_count: int = 0,
        **kwargs,
    ):
        if "nb_words" in kwargs:
            warnings.warn(
                "Tokenizer: `nb_words` was renamed `num_words`; use `num_words`.",
                stacklevel=2,
            )
            num_words = kwargs.pop("nb_words")
        if kwargs:
            raise TypeError(
                f"Tokenizer got unexpected keyword arguments {sorted(kwargs)}; accepted: "
                "num_words, filters, lower, split, char_level, oov_token, analyzer, "
                "document_count."
            )
        if num_words is not None and (isinstance(num_words, bool) or int(num_words) < 0):
            raise ValueError(
                f"Tokenizer: num_words must be None or a non-negative int; received {num_words!r}."
            )
        self.word_counts = collections.OrderedDict()
        self.word_docs = collections.defaultdict(int)
        self.filters = filters
        self.split = split
        self.lower = lower
        self.num_words = num_words
        self.document_count = document_count
        self.char_level = char_level
        self.oov_token = oov_token
        self.index_docs = collections.defaultdict(int)
        self.word_index = {}
        self.index_word = {}
        self.analyzer = analyzer

    def _tokens(self, text):
        """The tokens of one text: a list of tokens is taken as already split."""
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        if self.analyzer is not None:
            return self.analyzer(text)
        if not isinstance(text, str):
            raise TypeError(
                "Tokenizer expects each text to be a string (or a list of tokens); received "
                f"{type(text).__name__} {text!r}."
            )
        return text_to_word_sequence(text, filters=self.filters, lower=self.lower, split=self.split)

    def fit_on_texts(self, texts) -> None:
        """Update the vocabulary from a list of texts.

        Args:
            texts: a list of strings, or of lists of tokens (or a generator of either).
        """
        if isinstance(texts, str):
            raise TypeError(
                "Tokenizer.fit_on_texts expects a list of texts; received a single string. "
                "Wrap it in a list: fit_on_texts([text])."
            )
        for text in texts:
            self.document_count += 1
            tokens = self._tokens(text)
            for token in tokens:
                self.word_counts[token] = self.word_counts.get(token, 0) + 1
            for token in set(tokens):
                self.word_docs[token] += 1
        # A stable sort keeps first-seen order among words of equal count.
        ranked = sorted(self.word_counts.items(), key=lambda item: item[1], reverse=True)
        vocabulary = [] if self.oov_token is None else [self.oov_token]
        vocabulary.extend(word for word, _ in ranked)
        self.word_index = {word: i for i, word in enumerate(vocabulary, start=1)}
        self.index_word = {i: word for word, i in self.word_index.items()}
        for word, count in list(self.word_docs.items()):
            self.index_docs[self.word_index[word]] = count

    def fit_on_sequences(self, sequences) -> None:
        """Update document counts from integer sequences (needed for `tfidf` when fitting
        on sequences rather than texts).

        Args:
            sequences: a list of sequences of word indices.
        """
        self.document_count += len(sequences)
        for sequence in sequences:
            for index in set(sequence):
                self.index_docs[index] += 1

    def texts_to_sequences(self, texts) -> list[list[int]]:
        """Convert texts to lists of word indices.

        Words not in the vocabulary (or with index `>= num_words`) are dropped, or
        replaced by the `oov_token`'s index when there is one.

        Args:
            texts: a list of strings (or of lists of tokens).

        Returns:
            A list of lists of ints.
        """
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts):
        """Like `texts_to_sequences`, yielding one sequence per text."""
        if isinstance(texts, str):
            raise TypeError(
                "Tokenizer.texts_to_sequences expects a list of texts; received a single "
                "string. Wrap it in a list."
            )
        num_words = self.num_words
        oov_index = self.word_index.get(self.oov_token)
        for text in texts:
            sequence = []
            for token in self._tokens(text):
                index = self.word_index.get(token)
                if index is not None and not (num_words and index >= num_words):
                    sequence.append(index)
                elif oov_index is not None:
                    sequence.append(oov_index)
            yield sequence

    def sequences_to_texts(self, sequences) -> list[str]:
        """Convert lists of word indices back to space-joined texts.

        Args:
            sequences: a list of lists of ints.

        Returns:
            A list of strings.
        """
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences):
        """Like `sequences_to_texts`, yielding one text per sequence."""
        num_words = self.num_words
        oov_index = self.word_index.get(self.oov_token)
        oov_word = self.index_word.get(oov_index) if oov_index is not None else None
        for sequence in sequences:
            words = []
            for index in sequence:
                word = self.index_word.get(index)
                if word is not None and not (num_words and index >= num_words):
                    words.append(word)
                elif oov_index is not None:
                    words.append(oov_word)
            yield " ".join(words)

    def texts_to_matrix(self, texts, mode: str = "binary") -> np.ndarray:
        """Convert texts to a `(len(texts), num_words)` matrix (see `sequences_to_matrix`).

        Args:
            texts: a list of strings.
            mode: `"binary"`, `"count"`, `"tfidf"` or `"freq"`.

        Returns:
            A float64 NumPy array.
        """
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode: str = "binary") -> np.ndarray:
        """Convert lists of word indices to a bag-of-words matrix.

        Columns are word indices (`num_words` of them, or `len(word_index) + 1`);
        indices beyond are ignored. `"binary"`: 1 where a word occurs; `"count"`: its
        count; `"freq"`: its count over the sequence length; `"tfidf"`:
        `(1 + log(count)) * log(1 + document_count / (1 + docs containing the word))`.

        Args:
            sequences: a list of lists of ints.
            mode: `"binary"`, `"count"`, `"tfidf"` or `"freq"`.

        Returns:
            A float64 NumPy array of shape `(len(sequences), num_words)`.
        """
        if mode not in _MATRIX_MODES:
            raise ValueError(
                f"Tokenizer: unknown vectorization mode {mode!r}; expected one of {_MATRIX_MODES}."
            )
        if self.num_words:
            num_words = self.num_words
        elif self.word_index:
            num_words = len(self.word_index) + 1
        else:
            raise ValueError(
                "Tokenizer: the matrix width is unknown. Pass `num_words` to the Tokenizer, "
                "or fit it on some texts first."
            )
        if mode == "tfidf" and not self.document_count:
            raise ValueError(
                "Tokenizer: tfidf mode needs document counts; call fit_on_texts or "
                "fit_on_sequences first."
            )
        matrix = np.zeros((len(sequences), num_words))
        for row, sequence in enumerate(sequences):
            if not len(sequence):
                continue
            counts = collections.Counter(int(j) for j in sequence if j < num_words)
            for j, count in counts.items():
                if mode == "count":
                    matrix[row, j] = count
                elif mode == "freq":
                    matrix[row, j] = count / len(sequence)
                elif mode == "binary":
                    matrix[row, j] = 1
                else:
                    tf = 1 + np.log(count)
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    matrix[row, j] = tf * idf
        return matrix

    def get_config(self) -> dict:
        """The tokenizer's settings and vocabulary, as Keras writes them (the tables as
        JSON strings)."""
        return {
            "num_words": self.num_words,
            "filters": self.filters,
            "lower": self.lower,
            "split": self.split,
            "char_level": self.char_level,
            "oov_token": self.oov_token,
            "document_count": self.document_count,
            "word_counts": json.dumps(self.word_counts),
            "word_docs": json.dumps(self.word_docs),
            "index_docs": json.dumps(self.index_docs),
            "index_word": json.dumps(self.index_word),
            "word_index": json.dumps(self.word_index),
        }

    def to_json(self, **kwargs) -> str:
        """The tokenizer as a JSON string (read back with `tokenizer_from_json`).

        Args:
            **kwargs: passed to `json.dumps`.
        """
        return json.dumps(
            {"class_name": type(self).__name__, "config": self.get_config()}, **kwargs
        )


def tokenizer_from_json(json_string: str) -> Tokenizer:
    """Rebuild a `Tokenizer` from `Tokenizer.to_json()` output (Keras's format too).

    Args:
        json_string: the JSON text.

    Returns:
        A `Tokenizer` with the saved settings and vocabulary.

    >>> tokenizer = Tokenizer()
    >>> tokenizer.fit_on_texts(["a b b"])
    >>> tokenizer_from_json(tokenizer.to_json()).word_index
    {'b': 1, 'a': 2}
    """
    payload = json.loads(json_string)
    if not isinstance(payload, dict) or not isinstance(payload.get("config"), dict):
        raise ValueError(
            "tokenizer_from_json expects the JSON written by Tokenizer.to_json(), an object "
            "with a 'config' entry; received something else."
        )
    config = dict(payload["config"])
    tables = {}
    for key in ("word_counts", "word_docs", "index_docs", "index_word", "word_index"):
        if key not in config:
            raise ValueError(f"tokenizer_from_json: the config has no {key!r} entry.")
        tables[key] = json.loads(config.pop(key))
    tokenizer = Tokenizer(**config)
    # JSON object keys are strings: restore the integer keys.
    tokenizer.word_counts = tables["word_counts"]
    tokenizer.word_docs = tables["word_docs"]
    tokenizer.index_docs = {int(k): v for k, v in tables["index_docs"].items()}
    tokenizer.index_word = {int(k): v for k, v in tables["index_word"].items()}
    tokenizer.word_index = tables["word_index"]
    return tokenizer
