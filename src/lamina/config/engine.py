"""Choosing the engine after import (`set_backend`) and Keras's NNX query.

lamina picks its engine once, when `lamina` is first imported, from the
`LAMINA_BACKEND` environment variable (see `lamina.backend`). `set_backend` does what
`keras.config.set_backend` does for Keras: it records the new name in that variable,
forgets every loaded `lamina` module and imports `lamina` again.
"""

from __future__ import annotations

import importlib.util
import os
import sys

# The engines `lamina.backend` can run on, and the package each one needs.
_ENGINES = {"jax": "jax", "torch": "torch"}


def set_backend(backend: str) -> None:
    """Switch lamina to another engine by re-importing the whole package.

    **Warning:** this is as dangerous as Keras's `set_backend`. Objects made before
    the call (layers, models, tensors, optimizers, and any function or class that uses
    them) keep running on the old engine and do not work with the new one. Do not keep
    any lamina object across the call; re-run the code that makes them, and import
    `lamina` (and each `lamina.*` module you use) again after it, e.g.
    `lamina.config.set_backend("torch"); import lamina`.

    Args:
        backend: `"jax"` or `"torch"`.

    Raises:
        ValueError: `backend` names no lamina engine (Keras's `"tensorflow"`,
            `"numpy"` and `"openvino"` included).
        ImportError: the engine's package (`jax` or `torch`) is not installed.

    >>> import lamina
    >>> lamina.config.set_backend("tensorflow")
    Traceback (most recent call last):
        ...
    ValueError: set_backend: unknown backend 'tensorflow'. Available ...
    """
    name = backend.strip().lower() if isinstance(backend, str) else backend
    if name not in _ENGINES:
        raise ValueError(
            f"set_backend: unknown backend {backend!r}. Available backends: "
            f"{list(_ENGINES)} (lamina has no tensorflow, numpy or openvino engine)."
        )
    package = _ENGINES[name]
    if importlib.util.find_spec(package) is None:
        raise ImportError(
            f"set_backend({name!r}): the {name} engine needs the `{package}` package, "
            f"which is not installed. Install it (`pip install {package}`) or keep the "
            f"current backend."
        )
    os.environ["LAMINA_BACKEND"] = name
    for module in [key for key in sys.modules if key == "lamina" or key.startswith("lamina.")]:
        del sys.modules[module]
    # The fresh package, on the new engine (Keras's `set_backend` re-imports keras too).
    # `lamina.config` is the top floor of the import layers: nothing `lamina` imports
    # sits above it.
    import lamina  # noqa: F401


def is_nnx_enabled() -> bool:
    """Whether Flax NNX mode is on: always `False` in lamina.

    Keras's JAX engine can make its layers Flax NNX modules (turned on with the
    `KERAS_NNX_ENABLED` environment variable or the `nnx_enabled` key of
    `keras.json`). lamina has no NNX mode on any engine, so this reports `False`
    whatever those settings say.

    >>> is_nnx_enabled()
    False
    """
    return False
