"""The import layering (issue 31, item 4): every package of lamina is on a floor of the
import-linter layers contract in pyproject.toml, that contract exempts no import, and no
two packages import each other, directly or through others.

`lint-imports` (in `make test`) checks the contracts themselves; these tests check that
the contracts cover the whole tree, so a new package cannot slip past them.
"""

from __future__ import annotations

import collections
import pathlib

import pytest

import lamina

tomllib = pytest.importorskip("tomllib")
grimp = pytest.importorskip("grimp")

SRC = pathlib.Path(lamina.__file__).parent
PYPROJECT = SRC.parent.parent / "pyproject.toml"
if not PYPROJECT.exists():  # an installed copy, away from its repository
    pytest.skip("pyproject.toml is not beside this lamina", allow_module_level=True)


def _contracts() -> list:
    with PYPROJECT.open("rb") as f:
        return tomllib.load(f)["tool"]["importlinter"]["contracts"]


def _layers_contract() -> dict:
    (contract,) = [c for c in _contracts() if c["type"] == "layers"]
    return contract


def _floors() -> list[set[str]]:
    """The layers, top first, each a set of package names (without `lamina.`)."""
    return [
        {name.strip().removeprefix("lamina.") for name in layer.replace(":", "|").split("|")}
        for layer in _layers_contract()["layers"]
    ]


def _packages() -> set[str]:
    return {p.name for p in SRC.iterdir() if (p / "__init__.py").exists()}


def test_every_package_is_on_exactly_one_floor():
    placed = collections.Counter(name for floor in _floors() for name in floor)
    missing = sorted(_packages() - set(placed))
    assert not missing, f"packages on no floor of the layers contract: {missing}"
    unknown = sorted(set(placed) - _packages())
    assert not unknown, f"floors name packages that do not exist: {unknown}"
    twice = sorted(name for name, count in placed.items() if count > 1)
    assert not twice, f"packages on two floors: {twice}"


def test_the_layers_contract_exempts_no_import():
    assert not _layers_contract().get("ignore_imports"), (
        "the layers contract must have no ignored imports: move the code to the right "
        "floor, or pass what a lower floor needs in (registration, an argument)"
    )


def test_every_package_above_the_classic_api_is_kept_from_it():
    (contract,) = [c for c in _contracts() if c.get("forbidden_modules") == ["lamina.legacy"]]
    floors = _floors()
    legacy = next(i for i, floor in enumerate(floors) if "legacy" in floor)
    above = {f"lamina.{name}" for floor in floors[:legacy] for name in floor}
    assert set(contract["source_modules"]) == above


def test_no_two_packages_import_each_other():
    # Package-level graph of direct imports; a strongly connected set of two or more
    # packages is an import circle longer than one package. `lamina` itself, the public
    # face that imports every package, is left out.
    graph = grimp.build_graph("lamina", cache_dir=None)
    edges = collections.defaultdict(set)
    for module in graph.modules:
        importer = module.split(".")
        if len(importer) < 2:
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            target = imported.split(".")
            if len(target) >= 2 and target[1] != importer[1]:
                edges[importer[1]].add(target[1])
    circles = [sorted(group) for group in _strongly_connected(edges) if len(group) > 1]
    assert not circles, f"packages that import each other: {circles}"


def _strongly_connected(edges: dict) -> list[set]:
    """Tarjan's algorithm over `edges` (node -> set of nodes)."""
    nodes = set(edges) | {n for targets in edges.values() for n in targets}
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            groups.append(group)

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return groups


def test_the_circle_check_finds_a_circle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert sorted(map(sorted, _strongly_connected(edges))) == [["a", "b", "c"], ["d"]]
