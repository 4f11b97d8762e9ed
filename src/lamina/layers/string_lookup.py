"""StringLookup: strings to vocabulary indices (or back), on the host."""

from __future__ import annotations

import numpy as np

from lamina.layers.lookup import IndexLookup, adapt_batches, host_array, is_text, register


@register
class StringLookup(IndexLookup):
    """Maps strings to contiguous integer indices through a vocabulary, or back.

    The vocabulary comes from `vocabulary=` (a list, an array or a text file with one
    token per line) or from `adapt(data)`: tokens by decreasing frequency, ties broken
    by the larger token, at most `max_tokens` indices in all. Indices are laid out as in
    Keras 3: the mask token at 0 (only with `mask_token` set and `output_mode="int"`),
    then `num_oov_indices` indices for unknown strings (several: FarmHash of the string
    picks one, SipHash with a `salt`), then the vocabulary.

    It runs on the host: it takes Python lists and NumPy string arrays and returns
    NumPy arrays. As the first layer of a model (`Input(shape=(1,), dtype="string")`),
    `fit` and `predict` run it on each batch before the compiled part.

    Args:
        max_tokens: the most indices, special ones included (`None`: no cap).
        num_oov_indices: indices for unknown strings; 0 makes them an error.
        mask_token: a string that maps to index 0 (e.g. `""` for padding), or `None`.
        oov_token: what an OOV index maps back to with `invert=True`.
        vocabulary: strings in index order, or the path of a text file of them.
        idf_weights: with `output_mode="tf_idf"`, one weight per vocabulary entry.
        invert: map indices back to strings.
        output_mode: `"int"`, `"one_hot"`, `"multi_hot"`, `"count"` or `"tf_idf"`.
        pad_to_max_tokens: encode to `max_tokens` columns even if the vocabulary is smaller.
        sparse: only `False` (lamina has no sparse tensors).
        encoding: the text encoding of bytes inputs.
        salt: an int or two ints keying SipHash for the OOV indices.

    >>> layer = StringLookup(vocabulary=["a", "b", "c", "d"])
    >>> layer([["a", "c", "d"], ["d", "z", "b"]]).tolist()
    [[1, 3, 4], [4, 0, 2]]
    >>> StringLookup(vocabulary=["a", "b", "c", "d"], invert=True)([[1, 3, 4]]).tolist()
    [['a', 'c', 'd']]
    """

    _runs_on_host = True

    def __init__(
        self,
        max_tokens=None,
        num_oov_indices: int = 1,
        mask_token=None,
        oov_token: str = "[UNK]",
        vocabulary=None,
        idf_weights=None,
        invert: bool = False,
        output_mode: str = "int",
        pad_to_max_tokens: bool = False,
        sparse: bool = False,
        encoding: str = "utf-8",
        name=None,
        salt=None,
        **kwargs,
    ):
        kwargs.pop("vocabulary_dtype", None)  # only "string" makes sense here
        self.__dict__["encoding"] = encoding or "utf-8"
        super().__init__(
            max_tokens=max_tokens,
            num_oov_indices=num_oov_indices,
            mask_token=mask_token,
            oov_token=oov_token,
            vocabulary=vocabulary,
            idf_weights=idf_weights,
            invert=invert,
            output_mode=output_mode,
            sparse=sparse,
            pad_to_max_tokens=pad_to_max_tokens,
            oov_method=kwargs.pop("oov_method", "floormod"),  # strings always hash
            salt=salt,
            name=name,
            **kwargs,
        )

    def _token(self, value):
        if isinstance(value, (bytes, np.bytes_)):
            return bytes(value).decode(self.encoding)
        if isinstance(value, str):
            return str(value)
        raise TypeError(
            f"{self._who()} takes string tokens; received {type(value).__name__} {value!r}. "
            "Use IntegerLookup for integer tokens."
        )

    def _token_dtype(self) -> str:
        return "string"

    def _convert_inputs(self, x):
        return host_array(x, self._who(), self.encoding)

    def adapt(self, data, steps=None) -> None:
        """Learn the vocabulary from `data`: strings as a list, a NumPy array, a
        `PyDataset` or an iterable of batches (of which `steps` are read). With
        `output_mode="tf_idf"`, each row is a document for the idf weights."""
        self._check_adaptable()

        def documents():
            for batch in adapt_batches(data, steps, "StringLookup", self.encoding):
                if batch.size and not is_text(batch):
                    raise TypeError(
                        f"{self._who()}: adapt expects strings; received dtype {batch.dtype}."
                    )
                yield from batch.reshape(batch.shape[0], -1).tolist()

        self._learn(documents(), typed=True)

    def call(self, inputs):
        values = host_array(inputs, self._who(), self.encoding)
        if self.invert:
            if values.size and values.dtype.kind not in "iu":
                raise TypeError(
                    f"{self._who()} has invert=True, so it maps integer indices to strings; "
                    f"received dtype {values.dtype}."
                )
            return self._host_tokens(values).astype(str)
        if values.size and not is_text(values):
            raise TypeError(
                f"{self._who()} looks up strings; received dtype {values.dtype}. Use "
                "IntegerLookup for integer tokens (or StringLookup(invert=True) for indices)."
            )
        indices, valid = self._host_indices(values)
        return self._encode_host(indices, valid)

    def get_config(self):
        config = super().get_config()
        config["encoding"] = self.encoding
        return config
