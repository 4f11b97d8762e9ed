"""InputSpec: what a layer accepts, checked on every call with a message for people."""

from __future__ import annotations

from lamina.backend.common.variables import standardize_dtype


def shapes_differ(got, expected) -> bool:
    """True when two shapes disagree in rank or in a dimension both know (None agrees
    with anything).

    >>> shapes_differ((None, 3), (2, 3)), shapes_differ((2, 4), (2, 3))
    (False, True)
    """
    got, expected = tuple(got), tuple(expected)
    return len(got) != len(expected) or any(
        a is not None and b is not None and a != b for a, b in zip(got, expected, strict=True)
    )


class InputSpec:
    """Constraints on a layer input: rank, known dims, dtype.

    Args:
        dtype: expected dtype, or None for any.
        shape: expected full shape (`None` entries match anything).
        ndim: exact rank; `min_ndim` / `max_ndim`: rank bounds.
        axes: `{axis: size}` for axes whose size is fixed (negative axes allowed).
        allow_last_axis_squeeze: accept a trailing dim of 1 more or less.
        name: the input's name, used in messages.

    >>> import numpy as np
    >>> from lamina import layers
    >>> class Pair(layers.Layer):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.input_spec = InputSpec(ndim=2, axes={-1: 2})
    ...     def call(self, x):
    ...         return x
    >>> Pair()(np.ones((3, 2))).shape
    (3, 2)
    >>> try:
    ...     Pair()(np.ones((3, 5)))
    ... except ValueError as error:
    ...     print("refused")
    refused
    """

    def __init__(
        self,
        dtype=None,
        shape=None,
        ndim=None,
        max_ndim=None,
        min_ndim=None,
        axes=None,
        allow_last_axis_squeeze=False,
        name=None,
        optional=False,
    ):
        self.dtype = standardize_dtype(dtype) if dtype is not None else None
        self.shape = tuple(shape) if shape is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = {int(k): v for k, v in (axes or {}).items()}
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name
        self.optional = optional

    def __repr__(self) -> str:
        parts = []
        for key in ("dtype", "shape", "ndim", "max_ndim", "min_ndim"):
            value = getattr(self, key)
            if value is not None:
                parts.append(f"{key}={value}")
        if self.axes:
            parts.append(f"axes={self.axes}")
        return f"InputSpec({', '.join(parts)})"

    def get_config(self) -> dict:
        return {
            "dtype": self.dtype,
            "shape": self.shape,
            "ndim": self.ndim,
            "max_ndim": self.max_ndim,
            "min_ndim": self.min_ndim,
            "axes": self.axes,
        }


def check_input_compatibility(specs, inputs: list, layer) -> None:
    """Raise a ValueError naming `layer` if `inputs` break `specs`."""
    if specs is None:
        return
    specs = specs if isinstance(specs, (list, tuple)) else [specs]
    if len(inputs) == 1 and len(specs) == 1 and _same_as_last_pass(layer, specs[0], inputs[0]):
        return
    who = f"{type(layer).__name__} {layer.name!r}"
    if len(inputs) != len(specs) and not all(s.optional for s in specs[len(inputs) :]):
        raise ValueError(f"{who} expects {len(specs)} input(s), but it received {len(inputs)}.")
    for i, (spec, x) in enumerate(zip(specs, inputs, strict=False)):
        if spec is None or x is None:
            continue
        shape = tuple(x.shape)
        where = f" (input {i})" if len(specs) > 1 else ""
        rank = len(shape)
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and rank != spec.ndim:
            raise ValueError(
                f"{who}{where} expected input of rank {spec.ndim} ({spec}), "
                f"received rank {rank}, shape {shape}."
            )
        if spec.max_ndim is not None and rank > spec.max_ndim:
            raise ValueError(
                f"{who}{where} expected input of rank at most {spec.max_ndim}, received "
                f"shape {shape}."
            )
        if spec.min_ndim is not None and rank < spec.min_ndim:
            raise ValueError(
                f"{who}{where} expected input of rank at least {spec.min_ndim}, received "
                f"shape {shape}."
            )
        if spec.dtype is not None and standardize_dtype(x.dtype) != spec.dtype:
            raise ValueError(
                f"{who}{where} expected input of dtype {spec.dtype}, received dtype "
                f"{standardize_dtype(x.dtype)} (shape {shape})."
            )
        for axis, size in spec.axes.items():
            if size is None:
                continue
            if -rank <= axis < rank and shape[axis] is not None and shape[axis] != size:
                desc = "last dimension" if axis == -1 else f"dimension {axis} of size"
                raise ValueError(
                    f"{who}{where} expected input with {desc} {size}, received shape {shape}."
                )
        if spec.shape is not None and not spec.allow_last_axis_squeeze:
            for expected, got in zip(spec.shape, shape, strict=False):
                if expected is not None and got is not None and expected != got:
                    raise ValueError(
                        f"{who}{where} expected input of shape {spec.shape}, received shape "
                        f"{shape}."
                    )
    if len(inputs) == 1 and len(specs) == 1 and specs[0] is not None:
        _note_pass(layer, specs[0], inputs[0])


# The eager engine checks every call: a layer remembers the spec, shape and dtype of its
# last single input that passed, and the same again passes without re-checking.
# Only concrete shapes take part: comparing a traced symbolic size (torch.export) would
# pin it to a constant.
def _same_as_last_pass(layer, spec, x) -> bool:
    last = getattr(layer, "__dict__", {}).get("_last_spec_pass")
    return (
        last is not None
        and last[0] is spec
        and last[2] == getattr(x, "dtype", None)
        and _concrete(x)
        and last[1] == x.shape
    )


def _note_pass(layer, spec, x) -> None:
    if hasattr(layer, "__dict__") and hasattr(x, "dtype") and _concrete(x):
        layer.__dict__["_last_spec_pass"] = (spec, x.shape, x.dtype)


def _concrete(x) -> bool:
    shape = getattr(x, "shape", None)
    return shape is not None and all(type(d) is int for d in shape)
