"""LoRA (low-rank adaptation) for the layers that have it in Keras 3.

`Dense`, `EinsumDense`, `Embedding` and `Conv1D`/`Conv2D`/`Conv3D` take `lora_rank=` and
`lora_alpha=` and have `enable_lora(rank)`. Enabling LoRA freezes the layer's base weight
`W` and adds two trainable float32 factors: `a` of shape `W.shape[:-1] + (rank,)` and `b`
of shape `(rank, W.shape[-1])`. The layer then computes with

    W + (lora_alpha / rank) * (a @ b)

which starts equal to `W` (`b` starts at zero), so fine-tuning trains only
`rank * (fan_in + fan_out)` numbers per layer.

The functions here hold that logic once, for the layers that bind them (`enable_lora`,
`from_config`, `_own_weights`, `_saved_variables`) or call them (`init_lora` in
`__init__`, `build_lora` at the end of `build`, `lora_config` in `get_config`); each
layer names its base weight (`_lora_weight`: `kernel` or `embeddings`) and reads the
effective value through `lora_weight_property`. Files store
what Keras stores: the merged weight in the base weight's place and no LoRA factors, so a
LoRA model's weights load into the plain model and the other way round; loading into a
LoRA layer resets its factors to zero.

The same layers quantize (see `lamina.layers.quantization`); modes a layer does not
have are refused with a message that says so.
"""

from __future__ import annotations

import numbers

from lamina import backend, initializers, ops, quantizers
from lamina.backend.common.variables import bump_structure_version
from lamina.layers import quantization
from lamina.layers.layer import Layer

NO_QUANTIZATION = (
    "lamina quantizes Dense and EinsumDense (int8, int4, float8, GPTQ, AWQ), Embedding "
    "and ReversibleEmbedding (int8, int4); use one of those modes, or keep the layer in "
    "floating point "
    "(a float or mixed dtype policy such as 'float32' or 'mixed_bfloat16')."
)


_LORA_CONFIG_KEYS = ("lora_rank", "lora_alpha", "quantization_config")


def _policy_mode(dtype):
    """The quantization mode a layer's `dtype` argument names (None: not quantized)."""
    from lamina import dtype_policies

    if dtype is None:
        return None
    try:
        if isinstance(dtype, dict):
            dtype = dtype_policies.deserialize(dtype)
        policy = dtype_policies.get(dtype) if isinstance(dtype, str) else dtype
    except (TypeError, ValueError):
        return None  # an invalid dtype gets its own error from the layer
    return getattr(policy, "quantization_mode", None)


def refuse_quantization(who: str, quantization_config=None, dtype=None, modes=()) -> None:
    """Raise a ValueError when a layer is asked to quantize in a mode it does not have.

    Args:
        who: the layer's class name, for the message.
        quantization_config: Keras's `quantization_config` argument (a config or None).
        dtype: the layer's `dtype` argument (a quantized policy names a mode).
        modes: the modes the layer quantizes in.
    """
    # A config of another mode is kept unused, as Keras keeps it (Keras's
    # `Model.quantize` leaves its config on the layers it cannot quantize).
    if quantization_config is not None and not isinstance(
        quantization_config, quantizers.QuantizationConfig
    ):
        raise ValueError(
            f"{who} received quantization_config={quantization_config!r}: expected a "
            "lamina.quantizers.QuantizationConfig (such as Int8QuantizationConfig) or None."
        )
    mode = _policy_mode(dtype)
    if mode is not None and mode not in modes:
        name = getattr(dtype, "name", dtype)
        raise ValueError(
            f"{who} received dtype={name!r}, a quantized dtype policy of mode {mode!r}. "
            f"{NO_QUANTIZATION}"
        )


def _check_rank(who: str, argument: str, value, allow_none: bool = True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(
            f"{who} expects `{argument}` to be a positive int (the LoRA rank)"
            f"{' or None' if allow_none else ''}; received {argument}={value!r}."
        )
    return int(value)


def _check_alpha(who: str, value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value <= 0:
        raise ValueError(
            f"{who} expects `lora_alpha` to be a positive number (the LoRA delta is scaled "
            f"by lora_alpha / lora_rank) or None (alpha = rank); received "
            f"lora_alpha={value!r}."
        )
    return value


def lora_weight_property(name: str) -> property:
    """A property `name` reading the weight the layer computes with.

    Before `enable_lora` it is the base variable (stored as `_<name>`); after, the base
    plus the scaled low-rank product, in the layer's compute dtype. Assigning to it sets
    the base variable (as `build` does).
    """

    key = f"_{name}"

    def get(self):
        if not self.lora_enabled:
            base = self.__dict__.get(key)
            if base is not None:
                return base  # the common case, read on every call
        if not self.built:
            raise AttributeError(
                f"{type(self).__name__} {self.name!r} is not built yet, so it has no "
                f"`{name}`: call it on data or call `build(input_shape)` first."
            )
        return lora_merged(self)

    def assign_base(self, value):
        self.__dict__[key] = value

    doc = (
        f"The {name} the layer computes with: the base `{name}` variable, plus "
        f"`(lora_alpha / lora_rank) * (lora_{name}_a @ lora_{name}_b)` once LoRA is enabled."
    )
    return property(get, assign_base, doc=doc)


class _MergedWeight:
    """What a LoRA layer's weights file holds in its base weight's place (as Keras):
    the merged value when saving; loading sets the base and zeroes the LoRA factors."""

    def __init__(self, layer):
        self.layer = layer
        self.base = lora_base(layer)

    @property
    def shape(self):
        return self.base.shape

    @property
    def dtype(self):
        return self.base.dtype

    @property
    def path(self):
        return self.base.path

    @property
    def name(self):
        return self.base.name

    def numpy(self):
        return ops.convert_to_numpy(ops.cast(lora_merged(self.layer), self.base.dtype))

    def assign(self, value):
        self.base.assign(value)
        for factor in lora_factors(self.layer):
            factor.assign(ops.zeros(factor.shape, factor.dtype))


# What a LoRA layer binds or calls ------------------------------------------------------
# A layer that has LoRA sets `_lora_weight` (its base weight's name) and binds
# `enable_lora`, `from_config`, `_own_weights` and `_saved_variables` from here; a
# subclass that sets `_lora_supported = False` refuses LoRA (Keras's transposed and
# depthwise convolutions have none). It calls `init_lora(...)` first thing in its
# `__init__` (before `Layer.__init__`, so a quantized `dtype` is refused with the
# reason), stores its base weight as `_<weight>` (through `lora_weight_property`),
# calls `build_lora()` at the end of `build`, and adds `lora_config()` to its config.
def init_lora(layer, lora_rank=None, lora_alpha=None, quantization_config=None, dtype=None):
    who = type(layer).__name__
    if isinstance(quantization_config, dict) and "class_name" in quantization_config:
        quantization_config = quantizers.deserialize(quantization_config)
    refuse_quantization(
        who, quantization_config, dtype, tuple(getattr(layer, "_quantized_file_order", ()))
    )
    if not layer._lora_supported and (lora_rank is not None or lora_alpha is not None):
        given = (("lora_rank", lora_rank), ("lora_alpha", lora_alpha))
        given = [k for k, v in given if v is not None]
        raise TypeError(
            f"{who} got unexpected keyword argument(s) {given}: LoRA exists only on "
            "Dense, EinsumDense, Embedding and Conv1D/2D/3D (as in Keras)."
        )
    layer.lora_rank = _check_rank(who, "lora_rank", lora_rank)
    alpha = _check_alpha(who, lora_alpha)
    layer.lora_alpha = alpha if alpha is not None else layer.lora_rank
    layer.lora_enabled = False
    layer.quantization_config = quantization_config


def build_lora(layer) -> None:
    if layer.built and layer.lora_rank and not layer.lora_enabled:
        layer.enable_lora(layer.lora_rank, lora_alpha=layer.lora_alpha)


def lora_config(layer) -> dict:
    """`lora_rank`/`lora_alpha` for the config, only when LoRA is set (as Keras)."""
    if not layer.lora_rank:
        return {}
    return {"lora_rank": layer.lora_rank, "lora_alpha": layer.lora_alpha}


def from_config(cls, config, custom_objects=None):
    """Create the layer from `get_config()` output (LoRA arguments included)."""
    config = dict(config)
    lora = {k: config.pop(k) for k in _LORA_CONFIG_KEYS if k in config}
    layer = Layer.from_config.__func__(cls, config, custom_objects=custom_objects)
    init_lora(layer, lora.get("lora_rank"), lora.get("lora_alpha"), lora.get("quantization_config"))
    build_lora(layer)
    return layer


def enable_lora(
    self,
    rank: int,
    lora_alpha=None,
    a_initializer="he_uniform",
    b_initializer="zeros",
) -> None:
    """Freeze the base weight and train a low-rank update to it instead.

    Adds trainable float32 weights `lora_<weight>_a` (shape `W.shape[:-1] +
    (rank,)`) and `lora_<weight>_b` (shape `(rank, W.shape[-1])`); the layer then
    computes with `W + (lora_alpha / rank) * (a @ b)`. Call it once, on a built
    layer without a constraint on its base weight.

    Args:
        rank: the rank of the update (a positive int).
        lora_alpha: scale numerator (default: `rank`, a scale of 1).
        a_initializer: initializer of the `a` factor.
        b_initializer: initializer of the `b` factor (zeros: the layer starts
            unchanged).

    >>> import numpy as np
    >>> from lamina import layers
    >>> layer = layers.Dense(3, name="d")
    >>> layer.build((None, 4))
    >>> layer.enable_lora(2)
    >>> [w.path for w in layer.trainable_weights]
    ['d/bias', 'd/lora_kernel_a', 'd/lora_kernel_b']
    """
    who = f"{type(self).__name__} {self.name!r}"
    weight = self._lora_weight
    if not self._lora_supported:
        raise NotImplementedError(
            f"{who}: LoRA is not available on {type(self).__name__} (as in Keras, it "
            "exists on Dense, EinsumDense, Embedding and Conv1D/2D/3D)."
        )
    if getattr(self, f"{weight}_constraint", None) is not None:
        raise ValueError(
            f"{who}: LoRA cannot be enabled on a layer with a `{weight}_constraint` "
            f"(the constraint would act on the frozen {weight}, not on the trained "
            f"update). Create the layer without `{weight}_constraint`."
        )
    if not self.built:
        raise ValueError(
            f"{who}: cannot enable LoRA on a layer that is not built yet; call it on "
            "data or call `build(input_shape)` first (or pass `lora_rank=` to the "
            "constructor, which enables LoRA when the layer is built)."
        )
    if self.quantization_mode is not None:
        raise ValueError(
            f"{who} is quantized ({self.dtype_policy.name}); lamina enables LoRA on "
            "float layers only. Enable LoRA before quantizing, on the float model."
        )
    if self.lora_enabled:
        raise ValueError(
            f"{who}: LoRA is already enabled (rank {self.lora_rank}); it can be enabled "
            "only once per layer."
        )
    rank = _check_rank(who, "rank", rank, allow_none=False)
    alpha = _check_alpha(who, lora_alpha)
    base = lora_base(self)
    regularizer = getattr(self, f"{weight}_regularizer", None)
    # float32 factors, as Keras: a low-precision update under- or overflows.
    a = self.add_weight(
        shape=tuple(base.shape[:-1]) + (rank,),
        initializer=initializers.get(a_initializer),
        dtype="float32",
        regularizer=regularizer,
        name=f"lora_{weight}_a",
    )
    b = self.add_weight(
        shape=(rank, base.shape[-1]),
        initializer=initializers.get(b_initializer),
        dtype="float32",
        regularizer=regularizer,
        name=f"lora_{weight}_b",
    )
    setattr(self, f"lora_{weight}_a", a)
    setattr(self, f"lora_{weight}_b", b)
    base.trainable = False
    self.lora_enabled = True
    self.lora_rank = rank
    self.lora_alpha = alpha if alpha is not None else rank
    # Models cache their variable lists by structure version; trainability changed.
    bump_structure_version()


def lora_base(layer):
    base = layer.__dict__.get(f"_{layer._lora_weight}")
    if base is None:  # e.g. a separable convolution: two kernels, none called this
        raise AttributeError(
            f"{type(layer).__name__} {layer.name!r} has no `{layer._lora_weight}`."
        )
    return base


def lora_factors(layer) -> tuple:
    weight = layer._lora_weight
    return layer.__dict__[f"lora_{weight}_a"], layer.__dict__[f"lora_{weight}_b"]


def lora_merged(layer):
    base = lora_base(layer)
    if not layer.lora_enabled:
        return base
    a, b = lora_factors(layer)
    delta = ops.multiply(ops.matmul(a, b), layer.lora_alpha / layer.lora_rank)
    return ops.cast(ops.add(base, delta), layer.compute_dtype)


# Weights order and files ---------------------------------------------------------------
def own_weights(self) -> list:
    """The layer's own weights. Keras lists a LoRA layer's frozen base weight where it
    was made (first), not after the trainable ones: `get_weights()` orders agree with
    Keras's."""
    if not self.lora_enabled:
        return Layer._own_weights(self)
    return [x for x in self._tracked() if isinstance(x, backend.Variable)]


def float_values(layer) -> list:
    """A float layer's filed weights: those its class names (`_float_file_order`, as
    Keras's Dense, EinsumDense, Embedding and Conv1D-3D file only their kernel and bias:
    a subclass's own extra variable is the subclass's to save), else all its own."""
    own = layer._own_weights()
    names = getattr(layer, "_float_file_order", None)
    if names is None:
        return own
    known = {id(v) for v in own}
    values = [layer.__dict__.get(f"_{name}", getattr(layer, name, None)) for name in names]
    values = [v for v in values if v is not None]
    return values if all(id(v) in known for v in values) else own


def saved_variables(self) -> list:
    """What a weights file holds for the layer (the saving protocol's hook), in order:
    while quantized, the values in Keras's order for the mode
    (`quantization.quantized_values`); with LoRA, the merged base weight in the base's
    place and no LoRA factors (Keras's layout)."""
    if self.quantization_mode is not None:
        return quantization.quantized_values(self)
    if not self.lora_enabled:
        return float_values(self)
    factors = {id(f) for f in lora_factors(self)}
    base = lora_base(self)
    return [
        _MergedWeight(self) if v is base else v for v in self._own_weights() if id(v) not in factors
    ]
