"""Where `lamina.initializers` joins the seam: a Variable takes an initializer by name.

`Variable(shape=(2, 3), initializer="uniform")` resolves the name as `add_weight` does,
with `lamina.initializers.get`. The initializers sit on a floor above the seam, so the
seam cannot import them; `lamina.initializers` registers its `get` here when it is
imported (by `import lamina`), the way the classic API joins (`common.classic`).
"""

from __future__ import annotations

# One cell, so that a second registration (a re-import) replaces the first.
_LOOKUP: list = [None]


def register_initializer_lookup(get) -> None:
    """Register the function that resolves an initializer given by name, config or
    class (`lamina.initializers.get`)."""
    _LOOKUP[0] = get


def resolve_initializer(initializer, name: str):
    """`initializer` (a name, config dict or class) resolved by the registered lookup,
    for the Variable called `name`."""
    get = _LOOKUP[0]
    if get is None:
        raise ValueError(
            f"Variable {name!r}: initializer {initializer!r} is given by name, and "
            "initializer names are resolved by `lamina.initializers`, which registers "
            "itself when `lamina` is imported; run `import lamina` first."
        )
    return get(initializer)
