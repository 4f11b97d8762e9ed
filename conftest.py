"""Shared pytest setup: every test (and doctest) starts with fresh names and seeds.

Doctest collection skips the modules of an engine whose library is not installed (torch
is an optional extra), and the Orbax callback's module without Orbax.
"""

import gc
import importlib.metadata
import importlib.util
import itertools
import os
import pathlib
import sys

import pytest


def _engine_threads() -> int:
    """Threads for the engines' kernels in this process: the cores shared out among the
    xdist workers (1 each for `-n 2` on 2 cores). Each engine otherwise starts a thread per
    core in every worker, and its idle threads spin waiting for work while the other
    worker's want the core. Measured on 2 cores (the machine loaded by other jobs), for
    the same results: the torch pass 13:45 -> 5:07 wall, 433 -> 321 CPU-s; one
    bidirectional-LSTM test 35 CPU-s -> under 1. Outside xdist: every core, as usual."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) // max(1, workers))


_THREADS = _engine_threads()
if "PYTEST_XDIST_WORKER" in os.environ:
    # Read by torch (OpenMP, MKL) and NumPy's BLAS when they start, and inherited by the
    # processes tests start. A value the caller set wins.
    for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_name, str(_THREADS))


# XLA's CPU compiler without LLVM's costly optimisation passes: the suite compiles a few
# thousand small programs, whose compile time (not run time) is most of the JAX pass.
# The operations and their results are the same; only the generated code is less tuned.
# A flag the caller set wins; scripts that set their own flags (distribution) keep them.
# (XLA's own thread pool is left as it is: one thread per worker measured the same.)
def _suite_xla_flags() -> str:
    flags = "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"
    # XLA's older CPU code generator (elemental IR, not the fusion emitters) compiles
    # these small programs 3-6x faster (tests/layers: 187 -> 125 CPU-seconds). XLA aborts
    # the process on a flag it does not know, so it is named only for the jaxlib
    # releases it was measured on.
    try:
        major, minor = (int(p) for p in importlib.metadata.version("jaxlib").split(".")[:2])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return flags
    if (major, minor) == (0, 10):
        flags += " --xla_cpu_use_fusion_emitters=false"
    return flags


os.environ.setdefault("XLA_FLAGS", _suite_xla_flags())

# lamina's compilation cache, pointed at one folder for the whole suite: the two xdist
# workers, and both passes of `make test` (the torch pass's JAX reference computations),
# load a program another test compiled instead of compiling it again. Every program is
# kept (JAX keeps only those that took over a second by default), with no size cap, so no
# lock is taken. `make test` empties the folder first, so its time is a fresh clone's.
os.environ.setdefault(
    "LAMINA_COMPILATION_CACHE", str(pathlib.Path(__file__).parent / ".cache" / "compilation")
)
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
os.environ.setdefault("JAX_COMPILATION_CACHE_MAX_SIZE", "-1")

collect_ignore = ["docs/conf.py", "docs/_ext"]
if importlib.util.find_spec("torch") is None:
    collect_ignore.append("src/lamina/backend/torch")
# An optional extra outside `dev`: the callback's docstring example saves with it.
if importlib.util.find_spec("orbax") is None:
    collect_ignore.append("src/lamina/callbacks/orbax_checkpoint.py")

# The documentation's code blocks run as tests (docs/_ext/docs_runner.py says how).
_DOCS = pathlib.Path(__file__).parent / "docs"
_spec = importlib.util.spec_from_file_location(
    "_lamina_docs_runner", _DOCS / "_ext" / "docs_runner.py"
)
_docs_runner = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _docs_runner  # dataclasses look their module up while defining
_spec.loader.exec_module(_docs_runner)


def pytest_collect_file(file_path, parent):
    if _DOCS in file_path.parents:
        return _docs_runner.collect_markdown(file_path, parent)
    return None


# Python's cyclic garbage collector scans every live object in a full collection: with
# JAX, torch and Keras loaded, and JAX's caches of compiled programs growing as the suite
# runs, ~10^6 objects, ~0.4-0.7 s a time, some 20 times per 600 tests (~10% of a pass).
# What is alive between tests stays alive (modules, caches, module fixtures), so it is
# moved out of the collector's view (`gc.freeze`) once collected: after collection, and
# every `_FREEZE_EVERY` tests. Objects made by a test are collected as usual; only a cycle
# among objects frozen between tests that dies later is never reclaimed.
_FREEZE_EVERY = 100
_tests_run = itertools.count(1)


def _collect_and_freeze():
    gc.collect()
    gc.freeze()


def pytest_collection_finish(session):
    _collect_and_freeze()


@pytest.fixture(autouse=True)
def _fresh_session():
    import lamina

    # Without the garbage collection a user's clear_session() runs (see above).
    lamina.backend.clear_session(free_memory=False)
    lamina.utils.set_random_seed(1337)
    yield
    if next(_tests_run) % _FREEZE_EVERY == 0:
        _collect_and_freeze()


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
