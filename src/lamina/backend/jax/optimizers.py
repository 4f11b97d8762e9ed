"""Fused optimizer updates on JAX: none. A JAX step is compiled as a whole, so XLA
already fuses the update rules that `lamina.optimizers` writes with ops."""

from __future__ import annotations

# No update has a fused form here.
FUSED = frozenset()


def fused_apply(kind, variables, grads, slots, learning_rate, step, hyper):
    return False
