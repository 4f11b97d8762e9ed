"""Control flow on torch: `cond`, `scan`, loops, `vectorized_map`, `switch`, `associative_scan`.

Part of the engine's `core` contract module (which re-exports every name). torch runs
eagerly, so each is a Python loop or branch with `jax.lax` semantics: `scan` stacks the
`ys` along a new leading axis, `while_loop` checks `cond` before the iteration cap, a
`switch` index is clamped to the branches.
"""

from __future__ import annotations

import builtins

import torch

from lamina import tree as nest
from lamina.backend.torch.core import _unwrap, convert_to_tensor, tree_flatten, tree_map


def cond(pred, true_fn, false_fn):
    """`true_fn()` if `pred` else `false_fn()`, traced as one conditional when compiled."""
    pred = _unwrap(pred)
    if isinstance(pred, torch.Tensor):
        # On the meta device `.item()` fails, and abstract evaluation retries on data.
        pred = bool(pred.item())
    return true_fn() if pred else false_fn()


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """`jax.lax.scan` as a Python loop: `ys` stacked along a new leading axis."""
    leaves = tree_flatten(xs)
    if xs is None or not leaves:
        if length is None:
            raise ValueError("scan needs `length` when `xs` is None (nothing to loop over).")
        n = int(length)
    else:
        leaves = [convert_to_tensor(leaf) for leaf in leaves]
        sizes = {int(leaf.shape[0]) for leaf in leaves}
        if len(sizes) != 1:
            raise ValueError(
                f"scan: every leaf of `xs` needs the same leading length; received {sorted(sizes)}."
            )
        n = sizes.pop()
        if length is not None and int(length) != n:
            raise ValueError(f"scan: `length` is {length} but `xs` has leading length {n}.")
    carry, ys = init, []
    tensors = None if xs is None else _tensors(xs)
    indices = range(n - 1, -1, -1) if reverse else range(n)
    for i in indices:
        x = None if tensors is None else tree_map(lambda leaf, i=i: leaf[i], tensors)
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys.reverse()
    if not ys:
        return carry, None
    stacked = nest.map_structure(
        lambda *parts: (
            None if parts[0] is None else torch.stack([convert_to_tensor(p) for p in parts])
        ),
        *ys,
    )
    return carry, stacked


def _tensors(xs):
    return tree_map(convert_to_tensor, xs)


def fori_loop(lower, upper, body_fun, init_val):
    """`val = body_fun(i, val)` for `i` in `range(lower, upper)`, from `init_val`; returns `val`."""
    val = init_val
    for i in range(int(_unwrap(lower)), int(_unwrap(upper))):
        val = body_fun(i, val)
    return val


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """`loop_vars = body(loop_vars)` while `cond(loop_vars)`, at most `maximum_iterations` times."""
    count = 0
    # `cond` first, then the cap (as Keras): `cond` runs once more when the cap stops the
    # loop, which a `cond` with side effects can see.
    while _truth(cond(loop_vars)) and (maximum_iterations is None or count < maximum_iterations):
        loop_vars = body(loop_vars)
        count += 1
    return loop_vars


def _truth(value):
    value = _unwrap(value)
    if isinstance(value, torch.Tensor):
        return bool(value.item())
    return bool(value)


def vectorized_map(function, elements):
    """`jax.vmap(function)(elements)` as a loop over the leading axis, stacked."""
    leaves = tree_flatten(elements)
    n = int(convert_to_tensor(leaves[0]).shape[0])
    tensors = _tensors(elements)
    outputs = [function(tree_map(lambda leaf, i=i: leaf[i], tensors)) for i in range(n)]
    return nest.map_structure(
        lambda *parts: torch.stack([convert_to_tensor(p) for p in parts]), *outputs
    )


def associative_scan(f, elems, reverse=False, axis=0):
    """An inclusive scan in ceil(log2(n)) rounds of `f` (Hillis and Steele's scheme)."""
    leaves = [convert_to_tensor(leaf) for leaf in tree_flatten(elems)]
    n = int(leaves[0].shape[axis])
    if reverse:
        leaves = [leaf.flip(axis) for leaf in leaves]

    def take(parts, start, stop):
        return [p.narrow(axis, start, stop - start) for p in parts]

    def rebuild(parts):
        return nest.pack_sequence_as(elems, parts)

    shift = 1
    while shift < n:
        earlier = rebuild(take(leaves, 0, n - shift))
        later = rebuild(take(leaves, shift, n))
        combined = [convert_to_tensor(c) for c in tree_flatten(f(earlier, later))]
        leaves = [
            torch.cat([p.narrow(axis, 0, shift), c], dim=axis)
            for p, c in zip(leaves, combined, strict=True)
        ]
        shift *= 2
    if reverse:
        leaves = [leaf.flip(axis) for leaf in leaves]
    return rebuild(leaves)


def map(f, xs):
    """`f` applied to each slice of `xs` along its leading axis, results stacked."""
    return vectorized_map(f, xs)


def switch(index, branches, *operands):
    index = int(_unwrap(index)) if not isinstance(index, torch.Tensor) else int(index.item())
    index = builtins.max(0, builtins.min(index, len(branches) - 1))
    return branches[index](*operands)
