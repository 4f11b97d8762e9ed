"""Switching lamina's persistent compilation cache at run time.

The cache keeps compiled programs between runs (see `lamina.backend.common.
compilation_cache` for where, and how the environment sets it up at import). These
calls change it for programs compiled afterwards.
"""

from __future__ import annotations

from lamina.backend.common import compilation_cache as _cache


def enable_compilation_cache(folder=None) -> str | None:
    """Keep compiled programs on disk, in `folder` (default `$LAMINA_HOME/
    compilation_cache`, else `~/.lamina/compilation_cache`), so that a later run compiles
    them no more. Returns the folder in use, or None when it cannot be written (a
    warning says why; programs still compile).

    >>> import tempfile, lamina
    >>> before = lamina.config.compilation_cache_folder()
    >>> folder = tempfile.mkdtemp()
    >>> lamina.config.enable_compilation_cache(folder) == folder
    True
    >>> lamina.config.compilation_cache_folder() == folder
    True
    >>> _ = lamina.config.enable_compilation_cache(before) if before else None
    """
    return _cache.enable(folder)


def disable_compilation_cache() -> None:
    """Compile every program afresh in each run: keep none on disk (the same as
    `LAMINA_COMPILATION_CACHE=0` set before import).

    >>> import lamina
    >>> before = lamina.config.compilation_cache_folder()
    >>> lamina.config.disable_compilation_cache()
    >>> lamina.config.is_compilation_cache_enabled()
    False
    >>> _ = lamina.config.enable_compilation_cache(before) if before else None
    """
    _cache.disable()


def is_compilation_cache_enabled() -> bool:
    """Whether compiled programs are kept on disk between runs.

    >>> is_compilation_cache_enabled() == (compilation_cache_folder() is not None)
    True
    """
    return _cache.folder() is not None


def compilation_cache_folder() -> str | None:
    """The folder compiled programs are kept in, or None when the cache is off.

    >>> import os
    >>> folder = compilation_cache_folder()
    >>> folder is None or os.path.isabs(folder)
    True
    """
    return _cache.folder()
