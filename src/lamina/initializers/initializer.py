"""The `Initializer` base class: `initializer(shape, dtype=None)` returns a tensor."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from lamina import backend
from lamina.common import serialization

TensorLike = Any  # an engine array


class Initializer:
    """Base class of all initializers: `initializer(shape, dtype=None)` returns a tensor.

    A subclass implements `__call__`; when its constructor arguments are the keys of
    `get_config()`, the inherited `from_config` round-trips it. A plain function
    `fn(shape, dtype=None)` works wherever an initializer is expected, too.

    >>> from lamina import ops
    >>> class Twos(Initializer):
    ...     def __call__(self, shape, dtype=None):
    ...         return ops.full(shape, 2.0, dtype=dtype or "float32")
    >>> ops.convert_to_numpy(Twos()((2,))).tolist()
    [2.0, 2.0]
    """

    def __call__(self, shape: tuple[int, ...], dtype: str | None = None) -> TensorLike:
        """A new tensor of `shape` and `dtype` (default: `backend.floatx()`)."""
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(shape, dtype).")

    def _deferred(self, shape: tuple[int, ...], dtype: str) -> Callable | None:
        """`self(shape, dtype)` as a function of no arguments that a variable being
        loaded runs only if the file does not set it, or None (the default) when the
        call cannot be put off: one that takes a seed must take it now, in order.

        Built-ins implement it; an initializer of the user's is called at once.
        """
        return None

    def get_config(self) -> dict:
        """The constructor arguments as a JSON-able dict.

        >>> Initializer().get_config()
        {}
        """
        return {}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Initializer:
        """Rebuild an initializer from `get_config()` output.

        Arguments newer Keras versions write that this class does not take are dropped
        when they hold their default; other values are refused with a ValueError.

        >>> type(Initializer.from_config({})).__name__
        'Initializer'
        """
        accepted = inspect.signature(cls.__init__).parameters
        known = {k: v for k, v in config.items() if k in accepted}
        extra = {k: v for k, v in config.items() if k not in accepted}
        serialization.drop_keras_only_arguments(extra, cls.__name__)
        unexpected = sorted(set(extra) - set(serialization.KERAS_ONLY_DEFAULTS))
        if unexpected:
            raise ValueError(
                f"{cls.__name__} received unknown config keys {unexpected}; it accepts "
                f"{sorted(k for k in accepted if k != 'self')}."
            )
        return cls(**known)

    def clone(self) -> Initializer:
        """A new initializer with the same config (a seeded one restarts its stream).

        >>> from lamina import initializers
        >>> initializers.Constant(3.0).clone().value
        3.0
        """
        return type(self).from_config(self.get_config())

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def resolve_dtype(dtype: str | None) -> str:
    """The dtype to create: `dtype` standardized, or `backend.floatx()` when None."""
    return backend.standardize_dtype(dtype) if dtype is not None else backend.floatx()


def seedless_deferred(initializer: Initializer, owner: type, shape, dtype) -> Callable | None:
    """`_deferred` of a built-in (`owner`) whose `__call__` takes no seed: the call
    itself, put off; None when a subclass replaced `__call__` (it might draw)."""
    if type(initializer).__call__ is not owner.__call__:
        return None
    return functools.partial(owner.__call__, initializer, tuple(shape), dtype)
