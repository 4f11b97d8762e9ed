"""`pad_sequences`: turn a list of variable-length sequences into one array."""

from __future__ import annotations

import numpy as np

_SIDES = ("pre", "post")


def pad_sequences(
    sequences,
    maxlen: int | None = None,
    dtype="int32",
    padding: str = "pre",
    truncating: str = "pre",
    value=0.0,
) -> np.ndarray:
    """Pad (or truncate) sequences to a common length.

    Args:
        sequences: a list of sequences (lists or arrays; their items may themselves be
            arrays, all of one shape).
        maxlen: the output length (default: the longest sequence).
        dtype: the output dtype (`"int32"` by default; use a float dtype for float data,
            `object` or a string dtype for strings).
        padding: `"pre"` (default) or `"post"`: where padding goes.
        truncating: `"pre"` (default) or `"post"`: which end a long sequence loses.
        value: the padding value.

    Returns:
        An array of shape `(len(sequences), maxlen) + item_shape`.

    >>> pad_sequences([[1, 2, 3], [4], [5, 6]], maxlen=2).tolist()
    [[2, 3], [0, 4], [5, 6]]
    >>> pad_sequences([[1], [2, 3]], padding="post").tolist()
    [[1, 0], [2, 3]]
    """
    for name, side in (("padding", padding), ("truncating", truncating)):
        if side not in _SIDES:
            raise ValueError(f"pad_sequences: {name} must be 'pre' or 'post'; received {side!r}.")
    if not hasattr(sequences, "__len__"):
        raise ValueError(
            "pad_sequences expects a list of sequences; received "
            f"{type(sequences).__name__} without a length."
        )
    arrays = []
    for i, seq in enumerate(sequences):
        if not hasattr(seq, "__len__"):
            raise ValueError(
                f"pad_sequences: sequence {i} is {seq!r}, not a sequence; every item of "
                "`sequences` must be a list or array."
            )
        arrays.append(np.asarray(seq))
    if maxlen is None:
        maxlen = max((len(a) for a in arrays), default=0)
    elif isinstance(maxlen, bool) or int(maxlen) < 0:
        raise ValueError(f"pad_sequences: maxlen must be a non-negative int; received {maxlen!r}.")
    maxlen = int(maxlen)
    item_shape = next((a.shape[1:] for a in arrays if len(a)), ())
    out_dtype = np.dtype(dtype)
    text = out_dtype.kind in "USO"
    if isinstance(value, str) and not text:
        raise ValueError(
            f"pad_sequences: value {value!r} is a string but dtype is {out_dtype}; pass "
            "dtype=object (or a string dtype) to pad sequences of strings."
        )
    out = np.full((len(arrays), maxlen) + item_shape, value, dtype=out_dtype)
    for i, seq in enumerate(arrays):
        if not len(seq) or not maxlen:
            continue
        if seq.shape[1:] != item_shape:
            raise ValueError(
                f"pad_sequences: sequence {i} has items of shape {seq.shape[1:]}, but "
                f"earlier sequences have items of shape {item_shape}."
            )
        kept = seq[-maxlen:] if truncating == "pre" else seq[:maxlen]
        if padding == "post":
            out[i, : len(kept)] = kept
        else:
            out[i, maxlen - len(kept) :] = kept
    return out
