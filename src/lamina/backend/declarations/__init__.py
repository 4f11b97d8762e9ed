"""The backend contract's op declarations: each op's signature and documentation, once.

One module per op family (`numpy_reductions`, `nn_activations`, `linalg`, ...), each
holding `DECLARATIONS`, the functions it declares for one engine module (named in its
docstring); `lamina.backend.contract` gathers them by engine module. An entry is what
every engine provides under that name and the documentation of the op `lamina.ops`
builds from it, so the op's docstring and the contract's summary are the same text.

A declaration is a block of text, one entry per unindented line, read by Python's own
parser (`ast`):

- `name(params)` a function; `Name(params)` a class with that constructor, `Name(...)`
  a class whose constructor is not part of the contract;
- `NAME` alone, a constant;
- the indented lines under an entry are its documentation: for an op, the op's whole
  docstring (a one-line summary, `Args:`, `Returns:`, an example that
  `tests/ops/test_op_docs.py` runs on every engine); otherwise a sentence or two.

The summary (`Declaration.doc`) is the documentation's first paragraph.

>>> (entry,) = declare('''
... mean(x, axis=None)
...     Arithmetic mean of `x` along `axis`.
...
...     Args:
...         x: Input tensor.
... ''').values()
>>> entry.kind, str(entry.signature), entry.doc
('function', '(x, axis=None)', 'Arithmetic mean of `x` along `axis`.')
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import NamedTuple


class Declaration(NamedTuple):
    """One declared name: `kind` is `"function"`, `"class"` or `"constant"`.

    `full_doc` is the documentation as written; `doc` its summary.
    """

    name: str
    kind: str
    signature: inspect.Signature | None
    full_doc: str

    @property
    def doc(self) -> str:
        """The summary: the first paragraph of `full_doc`, on one line."""
        return " ".join(self.full_doc.split("\n\n", 1)[0].split())


def _signature(header: str) -> inspect.Signature:
    tree = ast.parse(f"def _{header}: pass")
    args = tree.body[0].args

    def value(node):
        return ast.literal_eval(node)

    params = []
    positional = args.posonlyargs + args.args
    defaults = [inspect.Parameter.empty] * (len(positional) - len(args.defaults)) + [
        value(d) for d in args.defaults
    ]
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = (
            inspect.Parameter.POSITIONAL_ONLY
            if i < len(args.posonlyargs)
            else inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        params.append(inspect.Parameter(arg.arg, kind, default=default))
    if args.vararg:
        params.append(inspect.Parameter(args.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        params.append(
            inspect.Parameter(
                arg.arg,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if default is None else value(default),
            )
        )
    if args.kwarg:
        params.append(inspect.Parameter(args.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params)


def declare(text: str) -> dict[str, Declaration]:
    """Parse a declaration block (see the module docstring) into `{name: Declaration}`."""
    entries: dict[str, Declaration] = {}
    header, doc = None, []

    def flush():
        if header is None:
            return
        name = header.split("(", 1)[0].strip()
        if "(" not in header:
            kind, signature = "constant", None
        else:
            kind = "class" if name[0].isupper() else "function"
            # `Name(...)`: any constructor (e.g. an exception class, whose signature
            # Python cannot report).
            signature = None if header.endswith("(...)") else _signature(header)
        if name in entries:
            raise ValueError(f"Backend contract declares {name!r} twice.")
        entries[name] = Declaration(name, kind, signature, textwrap.dedent("\n".join(doc)).strip())

    for line in textwrap.dedent(text).splitlines():
        if not line.strip():
            # A blank line inside an entry's documentation separates its paragraphs.
            if header is not None:
                doc.append("")
        elif line[0].isspace():
            doc.append(line)
        else:
            flush()
            header, doc = line.strip(), []
    flush()
    return entries
