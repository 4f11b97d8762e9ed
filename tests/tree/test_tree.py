"""lamina.tree: the nested-structure helpers, checked against keras.tree."""

import collections
import os

import pytest

from lamina import tree

# Keras imports TensorFlow unless told its backend: without this, run alone, the whole
# file was skipped ("could not import 'keras'").
os.environ.setdefault("KERAS_BACKEND", "jax")
keras_tree = pytest.importorskip("keras").tree

Point = collections.namedtuple("Point", ["x", "y"])
OtherPoint = collections.namedtuple("OtherPoint", ["x", "y"])

STRUCTURES = [
    1,
    None,
    [],
    [1, (2, 3), {"b": 4, "a": [5, None]}],
    {"z": (1,), "a": {"c": 2, "b": 3}},
    Point(1, [2, 3]),
]


@pytest.mark.parametrize("structure", STRUCTURES)
def test_flatten_and_pack_match_keras(structure):
    flat = tree.flatten(structure)
    assert flat == keras_tree.flatten(structure)
    assert tree.pack_sequence_as(structure, flat) == structure
    assert tree.is_nested(structure) == keras_tree.is_nested(structure)


@pytest.mark.parametrize("structure", STRUCTURES)
def test_map_structure_matches_keras(structure):
    def fn(x):
        return None if x is None else x * 10

    assert tree.map_structure(fn, structure) == keras_tree.map_structure(fn, structure)


def test_map_structure_keeps_namedtuples_and_takes_several_structures():
    out = tree.map_structure(lambda a, b: a + b, Point(1, [2]), Point(10, [20]))
    assert out == Point(11, [22])
    assert type(out) is Point


def test_map_structure_rejects_structures_nested_differently():
    with pytest.raises(ValueError, match="same nested structure"):
        tree.map_structure(lambda a, b: a, [1, 2], [1, 2, 3])


def test_dict_keys_are_visited_in_sorted_order_whatever_the_insertion_order():
    assert tree.flatten({"b": 1, "a": 2}) == [2, 1]
    assert tree.pack_sequence_as({"b": 0, "a": 0}, [2, 1]) == {"a": 2, "b": 1}


def test_rebuilt_dicts_keep_their_key_order_as_keras_trees_do():
    # Values go by sorted key; the keys keep the order of the structure copied (Keras's
    # `tree.pack_sequence_as({"zeta": 1, "alpha": 2}, [5, 6])` is {'zeta': 6, 'alpha': 5}).
    packed = tree.pack_sequence_as({"zeta": 1, "alpha": 2}, [5, 6])
    assert list(packed.items()) == [("zeta", 6), ("alpha", 5)]
    mapped = tree.map_structure(lambda v: v * 10, {"zeta": 1, "alpha": [2, {"y": 3, "x": 4}]})
    assert list(mapped) == ["zeta", "alpha"] and list(mapped["alpha"][1]) == ["y", "x"]
    assert mapped == {"zeta": 10, "alpha": [20, {"y": 30, "x": 40}]}


def test_pack_sequence_as_rejects_a_wrong_number_of_values():
    with pytest.raises(ValueError, match="2 leaves and the sequence 3 values"):
        tree.pack_sequence_as([0, 0], [1, 2, 3])


@pytest.mark.parametrize(
    "a, b",
    [
        ([0, 1], [2, 3]),
        ({"a": 1, "b": [2]}, {"b": [0], "a": 0}),
        (Point(0, 1), Point(2, 3)),
        ([0, 1], (0, 1)),
        ([0, 1], [0, 1, 2]),
        ({"a": 1}, {"b": 1}),
        (Point(0, 1), OtherPoint(0, 1)),
        ([0, [1]], [0, 1]),
    ],
)
def test_assert_same_structure_agrees_with_keras(a, b):
    try:
        keras_tree.assert_same_structure(a, b)
        keras_same = True
    except (ValueError, TypeError):
        keras_same = False
    if keras_same:
        tree.assert_same_structure(a, b)
    else:
        with pytest.raises(ValueError, match="same nested structure"):
            tree.assert_same_structure(a, b)


def test_map_structure_up_to_matches_keras():
    structure = [[1, 1], {"a": (2, 2)}]
    # Zeros as the shallow leaves: keras.tree (optree) reads a None there as an empty node.
    for shallow in ([0, 0], [0, {"a": 0}], [0, {"a": (0, 0)}]):
        assert tree.map_structure_up_to(shallow, str, structure) == (
            keras_tree.map_structure_up_to(shallow, str, structure)
        )
    with pytest.raises(ValueError, match="shallow_structure"):
        tree.map_structure_up_to([None, [None]], str, [1, 2])


@pytest.mark.parametrize("top_down", [True, False])
def test_traverse_visits_and_returns_as_keras(top_down):
    structure = [(1, 2), [3], {"b": 4, "a": 5}]
    ours, theirs = [], []
    assert tree.traverse(ours.append, structure, top_down=top_down) == structure
    keras_tree.traverse(theirs.append, structure, top_down=top_down)
    assert ours == theirs


def test_traverse_replaces_sub_trees():
    def collapse_tuples(x):
        return sum(x) if isinstance(x, tuple) else None

    assert tree.traverse(collapse_tuples, [(1, 2), [(3, 4)]]) == [3, [7]]
    assert tree.traverse(
        lambda x: tree.MAP_TO_NONE if x == 2 else None, [1, 2], top_down=False
    ) == [1, None]


def test_any_leaf():
    assert tree.any_leaf(lambda x: x is None, {"a": [1, None]})
    assert not tree.any_leaf(lambda x: x is None, {"a": [1, 2]})


def test_lamina_tree_is_public():
    import lamina

    assert lamina.tree is tree
