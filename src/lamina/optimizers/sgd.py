"""Stochastic gradient descent, with momentum and Nesterov momentum."""

from __future__ import annotations

from lamina.optimizers import rules
from lamina.optimizers.base import Optimizer, register


class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum.

    Args:
        learning_rate: float or schedule (default 0.01).
        momentum: float >= 0; `0` is plain gradient descent.
        nesterov: use Nesterov momentum.

    >>> import lamina
    >>> w = lamina.Variable([1.0])
    >>> SGD(0.1).apply([lamina.ops.convert_to_tensor([2.0])], [w])
    >>> [round(float(v), 4) for v in w.numpy()]
    [0.8]
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        if not 0 <= momentum:
            raise ValueError(f"`momentum` must be >= 0; received {momentum}.")
        self.momentum = float(momentum)
        self.nesterov = nesterov

    def _slot_names(self):
        return ("momentum",) if self.momentum else ()

    def _update(self, param, grad, slots, lr, step):
        return rules.sgd(param, grad, slots, lr, step, self.momentum, self.nesterov)

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}


register(SGD, "sgd")
