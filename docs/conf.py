"""Sphinx configuration for lamina's documentation (`make docs` builds it into site/).

Sphinx, not MkDocs: Sphinx is actively released and keeps Python's cross-reference
checking (`-n`, nitpicky) and autodoc in its core; MkDocs itself has had no release since
2024. Guides are Markdown, read by MyST; the API reference is generated from `__all__`
by `_ext/api_pages.py` and the docstrings are Google style, read by napoleon.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent / "_ext"))

import lamina  # noqa: E402

project = "lamina"
author = "the lamina authors"
copyright = "the lamina authors, Apache-2.0"
release = lamina.__version__
extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "api_pages",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext"]
myst_heading_anchors = 3
# Docstrings write names in single backquotes, as Markdown does: show them as code.
default_role = "code"
nitpicky = True
autodoc_typehints = "none"
autodoc_member_order = "bysource"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
# Keras's docstring sections besides Google's own.
napoleon_custom_sections = [("Call arguments", "params_style"), ("Call args", "params_style")]
html_theme = "furo"
html_title = f"lamina {release}"
html_show_sourcelink = False
