"""`import keras` (and every `keras.*` module) resolving to lamina, for the example-program
runners (`keras2_examples/`, `keras_io_examples/`): a program runs unchanged, with its
`keras` imports answered by lamina's modules of the same names."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys


class _ModuleLoader(importlib.abc.Loader):
    """Loads `keras.X` as the already importable `lamina.X`."""

    def __init__(self, real):
        self.real = real

    def create_module(self, spec):
        return importlib.import_module(self.real)

    def exec_module(self, module):
        pass


class _ObjectLoader(importlib.abc.Loader):
    """Loads `keras.X` as an attribute of a lamina module (a namespace, not a module)."""

    def __init__(self, obj):
        self.obj = obj

    def create_module(self, spec):
        return self.obj

    def exec_module(self, module):
        pass


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "keras" and not name.startswith("keras."):
            return None
        real = "lamina" + name[len("keras") :]
        try:
            found = importlib.util.find_spec(real)
        except (ImportError, AttributeError, ValueError):
            found = None
        if found is not None:
            return importlib.util.spec_from_loader(name, _ModuleLoader(real))
        parent, _, leaf = real.rpartition(".")
        try:
            obj = getattr(importlib.import_module(parent), leaf)
        except Exception:  # noqa: BLE001 - not found: the import fails as usual
            return None
        if not hasattr(obj, "__dict__"):
            return None
        return importlib.util.spec_from_loader(name, _ObjectLoader(obj))


def install() -> None:
    """Answer `keras` imports with lamina from now on (first on `sys.meta_path`)."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
