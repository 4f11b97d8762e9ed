"""Nested structures (lists, tuples, dicts) of tensors: flatten, rebuild, map."""

from __future__ import annotations


def is_nested(x) -> bool:
    return isinstance(x, (list, tuple, dict))


def flatten(structure) -> list:
    """Leaves in order; dicts are visited in sorted-key order, as Keras does."""
    out: list = []
    _flatten(structure, out)
    return out


def _flatten(s, out):
    if isinstance(s, dict):
        for k in sorted(s):
            _flatten(s[k], out)
    elif isinstance(s, (list, tuple)):
        for v in s:
            _flatten(v, out)
    else:
        out.append(s)


def map_structure(fn, structure):
    if isinstance(structure, dict):
        # Visit keys in the order `flatten` uses, so pack_sequence_as matches it.
        return {k: map_structure(fn, structure[k]) for k in sorted(structure)}
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*(map_structure(fn, v) for v in structure))
    if isinstance(structure, (list, tuple)):
        return type(structure)(map_structure(fn, v) for v in structure)
    return fn(structure)


def pack_sequence_as(structure, flat):
    it = iter(flat)

    def take(_):
        return next(it)

    return map_structure(take, structure)


def any_leaf(predicate, structure) -> bool:
    if isinstance(structure, dict):
        return any(any_leaf(predicate, v) for v in structure.values())
    if isinstance(structure, (list, tuple)):
        return any(any_leaf(predicate, v) for v in structure)
    return predicate(structure)
