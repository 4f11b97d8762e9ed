"""`lamina.tree`: nested structures of tensors, as `keras.tree` has them.

The lowest layer of lamina (it imports nothing from lamina), so a backend can use it.
"""

from lamina.tree.structure import (
    MAP_TO_NONE,
    any_leaf,
    assert_same_paths,
    assert_same_structure,
    flatten,
    flatten_with_path,
    is_nested,
    lists_to_tuples,
    map_shape_structure,
    map_structure,
    map_structure_up_to,
    pack_sequence_as,
    traverse,
)

__all__ = [
    "MAP_TO_NONE",
    "any_leaf",
    "assert_same_paths",
    "assert_same_structure",
    "flatten",
    "flatten_with_path",
    "is_nested",
    "lists_to_tuples",
    "map_shape_structure",
    "map_structure",
    "map_structure_up_to",
    "pack_sequence_as",
    "traverse",
]
