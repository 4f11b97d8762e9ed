"""RMSprop, Adagrad and Adadelta: per-parameter rates from squared-gradient averages."""

from __future__ import annotations

from lamina.optimizers import rules
from lamina.optimizers.base import Optimizer, register


@register
class RMSprop(Optimizer):
    """RMSprop: divide the gradient by a running root mean square of recent gradients.

    `velocity = rho * velocity + (1 - rho) * g**2`; the step is
    `lr * g / sqrt(velocity + epsilon)` (centered: `velocity - average**2 + epsilon`,
    with `average` the running mean gradient), accumulated into a momentum slot when
    `momentum > 0`.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.001).
        rho: discount of the running averages.
        momentum: momentum of the step; `0` for none.
        epsilon: stability term inside the square root.
        centered: normalize by the estimated variance instead of the second moment.
        **kwargs: the base `Optimizer` arguments.

    >>> import lamina
    >>> w = lamina.Variable([1.0])
    >>> RMSprop(0.1).apply([lamina.ops.convert_to_tensor([2.0])], [w])
    >>> round(float(w.numpy()[0]), 4)  # 1 - 0.1 * 2 / sqrt(0.1 * 4)
    0.6838
    """

    _hyperparameters = ("rho", "momentum", "epsilon", "centered")

    def __init__(
        self,
        learning_rate=0.001,
        rho=0.9,
        momentum=0.0,
        epsilon=1e-7,
        centered=False,
        name=None,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered

    def _slot_groups(self):
        groups = [("velocity",)]
        if self.momentum > 0:
            groups.append(("momentum",))
        if self.centered:
            groups.append(("average_gradient",))
        return tuple(groups)

    def _update(self, grad, slots, learning_rate, step):
        return rules.rmsprop(
            grad, slots, learning_rate, step, self.rho, self.momentum, self.epsilon, self.centered
        )


@register
class Adagrad(Optimizer):
    """Adagrad: per-parameter rates scaled by the sum of all past squared gradients.

    `accumulator += g**2`; `w -= lr * g / sqrt(accumulator + epsilon)`. Suits sparse
    features; the rates only shrink.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.001).
        initial_accumulator_value: the starting value of the accumulators.
        epsilon: stability term inside the square root.
        **kwargs: the base `Optimizer` arguments.

    >>> import lamina
    >>> w = lamina.Variable([1.0])
    >>> Adagrad(0.1, initial_accumulator_value=0.0, epsilon=0.0).apply(
    ...     [lamina.ops.convert_to_tensor([2.0])], [w])
    >>> round(float(w.numpy()[0]), 4)
    0.9
    """

    _hyperparameters = ("initial_accumulator_value", "epsilon")

    def __init__(
        self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name=None, **kwargs
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def _slot_groups(self):
        return (("accumulator",),)

    def _slot_initial_value(self, slot):
        return self.initial_accumulator_value

    def _update(self, grad, slots, learning_rate, step):
        return rules.adagrad(grad, slots, learning_rate, step, self.epsilon)


@register
class Adadelta(Optimizer):
    """Adadelta: step sizes from running averages of squared gradients and of squared
    updates, so the unit of the step matches the weights.

    Keras scales the Adadelta step by `learning_rate`; use `learning_rate=1.0` for the
    original algorithm.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.001).
        rho: decay of the running averages.
        epsilon: stability term inside the square roots.
        **kwargs: the base `Optimizer` arguments.

    >>> Adadelta(1.0).get_config()["rho"]
    0.95
    """

    _hyperparameters = ("rho", "epsilon")

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho, self.epsilon = rho, epsilon

    def _slot_groups(self):
        return (("accumulated_grad", "accumulated_delta_var"),)

    def _update(self, grad, slots, learning_rate, step):
        return rules.adadelta(grad, slots, learning_rate, step, self.rho, self.epsilon)
