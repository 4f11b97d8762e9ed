"""Runs the documentation: every Python code block of every page under docs/.

Each Markdown page is one test. Its ```` ```python ```` blocks run in order, in one
namespace, in an empty working folder, as a reader would paste them into one session;
other fences (```` ```sh ````, ```` ```text ````) are not run. A page runs on the engine
the suite runs on, so `make test` runs an engine-neutral page on JAX and on PyTorch.
Two HTML comments, invisible on the site, steer it:

- `<!-- docs-test: engines=jax -->` on a line of its own: the page runs on those engines
  only (a page about one engine's API);
- `<!-- docs-test: skip REASON -->` on the line before a fence: that block is not run.
  The reason is required, and skipping is for blocks that cannot run here (a
  side-by-side comparison with Keras 2, a fragment that is not a program).

A failure names the page and the line of the block, and shows the traceback through the
page's own lines (the blocks are compiled with the page as their file name).

The root `conftest.py` loads this module and hands it the Markdown files under docs/ (a
`docs/conftest.py` would share the basename `conftest` with `tests/conftest.py`, which
`--doctest-modules` then mixes up).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import traceback
from dataclasses import dataclass

import pytest

# A directive is a line of its own (so that a page can mention one in its text).
_DIRECTIVE = re.compile(r"^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
_FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)")


@dataclass
class Block:
    line: int  # 1-based line of the first line of code
    code: str


@dataclass
class Page:
    blocks: list[Block]
    engines: tuple[str, ...] | None


def parse_page(text: str, where: str) -> Page:
    lines = text.splitlines()
    blocks: list[Block] = []
    engines = None
    skip_next = False
    i = 0
    while i < len(lines):
        line = lines[i]
        directive = _DIRECTIVE.search(line)
        if directive:
            words = directive.group(1)
            if words.startswith("engines="):
                engines = tuple(words.removeprefix("engines=").split(","))
            elif words.startswith("skip"):
                if not words.removeprefix("skip").strip(" :-\u2014"):
                    raise ValueError(
                        f"{where}:{i + 1}: `docs-test: skip` needs a reason, e.g. "
                        "`<!-- docs-test: skip a fragment of the program above -->`."
                    )
                skip_next = True
            else:
                raise ValueError(
                    f"{where}:{i + 1}: unknown docs-test directive {words!r}; expected "
                    "`engines=jax[,torch]` or `skip REASON`."
                )
            i += 1
            continue
        fence = _FENCE.match(line.strip())
        if fence and line.strip() == line.lstrip():
            marker, language = fence.group(1), fence.group(2)
            start = i + 1
            j = start
            while j < len(lines) and not lines[j].strip().startswith(marker):
                j += 1
            if language in ("python", "py") and not skip_next:
                blocks.append(Block(start + 1, "\n".join(lines[start:j])))
            skip_next = False
            i = j + 1
            continue
        if line.strip():
            skip_next = False
        i += 1
    return Page(blocks, engines)


def collect_markdown(file_path, parent):
    """The `pytest_collect_file` hook's work for one file: a page under docs/, or None."""
    if file_path.suffix == ".md":
        return MarkdownFile.from_parent(parent, path=file_path)
    return None


class MarkdownFile(pytest.File):
    def collect(self):
        page = parse_page(self.path.read_text(encoding="utf-8"), str(self.path))
        if page.blocks:
            yield MarkdownPageItem.from_parent(self, name="code", page=page)


class BlockFailed(Exception):
    def __init__(self, path, block, error):
        self.path, self.block, self.error = path, block, error


class MarkdownPageItem(pytest.Item):
    def __init__(self, *, page: Page, **kwargs):
        super().__init__(**kwargs)
        self.page = page

    def runtest(self):
        import lamina

        engine = lamina.backend.backend()
        if self.page.engines is not None and engine not in self.page.engines:
            pytest.skip(f"this page runs on {', '.join(self.page.engines)} only")
        # As the suite's autouse fixture does for every test function.
        lamina.backend.clear_session(free_memory=False)
        lamina.utils.set_random_seed(1337)
        namespace = {"__name__": "__main__"}
        cwd = os.getcwd()
        tmp = tempfile.mkdtemp(prefix=f"docs-{self.path.stem}-")
        os.chdir(tmp)
        sys.path.insert(0, tmp)
        try:
            for block in self.page.blocks:
                # Blank lines before the code: tracebacks give the page's own line numbers.
                source = "\n" * (block.line - 1) + block.code
                try:
                    exec(compile(source, str(self.path), "exec"), namespace)
                except Exception as error:
                    raise BlockFailed(self.path, block, error) from error
        finally:
            sys.path.remove(tmp)
            os.chdir(cwd)
            shutil.rmtree(tmp, ignore_errors=True)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, BlockFailed):
            failure = excinfo.value
            frames = [
                frame
                for frame in traceback.extract_tb(failure.error.__traceback__)
                if frame.filename == str(failure.path)
            ]
            where = "".join(traceback.format_list(frames))
            lines = "".join(traceback.format_exception_only(failure.error))
            return (
                f"The code block at {failure.path.name}:{failure.block.line} failed:\n"
                f"{where}{lines}"
            )
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"code blocks of {self.path.name}"
