"""Lion: sign-based momentum updates (Chen et al., 2023)."""

from __future__ import annotations

from lamina.optimizers import rules
from lamina.optimizers.base import Optimizer, register


@register
class Lion(Optimizer):
    """Lion: `w -= lr * sign(beta_1 * m + (1 - beta_1) * g)`, then
    `m = beta_2 * m + (1 - beta_2) * g`.

    Its updates have unit size per element, so it wants a learning rate 3-10x smaller
    than Adam's.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.001).
        beta_1: interpolation between momentum and gradient for the update, in `(0, 1]`.
        beta_2: decay of the momentum.
        **kwargs: the base `Optimizer` arguments.

    >>> import lamina
    >>> w = lamina.Variable([1.0, 1.0])
    >>> Lion(0.5).apply([lamina.ops.convert_to_tensor([3.0, -0.1])], [w])
    >>> w.numpy().tolist()
    [0.5, 1.5]
    """

    _hyperparameters = ("beta_1", "beta_2")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        if not 0 < beta_1 <= 1:
            raise ValueError(f"Lion `beta_1` must be in (0, 1]; received {beta_1}.")
        self.beta_1, self.beta_2 = beta_1, beta_2

    def _slot_groups(self):
        return (("momentum",),)

    def _update(self, grad, slots, learning_rate, step):
        return rules.lion(grad, slots, learning_rate, step, self.beta_1, self.beta_2)
