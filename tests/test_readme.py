"""The README's Python blocks run, in order, as docs/conftest.py runs each guide's."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

_ROOT = pathlib.Path(__file__).resolve().parent.parent


def _docs_runner():
    spec = importlib.util.spec_from_file_location("_docs_runner", _ROOT / "docs" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while defining
    spec.loader.exec_module(module)
    return module


def test_readme_code_runs(tmp_path, monkeypatch):
    runner = _docs_runner()
    path = _ROOT / "README.md"
    page = runner.parse_page(path.read_text(encoding="utf-8"), str(path))
    assert page.blocks, "the README has a quick start"
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    for block in page.blocks:
        exec(compile("\n" * (block.line - 1) + block.code, str(path), "exec"), namespace)
