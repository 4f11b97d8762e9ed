"""Muon (Jordan et al., 2024; Liu et al., 2025): orthogonalized momentum for matrices.

Each 2-D weight moves along its Nesterov momentum made (nearly) orthogonal by a few
Newton-Schulz iterations; every other variable (vectors, embeddings, the layers named
in `exclude_layers`) takes an AdamW step instead.
"""

from __future__ import annotations

import re

from lamina import ops
from lamina.optimizers.base import Optimizer, register


def _swap_last_axes(x):
    order = list(range(len(ops.shape(x))))
    order[-2], order[-1] = order[-1], order[-2]
    return ops.transpose(x, order)


def newton_schulz(x, steps, a=3.4445, b=-4.7750, c=2.0315):
    """An approximate `U V^T` of `x = U S V^T` by `steps` quintic Newton-Schulz iterations.

    Args:
        x: a matrix (or a batch of them, the last two axes).
        steps: the number of iterations.
        a, b, c: the coefficients of the quintic.

    Returns:
        A tensor of `x`'s shape whose singular values are all close to 1.
    """
    x = ops.convert_to_tensor(x)
    shape = ops.shape(x)
    if len(shape) < 2:
        raise ValueError(
            f"Newton-Schulz orthogonalization needs a matrix; received shape {tuple(shape)}."
        )
    tall = shape[-2] > shape[-1]
    if tall:
        x = _swap_last_axes(x)
    x = x / (ops.norm(x, axis=(-2, -1), keepdims=True) + 1e-7)
    for _ in range(steps):
        gram = ops.matmul(x, _swap_last_axes(x))
        x = a * x + ops.matmul(b * gram + c * ops.matmul(gram, gram), x)
    return _swap_last_axes(x) if tall else x


@register
class Muon(Optimizer):
    """Muon: orthogonalized Nesterov momentum for 2-D weights, AdamW for the rest.

    Pass the name of the output layer in `exclude_layers` (e.g. `["output_dense"]`);
    embeddings are excluded by default. With `rms_rate` the Muon step is scaled by
    `rms_rate * sqrt(max(rows, columns))` (Moonlight), so the learning rate and weight
    decay that suit AdamW suit it too.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.001).
        adam_beta_1: AdamW's first-moment decay (default 0.9).
        adam_beta_2: AdamW's second-moment decay (default 0.999).
        adam_weight_decay: the weight decay of the AdamW-updated variables (default
            0.004).
        epsilon: AdamW's epsilon (default 1e-7).
        weight_decay: the weight decay of the Muon-updated variables (default 0.004).
        exclude_layers: regular expressions; variables whose path matches one take
            AdamW steps.
        exclude_embeddings: variables with "embedding" in their path take AdamW steps
            (default True).
        muon_a, muon_b, muon_c: the Newton-Schulz coefficients.
        adam_lr_ratio: AdamW's learning rate as a multiple of `learning_rate`.
        momentum: the Muon momentum (default 0.95).
        ns_steps: Newton-Schulz iterations per step (default 5).
        nesterov: use Nesterov momentum (default True).
        rms_rate: the Moonlight update scale (default 0.2); `None` to turn it off.
        **kwargs: the other base `Optimizer` arguments.

    >>> Muon(exclude_layers=["head"]).get_config()["exclude_layers"]
    ['head']
    """

    _hyperparameters = (
        "adam_beta_1",
        "adam_beta_2",
        "epsilon",
        "exclude_layers",
        "muon_a",
        "muon_b",
        "muon_c",
        "adam_lr_ratio",
        "momentum",
        "ns_steps",
        "nesterov",
        "exclude_embeddings",
        "adam_weight_decay",
        "rms_rate",
    )

    def __init__(
        self,
        learning_rate=0.001,
        adam_beta_1=0.9,
        adam_beta_2=0.999,
        adam_weight_decay=0.004,
        epsilon=1e-7,
        weight_decay=0.004,
        clipnorm=None,
        clipvalue=None,
        global_clipnorm=None,
        use_ema=False,
        ema_momentum=0.99,
        ema_overwrite_frequency=None,
        loss_scale_factor=None,
        gradient_accumulation_steps=None,
        name=None,
        exclude_layers=None,
        exclude_embeddings=True,
        muon_a=3.4445,
        muon_b=-4.7750,
        muon_c=2.0315,
        adam_lr_ratio=1,
        momentum=0.95,
        ns_steps=5,
        nesterov=True,
        rms_rate=0.2,
        **kwargs,
    ):
        super().__init__(
            learning_rate=learning_rate,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            loss_scale_factor=loss_scale_factor,
            gradient_accumulation_steps=gradient_accumulation_steps,
            name=name,
            **kwargs,
        )
        self.adam_beta_1, self.adam_beta_2, self.epsilon = adam_beta_1, adam_beta_2, epsilon
        self.adam_weight_decay = adam_weight_decay
        self.exclude_layers = list(exclude_layers or [])
        self.exclude_embeddings = exclude_embeddings
        self.muon_a, self.muon_b, self.muon_c = muon_a, muon_b, muon_c
        self.adam_lr_ratio = adam_lr_ratio
        self.momentum, self.ns_steps, self.nesterov = momentum, ns_steps, nesterov
        self.rms_rate = rms_rate

    def _should_use_adamw(self, variable) -> bool:
        if len(variable.shape) != 2:
            return True
        if self.exclude_embeddings and "embedding" in variable.path.lower():
            return True
        return any(re.search(pattern, variable.path) for pattern in self.exclude_layers)

    def build(self, var_list):
        """A momentum per variable, and a velocity for those that take AdamW steps."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = [], []
        for v in var_list:
            self._momentums.append(self.add_variable_from_reference(v, "momentum"))
            adamw = self._should_use_adamw(v)
            self._velocities.append(
                self.add_variable_from_reference(v, "velocity") if adamw else None
            )

    def _apply_weight_decay(self, variables, learning_rate):
        for v in variables:
            if not self._use_weight_decay(v):
                continue
            decay = self.adam_weight_decay if self._should_use_adamw(v) else self.weight_decay
            if decay is not None:
                lr = ops.cast(learning_rate, v.dtype)
                v.assign(v.value - v.value * ops.cast(decay, v.dtype) * lr)

    def update_step(self, gradient, variable, learning_rate):
        """A Muon step for 2-D weights, an AdamW step for the others."""
        gradient = ops.cast(gradient, variable.dtype)
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        if v is not None:
            self._adamw_step(gradient, variable, learning_rate * self.adam_lr_ratio, m, v)
            return
        new_m = m.value + gradient + m.value * (self.momentum - 1.0)
        self.assign(m, new_m)
        direction = gradient + self.momentum * new_m if self.nesterov else new_m
        update = learning_rate * newton_schulz(
            direction, self.ns_steps, self.muon_a, self.muon_b, self.muon_c
        )
        if self.rms_rate is not None:
            rows, columns = ops.shape(update)
            update = update * (max(rows, columns) ** 0.5) * self.rms_rate
        self.assign_sub(variable, update)

    def _adamw_step(self, gradient, variable, learning_rate, m, v):
        dtype = variable.dtype
        step = ops.cast(self._applied_steps() + 1, dtype)
        beta_1 = ops.power(ops.cast(self.adam_beta_1, dtype), step)
        beta_2 = ops.power(ops.cast(self.adam_beta_2, dtype), step)
        alpha = learning_rate * ops.sqrt(1.0 - beta_2) / (1.0 - beta_1)
        new_m = m.value + (gradient - m.value) * (1.0 - self.adam_beta_1)
        new_v = v.value + (ops.square(gradient) - v.value) * (1.0 - self.adam_beta_2)
        self.assign(m, new_m)
        self.assign(v, new_v)
        self.assign_sub(variable, new_m * alpha / (ops.sqrt(new_v) + self.epsilon))
