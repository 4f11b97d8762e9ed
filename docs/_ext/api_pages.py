"""A Sphinx extension that writes the API reference pages from `api_names.GROUPS`.

At `builder-inited` it writes `api/<group>.rst` (gitignored) with one autodoc entry per
public object, under the first module that exports it, and a line of aliases for the
names a later module re-exports. Nothing here lists names: they come from `__all__`.
"""

from __future__ import annotations

import inspect
import pathlib
import re

import api_names

# Methods of the trainer and of `Layer` are documented with the classes that users meet
# first; every other class shows the members it defines itself.
_INHERITED_FROM_TRAINER = {"lamina.models.Model", "lamina.models.Sequential"}


def _entry(public: api_names.PublicName) -> list[str]:
    obj = public.obj
    if inspect.isclass(obj):
        lines = [f".. autoclass:: {public.path}", "   :members:"]
        if public.path in _INHERITED_FROM_TRAINER:
            # Trainer's compile/fit/evaluate/predict; Layer's own methods are on `Layer`.
            lines.append("   :inherited-members: Layer")
        return lines
    if inspect.isroutine(obj) or hasattr(obj, "__wrapped__"):
        return [f".. autofunction:: {public.path}"]
    return [f".. autofunction:: {public.path}"]


def _title(text: str, mark: str) -> list[str]:
    return [text, mark * len(text), ""]


def write_pages(outdir: pathlib.Path) -> list[str]:
    outdir.mkdir(parents=True, exist_ok=True)
    documented: dict[int, str] = {}
    slugs = []
    for slug, title, modules in api_names.grouped_names():
        lines = _title(title, "=")
        for module_name, names in modules:
            lines += _title(module_name, "-")
            lines += [f".. py:module:: {module_name}", "   :no-index:", ""]
            aliases = []
            for public in names:
                canonical = documented.get(id(public.obj))
                if canonical is not None:
                    aliases.append(f":py:obj:`{public.name} <{canonical}>`")
                    continue
                documented[id(public.obj)] = public.path
                lines += _entry(public) + [""]
            if aliases:
                lines += [
                    "Also exported here (documented above or on an earlier page): "
                    + ", ".join(aliases)
                    + ".",
                    "",
                ]
        text = "\n".join(lines)
        path = outdir / f"{slug}.rst"
        if not path.exists() or path.read_text() != text:  # keep mtimes: incremental builds
            path.write_text(text)
        slugs.append(slug)
    index = _title("API reference", "=") + [
        "Every public name of lamina, read from each module's ``__all__`` and grouped as",
        "Keras groups its reference. A name exported at several paths is documented once,",
        "at the first, and listed as an alias at the others.",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
    ]
    index += [f"   {slug}" for slug in slugs] + [""]
    (outdir / "index.rst").write_text("\n".join(index))
    return slugs


def _on_builder_inited(app) -> None:
    missing = api_names.unpaged_modules()
    if missing:
        raise RuntimeError(
            f"public modules on no API page: {missing}; add each to a group in "
            "docs/_ext/api_names.py (GROUPS), or to NOT_PAGES_PREFIXES with the reason."
        )
    write_pages(pathlib.Path(app.srcdir) / "api")


_PROPERTY_LINES: dict[str, list[str]] = {}


def _keep_property_lines(app, what, name, obj, options, lines) -> None:
    # Napoleon reads a property docstring's first line as `type: description`; lamina's
    # first lines are sentences ("The current learning rate: a float, ..."). A property's
    # docstring is prose, so it is shown as written: kept before napoleon runs, put
    # back after.
    if what == "property":
        _PROPERTY_LINES[name] = list(lines)


def _restore_property_lines(app, what, name, obj, options, lines) -> None:
    if what == "property" and name in _PROPERTY_LINES:
        lines[:] = _PROPERTY_LINES.pop(name)


# lamina's docstrings are written to read well as plain text (`help()`), with Markdown's
# habits; three of those mean something else to reStructuredText, and are adapted here
# rather than in every docstring.
_STARRED = re.compile(r"(?<![`\w\\*])(\*{1,2})(?=\w)")  # *args, **kwargs outside code
_ARG_SECTIONS = ("Args:", "Arguments:", "Call arguments:", "Call args:")


def _join_name_lists(lines: list[str]) -> list[str]:
    """`a, b,` on one line and `c: described` on the next are one argument entry."""
    out: list[str] = []
    field_indent = None
    pending = None
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if stripped in _ARG_SECTIONS:
            field_indent = -1
        elif field_indent == -1 and stripped:
            field_indent = indent
        elif field_indent is not None and stripped and indent < field_indent:
            field_indent = None
        if pending is not None:
            pending = f"{pending} {stripped}"
            if ":" in stripped:
                out.append(pending)
                pending = None
            continue
        if (
            field_indent is not None
            and field_indent >= 0
            and indent == field_indent
            and stripped.endswith(",")
            and ":" not in stripped
        ):
            pending = line.rstrip()
            continue
        out.append(line)
    if pending is not None:
        out.append(pending)
    return out


def _escape_stars(text: str) -> str:
    return _STARRED.sub(lambda m: "\\*" * len(m.group(1)), text)


def _fix_line(line: str) -> str:
    parts = line.split("`")
    for i in range(0, len(parts), 2):  # outside code spans
        parts[i] = _escape_stars(parts[i])
        # A code span followed at once by a letter (`y`s) needs an escaped space.
        if i > 0 and i < len(parts) and parts[i][:1].isalnum():
            parts[i] = "\\ " + parts[i]
    return "`".join(parts)


def _plain_text_to_rst(app, what, name, obj, options, lines) -> None:
    fixed = []
    in_doctest = False
    for line in _join_name_lists(lines):
        stripped = line.strip()
        in_doctest = stripped.startswith(">>>") or (in_doctest and bool(stripped))
        fixed.append(line if in_doctest or line.count("`") % 2 else _fix_line(line))
    lines[:] = fixed


def _skip_foreign_member(app, what, name, obj, skip, options):
    # Members a class inherits from another library (scikit-learn's generated
    # `set_*_request` methods) are that library's to document.
    module = getattr(obj, "__module__", None) or ""
    if what == "class" and module and not module.startswith("lamina"):
        return True
    return None


def setup(app):
    app.connect("builder-inited", _on_builder_inited)
    # Before napoleon (priority 500) turns the docstring into reStructuredText.
    app.connect("autodoc-process-docstring", _plain_text_to_rst, priority=400)
    app.connect("autodoc-process-docstring", _keep_property_lines, priority=401)
    app.connect("autodoc-process-docstring", _restore_property_lines, priority=600)
    app.connect("autodoc-skip-member", _skip_foreign_member)
    return {"parallel_read_safe": True, "version": "1"}
