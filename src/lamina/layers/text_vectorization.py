"""TextVectorization: raw text to token indices or bag-of-words vectors, on the host.

The steps are Keras 3's (its TensorFlow string ops, redone in Python): standardize
(ASCII lowercasing as `tf.strings.lower` does, and stripping ASCII punctuation), split
(on ASCII whitespace, into characters, or a callable), n-grams (joined by one space,
width by width as `tf.strings.ngrams` orders them), then a `StringLookup` with `""` as
the mask (padding) token and `"[UNK]"` as the OOV token.
"""

from __future__ import annotations

import re

import numpy as np

from lamina import backend
from lamina.common import serialization
from lamina.graph.keras_tensor import KerasTensor
from lamina.layers.layer import Layer
from lamina.layers.lookup import adapt_batches, host_array, is_text, register
from lamina.layers.string_lookup import StringLookup

_PUNCTUATION = re.compile(r"[!\"#$%&()*+,\-./:;<=>?@\[\\\]^_`{|}~']")
_WHITESPACE = re.compile(r"[ \t\n\v\f\r]+")
_INFO_SEPARATORS = re.compile("[\x1c-\x1f]")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = ("whitespace", "character")
_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def _split_whitespace(text: str) -> list:
    """Split on runs of ASCII whitespace, as `tf.strings.split` does. `str.split` does
    the same, faster, for ASCII text without the information separators (0x1c-0x1f)
    that Python also counts as whitespace."""
    if text.isascii() and not _INFO_SEPARATORS.search(text):
        return text.split()
    return [t for t in _WHITESPACE.split(text) if t]


def _check_choice(who, name, value, allowed):
    if value is None or callable(value) or value in allowed:
        return value
    raise ValueError(
        f"{who}: {name} must be None, a callable or one of {list(allowed)}; received {value!r}."
    )


def _resolve_callable(value):
    """A `standardize`/`split` entry of a config: a built-in name, or a registered
    function (by name or serialized)."""
    if value is None or callable(value) or value in _STANDARDIZE + _SPLIT:
        return value
    if isinstance(value, dict):
        return serialization.deserialize_keras_object(value)
    found = serialization.get_registered_object(value)
    if found is None:
        raise ValueError(
            f"TextVectorization config names the function {value!r}, which is not "
            "registered. Register it with `lamina.saving.register_keras_serializable()` "
            "or pass it in `custom_objects`."
        )
    return found


@register
class TextVectorization(Layer):
    """Maps raw strings to sequences of token indices, or to multi-hot, count or TF-IDF
    vectors, with a vocabulary given or learned by `adapt`.

    Each string is standardized, split into tokens, optionally expanded into n-grams,
    and looked up. In `"int"` mode the rows are padded with 0 (the `""` mask token) to
    `output_sequence_length` (or to the longest row of the batch), or truncated to it.

    It runs on the host: it takes a list or NumPy array of strings, shaped `(batch,)`
    or `(batch, 1)`, and returns NumPy arrays. As the first layer of a model
    (`Input(shape=(1,), dtype="string")`), `fit` and `predict` run it on each batch
    before the compiled part.

    Args:
        max_tokens: the most vocabulary entries, the mask and OOV tokens included.
        standardize: `"lower_and_strip_punctuation"` (default), `"lower"`,
            `"strip_punctuation"`, `None`, or a callable taking and returning a NumPy
            array of strings. Lowercasing touches ASCII letters only, as in Keras.
        split: `"whitespace"` (default), `"character"`, `None` (each string is one
            token), or a callable taking a 1-D NumPy array of strings and returning one
            list of tokens per string.
        ngrams: `None`, an int `n` (all n-grams up to `n`) or a tuple of widths.
        output_mode: `"int"`, `"multi_hot"`, `"count"`, `"tf_idf"` or `"one_hot"`.
        output_sequence_length: with `"int"`, pad or truncate rows to this length.
        pad_to_max_tokens: encoded outputs get `max_tokens` columns.
        vocabulary: a list of tokens, or the path of a text file with one per line.
        idf_weights: with `"tf_idf"` and a `vocabulary`, one weight per token.
        ragged: only `False` (lamina returns dense, padded arrays).
        sparse: only `False`.
        encoding: the text encoding of bytes inputs.

    >>> layer = TextVectorization(max_tokens=5000, output_sequence_length=4)
    >>> layer.adapt(["foo bar", "bar baz", "baz bada boom"])
    >>> layer([["foo qux bar"], ["qux baz"]]).tolist()
    [[4, 1, 3, 0], [1, 2, 0, 0]]
    """

    _runs_on_host = True

    def __init__(
        self,
        max_tokens=None,
        standardize="lower_and_strip_punctuation",
        split="whitespace",
        ngrams=None,
        output_mode: str = "int",
        output_sequence_length=None,
        pad_to_max_tokens: bool = False,
        vocabulary=None,
        idf_weights=None,
        sparse: bool = False,
        ragged: bool = False,
        encoding: str = "utf-8",
        name=None,
        **kwargs,
    ):
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        kwargs.pop("dtype", None)
        # Keras's Layer argument: strings are not cast, so it is accepted and ignored.
        kwargs.pop("autocast", None)
        super().__init__(name=name, autocast=False, **kwargs)
        who = f"TextVectorization {self.name!r}"
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        if output_mode not in _MODES:
            raise ValueError(
                f"{who}: unknown output_mode {output_mode!r}; expected one of {list(_MODES)}."
            )
        _check_choice(who, "standardize", standardize, _STANDARDIZE)
        _check_choice(who, "split", split, _SPLIT)
        if ragged:
            raise ValueError(
                f"{who}: ragged=True needs TensorFlow ragged tensors, which lamina does not "
                "have; the default ragged=False pads each batch to one length (set "
                "`output_sequence_length` for a fixed one)."
            )
        if sparse:
            raise ValueError(
                f"{who}: sparse=True is not supported (lamina has no sparse tensors); use "
                "the default dense output."
            )
        if isinstance(ngrams, list):
            ngrams = tuple(ngrams)
        if not (
            ngrams is None
            or (isinstance(ngrams, int) and not isinstance(ngrams, bool) and ngrams >= 1)
            or (
                isinstance(ngrams, tuple)
                and ngrams
                and all(isinstance(n, int) and n >= 1 for n in ngrams)
            )
        ):
            raise ValueError(
                f"{who}: ngrams must be None, a positive int or a tuple of positive ints; "
                f"received {ngrams!r}."
            )
        if output_sequence_length is not None:
            if output_mode != "int":
                raise ValueError(
                    f"{who}: output_sequence_length only applies to output_mode='int'; "
                    f"received output_mode={output_mode!r}."
                )
            if isinstance(output_sequence_length, bool) or not isinstance(
                output_sequence_length, (int, np.integer)
            ):
                raise ValueError(
                    f"{who}: output_sequence_length must be None or an int; received "
                    f"{output_sequence_length!r}."
                )
            output_sequence_length = int(output_sequence_length)
        self._standardize = standardize
        self._split = split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._encoding = encoding or "utf-8"
        self._has_input_vocabulary = bool(has_input_vocabulary)
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens,
            vocabulary=vocabulary,
            idf_weights=idf_weights,
            pad_to_max_tokens=pad_to_max_tokens,
            mask_token="",
            output_mode=output_mode,
            encoding=self._encoding,
            has_input_vocabulary=self._has_input_vocabulary,
            vocabulary_size=vocabulary_size,
        )
        self.built = True

    # Properties Keras users read ---------------------------------------------------
    @property
    def output_mode(self) -> str:
        return self._output_mode

    @property
    def output_sequence_length(self):
        return self._output_sequence_length

    # Vocabulary ----------------------------------------------------------------------
    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The vocabulary in index order (with `""` and `"[UNK]"` first by default)."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        """The number of indices, the mask and OOV tokens included."""
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        """Replace the vocabulary (a list of tokens or a file path; with `"tf_idf"`,
        also one idf weight per token)."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Learn the vocabulary from `data`: a list or array of strings, a `PyDataset`
        or an iterable of batches (of which `steps` are read). Tokens are kept by
        decreasing count, ties broken by the larger token, capped by `max_tokens`."""
        self._lookup_layer._check_adaptable()
        if batch_size is not None and isinstance(data, (list, tuple, np.ndarray)):
            data = host_array(data, self._who())
            data = [data[i : i + int(batch_size)] for i in range(0, len(data), int(batch_size))]

        def documents():
            for batch in adapt_batches(data, steps, "TextVectorization", self._encoding):
                yield from self._documents(batch)

        self._lookup_layer._learn(documents(), typed=not callable(self._split))

    # Preprocessing -------------------------------------------------------------------
    def _who(self) -> str:
        return f"TextVectorization {self.name!r}"

    def _standardized(self, values: np.ndarray) -> np.ndarray:
        standardize = self._standardize
        if standardize is None:
            return values
        if callable(standardize):
            result = standardize(values.astype(str) if values.size else values.astype("U1"))
            out = host_array(result, self._who(), self._encoding)
            if out.shape != values.shape:
                raise ValueError(
                    f"{self._who()}: the standardize callable returned shape {out.shape} for "
                    f"inputs of shape {values.shape}; it must keep the shape."
                )
            return out
        lower = standardize in ("lower", "lower_and_strip_punctuation")
        strip = standardize in ("strip_punctuation", "lower_and_strip_punctuation")
        flat = values.ravel().tolist()
        if lower:
            flat = [s.translate(_ASCII_LOWER) for s in flat]
        if strip:
            flat = [_PUNCTUATION.sub("", s) for s in flat]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(values.shape)

    def _split_rows(self, values: np.ndarray) -> list:
        """One list of tokens per row."""
        who = self._who()
        if self._split is None:
            rows = values.reshape(values.shape[0], -1) if values.ndim else values.reshape(1, 1)
            return [list(r) for r in rows.tolist()]
        if values.ndim > 1:
            if values.ndim > 2 or values.shape[-1] != 1:
                raise ValueError(
                    f"{who}: to split strings it takes shape (batch,) or (batch, 1); received "
                    f"shape {values.shape}."
                )
            values = values[:, 0]
        values = values.reshape(-1)
        if self._split == "whitespace":
            return [_split_whitespace(s) for s in values.tolist()]
        if self._split == "character":
            return [list(s) for s in values.tolist()]
        result = self._split(values.astype(str) if values.size else values.astype("U1"))
        if backend.is_tensor(result):
            result = backend.convert_to_numpy(result)
        rows = []
        for row in list(result):
            row = host_array(row, who, self._encoding) if not isinstance(row, str) else row
            if isinstance(row, str) or (isinstance(row, np.ndarray) and row.ndim == 0):
                raise ValueError(
                    f"{who}: the split callable must return one sequence of tokens per "
                    f"string; received a single string {row!r} for a row."
                )
            rows.append([t for t in row.ravel().tolist()])
        if len(rows) != len(values):
            raise ValueError(
                f"{who}: the split callable returned {len(rows)} rows for {len(values)} "
                "strings; it must return one sequence of tokens per string."
            )
        return rows

    def _with_ngrams(self, tokens: list) -> list:
        if self._ngrams is None:
            return tokens
        out = []
        for width in self._ngrams:
            out.extend(" ".join(tokens[i : i + width]) for i in range(len(tokens) - width + 1))
        return out

    def _documents(self, values: np.ndarray) -> list:
        """The token rows of a host batch of strings."""
        if values.size and not is_text(values):
            raise TypeError(
                f"{self._who()} takes strings; received dtype {values.dtype}. Convert the "
                "data to text (e.g. `np.asarray(data, dtype=str)`) first."
            )
        values = self._standardized(values)
        return [self._with_ngrams(row) for row in self._split_rows(values)]

    # Calling -------------------------------------------------------------------------
    def _convert_inputs(self, x):
        return host_array(x, self._who(), self._encoding)

    def call(self, inputs):
        values = host_array(inputs, self._who(), self._encoding)
        scalar = values.ndim == 0
        rows = self._documents(values[None] if scalar else values)
        lookup = self._lookup_layer
        flat = [t for row in rows for t in row]
        tokens = np.empty(len(flat), dtype=object)
        tokens[:] = flat
        indices, valid = lookup._host_indices(tokens)
        lengths = np.array([len(r) for r in rows], dtype="int64")
        row_of = np.repeat(np.arange(len(rows)), lengths)
        position = np.arange(len(flat)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        if self._output_mode == "int":
            width = self._output_sequence_length
            if width is None:
                width = int(lengths.max()) if lengths.size else 0
            out = np.zeros((len(rows), width), "int64")
            keep = position < width
            out[row_of[keep], position[keep]] = indices[keep]
            return out[0] if scalar else out
        lookup._check_ready()
        depth = lookup._depth()
        if self._output_mode == "one_hot":
            width = int(lengths.max()) if lengths.size else 0
            out = np.zeros((len(rows), width, depth), "float64")
            out[row_of[valid], position[valid], indices[valid]] = 1.0
            if width == 1:
                out = out[:, 0]
        else:
            out = np.zeros((len(rows), depth), "float64")
            np.add.at(out, (row_of[valid], indices[valid]), 1.0)
            if self._output_mode == "multi_hot":
                out = np.minimum(out, 1.0)
            elif self._output_mode == "tf_idf":
                out = out * lookup._idf_row()
        out = out.astype(backend.floatx())
        return out[0] if scalar else out

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        batch = input_shape[0] if input_shape else None
        if self._output_mode == "int":
            return (batch, self._output_sequence_length)
        depth = self._lookup_layer._depth()
        if self._output_mode == "one_hot":
            return (batch, None, depth)
        return (batch, depth)

    def compute_output_spec(self, inputs):
        dtype = "int64" if self._output_mode == "int" else backend.floatx()
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype)

    # Saving --------------------------------------------------------------------------
    def get_config(self):
        def plain(fn):
            if fn is None or isinstance(fn, str):
                return fn
            return serialization.serialize_keras_object(fn)

        lookup = self._lookup_layer
        return {
            **super().get_config(),
            "max_tokens": lookup.max_tokens,
            "standardize": plain(self._standardize),
            "split": plain(self._split),
            "ngrams": list(self._ngrams_arg)
            if isinstance(self._ngrams_arg, tuple)
            else self._ngrams_arg,
            "output_mode": self._output_mode,
            "output_sequence_length": self._output_sequence_length,
            "pad_to_max_tokens": lookup.pad_to_max_tokens,
            "sparse": False,
            "ragged": False,
            "vocabulary": lookup.get_config()["vocabulary"],
            "idf_weights": lookup.get_config()["idf_weights"],
            "encoding": self._encoding,
            "vocabulary_size": self.vocabulary_size() if lookup._tokens else None,
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        with serialization.custom_object_scope(custom_objects or {}):
            config["standardize"] = _resolve_callable(config.get("standardize"))
            config["split"] = _resolve_callable(config.get("split"))
        if isinstance(config.get("ngrams"), list):
            config["ngrams"] = tuple(config["ngrams"])
        return cls(**config)

    def save_own_variables(self, store) -> None:
        """Put the lookup's idf weights (`output_mode="tf_idf"`) in `store`, as Keras's
        TextVectorization does (`store["idf_weights"]`)."""
        self._lookup_layer.save_own_variables(store)

    def load_own_variables(self, store) -> None:
        """Read the idf weights `save_own_variables` (or Keras) put in `store`."""
        self._lookup_layer.load_own_variables(store)

    def save_assets(self, dir_path) -> None:
        """Write the vocabulary (`vocabulary.txt`), as Keras's TextVectorization does."""
        self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path) -> None:
        """Read the vocabulary `save_assets` (or Keras) wrote."""
        self._lookup_layer.load_assets(dir_path)
