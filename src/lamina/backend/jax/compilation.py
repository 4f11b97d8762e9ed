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


# XLA's CPU back end has two code generators for fused elementwise work: the newer
# "fusion emitters" (its default) and the older elemental one. Measured on this machine
# (jaxlib 0.10, first `fit` and later epochs, bench/RESULTS.md): for models with image
# convolutions the elemental one compiles the train step in half the time (a small
# convnet 0.72 s -> 0.36 s, Conv-BN-ReLU x2 1.32 s -> 0.85 s, a residual block 0.53 s
# -> 0.33 s) and runs its steps as fast or faster; for a large MLP it runs the steps 37%
# slower. So lamina asks for it only for models holding an image or volume convolution.
_ELEMENTAL = {"xla_cpu_use_fusion_emitters": False}
_SWITCH = "LAMINA_XLA_CPU_CODEGEN"  # "auto" (default), "fusion" or "elemental"
_elemental_ok: bool | None = None


def _elemental_supported() -> bool:
    """Whether this jaxlib knows the option (an unknown one fails the compile)."""
    global _elemental_ok
    if _elemental_ok is None:
        try:
            jax.jit(lambda x: x + 1, compiler_options=_ELEMENTAL).lower(0.0).compile()
            _elemental_ok = True
        except Exception:  # noqa: BLE001 - any refusal means: do not ask for it
            _elemental_ok = False
    return _elemental_ok


def step_compiler_options(layers) -> dict | None:
    """XLA compile options for the step programs of a model made of `layers` (None:
    XLA's defaults): the elemental CPU code generator when one of them is an image or
    volume convolution (a layer whose `_spatial_convolution` is true), on CPU.

    `LAMINA_XLA_CPU_CODEGEN=fusion` keeps XLA's default for every model, `=elemental`
    asks for the elemental generator for every model; a choice made in `XLA_FLAGS`
    (`--xla_cpu_use_fusion_emitters=...`) wins over both."""
    choice = os.environ.get(_SWITCH, "auto").strip().lower() or "auto"
    if choice not in ("auto", "fusion", "elemental"):
        raise ValueError(
            f"{_SWITCH}={choice!r}: expected 'auto' (the default), 'fusion' (XLA's default "
            "code generator for every model) or 'elemental' (the older one for every model)."
        )
    if (
        choice == "fusion"
        or "xla_cpu_use_fusion_emitters" in os.environ.get("XLA_FLAGS", "")
        or jax.default_backend() != "cpu"
    ):
        return None
    if choice == "auto" and not any(
        getattr(layer, "_spatial_convolution", False) for layer in layers
    ):
        return None
    return dict(_ELEMENTAL) if _elemental_supported() else None
