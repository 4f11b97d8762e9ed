"""Which einsum equations are one matrix product of runs of axes.

`BC,CO->BO` (`B`, `C`, `O` runs of distinct letters) multiplies the inputs' rows (the
axes `B` flattened) by a matrix (the axes `C` by the axes `O`): a Dense layer on a
sequence (`abc,cd->abd`), attention's projections (`abc,cde->abde`, `abcd,cde->abe`).
Both the JAX engine's `einsum` and `EinsumDense` run such equations as a 2-D product.
"""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=256)
def flat_product(left: str, right: str, out: str) -> tuple[int, int] | None:
    """`(len(B), len(C))` when `left,right->out` is `BC,CO->BO` with `B` and `C` not
    empty; None otherwise (a repeated letter, a shared axis kept in the output, axes in
    another order)."""
    if any(len(set(spec)) != len(spec) for spec in (left, right, out)):
        return None
    shared = "".join(c for c in left if c in right)
    if not shared or not left.endswith(shared) or not right.startswith(shared):
        return None
    batch, rest = left[: len(left) - len(shared)], right[len(shared) :]
    if not batch or out != batch + rest:
        return None
    return len(batch), len(shared)
