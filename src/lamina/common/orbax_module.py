"""Orbax's v1 checkpoint API, imported when first needed: an optional extra
(`pip install orbax-checkpoint`, or lamina's `orbax` extra), shared by
`callbacks.OrbaxCheckpoint` and the loading of its folders in `lamina.saving`."""

from __future__ import annotations

import importlib


def orbax_v1(what: str, instead: str = ""):
    """`orbax.checkpoint.v1`, or an ImportError saying that `what` needs it and how to
    install it (and `instead`, what works without it)."""
    try:
        package = importlib.import_module("orbax.checkpoint")
    except ImportError as err:
        raise ImportError(
            f"{what} needs the `orbax-checkpoint` package, which is not installed: `pip "
            f'install orbax-checkpoint` (or lamina\'s extra, `pip install "lamina[orbax]"`).'
            f"{' ' + instead if instead else ''}"
        ) from err
    v1 = getattr(package, "v1", None)
    if v1 is None or not hasattr(v1, "training"):
        raise ImportError(
            f"{what} needs Orbax's v1 API (`orbax.checkpoint.v1.training`), which this "
            f"orbax-checkpoint ({getattr(package, '__version__', '?')}) lacks: "
            "`pip install -U orbax-checkpoint`."
        )
    return v1
