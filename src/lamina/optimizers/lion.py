"""Lion: sign-based momentum updates (Chen et al., 2023)."""

from __future__ import annotations

from lamina.optimizers import rules
from lamina.optimizers.base import Optimizer, register


class Lion(Optimizer):
    """Lion: `w -= lr * sign(beta_1 * m + (1 - beta_1) * g)`, then `m` moves by `beta_2`."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, name="lion", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        if not 0 <= beta_1 <= 1:
            raise ValueError(f"Lion beta_1 must be in [0, 1]; received {beta_1}.")
        self.beta_1, self.beta_2 = beta_1, beta_2

    _slots = ("momentum",)

    def _update(self, param, grad, slots, lr, step):
        return rules.lion(param, grad, slots, lr, step, self.beta_1, self.beta_2)

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}


register(Lion, "lion")
