"""Print the size of lamina's source: total lines, number of files, the largest files.

`make test` runs it first, so every run shows where the code grows. A file over
`LIMIT` lines is marked: STYLE.md asks for files of a few hundred lines, and
`tests/test_source_size.py` fails for one past the limit.

    python tools/size_report.py [--top N] [ROOT]
"""

from __future__ import annotations

import argparse
import pathlib

LIMIT = 800
ROOT = pathlib.Path(__file__).resolve().parent.parent / "src" / "lamina"


def line_counts(root: pathlib.Path = ROOT) -> dict[pathlib.Path, int]:
    """`{path relative to root: number of lines}` for every Python file under `root`."""
    return {
        path.relative_to(root): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(root.rglob("*.py"))
    }


def report(
    counts: dict[pathlib.Path, int], top: int = 10, limit: int = LIMIT, where: str = "src/lamina"
) -> str:
    """The report as text: totals, then the `top` largest files, those over `limit` marked."""
    total = sum(counts.values())
    largest = sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))[:top]
    over = [path for path, lines in counts.items() if lines > limit]
    width = max((len(str(path)) for path, _ in largest), default=0)
    rows = [
        (
            f"  {lines:6,d}  {str(path):<{width}}"
            + (f"  <-- over {limit}" if lines > limit else "")
        ).rstrip()
        for path, lines in largest
    ]
    return "\n".join(
        [
            f"Source size of {where}: {total:,d} lines in {len(counts):,d} files "
            f"(mean {total // max(len(counts), 1)}; {len(over)} over {limit} lines)",
            f"Largest {len(largest)} files:",
            *rows,
        ]
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=pathlib.Path, default=ROOT)
    parser.add_argument("--top", type=int, default=10, help="how many files to list")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    where = root.relative_to(ROOT.parents[1]) if root.is_relative_to(ROOT.parents[1]) else root
    print(report(line_counts(root), top=args.top, where=str(where)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
