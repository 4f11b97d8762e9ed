"""Merging layers: combine a list of inputs into one (Add, Concatenate, Dot, ...)."""

from __future__ import annotations

from lamina import ops
from lamina.common import serialization
from lamina.layers.argument_validation import int_or_ints
from lamina.layers.layer import Layer


def _broadcast_shape(a, b, who):
    a, b = tuple(a), tuple(b)
    if len(a) < len(b):
        a = (1,) * (len(b) - len(a)) + a
    elif len(b) < len(a):
        b = (1,) * (len(a) - len(b)) + b
    out = []
    for x, y in zip(a, b, strict=True):
        if x is None or y is None:
            known = y if x is None else x
            out.append(known if known not in (None, 1) else None)
        elif x == 1 or y == 1 or x == y:
            out.append(max(x, y) if 1 in (x, y) else x)
        else:
            raise ValueError(f"{who} received inputs with incompatible shapes {a} and {b}.")
    return tuple(out)


class _Merge(Layer):
    """Base of the element-wise merges: checks shapes, merges masks."""

    min_inputs = 2

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def _who(self):
        return f"{type(self).__name__} {self.name!r}"

    def _check_list(self, input_shape):
        if (
            not isinstance(input_shape, (list, tuple))
            or not input_shape
            or not isinstance(input_shape[0], (list, tuple))
        ):
            raise ValueError(
                f"{self._who()} must be called on a list of inputs; received a single input "
                f"of shape {input_shape}."
            )
        if len(input_shape) < self.min_inputs:
            raise ValueError(
                f"{self._who()} needs at least {self.min_inputs} inputs; received "
                f"{len(input_shape)}."
            )

    def build(self, input_shape):
        self._check_list(input_shape)
        shape = input_shape[0][1:]
        for other in input_shape[1:]:
            shape = _broadcast_shape(shape, other[1:], self._who())
        self.built = True

    def compute_output_shape(self, input_shape):
        shape = input_shape[0][1:]
        for other in input_shape[1:]:
            shape = _broadcast_shape(shape, other[1:], self._who())
        batch = next((s[0] for s in input_shape if s[0] is not None), None)
        return (batch,) + shape

    def call(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = self._merge(out, x)
        return self._finish(out, len(inputs))

    def _finish(self, out, n):
        return out

    def compute_mask(self, inputs, mask=None):
        # As Keras 3: a step is kept where any input keeps it; an input without a mask
        # makes the output's unknown (None).
        if mask is None or any(m is None for m in mask):
            return None
        out = ops.cast(mask[0], "bool")
        for m in mask[1:]:
            out = ops.logical_or(out, ops.cast(m, "bool"))
        return out


def _feature_mask(mask, x):
    """`mask` as a boolean of `x`'s shape (a per-step mask spread over the features)."""
    if mask is None:
        return None
    mask = ops.cast(mask, "bool")
    if len(mask.shape) < len(x.shape):
        mask = ops.broadcast_to(ops.expand_dims(mask, -1), ops.shape(x))
    return mask


def _skip_masked_call(self, inputs, mask=None):
    """Maximum/Minimum as Keras 3: a masked input's values are left out (the merge
    takes the other inputs' there)."""
    if mask is None or all(m is None for m in mask):
        return _Merge.call(self, inputs)
    out, out_mask = inputs[0], _feature_mask(mask[0], inputs[0])
    for x, m in zip(inputs[1:], mask[1:], strict=True):
        m = _feature_mask(m, x)
        if m is not None:
            x = ops.where(m, x, out)
        if out_mask is not None:
            out = ops.where(out_mask, out, x)
        out_mask = None if m is None or out_mask is None else ops.logical_or(out_mask, m)
        out = self._merge(out, x)
    return out


def _multiply_masked_call(self, inputs, mask=None):
    """Multiply as Keras 3: a masked value counts as 1; where every input has a mask,
    the steps no input keeps are 0."""
    if mask is None or all(m is None for m in mask):
        return _Merge.call(self, inputs)
    all_masked = all(m is not None for m in mask)
    out = out_mask = None
    for x, m in zip(inputs, mask, strict=True):
        m = _feature_mask(m, x)
        if m is not None:
            x = ops.where(m, x, ops.ones_like(x))
            if all_masked:
                out_mask = m if out_mask is None else ops.logical_or(out_mask, m)
        out = x if out is None else ops.multiply(out, x)
    if all_masked:
        out = ops.where(out_mask, out, ops.zeros_like(out))
    return out


def _merge_class(name, merge, doc, finish=None, exactly_two=False, call=None):
    attrs = {"_merge": staticmethod(merge), "__doc__": doc}
    if finish is not None:
        attrs["_finish"] = lambda self, out, n: finish(out, n)
    if call is not None:
        attrs["call"] = call
    if exactly_two:

        def build(self, input_shape):
            self._check_list(input_shape)
            if len(input_shape) != 2:
                raise ValueError(
                    f"{self._who()} needs exactly 2 inputs; received {len(input_shape)}."
                )
            _Merge.build(self, input_shape)

        attrs["build"] = build
    cls = type(name, (_Merge,), attrs)
    cls.__module__ = __name__
    serialization.register_builtin("layers", cls)
    return cls


Add = _merge_class(
    "Add",
    ops.add,
    """Adds a list of inputs element-wise (shapes broadcast).

    >>> import numpy as np
    >>> Add()([np.ones((2, 3)), np.full((2, 3), 2.0)]).tolist()
    [[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]
    """,
)
Subtract = _merge_class(
    "Subtract",
    ops.subtract,
    """Subtracts the second of exactly two inputs from the first.

    >>> import numpy as np
    >>> Subtract()([np.full((1, 2), 5.0), np.ones((1, 2))]).tolist()
    [[4.0, 4.0]]
    """,
    exactly_two=True,
)
Multiply = _merge_class(
    "Multiply",
    ops.multiply,
    """Multiplies a list of inputs element-wise.

    >>> import numpy as np
    >>> Multiply()([np.full((1, 2), 3.0), np.full((1, 2), 2.0)]).tolist()
    [[6.0, 6.0]]
    """,
    call=_multiply_masked_call,
)
Average = _merge_class(
    "Average",
    ops.add,
    """Averages a list of inputs element-wise.

    >>> import numpy as np
    >>> Average()([np.zeros((1, 2)), np.full((1, 2), 4.0)]).tolist()
    [[2.0, 2.0]]
    """,
    finish=lambda out, n: out / n,
)
Maximum = _merge_class(
    "Maximum",
    ops.maximum,
    """Element-wise maximum of a list of inputs.

    >>> import numpy as np
    >>> Maximum()([np.array([[1.0, 5.0]]), np.array([[3.0, 2.0]])]).tolist()
    [[3.0, 5.0]]
    """,
    call=_skip_masked_call,
)
Minimum = _merge_class(
    "Minimum",
    ops.minimum,
    """Element-wise minimum of a list of inputs.

    >>> import numpy as np
    >>> Minimum()([np.array([[1.0, 5.0]]), np.array([[3.0, 2.0]])]).tolist()
    [[1.0, 2.0]]
    """,
    call=_skip_masked_call,
)


class Concatenate(_Merge):
    """Concatenates a list of inputs along `axis` (other dimensions must match).

    >>> import numpy as np
    >>> Concatenate()([np.zeros((2, 3)), np.ones((2, 4))]).shape
    (2, 7)
    """

    def __init__(self, axis: int = -1, **kwargs):
        super().__init__(**kwargs)
        self.axis = int_or_ints(axis, "axis", type(self).__name__)

    def build(self, input_shape):
        self._check_list(input_shape)
        ranks = {len(s) for s in input_shape}
        if len(ranks) != 1:
            raise ValueError(
                f"{self._who()} needs inputs of equal rank; received shapes {list(input_shape)}."
            )
        rank = ranks.pop()
        axis = self.axis % rank
        for i in range(rank):
            if i == axis:
                continue
            sizes = {s[i] for s in input_shape if s[i] is not None}
            if len(sizes) > 1:
                raise ValueError(
                    f"{self._who()} needs inputs whose shapes match except on the concat axis "
                    f"{self.axis}; received shapes {[tuple(s) for s in input_shape]}."
                )
        self.built = True

    def call(self, inputs):
        return ops.concatenate(list(inputs), axis=self.axis)

    def compute_output_shape(self, input_shape):
        rank = len(input_shape[0])
        axis = self.axis % rank
        out = list(input_shape[0])
        sizes = [s[axis] for s in input_shape]
        out[axis] = None if any(d is None for d in sizes) else sum(sizes)
        for i in range(rank):
            if i != axis and out[i] is None:
                out[i] = next((s[i] for s in input_shape if s[i] is not None), None)
        return tuple(out)

    def compute_mask(self, inputs, mask=None):
        if mask is None or all(m is None for m in mask):
            return None
        rank = len(inputs[0].shape)
        masks = []
        for x, m in zip(inputs, mask, strict=True):
            if m is None:
                m = ops.ones_like(x, dtype="bool")
            elif len(m.shape) < rank:
                m = ops.broadcast_to(ops.expand_dims(m, -1), x.shape)
            masks.append(ops.cast(m, "bool"))
        # Keras 3 keeps a step where any of its concatenated features is kept.
        return ops.any(ops.concatenate(masks, axis=self.axis), axis=-1)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class Dot(_Merge):
    """Dot product of two inputs along `axes` (cosine similarity with `normalize=True`).

    >>> import numpy as np
    >>> Dot(axes=1)([np.ones((2, 3)), np.ones((2, 3))]).shape
    (2, 1)
    """

    def __init__(self, axes, normalize: bool = False, **kwargs):
        super().__init__(**kwargs)
        axes = int_or_ints(axes, "axes", "Dot")
        self.axes = tuple(axes) if isinstance(axes, list) else (axes, axes)
        self.normalize = normalize
        self.supports_masking = False

    def _resolved_axes(self, s1, s2):
        return tuple(a % len(s) for a, s in zip(self.axes, (s1, s2), strict=True))

    def build(self, input_shape):
        self._check_list(input_shape)
        if len(input_shape) != 2:
            raise ValueError(f"{self._who()} needs exactly 2 inputs; received {len(input_shape)}.")
        s1, s2 = input_shape
        a1, a2 = self._resolved_axes(s1, s2)
        if s1[a1] is not None and s2[a2] is not None and s1[a1] != s2[a2]:
            raise ValueError(
                f"{self._who()}: dimension {a1} of {tuple(s1)} and dimension {a2} of "
                f"{tuple(s2)} must be equal to take a dot product."
            )
        self.built = True

    def call(self, inputs):
        x1, x2 = inputs
        a1, a2 = self._resolved_axes(x1.shape, x2.shape)
        if self.normalize:
            x1 = x1 / ops.maximum(ops.sqrt(ops.sum(ops.square(x1), axis=a1, keepdims=True)), 1e-12)
            x2 = x2 / ops.maximum(ops.sqrt(ops.sum(ops.square(x2), axis=a2, keepdims=True)), 1e-12)
        # Batched dot: contract a1 with a2 for each sample.
        out = ops.einsum(_dot_equation(len(x1.shape), len(x2.shape), a1, a2), x1, x2)
        if len(out.shape) == 1:
            out = ops.expand_dims(out, 1)
        return out

    def compute_output_shape(self, input_shape):
        s1, s2 = input_shape
        a1, a2 = self._resolved_axes(s1, s2)
        out = [s1[0]] + [d for i, d in enumerate(s1) if i not in (0, a1)]
        out += [d for i, d in enumerate(s2) if i not in (0, a2)]
        return tuple(out) if len(out) > 1 else (s1[0], 1)

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        return {**super().get_config(), "axes": list(self.axes), "normalize": self.normalize}


def _dot_equation(r1, r2, a1, a2):
    letters = "bcdefghijklmnopqrstuvwxyz"
    it = iter(letters[1:])
    left = ["a"] + [next(it) for _ in range(r1 - 1)]
    right = ["a"] + [next(it) for _ in range(r2 - 1)]
    right[a2] = left[a1]
    out = ["a"] + [c for i, c in enumerate(left) if i not in (0, a1)]
    out += [c for i, c in enumerate(right) if i not in (0, a2)]
    return f"{''.join(left)},{''.join(right)}->{''.join(out)}"


for _cls in (Concatenate, Dot):
    serialization.register_builtin("layers", _cls)


def add(inputs, **kwargs):
    """Functional form of `Add`: `add([a, b])` is `Add()([a, b])`.

    >>> from lamina import Input, Model
    >>> a, b = Input((3,)), Input((3,))
    >>> Model([a, b], add([a, b])).output_shape
    (None, 3)
    """
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """Functional form of `Subtract`: `subtract([a, b])` is `a - b`.

    >>> import numpy as np
    >>> subtract([np.full((1, 2), 3.0), np.ones((1, 2))]).tolist()
    [[2.0, 2.0]]
    """
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """Functional form of `Multiply`.

    >>> import numpy as np
    >>> multiply([np.full((1, 2), 3.0), np.full((1, 2), 2.0)]).tolist()
    [[6.0, 6.0]]
    """
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """Functional form of `Average`.

    >>> import numpy as np
    >>> average([np.zeros((1, 2)), np.full((1, 2), 4.0)]).tolist()
    [[2.0, 2.0]]
    """
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    """Functional form of `Maximum`.

    >>> import numpy as np
    >>> maximum([np.array([[1.0, 5.0]]), np.array([[3.0, 2.0]])]).tolist()
    [[3.0, 5.0]]
    """
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    """Functional form of `Minimum`.

    >>> import numpy as np
    >>> minimum([np.array([[1.0, 5.0]]), np.array([[3.0, 2.0]])]).tolist()
    [[1.0, 2.0]]
    """
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """Functional form of `Concatenate`.

    >>> from lamina import Input
    >>> concatenate([Input((3,)), Input((2,))]).shape
    (None, 5)
    """
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes=-1, normalize=False, **kwargs):
    """Functional form of `Dot`.

    >>> import numpy as np
    >>> dot([np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]])], axes=1).tolist()
    [[11.0]]
    """
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
