"""JAX's persistent compilation cache, pointed where lamina keeps compiled programs.

`backend/common/compilation_cache.py` decides the folder; this module hands it to JAX.
JAX keys each entry by the program (its StableHLO, so the model, shapes and dtypes), the
compile options and flags, the jax/jaxlib versions and the device, so a changed model or
machine never loads a program compiled for another. A setting the user gave JAX itself
(`JAX_COMPILATION_CACHE_DIR`, `JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS`,
`JAX_COMPILATION_CACHE_MAX_SIZE`, or the same names through `jax.config`) wins over
lamina's defaults.
"""

from __future__ import annotations

import importlib.util
import os

import jax
from jax.experimental.compilation_cache import compilation_cache as _jax_cache

# Programs that took less than this to compile are not kept: a tiny eager op compiles
# faster than its file is read back. Model steps take 0.1-2 s.
MIN_COMPILE_TIME_SECS = 0.1
# Least recently used entries are dropped past this size.
MAX_SIZE_BYTES = 2 * 1024**3

_USER_DIR = os.environ.get("JAX_COMPILATION_CACHE_DIR") or jax.config.jax_compilation_cache_dir
_lamina_dir: str | None = None


def use_cache(folder: str | None, default: bool = False) -> None:
    """Keep JAX's compiled programs in `folder` from now on (None: none kept).

    `default`: lamina's own choice at import, which a folder the user gave JAX before
    importing lamina overrides (an explicit `enable_compilation_cache` does not)."""
    global _lamina_dir
    if default and _USER_DIR:
        return
    if folder is not None:
        if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
            jax.config.update("jax_persistent_cache_min_compile_time_secs", MIN_COMPILE_TIME_SECS)
        if (
            "JAX_COMPILATION_CACHE_MAX_SIZE" not in os.environ
            # JAX evicts under a file lock, and refuses a size cap without `filelock`
            # (a dependency of lamina; absent, the folder grows without a cap).
            and importlib.util.find_spec("filelock") is not None
        ):
            jax.config.update("jax_compilation_cache_max_size", MAX_SIZE_BYTES)
    if folder == _lamina_dir:
        return
    _lamina_dir = folder
    jax.config.update("jax_compilation_cache_dir", folder)
    # The cache is opened at the first compile after a reset, with the settings above.
    _jax_cache.reset_cache()


def cache_folder() -> str | None:
    """The folder JAX keeps compiled programs in, or None."""
    return jax.config.jax_compilation_cache_dir
