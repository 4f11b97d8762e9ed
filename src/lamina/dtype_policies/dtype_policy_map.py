"""`DTypePolicyMap`: one dtype policy per layer path, for a model whose layers differ.

A layer made with `dtype=policy_map` computes with `policy_map[layer.path]` once its
path is known (when it is first built or called), and with the map's default policy
before that. A layer quantized inside such a model records its quantized policy in the
map under its path, so the model's config (which holds the map) rebuilds every layer
with its own policy.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping

from lamina.dtype_policies.dtype_policy import DTypePolicy, deserialize, get, serialize
from lamina.dtype_policies.dtype_policy import dtype_policy as global_policy


class DTypePolicyMap(DTypePolicy, MutableMapping):
    """A dict-like map from layer paths (or regular expressions) to dtype policies.

    Looking a path up returns the policy stored under exactly that path; else the one
    whose key, read as a regular expression, fully matches the path (an error if more
    than one does); else the default policy. `"encoder"` matches only the layer at
    that path, `"encoder/.*"` the layers below it.

    Args:
        default_policy: the policy of paths that nothing matches (a policy or its name;
            None: the global policy, looked up when needed).
        policy_map: a dict of paths to policies to start with.

    >>> policy_map = DTypePolicyMap(default_policy="float32")
    >>> policy_map["encoder/.*"] = "bfloat16"
    >>> policy_map["decoder"] = "int8_from_float32"
    >>> policy_map["encoder/dense"].name, policy_map["decoder/dense"].name
    ('bfloat16', 'float32')
    >>> policy_map["decoder"].quantization_mode
    'int8'
    """

    def __init__(self, default_policy=None, policy_map=None):
        if isinstance(default_policy, DTypePolicyMap):
            raise ValueError(
                "`default_policy` cannot be a `DTypePolicyMap`: pass a policy such as "
                "'float32' or a DTypePolicy."
            )
        if policy_map is not None and not isinstance(policy_map, dict):
            raise TypeError(
                "If specified, `policy_map` must be a dict of layer paths to policies. "
                f"Received: policy_map={policy_map!r} of type {type(policy_map).__name__}"
            )
        self._default_policy_arg = default_policy
        self._default_policy = get(default_policy)
        self._policy_map = {}
        for key, policy in (policy_map or {}).items():
            self[key] = policy

    @property
    def policy_map(self) -> dict:
        """The paths (or patterns) and their policies, as a dict."""
        return dict(self._policy_map)

    @property
    def default_policy(self):
        """The policy of unmatched paths (the global policy when none was given)."""
        if self._default_policy_arg is None:
            return global_policy()
        return self._default_policy

    @property
    def name(self) -> str:
        return f"map_{self.default_policy.name}"

    @property
    def _name(self):
        return self.name

    @property
    def compute_dtype(self) -> str:
        return self.default_policy.compute_dtype

    @property
    def variable_dtype(self) -> str:
        return self.default_policy.variable_dtype

    @property
    def quantization_mode(self):
        return self.default_policy.quantization_mode

    def __getitem__(self, key):
        if key in self._policy_map:
            return self._policy_map[key]
        matches = [pattern for pattern in self._policy_map if re.fullmatch(pattern, key)]
        if len(matches) > 1:
            raise ValueError(
                f"Path '{key}' matches multiple dtype policy specification keys: "
                f"{matches}. Please make sure each path only matches at most one dtype "
                "policy specification key in the DTypePolicyMap."
            )
        if matches:
            return self._policy_map[matches[0]]
        return self.default_policy

    def __setitem__(self, key, policy) -> None:
        if key in self._policy_map:
            raise ValueError(
                f"{key} already exist in the DTypePolicyMap with value "
                f"{self._policy_map[key]}. Please make sure to not use duplicated keys "
                "(delete the key first to replace its policy)."
            )
        try:
            policy = get(policy)
        except Exception as err:
            raise ValueError(
                "Cannot interpret the assigned value by `lamina.dtype_policies.get`. "
                f"Received: {policy!r} of type {type(policy).__name__}"
            ) from err
        self._policy_map[key] = policy

    def __delitem__(self, key) -> None:
        del self._policy_map[key]

    def __contains__(self, key) -> bool:
        return key in self._policy_map

    def __iter__(self):
        return iter(self._policy_map)

    def __len__(self) -> int:
        return len(self._policy_map)

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, DTypePolicyMap)
            and other.default_policy == self.default_policy
            and other._policy_map == self._policy_map
        )

    def __hash__(self) -> int:
        return id(self)

    def get_config(self) -> dict:
        # Without a default policy, Keras writes the stored policies without their
        # source policy too, so that loading defers to the global policy then.
        entries = {}
        for key, policy in self._policy_map.items():
            entry = serialize(policy)
            if self._default_policy_arg is None:
                config = dict(entry["config"])
                config["source_name" if "source_name" in config else "name"] = None
                entry = {**entry, "config": config}
            entries[key] = entry
        default = self._default_policy_arg
        if isinstance(default, DTypePolicy):
            default = serialize(default)
        return {"default_policy": default, "policy_map": entries}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        entries = {}
        for key, entry in (config.get("policy_map") or {}).items():
            if isinstance(entry, dict) and isinstance(entry.get("config"), dict):
                inner = entry["config"]
                if "name" in inner and inner["name"] is None:
                    entry = None  # a float policy written without its name: the global one
            entries[key] = deserialize(entry, custom_objects) if isinstance(entry, dict) else entry
        default = config.get("default_policy")
        if isinstance(default, dict):
            default = deserialize(default, custom_objects)
        return cls(default_policy=default, policy_map=entries)

    def __repr__(self) -> str:
        mapping = [(k, v.name) for k, v in self._policy_map.items()]
        return (
            f"<DTypePolicyMap at {hex(id(self))} default_policy={self.default_policy.name}, "
            f"mapping={mapping}>"
        )
