"""The README's Python blocks run, in order, as docs/_ext/docs_runner.py runs each guide's."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

_ROOT = pathlib.Path(__file__).resolve().parent.parent


def _docs_runner():
    spec = importlib.util.spec_from_file_location(
        "_docs_runner", _ROOT / "docs" / "_ext" / "docs_runner.py"
    )
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


_PAGE = """# A page

<!-- docs-test: engines=jax,torch -->

```python
a = 1
```

```sh
make docs
```

<!-- docs-test: skip a fragment, `b` is defined elsewhere -->
```python
print(b)
```

A directive quoted in the text, `<!-- docs-test: skip -->`, is only text.

```python
a += 1
```
"""


def test_the_docs_runner_reads_blocks_and_directives():
    runner = _docs_runner()
    page = runner.parse_page(_PAGE, "page.md")
    assert page.engines == ("jax", "torch")
    assert [(block.line, block.code) for block in page.blocks] == [(6, "a = 1"), (21, "a += 1")]


def test_a_skipped_block_needs_a_reason_and_directives_are_known():
    runner = _docs_runner()
    with pytest.raises(ValueError, match="needs a reason"):
        runner.parse_page("<!-- docs-test: skip -->\n```python\nx\n```\n", "page.md")
    with pytest.raises(ValueError, match="unknown docs-test directive"):
        runner.parse_page("<!-- docs-test: engine=jax -->\n", "page.md")
