"""Schedule-free AdamW (Defazio et al., 2024): no learning-rate schedule needed.

The optimizer keeps a base sequence `z` (the `momentum` slot, starting at the weights)
that takes plain Adam-normalized gradient steps, an average `x` of the `z` iterates
(uniform weights `1 / t`), and trains at the interpolation `y = (1 - beta_1) z +
beta_1 x`, which is what the model's variables hold, as in Keras.
"""

from __future__ import annotations

from lamina import ops
from lamina.optimizers.base import Optimizer, register


@register
class ScheduleFreeAdamW(Optimizer):
    """AdamW without a schedule: iterate averaging replaces the learning-rate decay.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.0025).
        beta_1: the interpolation between the average and the base sequence (default
            0.9).
        beta_2: decay of the second-moment average (default 0.999).
        epsilon: added to the bias-corrected `sqrt(v)` (default 1e-8).
        warmup_steps: ramp the learning rate linearly over this many steps (default 0).
        **kwargs: the base `Optimizer` arguments (`weight_decay`, `clipnorm`, ...).

    >>> import lamina
    >>> w = lamina.Variable([1.0])
    >>> opt = ScheduleFreeAdamW(0.1)
    >>> opt.apply([lamina.ops.convert_to_tensor([2.0])], [w])
    >>> [round(x, 4) for x in w.numpy().tolist()]  # y = 0.1 z + 0.9 x, x = z = 0.9
    [0.9]
    """

    _hyperparameters = ("beta_1", "beta_2", "epsilon", "warmup_steps")

    def __init__(
        self,
        learning_rate=0.0025,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-8,
        warmup_steps=0,
        name=None,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self.warmup_steps = warmup_steps

    def build(self, var_list):
        """The base sequence `z` (starting at each variable's value) and the second
        moment, per variable."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = [], []
        for v in var_list:
            # Runs eagerly when the slot is made: `z` starts at the weights themselves.
            start = lambda shape, dtype, v=v: ops.copy(ops.cast(v.value, dtype))  # noqa: E731
            self._momentums.append(self.add_variable_from_reference(v, "momentum", start))
            self._velocities.append(self.add_variable_from_reference(v, "velocity"))

    def update_step(self, gradient, variable, learning_rate):
        """One schedule-free step of `variable` (holding `y`)."""
        dtype = variable.dtype
        gradient = ops.cast(gradient, dtype)
        index = self._get_variable_index(variable)
        z, v = self._momentums[index], self._velocities[index]
        step = ops.cast(self._applied_steps() + 1, dtype)
        lr = learning_rate
        if self.warmup_steps > 0:
            lr = lr * ops.minimum(step / float(self.warmup_steps), 1.0)
        # Everything read from the old state is computed before any assignment: on a
        # stateful engine `assign` writes in place, so a held `.value` would change.
        z_old = z.value
        x_old = (variable.value - (1.0 - self.beta_1) * z_old) / self.beta_1
        new_v = v.value + (ops.square(gradient) - v.value) * (1.0 - self.beta_2)
        correction = 1.0 - ops.power(ops.cast(self.beta_2, dtype), step)
        new_z = z_old - lr * gradient / (ops.sqrt(new_v / correction) + self.epsilon)
        self.assign(v, new_v)
        self.assign(z, new_z)
        weight = 1.0 / step
        x_new = (1.0 - weight) * x_old + weight * new_z
        self.assign(variable, (1.0 - self.beta_1) * new_z + self.beta_1 * x_new)
