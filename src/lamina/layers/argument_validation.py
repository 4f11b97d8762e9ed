"""The one check every layer runs on its integer arguments (`units`, `filters`,
`kernel_size`, `pool_size`, `size`, `padding`, `cropping`, `axis`, ...).

An integer is a Python `int` or anything that says it is one through `__index__`: NumPy
integer scalars (`np.int64(46)`, what `x.shape[-1]` of an array or `np.arange` hands
out) and 0-d integer arrays. Classic Keras programs pass these everywhere
(`Dense(num_classes)` with `num_classes = np.max(y) + 1`), and Keras accepted them. A
`bool` is not an integer here, and a float is not one either, except that a whole float
inside a tuple (`kernel_size=(3.0, 3.0)`) is read as the int it names, as Keras's
`normalize_tuple` did.

Every function returns plain Python ints, so what a layer stores, and so what its
`get_config` returns, is JSON-able whatever kind of integer the caller passed.

>>> import numpy as np
>>> integer(np.int64(46), "units", "Dense")
46
>>> int_tuple(np.int64(2), 2, "size", "UpSampling2D")
(2, 2)
"""

from __future__ import annotations

import operator

__all__ = ["as_int", "int_or_ints", "int_pairs", "int_tuple", "integer", "is_integer"]


def _bound(minimum: int) -> str:
    return {0: "non-negative ", 1: "positive "}.get(minimum, "")


def is_integer(value) -> bool:
    """Whether `value` is an integer: an `int` or a NumPy integer (not a bool)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def as_int(value, whole_floats: bool = False) -> int | None:
    """`value` as a Python int, or None when it is not an integer (see the module)."""
    if is_integer(value):
        return operator.index(value)
    if whole_floats and isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def integer(value, name: str, who: str, minimum: int | None = 1, optional: bool = False):
    """`value` as a Python int at least `minimum`; None passes when `optional`.

    Raises:
        ValueError: `value` is not an integer, or is below `minimum`; the message names
            the layer (`who`) and the argument.
    """
    if optional and value is None:
        return None
    number = as_int(value)
    if number is None or (minimum is not None and number < minimum):
        expected = f"a {_bound(minimum) if minimum is not None else ''}int"
        raise ValueError(
            f"{who} expects `{name}` to be {expected}{' or None' if optional else ''}; "
            f"received {value!r}."
        )
    return number


def int_tuple(value, rank: int, name: str, who: str, minimum: int = 1) -> tuple:
    """An integer (repeated `rank` times) or `rank` integers -> a tuple of Python ints,
    each at least `minimum` (Keras's `normalize_tuple`)."""
    expected = f"an int or a tuple of {rank} {_bound(minimum)}ints"
    single = as_int(value)
    if single is not None:
        values = (single,) * rank
    else:
        try:
            items = tuple(value)
        except TypeError:
            raise ValueError(
                f"{who} expects `{name}` to be {expected}; received {value!r}."
            ) from None
        values = tuple(as_int(v, whole_floats=True) for v in items)
        if len(values) != rank or any(v is None for v in values):
            raise ValueError(f"{who} expects `{name}` to be {expected}; received {value!r}.")
    if any(v < minimum for v in values):
        raise ValueError(f"{who} expects `{name}` to be {expected}; received {value!r}.")
    return values


def int_pairs(value, rank: int, name: str, who: str) -> tuple:
    """Padding or cropping amounts: an integer, `rank` integers, or `rank` pairs ->
    `rank` `(before, after)` pairs of non-negative Python ints. For `rank == 1` a pair
    of integers is the one axis's `(before, after)`."""
    bad = ValueError(
        f"{who} expects `{name}` to be a non-negative int, a tuple of {rank} non-negative "
        f"ints, or a tuple of {rank} pairs of non-negative ints; received {value!r}."
    )
    single = as_int(value)
    if single is not None:
        pairs = ((single, single),) * rank
    else:
        try:
            items = tuple(value)
        except TypeError:
            raise bad from None
        if rank == 1 and len(items) == 2 and all(is_integer(v) for v in items):
            items = (items,)
        if len(items) != rank:
            raise bad
        pairs = []
        for item in items:
            if is_integer(item):
                pairs.append((as_int(item),) * 2)
                continue
            try:
                pair = tuple(as_int(v) for v in item)
            except TypeError:
                raise bad from None
            if len(pair) != 2 or None in pair:
                raise bad
            pairs.append(pair)
        pairs = tuple(pairs)
    if any(v < 0 for pair in pairs for v in pair):
        raise bad
    return pairs


def int_or_ints(value, name: str, who: str):
    """An axis argument: an integer -> a Python int; a list or tuple of integers -> a
    list of Python ints (as Keras stores several axes)."""
    single = as_int(value)
    if single is not None:
        return single
    try:
        items = [as_int(v) for v in value]
    except TypeError:
        items = [None]
    if None in items:
        raise ValueError(
            f"{who} expects `{name}` to be an int or a list of ints; received {value!r}."
        )
    return items
