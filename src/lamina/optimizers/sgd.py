"""Stochastic gradient descent, with momentum and Nesterov momentum."""

from __future__ import annotations

from lamina.optimizers import rules
from lamina.optimizers.base import Optimizer, register


@register
class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum.

    Without momentum `w -= lr * g`. With momentum `m = momentum * m - lr * g` and
    `w += m` (Nesterov: `w += momentum * m - lr * g`); `m` is the `momentum` slot.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.01).
        momentum: a float in `[0, 1]`; `0` is plain gradient descent.
        nesterov: use Nesterov momentum.
        **kwargs: the base `Optimizer` arguments (`weight_decay`, `clipnorm`, ...).

    >>> import lamina
    >>> w = lamina.Variable([1.0])
    >>> SGD(0.1).apply([lamina.ops.convert_to_tensor([2.0])], [w])
    >>> [round(float(x), 4) for x in w.numpy()]
    [0.8]
    """

    _hyperparameters = ("momentum", "nesterov")

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        if not 0 <= momentum <= 1:
            raise ValueError(f"SGD `momentum` must be a float in [0, 1]; received {momentum}.")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)

    def _slot_groups(self):
        return (("momentum",),) if self.momentum != 0 else ()

    def _update(self, grad, slots, learning_rate, step):
        return rules.sgd(grad, slots, learning_rate, step, self.momentum, self.nesterov)

    def _fused_kind(self):
        # A subclass with its own rule keeps the generic path.
        return "sgd" if type(self)._update is SGD._update else None
