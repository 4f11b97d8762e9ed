"""`Config`: a dict of settings read and written as attributes, which can be frozen."""

from __future__ import annotations

import difflib
import json

# Names that are the object's own, never settings.
_OWN = frozenset({"_config", "_frozen"})


class Config:
    """Settings held as attributes (`config.learning_rate`) or items, as `keras.utils.Config`.

    Use it for the hyperparameters of an experiment: set them as attributes or items,
    `freeze()` it before training so that no later line changes one by mistake, and
    save it with `to_json()`. It behaves as a dict: `keys`, `values`, `items`, `get`,
    `pop`, `update`, `len`, `in`; iterating gives the keys in sorted order.

    Args:
        **kwargs: the initial settings.

    >>> config = Config(learning_rate=0.1)
    >>> config.momentum = 0.9
    >>> config["seed"] = 7
    >>> config.learning_rate, config["momentum"], sorted(config)
    (0.1, 0.9, ['learning_rate', 'momentum', 'seed'])
    >>> config.freeze()
    >>> config.seed = 8
    Traceback (most recent call last):
        ...
    ValueError: Cannot set or remove 'seed': the config is frozen. Call unfreeze() first.
    """

    def __init__(self, **kwargs):
        object.__setattr__(self, "_config", dict(kwargs))
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self) -> bool:
        """Whether changes are refused."""
        return self._frozen

    def freeze(self) -> None:
        """Refuse every later change (setting, updating or removing a setting)."""
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self) -> None:
        """Allow changes again."""
        object.__setattr__(self, "_frozen", False)

    def _check_unfrozen(self, what) -> None:
        if self._frozen:
            raise ValueError(
                f"Cannot set or remove {what}: the config is frozen. Call unfreeze() first."
            )

    def as_dict(self) -> dict:
        """A shallow copy of the settings, as a dict."""
        return dict(self._config)

    def to_json(self) -> str:
        """The settings as a JSON string (they must be JSON-serializable)."""
        return json.dumps(self._config)

    def keys(self):
        """The setting names, as `dict.keys()`."""
        return self._config.keys()

    def values(self):
        """The setting values, as `dict.values()`."""
        return self._config.values()

    def items(self):
        """`(name, value)` pairs, as `dict.items()`."""
        return self._config.items()

    def get(self, keyname, value=None):
        """The setting `keyname`, or `value` when there is none."""
        return self._config.get(keyname, value)

    def pop(self, *args):
        """Remove a setting and return its value, as `dict.pop` (refused when frozen)."""
        self._check_unfrozen(repr(args[0]) if args else "a setting")
        return self._config.pop(*args)

    def update(self, *args, **kwargs) -> None:
        """Set several settings at once, as `dict.update` (refused when frozen)."""
        self._check_unfrozen("settings")
        self._config.update(*args, **kwargs)

    def __setattr__(self, name, value):
        if name in _OWN or hasattr(type(self), name):
            object.__setattr__(self, name, value)
            return
        self._check_unfrozen(repr(name))
        self._config[name] = value

    def __getattr__(self, name):
        # Only called when normal lookup fails: a setting, or a mistake.
        if name in _OWN or name.startswith("__"):
            raise AttributeError(name)
        config = self._config
        if name in config:
            return config[name]
        message = f"Unknown attribute: '{name}'."
        close = difflib.get_close_matches(name, [str(k) for k in config], n=1, cutoff=0.7)
        if close:
            message += f" Did you mean '{close[0]}'?"
        raise AttributeError(message)

    def __delattr__(self, name):
        if name not in self._config:
            raise AttributeError(f"Unknown attribute: '{name}'.")
        del self[name]

    def __setitem__(self, key, value):
        self._check_unfrozen(repr(key))
        self._config[key] = value

    def __getitem__(self, key):
        return self._config[key]

    def __delitem__(self, key):
        self._check_unfrozen(repr(key))
        del self._config[key]

    def __contains__(self, key) -> bool:
        return key in self._config

    def __iter__(self):
        return iter(sorted(self._config))

    def __len__(self) -> int:
        return len(self._config)

    def __repr__(self) -> str:
        return f"<Config {self._config}>"
