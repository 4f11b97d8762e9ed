"""Shared pytest setup: every test (and doctest) starts with fresh names and seeds.

Doctest collection skips the modules of an engine whose library is not installed (torch
is an optional extra).
"""

import importlib.util
import os

import pytest

# XLA's CPU compiler without LLVM's costly optimisation passes: the suite compiles a few
# thousand small programs, whose compile time (not run time) is most of the JAX pass.
# The operations and their results are the same; only the generated code is less tuned.
# A flag the caller set wins; scripts that set their own flags (distribution) keep them.
os.environ.setdefault(
    "XLA_FLAGS", "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"
)

collect_ignore = []
if importlib.util.find_spec("torch") is None:
    collect_ignore.append("src/lamina/backend/torch")


@pytest.fixture(autouse=True)
def _fresh_session():
    import lamina

    # Without the garbage collection a user's clear_session() runs: with JAX, torch and
    # Keras loaded, a full collection costs ~0.4 s, which per test item was most of the
    # suite's time.
    lamina.backend.clear_session(free_memory=False)
    lamina.utils.set_random_seed(1337)
    yield


def pytest_collection_modifyitems(config, items):
    """Leave out the doctests of the ops that `ops.core` builds (from the backend
    contract, or composites): doctest collection finds them in `lamina.ops`, their module
    name, and would run them with that module's globals, where `round` or `sum` are ops.
    `tests/ops/test_op_docs.py` runs each of those examples, with the op's own globals,
    on every engine."""
    kept = []
    for item in items:
        if _is_contract_op_doctest(item):
            config.hook.pytest_deselected(items=[item])
        else:
            kept.append(item)
    items[:] = kept


def _is_contract_op_doctest(item) -> bool:
    dtest = getattr(item, "dtest", None)
    if dtest is None or not dtest.name.startswith("lamina.ops."):
        return False
    import importlib
    import inspect

    module_name, _, attr = dtest.name.rpartition(".")
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError):
        return False
    # Ops made by `ops.core._op` (from the contract, or composites) wrap a function and
    # carry the `lamina.ops` module name whatever file defines them.
    return callable(obj) and not inspect.isclass(obj) and hasattr(obj, "__wrapped__")
