"""No source file past the size STYLE.md allows: a file over 800 lines wants splitting.

The count is `tools/size_report.py`'s, which `make test` prints first (total lines, the
largest files).
"""

from __future__ import annotations

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("size_report", ROOT / "tools" / "size_report.py")
size_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(size_report)

# Files allowed past the limit for now. The class-chain work of issue 31 (a Model and a
# Layer with short MROs, their mixins turned into collaborators) brings these two under
# it; then this set is emptied.
ALLOWED = {pathlib.Path("layers/layer.py"), pathlib.Path("models/model.py")}


def test_no_source_file_is_over_the_limit():
    counts = size_report.line_counts(ROOT / "src" / "lamina")
    assert len(counts) > 100, "found too few source files: is the root right?"
    over = {
        str(path): lines
        for path, lines in counts.items()
        if lines > size_report.LIMIT and path not in ALLOWED
    }
    assert not over, (
        f"source files over {size_report.LIMIT} lines (split them by family, one concept "
        f"per module, as STYLE.md asks): {over}"
    )


def test_the_report_names_totals_and_marks_large_files():
    counts = {pathlib.Path("big.py"): 801, pathlib.Path("small.py"): 99}
    text = size_report.report(counts, top=1, limit=800, where="src")
    assert text.splitlines() == [
        "Source size of src: 900 lines in 2 files (mean 450; 1 over 800 lines)",
        "Largest 1 files:",
        "     801  big.py  <-- over 800",
    ]
