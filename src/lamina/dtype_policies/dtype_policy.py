"""`DTypePolicy`: which dtype a layer computes in and which dtype it stores weights in.

A policy named after a dtype (`"float32"`, `"bfloat16"`) computes and stores in that
dtype. `"mixed_float16"` and `"mixed_bfloat16"` compute in the 16-bit type and keep the
weights in float32 (mixed precision): a layer reads its float weights cast to the
compute dtype inside its call (see `lamina.dtype_policies.autocast`).

The global policy (`set_dtype_policy`) is what a layer made without `dtype=` gets.
"""

from __future__ import annotations

from lamina import backend
from lamina.backend.common.global_state import register_reset_hook

_MIXED = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}
# The names Keras 3 (and Keras 2's `mixed_precision.Policy`) write for a float policy.
_CLASS_NAMES = ("DTypePolicy", "FloatDTypePolicy", "Policy")

_global_policy = [None]
# Keras's quantization modes (all of which lamina has).
QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")
SUPPORTED_QUANTIZATION_MODES = QUANTIZATION_MODES


class DTypePolicy:
    """A layer's dtype policy: its compute dtype and its variable dtype.

    Pass one (or its name) as a layer's `dtype=`, or set it for every new layer with
    `lamina.config.set_dtype_policy`.

    Args:
        name: `"mixed_float16"` or `"mixed_bfloat16"` (compute in the 16-bit type, keep
            variables in float32), or a dtype name such as `"float32"` or `"bfloat16"`
            (both dtypes that one). Default: the global policy's name.

    >>> policy = DTypePolicy("mixed_bfloat16")
    >>> policy.compute_dtype, policy.variable_dtype
    ('bfloat16', 'float32')
    >>> policy
    <DTypePolicy "mixed_bfloat16">
    """

    def __init__(self, name=None):
        if name is None:
            name = dtype_policy().name
        self._name = name
        self._compute_dtype, self._variable_dtype = _parse_name(name)

    @property
    def name(self) -> str:
        """The policy's name, such as `"mixed_bfloat16"`."""
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The dtype a layer computes in: its inputs are cast to it, its outputs have it."""
        return self._compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The dtype a layer creates its weights in."""
        return self._variable_dtype

    @property
    def quantization_mode(self):
        """None: a float policy does not quantize."""
        return None

    def get_config(self) -> dict:
        return {"name": self._name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'

    def __eq__(self, other) -> bool:
        return isinstance(other, DTypePolicy) and other._name == self._name

    def __hash__(self) -> int:
        return hash(("DTypePolicy", self._name))


class FloatDTypePolicy(DTypePolicy):
    """The same as `DTypePolicy` (Keras keeps the name for older programs).

    >>> from lamina import dtype_policies, layers
    >>> policy = dtype_policies.FloatDTypePolicy("mixed_float16")
    >>> policy.compute_dtype, policy.variable_dtype
    ('float16', 'float32')
    >>> layers.Dense(2, dtype=policy).compute_dtype
    'float16'
    """


class QuantizedDTypePolicy(DTypePolicy):
    """The policy of a quantized layer: `"<mode>_from_<source policy>"`.

    The layer computes as its source policy says (`compute_dtype`, `variable_dtype`)
    and keeps its kernel quantized (`quantization_mode`). `layer.quantize(mode)` sets it;
    a config naming it builds the layer quantized.

    Args:
        mode: the quantization mode: `"int8"`, `"int4"` (per-channel; `Int4DTypePolicy`
            names a block size), `"float8"` (see `QuantizedFloat8DTypePolicy`), ...
        source_name: the float policy it came from (default: the global policy's name).

    >>> policy = QuantizedDTypePolicy("int8", "mixed_bfloat16")
    >>> policy.name, policy.compute_dtype, policy.quantization_mode
    ('int8_from_mixed_bfloat16', 'bfloat16', 'int8')
    """

    def __init__(self, mode, source_name=None):
        if source_name is None:
            source_name = dtype_policy().name
        check_quantization_mode(mode)
        super().__init__(source_name)
        if mode == "int8" and self._compute_dtype == "float16":
            raise ValueError(
                f"Quantization mode='{mode}' doesn't work well with compute_dtype='float16' "
                f"(source policy {source_name!r}): int8 scales overflow float16. Use a "
                "'bfloat16', 'mixed_bfloat16' or 'float32' policy."
            )
        self._name = f"{mode}_from_{source_name}"
        self._source_name = source_name
        self._quantization_mode = mode

    @property
    def quantization_mode(self):
        """The quantization mode, such as `"int8"`."""
        return self._quantization_mode

    @property
    def source_name(self) -> str:
        """The float policy's name (`"float32"` in `"int8_from_float32"`)."""
        return self._source_name

    def get_config(self) -> dict:
        return {"mode": self._quantization_mode, "source_name": self._source_name}

    def __repr__(self) -> str:
        return f'<{type(self).__name__} "{self._name}">'

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.get_config() == self.get_config()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._name))


class QuantizedFloat8DTypePolicy(QuantizedDTypePolicy):
    """The policy of a layer trained in float8: `"float8_from_<source policy>"`.

    Such a layer keeps its float kernel and rounds its inputs and kernel to float8
    (e4m3) and the gradient of its outputs to float8 (e5m2) on each call, each with a
    scale that follows the largest magnitudes of the last `amax_history_length` steps
    (delayed scaling).

    Args:
        mode: `"float8"`.
        source_name: the float policy it came from (default: the global policy's name).
        amax_history_length: how many steps of abs-max history set each scale.

    >>> QuantizedFloat8DTypePolicy("float8", "float32").amax_history_length
    1024
    """

    default_amax_history_length = 1024

    def __init__(self, mode, source_name=None, amax_history_length=1024):
        super().__init__(mode, source_name)
        if isinstance(amax_history_length, bool) or not isinstance(amax_history_length, int):
            raise TypeError(
                "`amax_history_length` must be an integer (the number of steps whose "
                f"abs-max sets a float8 scale). Received: amax_history_length="
                f"{amax_history_length!r}"
            )
        self._amax_history_length = amax_history_length

    @property
    def amax_history_length(self) -> int:
        """The length of the abs-max history window that sets the float8 scales."""
        return self._amax_history_length

    def get_config(self) -> dict:
        return {**super().get_config(), "amax_history_length": self._amax_history_length}


def _mode_parts(cls_name: str, mode, expected: str, count: int) -> list[int]:
    """The integers of a mode like `"int4/128"` or `"gptq/4/128"`, checked."""
    parts = mode.split("/") if isinstance(mode, str) else []
    base = expected.split("/")[0].strip("'")
    if len(parts) != count + 1 or parts[0] != base:
        raise ValueError(
            f"Invalid mode for {cls_name}. Expected format {expected}, but got {mode!r}."
        )
    try:
        return [int(p) for p in parts[1:]]
    except ValueError:
        raise ValueError(
            f"Invalid mode for {cls_name}: the numbers must be integers. Expected format "
            f"{expected}, but got {mode!r}."
        ) from None


def _check_group(what: str, value: int, mode: str) -> None:
    if value < -1 or value == 0:
        raise ValueError(
            f"Invalid {what} in mode. Supported values are -1 (per-channel) or a positive "
            f"integer, but got {value} from {mode!r}."
        )


class Int4DTypePolicy(QuantizedDTypePolicy):
    """The policy of an int4 layer with its block size: `"int4/<block_size>_from_<source>"`.

    `block_size` -1 is one scale per output channel (symmetric); a positive block size
    is one scale and zero point per block of that many inputs (asymmetric).

    Args:
        mode: `"int4/<block_size>"`, such as `"int4/128"` or `"int4/-1"`.
        source_name: the float policy it came from.

    >>> policy = Int4DTypePolicy("int4/64", "float32")
    >>> policy.name, policy.quantization_mode, policy.block_size
    ('int4/64_from_float32', 'int4', 64)
    """

    def __init__(self, mode, source_name=None):
        (block_size,) = _mode_parts("Int4DTypePolicy", mode, "'int4/<block_size>'", 1)
        _check_group("block_size", block_size, mode)
        super().__init__("int4", source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = "int4"
        self.block_size = block_size

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": f"int4/{self.block_size}"}


class _CalibratedDTypePolicy(QuantizedDTypePolicy):
    """GPTQ's and AWQ's policy: `"<mode>/<weight_bits>/<group_size>_from_<source>"`."""

    _base = ""
    _bits = ()

    def __init__(self, mode, source_name=None):
        cls_name = type(self).__name__
        expected = f"'{self._base}/<weight_bits>/<group_size>'"
        weight_bits, group_size = _mode_parts(cls_name, mode, expected, 2)
        if weight_bits not in self._bits:
            raise ValueError(
                f"Invalid weight_bits in mode. {cls_name} supports {list(self._bits)}, but "
                f"got {weight_bits} from {mode!r}."
            )
        _check_group("group_size", group_size, mode)
        super().__init__(self._base, source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = self._base
        self.weight_bits = weight_bits
        self.group_size = group_size

    def get_config(self) -> dict:
        mode = f"{self._base}/{self.weight_bits}/{self.group_size}"
        return {**super().get_config(), "mode": mode}


class GPTQDTypePolicy(_CalibratedDTypePolicy):
    """The policy of a GPTQ-quantized layer: `"gptq/<weight_bits>/<group_size>_from_..."`.

    Args:
        mode: such as `"gptq/4/128"`: bits 2, 3, 4 or 8; group size -1 (per channel) or
            a positive number of input columns per group.
        source_name: the float policy it came from.

    >>> GPTQDTypePolicy("gptq/4/-1", "float32").group_size
    -1
    """

    _base = "gptq"
    _bits = (2, 3, 4, 8)


class AWQDTypePolicy(_CalibratedDTypePolicy):
    """The policy of an AWQ-quantized layer: `"awq/4/<group_size>_from_<source>"`.

    Args:
        mode: such as `"awq/4/128"` (AWQ quantizes to 4 bits only).
        source_name: the float policy it came from.

    >>> AWQDTypePolicy("awq/4/8", "float32").weight_bits
    4
    """

    _base = "awq"
    _bits = (4,)


# The quantized policy classes by the name Keras writes in a config.
QUANTIZED_CLASSES = {
    cls.__name__: cls
    for cls in (
        QuantizedDTypePolicy,
        QuantizedFloat8DTypePolicy,
        Int4DTypePolicy,
        GPTQDTypePolicy,
        AWQDTypePolicy,
    )
}


def check_quantization_mode(mode) -> None:
    """Raise a ValueError naming Keras's modes unless `mode` is one of them."""
    if mode in QUANTIZATION_MODES:
        return
    raise ValueError(
        f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. Received: mode={mode!r}"
    )


def _quantized_from_name(name: str) -> QuantizedDTypePolicy | None:
    """The quantized policy a name like `"int8_from_float32"` describes, or None
    (Keras's rule: `int4/<n>` is an `Int4DTypePolicy`, bare `int4` the legacy per-channel
    `QuantizedDTypePolicy`)."""
    mode, sep, source = name.partition("_from_")
    base = mode.split("/")[0]
    if not sep or base not in QUANTIZATION_MODES:
        return None
    if base == "int4" and "/" in mode:
        return Int4DTypePolicy(mode, source)
    if base == "gptq":
        return GPTQDTypePolicy(mode, source)
    if base == "awq":
        return AWQDTypePolicy(mode, source)
    if base == "float8":
        return QuantizedFloat8DTypePolicy(mode, source)
    return QuantizedDTypePolicy(mode, source)


def _parse_name(name) -> tuple[str, str]:
    if not isinstance(name, str):
        raise TypeError(
            "A DTypePolicy name must be a string such as 'float32' or 'mixed_bfloat16'; "
            f"received {name!r} of type {type(name).__name__}."
        )
    if name in _MIXED:
        return _MIXED[name], "float32"
    try:
        dtype = backend.standardize_dtype(name)
    except (ValueError, TypeError) as err:
        raise ValueError(
            f"Cannot make a DTypePolicy from {name!r}. Valid names are 'mixed_float16', "
            "'mixed_bfloat16' and dtype names such as 'float32' or 'bfloat16'."
        ) from err
    return dtype, dtype


def set_dtype_policy(policy) -> None:
    """Set the policy every layer created from now on without `dtype=` gets.

    Args:
        policy: a `DTypePolicy` or its name (`"mixed_bfloat16"`, `"float32"`, ...).

    >>> set_dtype_policy("mixed_bfloat16")
    >>> dtype_policy()
    <DTypePolicy "mixed_bfloat16">
    >>> set_dtype_policy("float32")
    """
    if isinstance(policy, str):
        policy = DTypePolicy(policy)
    elif not isinstance(policy, DTypePolicy):
        raise ValueError(
            "set_dtype_policy expects a policy name (such as 'mixed_float16') or a "
            f"DTypePolicy; received {policy!r} of type {type(policy).__name__}."
        )
    _global_policy[0] = policy


def _reset_global_policy() -> None:
    _global_policy[0] = None


# `clear_session()` forgets the global policy, as in Keras.
register_reset_hook(_reset_global_policy)


def dtype_policy() -> DTypePolicy:
    """The global policy: the one set with `set_dtype_policy`, else `floatx()`'s.

    >>> dtype_policy().name
    'float32'
    """
    policy = _global_policy[0]
    if policy is None:
        policy = DTypePolicy(backend.floatx())
    return policy


def serialize(dtype_policy) -> dict:
    """The config Keras 3 writes for a policy (a layer config's `"dtype"`).

    >>> serialize(DTypePolicy("mixed_float16"))["config"]
    {'name': 'mixed_float16'}
    """
    policy = dtype_policy
    if not isinstance(policy, DTypePolicy):
        raise TypeError(
            f"serialize expects a DTypePolicy; received {type(policy).__name__} {policy!r}."
        )
    if isinstance(policy, QuantizedDTypePolicy) or hasattr(policy, "policy_map"):
        return {
            "module": "keras.dtype_policies",
            "class_name": type(policy).__name__,
            "config": policy.get_config(),
            "registered_name": None,
        }
    return {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": policy.get_config(),
        "registered_name": None,
    }


def deserialize(config, custom_objects=None) -> DTypePolicy:
    """The policy a `serialize` config (Keras 3's, or Keras 2's `Policy`) describes.

    >>> deserialize({"class_name": "DTypePolicy", "config": {"name": "bfloat16"}})
    <DTypePolicy "bfloat16">
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise TypeError(
            "deserialize expects a dict with 'class_name' and 'config' (as `serialize` "
            f"writes); received {config!r:.200}."
        )
    class_name = config["class_name"]
    custom = (custom_objects or {}).get(class_name)
    inner = config.get("config") or {}
    if custom is not None:
        return custom.from_config(inner)
    if class_name in QUANTIZED_CLASSES and isinstance(inner, dict):
        return QUANTIZED_CLASSES[class_name](**inner)
    if class_name == "DTypePolicyMap" and isinstance(inner, dict):
        from lamina.dtype_policies.dtype_policy_map import DTypePolicyMap

        return DTypePolicyMap.from_config(inner, custom_objects)
    if class_name not in _CLASS_NAMES:
        raise ValueError(
            f"Cannot load dtype policy class {class_name!r}: lamina reads "
            f"{list(_CLASS_NAMES) + list(QUANTIZED_CLASSES) + ['DTypePolicyMap']}. Pass "
            "the class in custom_objects if it is your own."
        )
    if not isinstance(inner, dict) or not isinstance(inner.get("name"), str):
        raise ValueError(
            f"A {class_name} config needs a string 'name' such as 'mixed_bfloat16'; "
            f"received {inner!r:.200}."
        )
    cls = FloatDTypePolicy if class_name == "FloatDTypePolicy" else DTypePolicy
    return cls(inner["name"])


def get(identifier) -> DTypePolicy:
    """A policy from a policy, its name, its config, a dtype, or None (the global one).

    >>> get("mixed_bfloat16").compute_dtype
    'bfloat16'
    >>> get(None).name
    'float32'
    """
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return _quantized_from_name(identifier) or DTypePolicy(identifier)
    try:
        name = backend.standardize_dtype(identifier)
    except (ValueError, TypeError) as err:
        raise ValueError(
            f"Cannot interpret dtype={identifier!r}: expected a dtype or policy name "
            "(such as 'float32' or 'mixed_bfloat16'), a DTypePolicy, or a dtype object."
        ) from err
    return DTypePolicy(name)


def is_mixed(policy: DTypePolicy) -> bool:
    """Whether `policy` computes in another dtype than it stores variables in."""
    return policy.compute_dtype != policy.variable_dtype


def config_value(policy: DTypePolicy):
    """What a layer config stores as its `"dtype"`: the plain dtype name for a policy
    named after its dtype (as lamina always wrote, and Keras reads), Keras 3's
    serialized `DTypePolicy` dict for any other (mixed) policy."""
    if policy.name == policy.compute_dtype == policy.variable_dtype:
        return policy.name
    return serialize(policy)
