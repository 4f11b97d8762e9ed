"""Full docstrings of the ops that `lamina.ops` builds from the backend contract.

The contract (`lamina.backend.contract`) declares each engine function with a one-line
doc, which is all an engine needs. A user reading `help(ops.matmul)` needs more: the
arguments, what comes back, and an example. Those live here, one module per group of
ops, each holding `DOCS = {contract_module: {name: docstring}}`; `ops.core.declared_op`
attaches them. An op with no entry keeps its one-line contract doc, and
`tests/ops/test_op_docs.py` fails for it.

>>> lookup("numpy", "no_such_op") is None
True
"""

from __future__ import annotations

import importlib
import inspect

_PARTS = ("numpy_a_c", "numpy_d_l", "numpy_m_r", "numpy_s_z", "nn_core", "math_linalg_image")
_DOCS: dict[str, dict[str, str]] | None = None


def _load() -> dict[str, dict[str, str]]:
    merged: dict[str, dict[str, str]] = {}
    for part in _PARTS:
        module = importlib.import_module(f"{__name__}.{part}")
        for contract_module, docs in module.DOCS.items():
            for name, doc in docs.items():
                merged.setdefault(contract_module, {})[name] = inspect.cleandoc(doc)
    return merged


def lookup(module: str, name: str) -> str | None:
    """The full docstring of contract function `module.name`, or None when it has none."""
    global _DOCS
    if _DOCS is None:
        _DOCS = _load()
    return _DOCS.get(module, {}).get(name)
