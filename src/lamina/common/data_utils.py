"""Packing and unpacking the `data` a step receives, as Keras 3 does.

`fit` hands each step `data = (x, y)` or `(x, y, sample_weight)`, and `predict` hands
it `x`; a custom `train_step` unpacks it with `unpack_x_y_sample_weight(data)`.
"""

from __future__ import annotations


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The tuple a step receives: `x` alone when there is no `y` (a tuple or list `x` is
    wrapped as `(x,)` so it is not read as `(x, y)`), `(x, y)`, or `(x, y, sample_weight)`.

    >>> pack_x_y_sample_weight(1, 2)
    (1, 2)
    >>> pack_x_y_sample_weight([1, 2])
    ([1, 2],)
    """
    if y is None:
        if isinstance(x, (list, tuple)):
            return (x,)
        return x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def unpack_x_y_sample_weight(data):
    """`(x, y, sample_weight)` from what a step received, None for what is missing.

    >>> unpack_x_y_sample_weight((1, 2))
    (1, 2, None)
    >>> unpack_x_y_sample_weight(7)
    (7, None, None)
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return (data, None, None)
    if len(data) == 1:
        return (data[0], None, None)
    if len(data) == 2:
        return (data[0], data[1], None)
    if len(data) == 3:
        return (data[0], data[1], data[2])
    raise ValueError(
        "Data is expected to be x, (x,), (x, y) or (x, y, sample_weight); received a "
        f"tuple of {len(data)} elements: {data!r}."
    )


def pandas_kind(x) -> str | None:
    """`"DataFrame"` or `"Series"` for a pandas one (or a subclass's), told without
    importing pandas; None for anything else.

    >>> pandas_kind([1, 2]) is None
    True
    """
    for cls in type(x).__mro__:
        if cls.__name__ in ("DataFrame", "Series") and (cls.__module__ or "").startswith("pandas"):
            return cls.__name__
    return None
