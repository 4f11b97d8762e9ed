"""Nested structures (lists, tuples, namedtuples, dicts) of leaves: flatten, rebuild, map.

A structure is a leaf or a list, tuple, namedtuple or dict of structures; anything
else (an array, a KerasTensor, `None`) is a leaf. Dicts are visited in sorted-key
order, as Keras does, so `flatten` and `pack_sequence_as` agree whatever order the
keys were inserted in; a dict that is rebuilt (`map_structure`, `pack_sequence_as`)
keeps the key order of the structure it copies, as Keras's trees do.

This package sits below `lamina.backend` and imports nothing from lamina, so every
layer of the system, a backend included, can use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class MAP_TO_NONE:  # noqa: N801 - Keras's name for the sentinel
    """Returned by a `traverse` function to replace a sub-tree with `None`.

    >>> from lamina import tree
    >>> tree.traverse(lambda x: tree.MAP_TO_NONE if x == "drop" else None, {"a": 1, "b": "drop"})
    {'a': 1, 'b': None}
    """


def is_nested(structure) -> bool:
    """Whether `structure` is a list, tuple or dict (not a leaf).

    >>> is_nested([1, 2]), is_nested({"a": 1}), is_nested(3)
    (True, True, False)
    """
    return isinstance(structure, (list, tuple, dict))


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _children(structure) -> list:
    if isinstance(structure, dict):
        return [structure[k] for k in sorted(structure)]
    return list(structure)


def _rebuild(structure, children):
    """A node of `structure`'s kind holding `children` (in `_children` order)."""
    if isinstance(structure, dict):
        # Children come in sorted-key order (`flatten`'s); the dict keeps its own key
        # order, as Keras's trees do (`model(x)` returns outputs in the order given).
        by_key = dict(zip(sorted(structure), children))
        return {key: by_key[key] for key in structure}
    if _is_namedtuple(structure):
        return type(structure)(*children)
    return type(structure)(children)


def flatten(structure) -> list:
    """The leaves of `structure`, in order (dicts in sorted-key order).

    >>> flatten({"b": [2, 3], "a": 1})
    [1, 2, 3]
    >>> flatten(None)
    [None]
    """
    out: list = []
    _flatten(structure, out)
    return out


def _flatten(s, out):
    if is_nested(s):
        for child in _children(s):
            _flatten(child, out)
    else:
        out.append(s)


def assert_same_structure(a, b, check_types=None) -> None:
    """Raise `ValueError` unless `a` and `b` are nested the same way.

    At each level the two must be the same kind of container with the same length:
    a list does not match a tuple, two namedtuple classes do not match each other,
    and dicts match when they have the same keys. Leaves may be anything.

    `check_types` is deprecated in Keras 3 and has no effect there either; passing it
    warns (`DeprecationWarning`) as Keras does.

    >>> assert_same_structure([(0, 1)], [(2, 3)])
    >>> assert_same_structure([0, 1], (0, 1))
    Traceback (most recent call last):
        ...
    ValueError: The two structures don't have the same nested structure: [0, 1] is a list and (0, 1) is a tuple.
    """
    if check_types is not None:
        import warnings

        warnings.warn(
            "The `check_types` argument of assert_same_structure is deprecated and has no "
            "effect (as in Keras 3); remove it. For a check that lets a list match a "
            "tuple, use `assert_same_paths`.",
            DeprecationWarning,
            stacklevel=2,
        )
    problem = _structure_mismatch(a, b)
    if problem is not None:
        raise ValueError(f"The two structures don't have the same nested structure: {problem}.")


def _kind(x) -> type:
    return dict if isinstance(x, dict) else type(x)


def _structure_mismatch(a, b) -> str | None:
    if not is_nested(a) or not is_nested(b):
        if is_nested(a) or is_nested(b):
            leaf, nest = (b, a) if is_nested(a) else (a, b)
            return f"{nest!r} is a {type(nest).__name__} where the other has the leaf {leaf!r}"
        return None
    if _kind(a) is not _kind(b):
        return f"{a!r} is a {type(a).__name__} and {b!r} is a {type(b).__name__}"
    if isinstance(a, dict):
        if set(a) != set(b):
            return f"dict keys {sorted(a, key=repr)} and {sorted(b, key=repr)} differ"
    elif len(a) != len(b):
        return f"{a!r} has {len(a)} items and {b!r} has {len(b)}"
    for x, y in zip(_children(a), _children(b)):
        problem = _structure_mismatch(x, y)
        if problem is not None:
            return problem
    return None


def map_structure(func: Callable, *structures, none_is_leaf: bool = True):
    """Apply `func` to the leaves of `structures` (nested alike), keeping the nesting.

    With several structures, `func` gets one leaf of each, in the same position. With
    `none_is_leaf=False` a `None` of the first structure is kept as `None` and `func`
    is not called on it (Keras 3's meaning).

    >>> map_structure(lambda x: x * 2, {"a": [1, 2], "b": 3})
    {'a': [2, 4], 'b': 6}
    >>> map_structure(lambda x, y: x + y, (1, [2]), (10, [20]))
    (11, [22])
    """
    if not structures:
        raise TypeError("map_structure needs at least one structure; received none.")
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    if not none_is_leaf:
        inner = func

        def func(*leaves):
            return None if leaves[0] is None else inner(*leaves)

    return _map(func, structures)


def _map(func, structures):
    first = structures[0]
    if not is_nested(first):
        return func(*structures)
    columns = zip(*(_children(s) for s in structures))
    return _rebuild(first, [_map(func, column) for column in columns])


def map_structure_up_to(shallow_structure, func: Callable, *structures):
    """`map_structure` that stops at the leaves of `shallow_structure`.

    What lies below one of `shallow_structure`'s leaves is passed to `func` whole.

    >>> map_structure_up_to([None, None], len, [[1, 1], [2, 2, 2]])
    [2, 3]
    >>> map_structure_up_to([None, [None, None]], str, [[1, 1], [2, 2]])
    ['[1, 1]', ['2', '2']]
    """
    if not structures:
        raise TypeError("map_structure_up_to needs at least one structure; received none.")
    for s in structures:
        problem = _shallow_mismatch(shallow_structure, s)
        if problem is not None:
            raise ValueError(
                f"The structure does not match shallow_structure {shallow_structure!r}: {problem}."
            )
    return _map_up_to(shallow_structure, func, structures)


def _shallow_mismatch(shallow, s) -> str | None:
    if not is_nested(shallow):
        return None
    if not is_nested(s):
        return f"{s!r} is a leaf where a {type(shallow).__name__} is expected"
    if _kind(shallow) is not _kind(s):
        return f"{s!r} is a {type(s).__name__} where a {type(shallow).__name__} is expected"
    if isinstance(shallow, dict) and set(shallow) != set(s):
        return f"dict keys {sorted(s, key=repr)} differ from {sorted(shallow, key=repr)}"
    if not isinstance(shallow, dict) and len(shallow) != len(s):
        return f"{s!r} has {len(s)} items where {len(shallow)} are expected"
    for x, y in zip(_children(shallow), _children(s)):
        problem = _shallow_mismatch(x, y)
        if problem is not None:
            return problem
    return None


def _map_up_to(shallow, func, structures):
    if not is_nested(shallow):
        return func(*structures)
    columns = zip(*(_children(s) for s in structures))
    return _rebuild(
        shallow,
        [_map_up_to(child, func, column) for child, column in zip(_children(shallow), columns)],
    )


def pack_sequence_as(structure, flat_sequence):
    """Rebuild `structure`'s nesting with the leaves of `flat_sequence`, in order.

    The inverse of `flatten`: `pack_sequence_as(s, flatten(s))` equals `s`.

    >>> pack_sequence_as({"b": [0, 0], "a": 0}, [1, 2, 3])
    {'b': [2, 3], 'a': 1}
    """
    flat_sequence = list(flat_sequence)
    num_leaves = len(flatten(structure))
    if len(flat_sequence) != num_leaves:
        raise ValueError(
            f"pack_sequence_as needs one value per leaf of the structure: the structure "
            f"has {num_leaves} leaves and the sequence {len(flat_sequence)} values."
        )
    it = iter(flat_sequence)
    return _map(lambda _: next(it), (structure,))


def traverse(func: Callable, structure, top_down: bool = True):
    """Apply `func` to every sub-tree of `structure`, depth-first, as Keras does.

    Top-down (the default), `func` sees a node before its children: a result of
    `None` means "go on into the children"; any other result replaces the sub-tree
    and its children are not visited. Bottom-up, `func` sees the children first, then
    the node rebuilt from their results: `None` keeps it, anything else replaces it.
    Return `MAP_TO_NONE` to replace a sub-tree with `None`.

    >>> seen = []
    >>> traverse(seen.append, [(1, 2), {"a": 3}])
    [(1, 2), {'a': 3}]
    >>> seen
    [[(1, 2), {'a': 3}], (1, 2), 1, 2, {'a': 3}, 3]
    """
    if not callable(func):
        raise TypeError(f"traverse needs a callable func; received {func!r}.")

    def children_traversed():
        if not is_nested(structure):
            return structure
        return _rebuild(
            structure, [traverse(func, c, top_down=top_down) for c in _children(structure)]
        )

    if top_down:
        result = func(structure)
        if result is None:
            return children_traversed()
    else:
        rebuilt = children_traversed()
        result = func(rebuilt)
        if result is None:
            return rebuilt
    return None if result is MAP_TO_NONE else result


def any_leaf(predicate: Callable[[Any], bool], structure) -> bool:
    """Whether `predicate` holds for some leaf of `structure`.

    >>> any_leaf(lambda x: x is None, {"a": [1, None]})
    True
    """
    return any(predicate(leaf) for leaf in flatten(structure))


def flatten_with_path(structure) -> list:
    """The leaves of `structure` with their paths: `(path, leaf)` pairs, in `flatten` order.

    A path is the tuple of indices (lists, tuples, namedtuples) and keys (dicts) that
    leads from the top of `structure` to the leaf; a bare leaf has the path `()`.

    >>> flatten_with_path([{"foo": 42}, (1, None)])
    [((0, 'foo'), 42), ((1, 0), 1), ((1, 1), None)]
    """
    out: list = []
    _flatten_with_path(structure, (), out)
    return out


def _flatten_with_path(s, path, out):
    if is_nested(s):
        keys = sorted(s) if isinstance(s, dict) else range(len(s))
        for key, child in zip(keys, _children(s)):
            _flatten_with_path(child, path + (key,), out)
    else:
        out.append((path, s))


def assert_same_paths(a, b) -> None:
    """Raise `ValueError` unless `a` and `b` have leaves at the same paths.

    Unlike `assert_same_structure`, container kinds do not matter: `[0, 1]` and
    `(2, 3)` have the same paths (`(0,)` and `(1,)`), as do two namedtuple classes
    with as many fields.

    >>> assert_same_paths([0, 1], (2, 3))
    >>> assert_same_paths({"a": 1}, {"b": 1})
    Traceback (most recent call last):
        ...
    ValueError: The two structures don't have the same paths: paths of a missing in b: [('a',)]; paths of b missing in a: [('b',)].
    """
    a_paths = {path for path, _ in flatten_with_path(a)}
    b_paths = {path for path, _ in flatten_with_path(b)}
    if a_paths != b_paths:
        parts = []
        if a_paths - b_paths:
            parts.append(f"paths of a missing in b: {sorted(a_paths - b_paths, key=repr)}")
        if b_paths - a_paths:
            parts.append(f"paths of b missing in a: {sorted(b_paths - a_paths, key=repr)}")
        raise ValueError(f"The two structures don't have the same paths: {'; '.join(parts)}.")


def lists_to_tuples(structure):
    """`structure` with every list, at any depth, turned into a tuple.

    >>> lists_to_tuples({"a": [1, [2, 3]], "b": (4, [5])})
    {'a': (1, (2, 3)), 'b': (4, (5,))}
    """
    return traverse(
        lambda node: tuple(node) if isinstance(node, list) else None, structure, top_down=False
    )


def _is_shape(x) -> bool:
    return isinstance(x, (list, tuple)) and all(isinstance(e, (int, type(None))) for e in x)


def map_shape_structure(func: Callable, structure):
    """`map_structure` for structures of shapes: a list or tuple holding only ints and
    `None`s is a shape, passed to `func` whole, as are the other leaves.

    >>> map_shape_structure(len, {"image": (None, 28, 28), "ids": [(None,), (None, 4)]})
    {'image': 3, 'ids': [1, 2]}
    """
    if _is_shape(structure) or not is_nested(structure):
        return func(structure)
    return _rebuild(structure, [map_shape_structure(func, c) for c in _children(structure)])
