"""Every public op documents itself: a summary, each argument, what it returns, an example.

Issue 12 asks that every public op have a docstring. A Keras user reading
`help(ops.matmul)` expects what Keras's own docs give: the arguments, the result and an
example. This test reads each public op of `lamina.ops` and its namespaces and checks:

- the first line is a one-sentence summary;
- an `Args:` section names exactly the op's parameters (from its signature);
- a `Returns:` section;
- at least one `>>>` example, and the examples run on the current engine.
"""

from __future__ import annotations

import doctest
import inspect
import re

import numpy as np
import pytest

import lamina
from lamina import ops

_NAMESPACES = {
    "ops": ops,
    "ops.numpy": ops.numpy,
    "ops.nn": ops.nn,
    "ops.math": ops.math,
    "ops.linalg": ops.linalg,
    "ops.image": ops.image,
    "ops.random": ops.random,
}


def _public_ops():
    seen = {}
    for prefix, module in _NAMESPACES.items():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.ismodule(obj) or inspect.isclass(obj) or not callable(obj):
                continue
            seen.setdefault(id(obj), (f"{prefix}.{name}", obj))
    return sorted(seen.values(), key=lambda item: item[0])


_OPS = _public_ops()
_ARG_LINE = re.compile(r"^(\s+)(\*{0,2}\w+)(?:\s*\([^)]*\))?\s*:")


def _section(doc: str, title: str) -> list[str] | None:
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == f"{title}:":
            body = []
            for rest in lines[i + 1 :]:
                if rest.strip() and not rest.startswith((" ", "\t")):
                    break
                body.append(rest)
            return body
    return None


def _documented_args(doc: str) -> list[str] | None:
    body = _section(doc, "Args")
    if body is None:
        return None
    indents = [len(line) - len(line.lstrip()) for line in body if line.strip()]
    if not indents:
        return []
    first = min(indents)
    names = []
    for line in body:
        match = _ARG_LINE.match(line)
        if match and len(match.group(1)) == first:
            names.append(match.group(2).lstrip("*"))
    return names


def _parameters(op) -> list[str]:
    return [p.name for p in inspect.signature(op).parameters.values()]


def test_the_ops_are_found():
    names = {name for name, _ in _OPS}
    assert {"ops.matmul", "ops.relu", "ops.image.resize", "ops.random.normal"} <= names
    assert len(_OPS) > 300


@pytest.mark.parametrize(("name", "op"), _OPS, ids=[name for name, _ in _OPS])
def test_op_is_documented(name, op):
    doc = inspect.getdoc(op)
    assert doc, f"{name} has no docstring"
    summary = doc.splitlines()[0]
    assert summary.strip().endswith("."), f"{name}: summary line {summary!r} is not a sentence"
    params = _parameters(op)
    if params:
        documented = _documented_args(doc)
        assert documented is not None, f"{name}: no Args: section (parameters {params})"
        assert documented == params, (
            f"{name}: Args: documents {documented}, the signature has {params} (same order)"
        )
    assert _section(doc, "Returns") is not None, f"{name}: no Returns: section"
    assert ">>>" in doc, f"{name}: no >>> example"


@pytest.mark.parametrize(("name", "op"), _OPS, ids=[name for name, _ in _OPS])
def test_op_examples_run(name, op):
    doc = inspect.getdoc(op) or ""
    if ">>>" not in doc:
        pytest.skip(f"{name} has no example (test_op_is_documented fails for it)")
    # A copy of the op's own module globals (examples written in a module may use its
    # names), plus the names every example may assume.
    globs = {
        **getattr(inspect.unwrap(op), "__globals__", {}),
        "np": np,
        "ops": ops,
        "keras": lamina,
    }
    test = doctest.DocTestParser().get_doctest(doc, globs, name, None, 0)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
