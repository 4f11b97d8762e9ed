"""The global registry of custom objects, as Keras's `get_custom_objects` exposes it."""

from __future__ import annotations

from lamina.common import serialization


def get_custom_objects() -> dict:
    """The live dict of registered custom objects, by registered name.

    `register_keras_serializable` fills it (`"package>name"` keys); adding an entry by
    hand (`get_custom_objects()["MyLayer"] = MyLayer`) makes that name resolve in every
    deserialization, as in Keras. Prefer `custom_object_scope` for a temporary entry.

    Returns:
        The registry itself (not a copy): changes to it take effect.

    >>> from lamina.utils import register_keras_serializable
    >>> @register_keras_serializable(package="docs")
    ... def triple(x):
    ...     return 3 * x
    >>> get_custom_objects()["docs>triple"] is triple
    True
    """
    # The registry lives in `serialization`, which resolves names through it.
    return serialization._CUSTOM_OBJECTS
