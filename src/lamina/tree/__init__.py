"""`lamina.tree`: nested structures of tensors, as `keras.tree` has them.

The lowest layer of lamina (it imports nothing from lamina), so a backend can use it.
"""

from lamina.tree.structure import (
    MAP_TO_NONE,
    any_leaf,
    assert_same_structure,
    flatten,
    is_nested,
    map_structure,
    map_structure_up_to,
    pack_sequence_as,
    traverse,
)

__all__ = [
    "MAP_TO_NONE",
    "any_leaf",
    "assert_same_structure",
    "flatten",
    "is_nested",
    "map_structure",
    "map_structure_up_to",
    "pack_sequence_as",
    "traverse",
]
