"""FTRL-Proximal (McMahan et al., 2013): follow the regularized leader."""

from __future__ import annotations

from lamina import initializers, ops
from lamina.optimizers.base import Optimizer, register


@register
class Ftrl(Optimizer):
    """FTRL-Proximal, for shallow models over wide, sparse features (click prediction).

    Keeps per weight the sum of squared gradients `n` and a linear term `z`; the weight
    is then solved in closed form, exactly 0 where `|z| <= l1`:
    `w = (clip(z, -l1, l1) - z) / (n ** -lr_power / lr + 2 * (l2 + beta / (2 lr)))`.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.001).
        learning_rate_power: how the per-weight rate shrinks with `n`; `<= 0`, 0 for a
            fixed rate (default -0.5).
        initial_accumulator_value: the starting `n`, `>= 0` (default 0.1).
        l1_regularization_strength: L1 strength, `>= 0`: sparsity (default 0).
        l2_regularization_strength: the stabilizing L2 strength, `>= 0` (default 0).
        l2_shrinkage_regularization_strength: an L2 penalty on the weights' magnitude
            added to the gradient, `>= 0` (default 0).
        beta: the `beta` of the paper (default 0).
        **kwargs: the base `Optimizer` arguments.

    >>> Ftrl(l1_regularization_strength=0.01).get_config()["l1_regularization_strength"]
    0.01
    """

    _hyperparameters = (
        "learning_rate_power",
        "initial_accumulator_value",
        "l1_regularization_strength",
        "l2_regularization_strength",
        "l2_shrinkage_regularization_strength",
        "beta",
    )

    def __init__(
        self,
        learning_rate=0.001,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        l2_shrinkage_regularization_strength=0.0,
        beta=0.0,
        name=None,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        checks = {
            "initial_accumulator_value": initial_accumulator_value,
            "l1_regularization_strength": l1_regularization_strength,
            "l2_regularization_strength": l2_regularization_strength,
            "l2_shrinkage_regularization_strength": l2_shrinkage_regularization_strength,
        }
        for arg, value in checks.items():
            if value < 0:
                raise ValueError(f"Ftrl: `{arg}` must be zero or positive; received {value}.")
        if learning_rate_power > 0:
            raise ValueError(
                "Ftrl: `learning_rate_power` must be zero or negative; received "
                f"{learning_rate_power}."
            )
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def build(self, var_list):
        """An accumulator (starting at `initial_accumulator_value`) and a linear term
        per variable."""
        if self.built:
            return
        super().build(var_list)
        start = initializers.Constant(self.initial_accumulator_value)
        self._accumulators, self._linears = self.add_optimizer_variables(
            var_list, ["accumulator", "linear"], initializer=[start, "zeros"]
        )

    def update_step(self, gradient, variable, learning_rate):
        """One FTRL step of `variable`."""
        gradient = ops.cast(gradient, variable.dtype)
        index = self._get_variable_index(variable)
        accumulator, linear = self._accumulators[index], self._linears[index]
        power = -self.learning_rate_power
        l2 = self.l2_regularization_strength + self.beta / (2.0 * learning_rate)
        shrunk = gradient + 2.0 * self.l2_shrinkage_regularization_strength * variable.value
        old = accumulator.value
        new = old + ops.square(gradient)
        sigma = (ops.power(new, power) - ops.power(old, power)) / learning_rate
        new_linear = linear.value + shrunk - sigma * variable.value
        self.assign(linear, new_linear)
        quadratic = ops.power(new, power) / learning_rate + 2.0 * l2
        l1 = self.l1_regularization_strength
        self.assign(variable, (ops.clip(new_linear, -l1, l1) - new_linear) / quadratic)
        self.assign(accumulator, new)
