"""The vocabulary core that `StringLookup` and `IntegerLookup` share, and the host-side
helpers of the preprocessing layers that take strings.

`IndexLookup` keeps a vocabulary and maps tokens to indices the way Keras 3 lays them
out: index 0 is the mask token (only with `mask_token` set and `output_mode="int"`),
then `num_oov_indices` indices for unknown tokens, then the vocabulary. It learns the
vocabulary in `adapt` (tokens by decreasing count, ties broken by the larger token),
reads and writes it as Keras's `vocabulary.txt` asset, and encodes indices as one-hot,
multi-hot, count or TF-IDF vectors.

Strings cannot enter an engine's compiled program, so the layers that take them run on
the host (`_runs_on_host = True`): they take Python lists and NumPy arrays, compute in
NumPy and return NumPy arrays. In a model, the trainer runs them on each batch before
the compiled part (see `Model`'s host preprocessing).
"""

from __future__ import annotations

import collections
import itertools
import os
from collections.abc import Iterable

import numpy as np

from lamina import backend, ops
from lamina.backend import core as backend_core
from lamina.common import serialization
from lamina.common.data_utils import pandas_kind
from lamina.common.py_dataset import PyDataset
from lamina.graph.keras_tensor import KerasTensor
from lamina.layers.layer import Layer

ENCODINGS = ("one_hot", "multi_hot", "count")
VOCABULARY_FILE = "vocabulary.txt"  # Keras's asset name
# Keras keeps a tf_idf layer's idf weights in the weights file, as the entry
# `<layer path>/vars/idf_weights` (`save_own_variables`); lamina does the same, and also
# still reads (and writes) its older asset beside the vocabulary, which Keras ignores.
IDF_KEY = "idf_weights"
IDF_FILE = "idf_weights.txt"


def register(cls):
    """Register a layer class as a lamina built-in (resolvable from configs)."""
    serialization.register_builtin("layers", cls)
    return cls


# Host arrays ----------------------------------------------------------------------------
def _text(value, encoding: str):
    if isinstance(value, bytes):
        return value.decode(encoding)
    return str(value) if isinstance(value, str) else value


def host_array(x, who: str, encoding: str = "utf-8") -> np.ndarray:
    """`x` (a list, tuple, scalar, NumPy or engine array) as a NumPy array on the host.

    Text comes back as an object array of Python `str` (bytes decoded with `encoding`),
    numbers as a numeric array.
    """
    if isinstance(x, KerasTensor):
        raise TypeError(f"{who} received a symbolic tensor where data was expected.")
    if backend.is_tensor(x):
        return np.asarray(backend.convert_to_numpy(x))
    if isinstance(x, np.ndarray):
        arr = x
    else:
        try:
            arr = np.asarray(x)
        except ValueError as err:
            raise ValueError(
                f"{who} received rows of different lengths (ragged data); lamina's "
                "string layers take rectangular data (ragged=False). Pass one string per "
                "row, or pad the rows to one length."
            ) from err
    if arr.dtype.kind in "US" or arr.dtype == object:
        flat = [_text(v, encoding) for v in arr.ravel().tolist()]
        if arr.dtype == object and not all(isinstance(v, str) for v in flat):
            try:
                return np.asarray(flat).reshape(arr.shape)
            except ValueError as err:
                raise TypeError(
                    f"{who} received an object array that mixes strings and other values."
                ) from err
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(arr.shape)
    return arr


def is_text(arr) -> bool:
    """True for what `host_array` returns for text: an object array of `str`."""
    return isinstance(arr, np.ndarray) and arr.dtype == object


def encode_on_host(indices, mode: str, depth: int, dtype, valid=None, weights=None):
    """One-hot, multi-hot or count encoding of integer `indices` in NumPy.

    Entries where `valid` is False (dropped mask tokens) count for nothing. One-hot
    encodes each value (a trailing axis of 1 is replaced); multi-hot and count treat the
    last axis as one sample. `weights` (one per output column) scale the result.
    """
    idx = np.asarray(indices, dtype="int64")
    valid = np.ones(idx.shape, bool) if valid is None else np.asarray(valid, bool)
    if idx.ndim == 0:
        idx, valid = idx[None], valid[None]
    if mode == "one_hot":
        if idx.ndim > 1 and idx.shape[-1] == 1:
            idx, valid = idx[..., 0], valid[..., 0]
        out = np.zeros((idx.size, depth), "float64")
        rows = np.arange(idx.size)
        flat_valid = valid.ravel()
        out[rows[flat_valid], idx.ravel()[flat_valid]] = 1.0
        out = out.reshape(idx.shape + (depth,))
    else:
        rows = idx.reshape(-1, idx.shape[-1])
        keep = valid.reshape(rows.shape)
        row_of = np.broadcast_to(np.arange(rows.shape[0])[:, None], rows.shape)
        out = np.zeros((rows.shape[0], depth), "float64")
        np.add.at(out, (row_of[keep], rows[keep]), 1.0)
        if mode == "multi_hot":
            out = np.minimum(out, 1.0)
        out = out.reshape(idx.shape[:-1] + (depth,))
    if weights is not None:
        out = out * np.asarray(weights, "float64")
    return out.astype(dtype)


# Engine-side encoding (IntegerLookup, Discretization, CategoryEncoding) ------------------
def encode(indices, mode: str, depth: int, dtype: str, count_weights=None, valid=None):
    """One-hot, multi-hot or count encoding of integer `indices` over their last axis,
    with engine ops; entries where `valid` is False count for nothing."""
    indices = ops.cast(indices, "int32")
    if valid is not None:
        indices = ops.where(valid, indices, 0)
    if mode == "one_hot":
        if len(indices.shape) > 1 and indices.shape[-1] == 1:
            indices = ops.squeeze(indices, axis=-1)
            valid = None if valid is None else ops.squeeze(valid, axis=-1)
        hot = ops.one_hot(indices, depth, dtype=dtype)
        if valid is not None:
            hot = hot * ops.expand_dims(ops.cast(valid, dtype), -1)
        return hot
    if len(indices.shape) == 0:
        indices = ops.expand_dims(indices, 0)
        valid = None if valid is None else ops.expand_dims(valid, 0)
    hot = ops.one_hot(indices, depth, dtype=dtype)
    if valid is not None:
        hot = hot * ops.expand_dims(ops.cast(valid, dtype), -1)
    if mode == "multi_hot":
        return ops.max(hot, axis=-2)
    if count_weights is not None:
        hot = hot * ops.expand_dims(ops.cast(count_weights, dtype), -1)
    return ops.sum(hot, axis=-2)


def encoded_shape(input_shape, mode: str, depth):
    """The output shape of `encode` for inputs of `input_shape`."""
    input_shape = tuple(input_shape)
    if mode == "int":
        return input_shape
    if mode == "one_hot":
        if len(input_shape) > 1 and input_shape[-1] == 1:
            input_shape = input_shape[:-1]
        return input_shape + (depth,)
    return input_shape[:-1] + (depth,)


def check_mode(who: str, mode: str, allowed) -> str:
    """`mode` with Keras's old names (`binary`, `tf-idf`) mapped; unknown ones refused."""
    mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(mode, mode)
    if mode not in allowed:
        raise ValueError(f"{who}: unknown output_mode {mode!r}; expected one of {list(allowed)}.")
    return mode


def refuse_sparse(who: str, sparse) -> None:
    if sparse:
        raise ValueError(
            f"{who}: sparse=True is not supported on the {backend.backend()!r} backend, which "
            "has no sparse tensors; use the default dense output."
        )


def batches(data, who: str):
    """Yield NumPy batches from what `adapt` accepts (the inputs of `(x, y)` pairs)."""

    def first(batch):
        return batch[0] if isinstance(batch, tuple) else batch

    if isinstance(data, np.ndarray) or backend.is_tensor(data):
        yield backend.convert_to_numpy(data)
        return
    if pandas_kind(data) is not None:
        yield data.to_numpy()  # a DataFrame's values, not an iteration over its columns
        return
    if isinstance(data, PyDataset):
        for i in range(len(data)):
            yield backend.convert_to_numpy(first(data[i]))
        return
    if isinstance(data, (list, tuple)) and data and np.isscalar(data[0]):
        yield np.asarray(data)  # a plain list of values is one batch
        return
    if isinstance(data, Iterable) and not isinstance(data, (str, bytes, dict)):
        count = 0
        for batch in data:
            count += 1
            yield backend.convert_to_numpy(first(batch))
        if count == 0:
            raise ValueError(
                f"{who}.adapt received an empty iterable; it needs at least one batch."
            )
        return
    raise TypeError(
        f"{who}.adapt expects a NumPy array, an engine array, a PyDataset or an iterable of "
        f"batches; received {type(data).__name__}."
    )


def adapt_batches(data, steps, who: str, encoding: str = "utf-8"):
    """Host batches for a lookup's `adapt`, shaped as Keras shapes them: whole arrays and
    lists are one batch whose rows (a 1-D array's elements) are documents; each batch
    of an iterable is one batch, a 1-D batch being one document."""
    whole = isinstance(data, (list, tuple, np.ndarray)) or backend.is_tensor(data)
    if pandas_kind(data) is not None:
        data, whole = data.to_numpy(), True  # a frame's values, not its column names
    if whole:
        batch = host_array(data, who, encoding)
        yield batch[:, None] if batch.ndim == 1 else batch
        return
    if isinstance(data, PyDataset):
        source = (data[i] for i in range(len(data)))
    elif isinstance(data, Iterable) and not isinstance(data, (str, bytes, dict)):
        source = iter(data)
    else:
        raise TypeError(
            f"{who}.adapt expects a list, a NumPy or engine array, a PyDataset or an "
            f"iterable of batches; received {type(data).__name__}."
        )
    if steps is not None:
        source = itertools.islice(source, int(steps))
    for item in source:
        batch = host_array(item[0] if isinstance(item, tuple) else item, who, encoding)
        if batch.ndim == 0:
            batch = batch[None]
        yield batch[None] if batch.ndim == 1 else batch


# The lookup core ------------------------------------------------------------------------
class IndexLookup(Layer):
    """Maps tokens to indices through a vocabulary (the base of StringLookup and
    IntegerLookup; see those for the arguments)."""

    _kind = "IndexLookup"

    def __init__(
        self,
        max_tokens,
        num_oov_indices,
        mask_token,
        oov_token,
        vocabulary=None,
        idf_weights=None,
        invert: bool = False,
        output_mode: str = "int",
        sparse: bool = False,
        pad_to_max_tokens: bool = False,
        oov_method: str = "floormod",
        salt=None,
        name=None,
        **kwargs,
    ):
        frozen_size = kwargs.pop("vocabulary_size", None)
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        for key in ("dtype", "trainable", "autocast"):
            kwargs.pop(key, None)  # Keras's lookups ignore them too
        super().__init__(name=name, autocast=False, **kwargs)
        who = self._who()
        output_mode = check_mode(who, output_mode, ("int",) + ENCODINGS + ("tf_idf",))
        refuse_sparse(who, sparse)
        if max_tokens is not None and (isinstance(max_tokens, bool) or int(max_tokens) <= 1):
            raise ValueError(f"{who}: max_tokens must be greater than 1; received {max_tokens!r}.")
        if isinstance(num_oov_indices, bool) or int(num_oov_indices) < 0:
            raise ValueError(f"{who}: num_oov_indices must be >= 0; received {num_oov_indices!r}.")
        if invert and output_mode != "int":
            raise ValueError(
                f"{who}: invert=True maps indices back to tokens, so output_mode must be "
                f"'int'; received {output_mode!r}."
            )
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(
                f"{who}: idf_weights are only used with output_mode='tf_idf'; received "
                f"output_mode={output_mode!r}."
            )
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"{who}: pad_to_max_tokens=True needs `max_tokens`.")
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(
                f"{who}: oov_method must be 'floormod' or 'farmhash'; received {oov_method!r}."
            )
        if salt is not None:
            if isinstance(salt, int) and not isinstance(salt, bool):
                salt = [salt, salt]
            elif not (isinstance(salt, (list, tuple)) and len(salt) == 2):
                raise ValueError(
                    f"{who}: salt must be an int or a pair of ints; received {salt!r}."
                )
            salt = [int(s) for s in salt]
        self.max_tokens = None if max_tokens is None else int(max_tokens)
        self.num_oov_indices = int(num_oov_indices)
        self.mask_token = None if mask_token is None else self._token(mask_token)
        self.oov_token = None if oov_token is None else self._token(oov_token)
        self.invert = bool(invert)
        self.output_mode = output_mode
        self.sparse = False
        self.pad_to_max_tokens = bool(pad_to_max_tokens)
        self.oov_method = oov_method
        self.salt = salt
        if self.max_tokens is not None and self.max_tokens <= self._token_start():
            raise ValueError(
                f"{who}: max_tokens={self.max_tokens} leaves no room for a vocabulary after "
                f"{self._token_start()} mask/OOV index(es); raise it above "
                f"{self._token_start()}."
            )
        self._frozen_vocab_size = None if frozen_size is None else int(frozen_size)
        self._has_input_vocabulary = bool(has_input_vocabulary)
        # Keras keeps the constructor's vocabulary for the config; a file path or an
        # adapted vocabulary travels as the `vocabulary.txt` asset instead.
        self.input_vocabulary = (
            None if vocabulary is None or isinstance(vocabulary, (str, os.PathLike)) else vocabulary
        )
        self.input_idf_weights = idf_weights
        self._tokens: list = []
        self._index: dict = {}
        self._idf = None
        self._idf_from_store = False  # set by load_own_variables, used by load_assets
        if output_mode == "tf_idf" and self._has_input_vocabulary and idf_weights is None:
            raise ValueError(
                f"{who}: with output_mode='tf_idf', a `vocabulary` needs `idf_weights` too."
            )
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        self.built = True

    # Subclass hooks ------------------------------------------------------------------
    def _who(self) -> str:
        return f"{type(self).__name__} {self.name!r}"

    def _token(self, value):
        """One token in the vocabulary's type."""
        raise NotImplementedError

    # Layout --------------------------------------------------------------------------
    def _oov_start(self) -> int:
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start(self) -> int:
        return self._oov_start() + self.num_oov_indices

    def _depth(self):
        if self.pad_to_max_tokens:
            return self.max_tokens
        if self._tokens:
            return self.vocabulary_size()
        return self._frozen_vocab_size

    # Vocabulary ----------------------------------------------------------------------
    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        """Replace the vocabulary: a list or array of tokens, or the path of a text file
        with one token per line. The mask and OOV tokens may lead the list, in index
        order, or be left out. With `output_mode="tf_idf"`, give one idf weight per
        entry of `vocabulary`."""
        who = self._who()
        if self.output_mode == "tf_idf" and idf_weights is None:
            raise ValueError(f"{who}: output_mode='tf_idf' needs `idf_weights`.")
        if self.output_mode != "tf_idf" and idf_weights is not None:
            raise ValueError(
                f"{who}: idf_weights are only used with output_mode='tf_idf'; this layer's "
                f"output_mode is {self.output_mode!r}."
            )
        if isinstance(vocabulary, (str, os.PathLike)):
            vocabulary = self._read_vocabulary_file(os.fspath(vocabulary))
        elif backend.is_tensor(vocabulary) or isinstance(vocabulary, np.ndarray):
            vocabulary = host_array(vocabulary, who).ravel().tolist()
        vocab = [self._token(v) for v in vocabulary]
        if not vocab:
            raise ValueError(f"{who}: cannot set an empty vocabulary.")
        start = self._token_start()
        specials = [self.mask_token] * self._oov_start() + [self.oov_token] * self.num_oov_indices
        found_specials = vocab[:start] == specials
        tokens = vocab[start:] if found_specials else vocab
        repeated = [t for t, n in collections.Counter(tokens).items() if n > 1]
        if repeated:
            raise ValueError(
                f"{who}: the vocabulary has repeated tokens {repeated[:10]}; each token may "
                "appear once."
            )
        if self.mask_token is not None and self.mask_token in tokens:
            raise ValueError(
                f"{who}: the vocabulary holds the mask token {self.mask_token!r} at "
                f"index {tokens.index(self.mask_token)}. Leave the mask and OOV tokens out, "
                f"or put them first in exactly this order: {specials}."
            )
        if self.invert and self.oov_token is not None and self.oov_token in tokens:
            raise ValueError(
                f"{who}: the vocabulary holds the OOV token {self.oov_token!r}; with "
                f"invert=True leave it out, or put the special tokens first as {specials}."
            )
        if self.max_tokens is not None and start + len(tokens) > self.max_tokens:
            raise ValueError(
                f"{who}: a vocabulary of {len(tokens)} tokens plus {start} special index(es) "
                f"exceeds max_tokens={self.max_tokens}."
            )
        idf = None
        if idf_weights is not None:
            idf = host_array(idf_weights, who).astype("float64")
            if idf.ndim != 1 or idf.size != len(vocab):
                raise ValueError(
                    f"{who}: {idf.size} idf_weights for a vocabulary of {len(vocab)} entries; "
                    "give one weight per entry."
                )
            front = 0 if found_specials else start
            value = 0.0 if found_specials else float(np.mean(idf))
            idf = np.concatenate([np.full(front, value), idf])
        if self.input_vocabulary is not None:
            # The config carries the vocabulary: keep it the one in use (Keras keeps the
            # constructor's, so a saved file would silently lose the new one).
            self.input_vocabulary = list(vocab)
            self.input_idf_weights = idf_weights
        self._store(tokens, idf)

    def _read_vocabulary_file(self, path: str) -> list:
        who = self._who()
        if serialization.current_safe_mode():
            raise ValueError(
                f"{who}: refusing to read the vocabulary file {path!r} named by a config while "
                "loading in safe mode (it could be any file on this machine). Load with "
                "safe_mode=False if you trust the source."
            )
        if self.output_mode == "tf_idf":
            raise ValueError(
                f"{who}: output_mode='tf_idf' cannot take its vocabulary from a file; pass "
                "the tokens and `idf_weights`."
            )
        if not os.path.isfile(path):
            raise ValueError(f"{who}: vocabulary file {path!r} does not exist.")
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        return lines

    def _store(self, tokens: list, idf) -> None:
        """Install `tokens` (no special tokens) and the idf weights of their columns."""
        start = self._token_start()
        self._tokens = list(tokens)
        self._index = {t: start + i for i, t in enumerate(self._tokens)}
        if idf is not None:
            self._idf = np.asarray(idf, "float64")
        self._frozen_vocab_size = self.vocabulary_size()
        self._vocabulary_changed()

    def _vocabulary_changed(self) -> None:
        """Called after each vocabulary change (IntegerLookup refreshes its tables)."""

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The tokens in index order (with the mask and OOV tokens by default, so that a
        token's position is its index)."""
        if not include_special_tokens:
            return list(self._tokens)
        specials = [self.mask_token] * self._oov_start() + [self.oov_token] * self.num_oov_indices
        return specials + list(self._tokens)

    def vocabulary_size(self) -> int:
        """The number of indices, the mask and OOV indices included."""
        return len(self._tokens) + self._token_start()

    @property
    def idf_weights(self):
        """The idf weight of each output column (`output_mode="tf_idf"`), or None."""
        return None if self._idf is None else self._idf.astype("float32")

    # adapt ---------------------------------------------------------------------------
    def adapt(self, data, steps=None) -> None:
        """Learn the vocabulary from `data`: a list or array of tokens (or a `PyDataset`
        or an iterable of batches, of which `steps` are read). Tokens are kept by
        decreasing count, ties broken by the larger token, at most `max_tokens` indices
        in all; with `output_mode="tf_idf"` each row is a document for the idf weights."""
        self._check_adaptable()
        documents = (
            row.ravel().tolist()
            for batch in adapt_batches(data, steps, type(self).__name__)
            for row in batch.reshape(batch.shape[0], -1)
        )
        self._learn(documents)

    def _check_adaptable(self) -> None:
        if self._has_input_vocabulary:
            raise ValueError(
                f"{self._who()}: cannot adapt a layer created with a fixed `vocabulary`; "
                "create it without one to adapt it."
            )

    def _learn(self, documents, typed: bool = False) -> None:
        """Count tokens over `documents` (iterables of tokens; `typed`: already in the
        vocabulary's type) and install the result."""
        counts: collections.Counter = collections.Counter()
        document_counts: collections.Counter = collections.Counter()
        num_documents = 0
        tf_idf = self.output_mode == "tf_idf"
        for document in documents:
            tokens = document if typed else [self._token(t) for t in document]
            counts.update(tokens)
            if tf_idf:
                document_counts.update(set(tokens))
                num_documents += 1
        for special in (self.mask_token, self.oov_token):
            counts.pop(special, None)
        if not counts:
            return
        order = sorted(counts, key=lambda t: (counts[t], t), reverse=True)
        if self.max_tokens is not None:
            order = order[: self.max_tokens - self._token_start()]
        idf = None
        if tf_idf:
            frequencies = np.array([document_counts[t] for t in order], "float64")
            weights = np.log(1 + num_documents / (1 + frequencies))
            idf = np.concatenate([np.full(self._token_start(), weights.mean()), weights])
        self._store(order, idf)

    # Calling -------------------------------------------------------------------------
    def _check_ready(self) -> None:
        if self.output_mode != "int" and not self.pad_to_max_tokens and not self._tokens:
            raise ValueError(
                f"{self._who()} has no vocabulary yet, so output_mode={self.output_mode!r} "
                "has no width: pass `vocabulary=`, or call `adapt(data)` first."
            )

    def _host_indices(self, tokens: np.ndarray):
        """Indices of host tokens, and where they count (False for dropped masks)."""
        who = self._who()
        flat = tokens.ravel().tolist()
        default = -1
        indices = np.fromiter(
            map(self._index.get, flat, itertools.repeat(default, len(flat))),
            dtype="int64",
            count=len(flat),
        )
        unknown = indices == default
        if self.mask_token is not None:
            is_mask = unknown.copy()
            is_mask[unknown] = [flat[i] == self.mask_token for i in np.flatnonzero(unknown)]
            unknown &= ~is_mask
        else:
            is_mask = np.zeros(len(flat), bool)
        if unknown.any():
            if self.num_oov_indices == 0:
                missing = sorted({flat[i] for i in np.flatnonzero(unknown)})[:10]
                raise ValueError(
                    f"{who} has num_oov_indices=0, so every token must be in its vocabulary; "
                    f"received unknown tokens {missing}. Set num_oov_indices >= 1 to map "
                    "them to OOV indices."
                )
            indices[unknown] = self._oov_start() + self._oov_bucket(
                [flat[i] for i in np.flatnonzero(unknown)]
            )
        valid = np.ones(len(flat), bool)
        if self.mask_token is not None:
            if self.output_mode == "int":
                indices[is_mask] = 0
            else:
                valid = ~is_mask  # a mask token counts for nothing in an encoding
        return indices.reshape(tokens.shape), valid.reshape(tokens.shape)

    def _oov_bucket(self, tokens: list) -> np.ndarray:
        """The OOV index (from 0) of each unknown token."""
        if self.num_oov_indices == 1:
            return np.zeros(len(tokens), "int64")
        from lamina.layers.hashing import hash_to_bins

        values = np.empty(len(tokens), dtype=object)
        values[:] = tokens
        return hash_to_bins(values, self.num_oov_indices, self.salt)

    def _encode_host(self, indices, valid):
        if self.output_mode == "int":
            return indices
        self._check_ready()
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        weights = None
        if self.output_mode == "tf_idf":
            weights = self._idf_row()
        return encode_on_host(indices, mode, self._depth(), backend.floatx(), valid, weights)

    def _idf_row(self) -> np.ndarray:
        depth = self._depth()
        row = np.zeros(depth, "float64") if self._idf is None else self._idf[:depth]
        return np.pad(row, (0, depth - row.size))

    def _host_tokens(self, indices: np.ndarray) -> np.ndarray:
        """`invert=True`: the token of each index (unknown indices give the OOV token)."""
        indices = np.asarray(indices).astype("int64")
        vocab = self.get_vocabulary()
        table = np.empty(len(vocab) + 1, dtype=object)
        table[:-1] = vocab
        table[-1] = self.oov_token
        inside = (indices >= 0) & (indices < len(vocab))
        return table[np.where(inside, indices, len(vocab))]

    def compute_output_spec(self, inputs):
        if self.invert:
            return KerasTensor(inputs.shape, self._token_dtype())
        if self.output_mode == "int":
            return KerasTensor(inputs.shape, self._index_dtype())
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        return KerasTensor(encoded_shape(inputs.shape, mode, self._depth()), backend.floatx())

    def _token_dtype(self) -> str:
        raise NotImplementedError

    def _index_dtype(self) -> str:
        return "int64"

    # Saving --------------------------------------------------------------------------
    def get_config(self):
        return {
            **super().get_config(),
            "invert": self.invert,
            "max_tokens": self.max_tokens,
            "num_oov_indices": self.num_oov_indices,
            "oov_token": self.oov_token,
            "mask_token": self.mask_token,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
            "pad_to_max_tokens": self.pad_to_max_tokens,
            "idf_weights": _listify(self.input_idf_weights),
            "vocabulary": _listify(self.input_vocabulary),
            "vocabulary_size": self._frozen_vocab_size,
            "oov_method": self.oov_method,
            "salt": self.salt,
        }

    def save_own_variables(self, store) -> None:
        """Put the idf weights in `store` (a layer's entry in the weights file) as Keras 3
        does: with `output_mode="tf_idf"` and a vocabulary, `store["idf_weights"]` holds
        one float32 weight per index, special tokens first, zero-padded to `max_tokens`
        when `pad_to_max_tokens` is set. Other layers store nothing."""
        if self.output_mode != "tf_idf" or self._idf is None:
            return
        weights = self._idf.astype("float32")
        if self.pad_to_max_tokens and self.max_tokens is not None:
            weights = np.pad(weights, (0, max(0, self.max_tokens - weights.size)))
        store[IDF_KEY] = weights

    def load_own_variables(self, store) -> None:
        """Read the idf weights `save_own_variables` (or Keras) put in `store`; the
        vocabulary they belong to comes next, from the `vocabulary.txt` asset."""
        if self.output_mode != "tf_idf" or IDF_KEY not in store:
            return
        idf = np.asarray(store[IDF_KEY])
        if idf.ndim != 1 or idf.dtype.kind not in "fiu" or not np.all(np.isfinite(idf)):
            raise ValueError(
                f"{self._who()}: the weights file's {IDF_KEY!r} entry must be a 1-D array of "
                f"finite numbers; it holds shape {idf.shape} of {idf.dtype}. The file is "
                "damaged."
            )
        if self.input_vocabulary is not None and self._idf is not None:
            if idf.size < self._idf.size:
                raise ValueError(
                    f"{self._who()}: the weights file holds {idf.size} idf weights for a "
                    f"vocabulary of {self._idf.size} indices; the file is damaged."
                )
            idf = idf[: self._idf.size]
        self._idf = idf.astype("float64")
        self._idf_from_store = True

    def save_assets(self, dir_path) -> None:
        """Write the vocabulary as Keras does: `vocabulary.txt`, one token per line,
        special tokens first (skipped when the config already holds the vocabulary)."""
        if self.input_vocabulary is not None:
            return
        with open(os.path.join(dir_path, VOCABULARY_FILE), "w", encoding="utf-8") as f:
            f.write("\n".join(str(t) for t in self.get_vocabulary()))
        if self.output_mode == "tf_idf" and self._idf is not None:
            with open(os.path.join(dir_path, IDF_FILE), "w", encoding="utf-8") as f:
                f.write("\n".join(repr(float(w)) for w in self._idf))

    def load_assets(self, dir_path) -> None:
        """Read the vocabulary `save_assets` (or Keras) wrote."""
        if self.input_vocabulary is not None:
            return
        path = os.path.join(dir_path, VOCABULARY_FILE)
        if not os.path.isfile(path):
            return  # saved before it had a vocabulary
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        if not lines:
            return
        idf = None
        if self.output_mode == "tf_idf":
            idf_path = os.path.join(dir_path, IDF_FILE)
            if self._idf_from_store:
                idf = self._idf  # the weights file's entry, where Keras keeps them
            elif os.path.isfile(idf_path):  # files lamina wrote before it had the entry
                with open(idf_path, encoding="utf-8") as f:
                    try:
                        idf = np.array([float(w) for w in f.read().split()], "float64")
                    except ValueError as err:
                        raise ValueError(f"{self._who()}: {IDF_FILE} is damaged ({err}).") from err
            elif self._idf is not None:
                idf = self._idf
            else:
                raise ValueError(
                    f"{self._who()}: the file holds an adapted tf_idf vocabulary but no idf "
                    f"weights for it: neither the weights file's {IDF_KEY!r} entry for this "
                    f"layer (where Keras keeps them) nor lamina's older {IDF_FILE} asset. "
                    "The file is incomplete; save the model again from the adapted layer."
                )
            if idf.size < len(lines):
                raise ValueError(
                    f"{self._who()}: {idf.size} idf weights for a vocabulary of {len(lines)} "
                    "entries; the file is damaged."
                )
        vocab = [self._token(line) for line in lines]
        start = self._token_start()
        specials = [self.mask_token] * self._oov_start() + [self.oov_token] * self.num_oov_indices
        tokens = vocab[start:] if vocab[:start] == specials else vocab
        self._store(tokens, idf)
        self._idf_from_store = False


def _listify(value):
    if value is None:
        return None
    if isinstance(value, np.ndarray) or backend.is_tensor(value):
        return host_array(value, "config").tolist()
    return list(value)


def refuse_unknown_concrete(layer, inputs, found) -> None:
    """Engine lookups: refuse unknown tokens when `num_oov_indices=0` (on concrete data)."""
    if not backend_core.is_concrete(inputs):
        return
    values = backend.convert_to_numpy(inputs)
    missing = values[~backend.convert_to_numpy(found)]
    if layer.mask_token is not None:
        missing = missing[missing != layer.mask_token]
    if missing.size:
        raise ValueError(
            f"{layer._who()} has num_oov_indices=0, so every token must be in its vocabulary; "
            f"received unknown tokens {np.unique(missing)[:10].tolist()}. Set "
            "num_oov_indices >= 1 to map them to OOV indices."
        )
