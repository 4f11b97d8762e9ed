"""Every public name has a docstring, and a runnable example unless it is on the to-do list.

The public names are those the API reference documents (`docs/_ext/api_names.py`: every
module's `__all__`, each object once). A name with no docstring fails. A name whose
docstring has no `>>>` example must be listed in `docstring_examples_todo.txt`, and a
listed name that has gained an example fails too, so the list only shrinks and stays
true: delete the line when you write the example.

The examples run where doctests already run them: `--doctest-modules` collects the
docstrings of the classes and functions a module defines (`make test`, JAX), and
`tests/ops/test_op_docs.py` runs the ops' examples on every engine. An object neither
reaches (one defined under another name, an instance) has its examples run here.
"""

from __future__ import annotations

import doctest
import importlib.util
import inspect
import pathlib
import sys

import pytest

import lamina
from lamina import ops

_ROOT = pathlib.Path(__file__).resolve().parent.parent
_TODO = pathlib.Path(__file__).with_name("docstring_examples_todo.txt")


def _load_api_names():
    spec = importlib.util.spec_from_file_location(
        "_lamina_api_names", _ROOT / "docs" / "_ext" / "api_names.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while defining
    spec.loader.exec_module(module)
    return module


_API = _load_api_names()
_NAMES = sorted(_API.canonical_names().values(), key=lambda entry: entry.path)
_SRC = pathlib.Path(lamina.__file__).resolve().parent


def _own_doc(obj) -> str:
    # Not `inspect.getdoc`: a class without a docstring would show its base class's.
    return inspect.cleandoc(getattr(obj, "__doc__", None) or "")


def _todo() -> list[str]:
    return [
        line.strip()
        for line in _TODO.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]


def _found_by_doctest_modules(obj) -> bool:
    """Whether `--doctest-modules` finds `obj`'s docstring: doctest takes the classes and
    functions of a module's namespace whose `__module__` is that module."""
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    if module is None:
        return False
    path = pathlib.Path(getattr(module, "__file__", "") or "").resolve()
    if _SRC not in path.parents:
        return False
    if not (inspect.isclass(obj) or inspect.isroutine(inspect.unwrap(obj))):
        return False
    # A wrapper made with `functools.wraps` (the classic `K.*` names that read graph
    # variables) shares the docstring of the function it wraps, which doctest finds.
    same_doc = [obj]
    while getattr(same_doc[-1], "__wrapped__", None) is not None:
        same_doc.append(same_doc[-1].__wrapped__)
    same_doc = [f for f in same_doc if f.__doc__ == obj.__doc__]
    return any(value is f for value in vars(module).values() for f in same_doc)


def _run_by_op_docs(obj) -> bool:
    """`tests/ops/test_op_docs.py` runs the examples of the ops of these namespaces."""
    if inspect.isclass(obj) or not callable(obj):
        return False
    namespaces = (ops, ops.numpy, ops.nn, ops.math, ops.linalg, ops.image, ops.random)
    return any(
        getattr(namespace, name, None) is obj
        for namespace in namespaces
        for name in getattr(namespace, "__all__", ())
    )


def test_every_public_module_is_on_an_api_page():
    assert not _API.unpaged_modules(), (
        "public modules on no page of the API reference; add each to a group in "
        f"docs/_ext/api_names.py: {_API.unpaged_modules()}"
    )


def test_every_public_name_has_a_docstring():
    missing = [entry.path for entry in _NAMES if not _own_doc(entry.obj)]
    assert not missing, (
        f"{len(missing)} public names have no docstring; write one (a summary line, "
        f"`Args:`, a `>>>` example): {missing}"
    )


def _documented_here(entry) -> bool:
    """Whether this engine's object is the one the reference documents. On another
    engine than JAX, the engine's own functions (`lamina.backend.cond` is the torch
    engine's there) are not: the examples show the default engine, run there, and the
    JAX pass holds the same names to this test."""
    if lamina.backend.backend() == "jax":
        return True
    module = getattr(entry.obj, "__module__", None) or ""
    return not module.startswith(f"lamina.backend.{lamina.backend.backend()}")


def test_names_without_an_example_are_exactly_the_listed_ones():
    without = {
        entry.path
        for entry in _NAMES
        if ">>>" not in _own_doc(entry.obj) and _documented_here(entry)
    }
    listed = _todo()
    assert listed == sorted(set(listed)), f"{_TODO.name} must be sorted, each name once."
    new = sorted(without - set(listed))
    done = sorted(set(listed) - without)
    assert not new, (
        f"{len(new)} public names have no `>>>` example in their docstring; add one "
        f"(it runs in `make test`): {new}"
    )
    assert not done, (
        f"{len(done)} names listed in {_TODO.name} now have an example (or are no longer "
        f"public): delete their lines: {done}"
    )


# The methods a Keras user calls first hold to the same rule as the public names (the
# names test above covers module-level names only).
_KEY_METHODS = [
    "compile",
    "fit",
    "evaluate",
    "predict",
    "save",
    "save_weights",
    "summary",
    "get_layer",
]


@pytest.mark.parametrize("name", _KEY_METHODS)
def test_the_model_methods_used_most_have_examples_that_doctest_runs(name):
    method = inspect.unwrap(getattr(lamina.Model, name))
    assert ">>>" in _own_doc(method), f"Model.{name} needs a `>>>` example in its docstring."
    # --doctest-modules runs it: the method is in a class of the module that defines it.
    module = sys.modules[method.__module__]
    owners = [
        value
        for value in vars(module).values()
        if inspect.isclass(value) and value.__module__ == module.__name__
    ]
    assert any(
        inspect.unwrap(vars(owner).get(name, None) or (lambda: None)) is method for owner in owners
    ), f"Model.{name}'s examples would not be collected by --doctest-modules."


def _not_otherwise_run():
    for entry in _NAMES:
        doc = _own_doc(entry.obj)
        if ">>>" not in doc:
            continue
        if _found_by_doctest_modules(entry.obj) or _run_by_op_docs(entry.obj):
            continue
        yield entry


@pytest.mark.parametrize("entry", list(_not_otherwise_run()), ids=lambda entry: entry.path)
def test_examples_that_no_doctest_collects_run(entry):
    if lamina.backend.backend() != "jax":
        pytest.skip("docstring examples show the default engine's values")
    module = sys.modules[entry.module]
    test = doctest.DocTestParser().get_doctest(
        entry.obj.__doc__, dict(vars(module)), entry.path, None, 0
    )
    failures: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
