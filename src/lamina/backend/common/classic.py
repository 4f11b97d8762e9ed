"""Where the classic Keras 2 backend API joins `lamina.backend`.

Classic programs reach every backend name through one module: `from lamina import
backend as K`, then `K.placeholder`, `K.function`, `K.gradients`, `K.mean`. That API is
built on the graph and on `lamina.ops`, floors above the seam, so the seam cannot import
it. Instead `lamina.legacy` registers its namespace here when `lamina` is imported, and
`lamina.backend` resolves the names it does not define itself from what was registered
(`lamina.backend.__getattr__`), the way a plugin joins a host that does not know it.

The registered namespace provides `__all__` (the classic names), `OMITTED` (classic
names left out on purpose, each with what to use instead) and the graph-aware `cast`,
`shape` and `stop_gradient` that the seam's own functions of those names hand graph
tensors to, and `_input_source`, which makes the graph tensor `Input(tensor=...)` is fed
by when given a variable or an array.
"""

from __future__ import annotations

# Said when a classic name is asked for and nothing registered: `lamina`'s own import
# registers the classic API, so this means that import has not run or did not finish.
NOT_REGISTERED = (
    "the classic Keras 2 backend API (K.function, K.placeholder, K.mean, ...) joins "
    "lamina.backend when `lamina` is imported (lamina.legacy registers it), and that has "
    "not happened: run `import lamina` first (`import lamina.backend` does so), and if it "
    "failed, fix the error it raised"
)

# One cell, so that a second registration (a re-import) replaces the first.
_REGISTERED: list = [None]


def register_classic_api(namespace) -> None:
    """Make `namespace`'s names (its `__all__`) reachable as `lamina.backend.<name>`.

    Args:
        namespace: a module (`lamina.legacy.backend`) with `__all__`, `OMITTED`, `cast`,
            `shape` and `stop_gradient`.
    """
    _REGISTERED[0] = namespace


def classic_api():
    """The registered classic namespace, or `None` before `lamina.legacy` registers it."""
    return _REGISTERED[0]
