"""torch's compile cache (inductor's, for `jit_compile=True`) under lamina's folder.

`backend/common/compilation_cache.py` decides the folder. Eager steps compile nothing;
what `torch.compile` builds (`compile(jit_compile=True)`) is kept by inductor in its own
cache, which lamina points at `<folder>/inductor` unless the user set
`TORCHINDUCTOR_CACHE_DIR` themselves. Inductor reads the variable when it compiles, so
setting it here (before any compile) is enough.
"""

from __future__ import annotations

import os

_VARIABLE = "TORCHINDUCTOR_CACHE_DIR"
_USER_DIR = os.environ.get(_VARIABLE)
_lamina_dir: str | None = None


def use_cache(folder: str | None, default: bool = False) -> None:
    """Keep inductor's compiled code under `folder` from now on (None: inductor's own
    default, a folder under the temporary folder). `default`: lamina's own choice at
    import, which a `TORCHINDUCTOR_CACHE_DIR` the user set overrides."""
    global _lamina_dir
    if default and _USER_DIR:
        return
    _lamina_dir = None if folder is None else os.path.join(folder, "inductor")
    if _lamina_dir is None:
        os.environ.pop(_VARIABLE, None)
    else:
        os.environ[_VARIABLE] = _lamina_dir


def cache_folder() -> str | None:
    """The folder inductor keeps compiled code in when lamina chose it, or None."""
    return _lamina_dir
