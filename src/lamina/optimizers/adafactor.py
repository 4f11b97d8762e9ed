"""Adafactor (Shazeer & Stern, 2018): Adam-like steps with factored second moments.

For a matrix the second moment is kept as a row average and a column average (memory
`n + m` instead of `n * m`), its outer product standing in for the full matrix; the last
two axes are factored for higher ranks. Vectors keep a full average.
"""

from __future__ import annotations

from lamina import ops
from lamina.optimizers.base import Optimizer, register


def _rms(x):
    return ops.sqrt(ops.mean(ops.square(x)))


@register
class Adafactor(Optimizer):
    """Adafactor: memory-light adaptive steps, relative to the scale of each weight.

    Each step moves a weight by `max(epsilon_2, rms(w)) * min(lr, 1 / sqrt(t))` times the
    gradient normalized by its (factored) second moment, the normalized update clipped
    to RMS `clip_threshold`. The second-moment decay grows with the step:
    `beta_2 = 1 - t ** beta_2_decay`.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.001).
        beta_2_decay: the exponent of the second-moment decay schedule (default -0.8).
        epsilon_1: added to the squared gradient (default 1e-30).
        epsilon_2: the smallest weight scale used (default 1e-3).
        clip_threshold: the RMS the normalized update is clipped to (default 1.0).
        relative_step: with a float learning rate, use `min(lr, 1 / sqrt(t))` as the
            rate (default True).
        **kwargs: the base `Optimizer` arguments (`weight_decay`, `clipnorm`, ...).

    >>> import lamina
    >>> w = lamina.Variable([[1.0, 2.0], [3.0, 4.0]])
    >>> opt = Adafactor(0.1)
    >>> opt.apply([lamina.ops.ones((2, 2))], [w])
    >>> [v.name for v in opt.variables][2:]  # row and column averages, full estimate
    ['variable', 'variable', 'variable_velocity']
    """

    _hyperparameters = (
        "beta_2_decay",
        "epsilon_1",
        "epsilon_2",
        "clip_threshold",
        "relative_step",
    )

    def __init__(
        self,
        learning_rate=0.001,
        beta_2_decay=-0.8,
        epsilon_1=1e-30,
        epsilon_2=1e-3,
        clip_threshold=1.0,
        relative_step=True,
        name=None,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_2_decay = beta_2_decay
        self.epsilon_1 = epsilon_1
        self.epsilon_2 = epsilon_2
        self.clip_threshold = clip_threshold
        self.relative_step = relative_step

    def build(self, var_list):
        """Row, column and full second-moment estimates for each variable, made in
        Keras's order (vectors get two int32 scalar placeholders for the factors)."""
        if self.built:
            return
        super().build(var_list)
        self._rows, self._columns, self._velocities = [], [], []
        for v in var_list:
            if len(v.shape) < 2:
                row = self.add_variable((), dtype="int32", name=v.name)
                column = self.add_variable((), dtype="int32", name=v.name)
            else:
                row = self.add_variable(v.shape[:-1], dtype=v.dtype, name=v.name)
                column = self.add_variable(v.shape[:-2] + v.shape[-1:], dtype=v.dtype, name=v.name)
            self._rows.append(row)
            self._columns.append(column)
            self._velocities.append(self.add_variable_from_reference(v, "velocity"))

    def update_step(self, gradient, variable, learning_rate):
        """One Adafactor step of `variable`."""
        dtype = variable.dtype
        gradient = ops.cast(gradient, dtype)
        index = self._get_variable_index(variable)
        row, column, velocity = self._rows[index], self._columns[index], self._velocities[index]
        step = ops.cast(self._applied_steps() + 1, dtype)
        inverse_sqrt_step = 1.0 / ops.sqrt(step)
        lr = learning_rate
        if self._schedule is None and self.relative_step:
            lr = ops.minimum(lr, inverse_sqrt_step)
        rho = ops.minimum(lr, inverse_sqrt_step)
        alpha = ops.maximum(ops.cast(self.epsilon_2, dtype), _rms(variable.value)) * rho
        squared = ops.square(gradient) + self.epsilon_1
        beta_2 = 1.0 - ops.power(step, self.beta_2_decay)
        if len(variable.shape) >= 2:
            new_row = beta_2 * row.value + (1.0 - beta_2) * ops.mean(squared, axis=-1)
            new_column = beta_2 * column.value + (1.0 - beta_2) * ops.mean(squared, axis=-2)
            self.assign(row, new_row)
            self.assign(column, new_column)
            normalized_row = new_row / ops.mean(new_row, axis=-1, keepdims=True)
            estimate = ops.expand_dims(normalized_row, -1) * ops.expand_dims(new_column, -2)
        else:
            estimate = beta_2 * velocity.value + (1.0 - beta_2) * squared
        self.assign(velocity, estimate)
        update = gradient / ops.sqrt(estimate)
        update = update / ops.maximum(1.0, _rms(update) / self.clip_threshold)
        self.assign_sub(variable, alpha * update)
