"""Compiled programs kept between runs: lamina's persistent compilation cache.

A model's compiled steps are stored on disk the first time they are compiled, and a later
process that compiles the same program (same model, shapes, dtypes, engine version and
device: the engine's own cache key) loads it instead of compiling it again. A re-run
script, a restarted notebook kernel or a hyper-parameter sweep then starts training
sooner.

It is on by default. The folder is `$LAMINA_COMPILATION_CACHE` when that names a folder,
else `$LAMINA_HOME/compilation_cache`, else `~/.lamina/compilation_cache`
(a private folder under the temporary folder when the home folder cannot be written).
`LAMINA_COMPILATION_CACHE=0` (or `off`, `false`) turns it off before import;
`lamina.config.disable_compilation_cache()` and `enable_compilation_cache(folder)` do
so at run time, for programs compiled afterwards.

Each engine keeps its cache its own way (`backend/<engine>/compilation.py`): JAX's
persistent compilation cache for every compiled step, torch's inductor cache for
`jit_compile=True`. A folder that cannot be written turns the cache off with one
warning; it never stops a program from compiling.

What the folder holds is loaded and run as machine code, so it must be writable by you
alone: the default folders are made private (mode 0700), and a folder given by name
should not be one that others can write to.
"""

from __future__ import annotations

import os
import tempfile
import warnings

ENV = "LAMINA_COMPILATION_CACHE"
_OFF = frozenset({"0", "off", "false", "no", "none"})
_ON = frozenset({"", "1", "on", "true", "yes"})

# The engine's hooks (`backend/<engine>/compilation.py`), given by `backend/__init__.py`.
_engine = None
_folder: str | None = None


def default_folder() -> str:
    """`$LAMINA_HOME/compilation_cache`, else `~/.lamina/compilation_cache`."""
    home = os.environ.get("LAMINA_HOME") or os.path.join(os.path.expanduser("~"), ".lamina")
    return os.path.join(home, "compilation_cache")


def _requested() -> str | None:
    value = os.environ.get(ENV)
    if value is None or value.strip().lower() in _ON:
        return default_folder()
    if value.strip().lower() in _OFF:
        return None
    return os.path.expanduser(value)


def _writable(folder: str) -> OSError | None:
    """None when `folder` can hold the cache (made private if missing), else the error."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".probe-")
        os.close(fd)
        os.remove(probe)
    except OSError as error:
        return error
    return None


def _private_temporary_folder() -> str | None:
    uid = os.getuid() if hasattr(os, "getuid") else None
    root = os.path.join(tempfile.gettempdir(), f"lamina-{uid if uid is not None else 'user'}")
    folder = os.path.join(root, "compilation_cache")
    if _writable(folder) is not None:
        return None
    info = os.stat(root)
    if (uid is not None and info.st_uid != uid) or info.st_mode & 0o022:
        return None
    return folder


def _usable(folder: str, explicit: bool) -> str | None:
    error = _writable(folder)
    if error is None:
        return folder
    if not explicit:
        # As `get_file` does with its cache, a home folder that cannot be written falls
        # back to the temporary folder; there, only to a folder that is this user's
        # alone (others could otherwise plant programs for this process to run).
        fallback = _private_temporary_folder()
        if fallback is not None:
            return fallback
    warnings.warn(
        f"lamina's compilation cache is off: the folder {folder!r} cannot be written "
        f"({type(error).__name__}: {error}). Programs are compiled as usual, only not "
        f"kept between runs. Point {ENV} at a writable folder, or set {ENV}=0 to turn "
        "the cache off without this warning.",
        UserWarning,
        stacklevel=3,
    )
    return None


def configure(engine) -> None:
    """Set the cache up from the environment for `engine` (called once, at import)."""
    global _engine, _folder
    _engine = engine
    folder = _requested()
    explicit = os.environ.get(ENV, "").strip().lower() not in _ON
    _folder = _usable(folder, explicit) if folder is not None else None
    engine.use_cache(_folder, default=True)


def enable(folder=None) -> str | None:
    """Keep compiled programs in `folder` (default: see the module docstring) from now
    on; returns the folder in use, or None when it could not be written (one warning)."""
    global _folder
    explicit = folder is not None
    folder = os.path.expanduser(os.fspath(folder)) if explicit else default_folder()
    _folder = _usable(folder, explicit)
    if _engine is not None:
        _engine.use_cache(_folder)
    return _folder


def disable() -> None:
    """Stop keeping compiled programs on disk (programs compiled afterwards)."""
    global _folder
    _folder = None
    if _engine is not None:
        _engine.use_cache(None)


def folder() -> str | None:
    """The folder compiled programs are kept in, or None when the cache is off."""
    return _folder
