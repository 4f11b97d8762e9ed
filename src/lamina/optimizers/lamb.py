"""LAMB (You et al., 2020): Adam with a layer-wise trust ratio, for very large batches."""

from __future__ import annotations

from lamina import ops
from lamina.optimizers.base import Optimizer, register


@register
class Lamb(Optimizer):
    """LAMB: the bias-corrected Adam direction, rescaled per variable by
    `||w|| / ||update||` (1 when either norm is 0).

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.001).
        beta_1: decay of the first-moment average (default 0.9).
        beta_2: decay of the second-moment average (default 0.999).
        epsilon: added to the bias-corrected `sqrt(v)` (default 1e-7).
        **kwargs: the base `Optimizer` arguments.

    >>> import lamina
    >>> w = lamina.Variable([3.0, 4.0])
    >>> Lamb(0.1).apply([lamina.ops.convert_to_tensor([1.0, 1.0])], [w])
    >>> [round(x, 4) for x in w.numpy().tolist()]  # moved by 0.1 * ||w|| / ||(1, 1)||
    [2.6464, 3.6464]
    """

    _hyperparameters = ("beta_1", "beta_2", "epsilon")

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name=None, **kwargs
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def build(self, var_list):
        """First and second moments per variable."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"]
        )

    def update_step(self, gradient, variable, learning_rate):
        """One LAMB step of `variable`."""
        dtype = variable.dtype
        gradient = ops.cast(gradient, dtype)
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        step = ops.cast(self._applied_steps() + 1, dtype)
        new_m = m.value + (gradient - m.value) * (1.0 - self.beta_1)
        new_v = v.value + (ops.square(gradient) - v.value) * (1.0 - self.beta_2)
        self.assign(m, new_m)
        self.assign(v, new_v)
        m_hat = new_m / (1.0 - ops.power(ops.cast(self.beta_1, dtype), step))
        v_hat = new_v / (1.0 - ops.power(ops.cast(self.beta_2, dtype), step))
        update = m_hat / (ops.sqrt(v_hat) + self.epsilon)
        w_norm = ops.sqrt(ops.sum(ops.square(variable.value)))
        u_norm = ops.sqrt(ops.sum(ops.square(update)))
        safe = ops.logical_and(w_norm > 0, u_norm > 0)
        ratio = ops.where(safe, w_norm / ops.where(safe, u_norm, 1.0), 1.0)
        self.assign_sub(variable, ratio * learning_rate * update)
