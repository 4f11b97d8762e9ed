"""RMSprop, Adagrad and Adadelta: per-parameter rates from squared-gradient averages."""

from __future__ import annotations

from lamina import ops
from lamina.optimizers import rules
from lamina.optimizers.base import Optimizer, register


class RMSprop(Optimizer):
    """RMSprop: divide the gradient by a running RMS of recent gradients.

    Args:
        rho: discount of the running average. momentum: momentum of the update.
        epsilon: stability term. centered: normalize by the estimated variance.
    """

    def __init__(
        self,
        learning_rate=0.001,
        rho=0.9,
        momentum=0.0,
        epsilon=1e-7,
        centered=False,
        name="rmsprop",
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered

    def _slot_names(self):
        names = ("velocity",)
        if self.centered:
            names += ("average_gradient",)
        if self.momentum > 0:
            names += ("momentum",)
        return names

    def _update(self, param, grad, slots, lr, step):
        return rules.rmsprop(
            param, grad, slots, lr, step, self.rho, self.momentum, self.epsilon, self.centered
        )

    def get_config(self):
        return {
            **super().get_config(),
            "rho": self.rho,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "centered": self.centered,
        }


class Adagrad(Optimizer):
    """Adagrad: rates scaled by the sum of all past squared gradients."""

    def __init__(
        self,
        learning_rate=0.001,
        initial_accumulator_value=0.1,
        epsilon=1e-7,
        name="adagrad",
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    _slots = ("accumulator",)

    def _slot_initial(self, name, variable):
        return ops.full(variable.shape, self.initial_accumulator_value, dtype=variable.dtype)

    def _update(self, param, grad, slots, lr, step):
        return rules.adagrad(param, grad, slots, lr, step, self.epsilon)

    def get_config(self):
        return {
            **super().get_config(),
            "initial_accumulator_value": self.initial_accumulator_value,
            "epsilon": self.epsilon,
        }


class Adadelta(Optimizer):
    """Adadelta: step sizes from running averages of gradients and of updates."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="adadelta", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho, self.epsilon = rho, epsilon

    _slots = ("accumulated_grad", "accumulated_delta_var")

    def _update(self, param, grad, slots, lr, step):
        return rules.adadelta(param, grad, slots, lr, step, self.rho, self.epsilon)

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}


register(RMSprop, "rmsprop")
register(Adagrad, "adagrad")
register(Adadelta, "adadelta")
