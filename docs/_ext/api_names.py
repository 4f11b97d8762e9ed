"""lamina's public names, read from `__all__`, grouped as Keras's API reference groups them.

Both the API reference (`api_pages.py`, at `make docs`) and the docstring test
(`tests/test_docstrings.py`) read the names from here, so the reference and the test see
the same names and neither keeps a list of them: a name added to a module's `__all__`
appears in both. What is written by hand is only which modules make up each page.
"""

from __future__ import annotations

import importlib
import inspect
import types
from dataclasses import dataclass

# (page slug, title, modules on the page, in order). A name is documented in full under
# the first module (in this order) that exports it; later ones list it as an alias.
GROUPS: list[tuple[str, str, list[str]]] = [
    ("models", "Models", ["lamina.models"]),
    (
        "layers",
        "Layers, activations, initializers, regularizers, constraints",
        [
            "lamina.layers",
            "lamina.activations",
            "lamina.initializers",
            "lamina.regularizers",
            "lamina.constraints",
        ],
    ),
    (
        "ops",
        "Ops",
        [
            "lamina.ops",
            "lamina.ops.numpy",
            "lamina.ops.nn",
            "lamina.ops.math",
            "lamina.ops.linalg",
            "lamina.ops.image",
            "lamina.ops.random",
        ],
    ),
    ("losses", "Losses", ["lamina.losses", "lamina.objectives"]),
    ("metrics", "Metrics", ["lamina.metrics"]),
    (
        "optimizers",
        "Optimizers and schedules",
        [
            "lamina.optimizers",
            "lamina.optimizers.schedules",
            "lamina.optimizers.rules",
            "lamina.optimizers.legacy",
        ],
    ),
    ("callbacks", "Callbacks", ["lamina.callbacks"]),
    ("saving", "Saving and export", ["lamina.saving", "lamina.export"]),
    (
        "data",
        "Data: datasets and preprocessing",
        [
            "lamina.datasets",
            "lamina.datasets.digits",
            "lamina.datasets.mnist",
            "lamina.datasets.fashion_mnist",
            "lamina.datasets.cifar10",
            "lamina.datasets.cifar100",
            "lamina.datasets.imdb",
            "lamina.datasets.reuters",
            "lamina.datasets.boston_housing",
            "lamina.datasets.california_housing",
            "lamina.preprocessing",
            "lamina.preprocessing.image",
            "lamina.preprocessing.sequence",
            "lamina.preprocessing.text",
        ],
    ),
    (
        "utils",
        "Utilities, visualization, configuration, dtype policies, quantizers, tree",
        [
            "lamina.utils",
            "lamina.visualization",
            "lamina.config",
            "lamina.dtype_policies",
            "lamina.mixed_precision",
            "lamina.quantizers",
            "lamina.tree",
        ],
    ),
    (
        "backend",
        "Backend and the classic K API",
        ["lamina.backend", "lamina.legacy.backend", "lamina.engine"],
    ),
    ("distribution", "Distribution", ["lamina.distribution"]),
    (
        "applications",
        "Applications, wrappers, distillation",
        ["lamina.applications", "lamina.wrappers", "lamina.distillation"],
    ),
    # Last: most top-level names are documented in their group (`lamina.Model` under
    # models), and listed here as aliases.
    ("top_level", "Top level: lamina", ["lamina"]),
]

# Modules in some `__all__` that are not pages of their own: the engine's modules behind
# the seam (their public face is `lamina.ops`), classic module paths whose names are the
# same objects as the modern ones, per-model application modules, and `lamina.legacy`,
# whose one public name is the classic `K` module documented on the backend page.
NOT_PAGES_PREFIXES = (
    "lamina.backend.",
    "lamina.engine.",
    "lamina.applications.",
    "lamina.legacy",
)


@dataclass(frozen=True)
class PublicName:
    path: str  # "lamina.layers.Dense"
    module: str  # "lamina.layers"
    name: str  # "Dense"
    obj: object


def is_documentable(obj) -> bool:
    """Classes and functions; constants (version strings, ...) carry no docstring."""
    return inspect.isclass(obj) or callable(obj)


def module_names(module_name: str) -> list[PublicName]:
    module = importlib.import_module(module_name)
    names = []
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name)
        if isinstance(obj, types.ModuleType) or not is_documentable(obj):
            continue
        names.append(PublicName(f"{module_name}.{name}", module_name, name, obj))
    # Where a module exports an object under its own name and an alias
    # (`GroupedQueryAttention` and `GroupQueryAttention`), the own name is canonical.
    return sorted(names, key=lambda entry: entry.name != getattr(entry.obj, "__name__", None))


def grouped_names() -> list[tuple[str, str, list[tuple[str, list[PublicName]]]]]:
    return [
        (slug, title, [(m, module_names(m)) for m in modules]) for slug, title, modules in GROUPS
    ]


def canonical_names() -> dict[int, PublicName]:
    """Each public object once, under the first path the pages document it at."""
    first: dict[int, PublicName] = {}
    for _, _, modules in grouped_names():
        for _, names in modules:
            for entry in names:
                first.setdefault(id(entry.obj), entry)
    return first


def unpaged_modules() -> list[str]:
    """Public modules reachable through `__all__` from `lamina` that no page covers."""
    paged = {m for _, _, modules in GROUPS for m in modules}
    missing = []
    seen = set()
    stack = ["lamina"]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if isinstance(obj, types.ModuleType) and obj.__name__.startswith("lamina"):
                stack.append(obj.__name__)
        if name not in paged and not name.startswith(NOT_PAGES_PREFIXES):
            missing.append(name)
    return sorted(missing)
