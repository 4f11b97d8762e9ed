"""`rearrange`: einops-style axis rearrangement written from `reshape` and `transpose`.

A pattern such as `"b (h p1) (w p2) c -> b h w (p1 p2 c)"` names each input axis; a
parenthesized group on the left splits an axis into several (all but one of the sizes
given as keyword arguments, the last inferred), a group on the right merges axes into
one. The op reshapes the input to the split axes, transposes them into the output's
order, and reshapes to the merged axes: one reshape, one transpose, one reshape. `...`
stands for the axes the pattern does not name (once per side, kept in place).

The output shape is worked out from the pattern itself (not by evaluating the op on
stand-in sizes), so a symbolic input with an unknown dimension keeps `None` exactly where
the pattern carries that dimension.
"""

from __future__ import annotations

import math
import re

from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.operation import FunctionOperation, any_symbolic
from lamina.ops import numpy as lnp
from lamina.ops.core import convert_to_tensor

_TOKEN = re.compile(r"\.\.\.|\(|\)|[A-Za-z_]\w*|\S")
_ELLIPSIS = "..."


def _parse_side(text: str, pattern: str) -> list[list[str]]:
    """The side's axes as groups: `"b (h w) c"` gives `[["b"], ["h", "w"], ["c"]]`."""
    groups: list[list[str]] = []
    current: list[str] | None = None
    for token in _TOKEN.findall(text):
        if token == "(":
            if current is not None:
                raise ValueError(f"rearrange: nested parentheses in pattern {pattern!r}.")
            current = []
        elif token == ")":
            if current is None:
                raise ValueError(f"rearrange: unbalanced ')' in pattern {pattern!r}.")
            groups.append(current)
            current = None
        elif token == _ELLIPSIS or token.isidentifier():
            if current is not None:
                if token == _ELLIPSIS:
                    raise ValueError(
                        f"rearrange: '...' inside parentheses is not supported (pattern "
                        f"{pattern!r}); name those axes instead."
                    )
                current.append(token)
            else:
                groups.append([token])
        else:
            raise ValueError(
                f"rearrange: unexpected {token!r} in pattern {pattern!r}; axes are names "
                "(letters, digits, _), grouped with parentheses, and '...'."
            )
    if current is not None:
        raise ValueError(f"rearrange: unbalanced '(' in pattern {pattern!r}.")
    names = [a for g in groups for a in g]
    repeated = sorted({a for a in names if names.count(a) > 1})
    if repeated:
        raise ValueError(
            f"rearrange: axis {repeated[0]!r} appears twice on one side of {pattern!r}."
        )
    return groups


def _plan(input_shape: tuple, pattern: str, axes_lengths: dict):
    """(split shape, permutation, output shape) for a tensor of `input_shape`.

    Dimensions may be None (unknown): sizes that depend on them come out None.
    """
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise ValueError(
            f"rearrange: pattern must be a string 'input axes -> output axes', e.g. "
            f"'b h w c -> b c h w'; received {pattern!r}."
        )
    left_text, right_text = pattern.split("->")
    left, right = _parse_side(left_text, pattern), _parse_side(right_text, pattern)
    left_names = [a for g in left for a in g]
    right_names = [a for g in right for a in g]
    if set(left_names) != set(right_names):
        only_left = sorted(set(left_names) - set(right_names))
        only_right = sorted(set(right_names) - set(left_names))
        raise ValueError(
            f"rearrange: both sides of {pattern!r} must name the same axes; only on the left: "
            f"{only_left}, only on the right: {only_right}."
        )
    unknown = sorted(set(axes_lengths) - set(left_names))
    if unknown:
        raise ValueError(
            f"rearrange: axes_lengths names {unknown}, which the pattern {pattern!r} does not use."
        )

    # Expand the ellipsis into the axes it stands for.
    rank = len(input_shape)
    if _ELLIPSIS in left_names:
        extra = rank - (len(left) - 1)
        if extra < 0:
            raise ValueError(
                f"rearrange: pattern {pattern!r} names {len(left) - 1} axes besides '...', but "
                f"the input has only {rank} (shape {tuple(input_shape)})."
            )
        hidden = [f"...{i}" for i in range(extra)]

        def expand(groups):
            out = []
            for group in groups:
                if group == [_ELLIPSIS]:
                    out.extend([h] for h in hidden)
                else:
                    out.append(group)
            return out

        left, right = expand(left), expand(right)
    if len(left) != rank:
        raise ValueError(
            f"rearrange: pattern {pattern!r} names {len(left)} input axes, but the input has "
            f"rank {rank} (shape {tuple(input_shape)})."
        )

    sizes: dict[str, int | None] = {}
    for group, dim in zip(left, input_shape, strict=True):
        if len(group) == 1:
            name = group[0]
            given = axes_lengths.get(name)
            if given is not None and dim is not None and int(given) != dim:
                raise ValueError(
                    f"rearrange: axis {name!r} has size {dim}, but axes_lengths gives "
                    f"{name}={given}."
                )
            sizes[name] = dim
            continue
        missing = [a for a in group if a not in axes_lengths]
        if len(missing) > 1:
            raise ValueError(
                f"rearrange: cannot split an axis into ({' '.join(group)}) knowing "
                f"{sorted(set(group) - set(missing)) or 'none'} of their sizes; give all but "
                f"one as keyword arguments, e.g. {missing[0]}=...."
            )
        known = math.prod(int(axes_lengths[a]) for a in group if a in axes_lengths)
        for a in group:
            if a in axes_lengths:
                sizes[a] = int(axes_lengths[a])
        if missing:
            if dim is None:
                sizes[missing[0]] = None
            elif known == 0 or dim % known:
                raise ValueError(
                    f"rearrange: the axis of size {dim} cannot be split into "
                    f"({' '.join(group)}) with the given sizes (product {known})."
                )
            else:
                sizes[missing[0]] = dim // known
        elif dim is not None and dim != known:
            raise ValueError(
                f"rearrange: the axis of size {dim} does not split into ({' '.join(group)}) "
                f"of product {known}."
            )

    def product(group):
        values = [sizes[a] for a in group]
        return None if any(v is None for v in values) else math.prod(values)

    split_names = [a for g in left for a in g]
    split_shape = tuple(sizes[a] for a in split_names)
    permutation = [split_names.index(a) for g in right for a in g]
    output_shape = tuple(product(g) for g in right)
    return split_shape, permutation, output_shape


def _shape_for_reshape(shape: tuple) -> tuple:
    # One unknown dimension at most can be left to reshape (as -1).
    return tuple(-1 if d is None else d for d in shape)


def _rearrange(tensor, pattern, **axes_lengths):
    if not hasattr(tensor, "shape"):
        tensor = convert_to_tensor(tensor)
    input_shape = tuple(tensor.shape)
    split_shape, permutation, output_shape = _plan(input_shape, pattern, axes_lengths)
    if split_shape != input_shape:
        tensor = lnp.reshape(tensor, _shape_for_reshape(split_shape))
    if permutation != list(range(len(permutation))):
        tensor = lnp.transpose(tensor, permutation)
    if tuple(tensor.shape) != output_shape:
        tensor = lnp.reshape(tensor, _shape_for_reshape(output_shape))
    return tensor


class _Rearrange(FunctionOperation):
    """The graph node of `rearrange`: its output shape comes from the pattern."""

    def compute_output_spec(self, tensor, pattern, **axes_lengths):
        _, _, output_shape = _plan(tuple(tensor.shape), pattern, axes_lengths)
        return KerasTensor(output_shape, tensor.dtype)


def rearrange(tensor, pattern: str, **axes_lengths):
    """Rearrange the axes of `tensor` by an einops-style `pattern` (as `keras.ops.rearrange`).

    Args:
        tensor: the input tensor (or KerasTensor).
        pattern: `"input axes -> output axes"`. Names are axes; `(a b)` on the left
            splits an axis, on the right merges axes; `...` stands for unnamed axes.
        **axes_lengths: sizes of split axes (all but one in each group).

    Returns:
        The rearranged tensor.

    Raises:
        ValueError: a malformed pattern, a rank that does not match it, or sizes that do
            not divide; the message names the axis.

    >>> import numpy as np
    >>> images = np.zeros((2, 6, 4, 3))
    >>> tuple(rearrange(images, "b h w c -> b c h w").shape)
    (2, 3, 6, 4)
    >>> tuple(rearrange(images, "b (h1 h) w c -> (b h1) h w c", h1=2).shape)
    (4, 3, 4, 3)
    >>> tuple(rearrange(images, "b ... c -> c b ...").shape)
    (3, 2, 6, 4)
    """
    if any_symbolic((tensor,), {}):
        return _Rearrange(_rearrange, "rearrange").symbolic_call(tensor, pattern, **axes_lengths)
    return _rearrange(tensor, pattern, **axes_lengths)


__all__ = ["rearrange"]
