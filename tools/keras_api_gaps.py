"""Which public Keras 3 names and arguments lamina lacks at the same path.

Walks every public name of the installed `keras` package (`keras.layers.Dense`,
`keras.applications.nasnet`, ...) and looks for the same path under `lamina`. For each
class or function present on both sides, it compares the keyword arguments Keras accepts
with those lamina accepts; an argument Keras takes and lamina would refuse with a
TypeError is a gap.

"Accepts" follows `**kwargs` up the class chain, as a call does: `AutoContrast(factor=)`
is accepted in Keras because `AutoContrast.__init__` passes its `**kwargs` to a base
class that names `factor`. A class chain ends at lamina's `Layer`, which refuses unknown
keywords except the few it lists (`_BASE_INIT_KWARGS`), and at any class that is neither
lamina's nor Keras's (`torch.nn.Module`, `object`).

`tests/test_keras_api_gaps.py` runs `audit()` and fails with a readable list for what is
missing; this script prints the same audit as the Markdown of `KERAS_API_GAPS.md`:

    PYTHONPATH=src python tools/keras_api_gaps.py [--output FILE]
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import datetime
import importlib
import inspect
import os
import re
import sys
import textwrap
import types

# Keras's own packages that are not API: its source tree, and the `tf.keras` shim.
_SKIPPED_MODULES = {"keras.src", "keras._tf_keras"}

# Why a missing name is missing, by path prefix (shown in the Markdown's note column).
NOTES = {
    "keras.dtype_policies.": "quantization modes (issue 36 item 3)",
    "keras.quantizers.": "quantization modes (issue 36 item 3)",
}


@dataclasses.dataclass
class Audit:
    """The result: every Keras name slot, those lamina lacks, and refused arguments."""

    keras_version: str
    names: list[str]
    missing: list[str]
    refused: dict[str, list[str]]

    @property
    def present(self) -> int:
        return len(self.names) - len(self.missing)


def keras_names(keras) -> dict[str, object]:
    """`{"keras.a.B": object}` for every public name of Keras's API modules, modules
    included (a module is a slot: `from keras.applications import nasnet`)."""
    found: dict[str, object] = {}
    seen: set[str] = set()

    def walk(module: types.ModuleType, path: str) -> None:
        if path in seen:
            return
        seen.add(path)
        for name in sorted(dir(module)):
            if name.startswith("_"):
                continue
            value = getattr(module, name)
            child = f"{path}.{name}"
            if isinstance(value, types.ModuleType):
                # Only Keras's API modules (not `keras.src.*`, nor numpy re-exported).
                if value.__name__ != child or child in _SKIPPED_MODULES:
                    if not value.__name__.startswith("keras.") or value.__name__.startswith(
                        tuple(_SKIPPED_MODULES)
                    ):
                        continue
                found[child] = value
                walk(value, child)
            else:
                found[child] = value

    walk(keras, "keras")
    return found


def lamina_object(lamina, path: str):
    """The object at `path` (`keras.x.Y`) under `lamina`, or `_MISSING`."""
    parts = path.split(".")[1:]
    current = lamina
    for index, part in enumerate(parts):
        if hasattr(current, part):
            current = getattr(current, part)
            continue
        # A submodule not imported by its package yet: `import lamina.x.y` finds it.
        if isinstance(current, types.ModuleType):
            try:
                current = importlib.import_module(f"{current.__name__}.{part}")
                continue
            except ImportError:
                pass
        del index
        return _MISSING
    return current


_MISSING = object()


def _source(function) -> str:
    try:
        return textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return ""


def _keywords_read(source: str, kwargs_name: str) -> set[str]:
    """The names a function body reads from its `**kwargs` by a literal key
    (`kwargs.pop("ragged_rank", None)`, `"by_name" in kwargs`), nested functions left
    out (their `kwargs` are their own)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    if not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    found: set[str] = set()

    def is_kwargs(node) -> bool:
        return isinstance(node, ast.Name) and node.id == kwargs_name

    def visit(node) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr in ("pop", "get", "setdefault")
                and is_kwargs(child.func.value)
                and child.args
                and isinstance(child.args[0], ast.Constant)
            ):
                found.add(child.args[0].value)
            if isinstance(child, ast.Subscript) and is_kwargs(child.value):
                if isinstance(child.slice, ast.Constant):
                    found.add(child.slice.value)
            if (
                isinstance(child, ast.Compare)
                and isinstance(child.left, ast.Constant)
                and any(isinstance(op, (ast.In, ast.NotIn)) for op in child.ops)
                and any(is_kwargs(c) for c in child.comparators)
            ):
                found.add(child.left.value)
            visit(child)

    visit(tree.body[0])
    return {name for name in found if isinstance(name, str)}


def _own_keywords(function) -> tuple[set[str], str | None, str] | None:
    """(keyword names `function` takes by name or reads from its `**kwargs`, the name of
    its `**kwargs` or None, its source); None when it has no signature."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    names: set[str] = set()
    kwargs_name = None
    for parameter in parameters:
        if parameter.kind == parameter.VAR_KEYWORD:
            kwargs_name = parameter.name
        elif parameter.kind != parameter.VAR_POSITIONAL and parameter.name != "self":
            names.add(parameter.name)
    source = _source(function)
    if kwargs_name is not None:
        names |= _keywords_read(source, kwargs_name)
    return names, kwargs_name, source


def _base_init_calls(source: str) -> str:
    """The argument text of the `__init__` calls in an `__init__`'s body (`super().__init__(
    rank=2, **kwargs)`): what a class passes its bases itself."""
    calls = []
    start = source.find("__init__(", source.find(":\n"))
    while start != -1:
        depth, index = 0, start + len("__init__")
        for index in range(start + len("__init__"), len(source)):
            depth += {"(": 1, ")": -1}.get(source[index], 0)
            if depth == 0:
                break
        calls.append(source[start:index])
        start = source.find("__init__(", index)
    return "\n".join(calls)


def _class_keywords(cls, terminal) -> set[str] | None:
    """Keyword names `cls(...)` accepts, following `**kwargs` up the class chain while
    each `__init__` passes them on to its base's. A base's argument that a subclass
    passes itself (`rank=2` in `Conv2D`) is not the caller's to give."""
    names: set[str] = set()
    sources: list[str] = []
    for klass in cls.__mro__:
        if "__init__" not in vars(klass):
            continue
        module = getattr(klass, "__module__", "") or ""
        if not module.startswith(("lamina", "keras")):
            return names  # torch.nn.Module, object: no keyword of ours gets through
        own = _own_keywords(vars(klass)["__init__"])
        if own is None:
            return None
        keywords, kwargs_name, source = own
        names |= {
            name
            for name in keywords
            if not any(re.search(rf"\b{name}\s*=", text) for text in sources)
        }
        calls = _base_init_calls(source)
        sources.append(calls)
        extra = terminal(klass, cls)
        if extra is not None:
            return names | extra
        if kwargs_name is None or f"**{kwargs_name}" not in calls:
            return names
    return names


def accepted_keywords(obj, side: str) -> set[str] | None:
    """Keyword names `obj(...)` accepts (None: not introspectable). A function's
    `**kwargs` accepts the names its body reads from them, no others: a Keras argument
    lamina takes should be named where a reader of the signature looks for it."""
    terminal = _lamina_layer_keywords if side == "lamina" else (lambda klass, cls: None)
    if inspect.isclass(obj):
        return _class_keywords(obj, terminal)
    if not callable(obj):
        return set()
    own = _own_keywords(obj)
    return None if own is None else own[0]


def _lamina_layer_keywords(klass, cls) -> set[str] | None:
    """What lamina's `Layer.__init__` takes from `**kwargs` for a layer of class `cls`
    (it refuses other keywords)."""
    from lamina.layers import layer as layer_module

    if klass is not layer_module.Layer:
        return None
    extra = set(layer_module._BASE_INIT_KWARGS)
    if cls._takes_bounding_box_format:
        extra.add("bounding_box_format")
    if cls._keras_base_factor is not None:
        extra.add("factor")
    return extra


def audit() -> Audit:
    """Compare the installed Keras 3's public API with lamina's (both imported here)."""
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras

    import lamina

    names = keras_names(keras)
    missing: list[str] = []
    refused: dict[str, list[str]] = {}
    for path, keras_object in names.items():
        ours = lamina_object(lamina, path)
        if ours is _MISSING:
            missing.append(path)
            continue
        if isinstance(keras_object, types.ModuleType) or not callable(keras_object):
            continue
        theirs = accepted_keywords(keras_object, "keras")
        if not theirs:
            continue
        mine = accepted_keywords(ours, "lamina")
        if mine is None:
            continue
        lacking = sorted(theirs - mine)
        if lacking:
            refused[path] = lacking
    return Audit(keras.__version__, sorted(names), sorted(missing), refused)


def markdown(result: Audit) -> str:
    """The audit as the text of `KERAS_API_GAPS.md`."""
    today = datetime.date.today().isoformat()
    total = len(result.names)
    lines = [
        f"# Keras 3 API names and arguments lamina lacks (audit of {today}, "
        f"Keras {result.keras_version})",
        "",
        "Presence of public names at the same path (`keras.x.Name` -> `lamina.x.Name`): "
        f"lamina has {result.present:,} of Keras 3's {total:,} name slots "
        f"({100 * result.present / total:.1f}%). A name can exist and still behave "
        "differently: behaviour is what the tests pin (see ARCHITECTURE §6).",
        "",
        "Generated by `tools/keras_api_gaps.py` (the code `tests/test_keras_api_gaps.py` runs).",
        "",
        f"## Missing names ({len(result.missing)})",
        "",
    ]
    if result.missing:
        lines += ["| name | note |", "|---|---|"]
        for path in result.missing:
            note = next((text for prefix, text in NOTES.items() if path.startswith(prefix)), "")
            lines.append(f"| `{path}` | {note} |")
    else:
        lines.append("None.")
    lines += [
        "",
        "## Constructor / function arguments Keras accepts and lamina refuses "
        f"({sum(len(v) for v in result.refused.values())})",
        "",
    ]
    if result.refused:
        lines.append("Each is `name: [arguments]`; passing them raises TypeError in lamina.")
        lines.append("")
        lines += [f"- `{path}`: {arguments}" for path, arguments in result.refused.items()]
    else:
        lines.append("None.")
    lines += [
        "",
        "An argument counts as accepted when a call takes it, following `**kwargs` up a "
        "class chain; whether it then means what it means in Keras is for the tests.",
        "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", help="write the Markdown here instead of printing it")
    args = parser.parse_args(argv)
    text = markdown(audit())
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
