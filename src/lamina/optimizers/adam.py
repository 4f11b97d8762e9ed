"""The Adam family: Adam, AdamW, Adamax, Nadam."""

from __future__ import annotations

from lamina import backend
from lamina.optimizers import rules
from lamina.optimizers.base import Optimizer, register


@register
class Adam(Optimizer):
    """Adam: adaptive moment estimation (Kingma & Ba, 2015).

    `m` and `v` are running averages of the gradient and its square;
    `w -= lr_t * m / (sqrt(v) + epsilon)` with the bias-corrected step size
    `lr_t = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)`.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.001).
        beta_1: decay of the first-moment average.
        beta_2: decay of the second-moment average.
        epsilon: added to `sqrt(v)` for stability.
        amsgrad: divide by the maximum of past second moments (Reddi et al., 2018).
        **kwargs: the base `Optimizer` arguments (`weight_decay`, `clipnorm`, ...).

    >>> import lamina
    >>> w = lamina.Variable([1.0, 1.0])
    >>> Adam(0.1).apply([lamina.ops.convert_to_tensor([3.0, -0.5])], [w])
    >>> [round(x, 4) for x in w.numpy().tolist()]  # the first step moves each by ~lr
    [0.9, 1.1]
    """

    _hyperparameters = ("beta_1", "beta_2", "epsilon", "amsgrad")

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name=None,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self.amsgrad = bool(amsgrad)

    def _slot_groups(self):
        groups = (("momentum", "velocity"),)
        return groups + (("velocity_hat",),) if self.amsgrad else groups

    def _update(self, grad, slots, learning_rate, step):
        return rules.adam(
            grad, slots, learning_rate, step, self.beta_1, self.beta_2, self.epsilon, self.amsgrad
        )

    def _fused_kind(self):
        # A subclass with its own rule keeps the generic path.
        return "adam" if not self.amsgrad and type(self)._update is Adam._update else None


@register
class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2019).

    Each step first shrinks the weights, `w -= w * weight_decay * lr`, then takes the
    Adam step. Exclude biases and norms with `exclude_from_weight_decay`.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.001).
        weight_decay: the decay rate (default 0.004); required.
        beta_1, beta_2, epsilon, amsgrad: as for `Adam`.
        **kwargs: the base `Optimizer` arguments.

    >>> AdamW().get_config()["weight_decay"]
    0.004
    """

    def __init__(
        self,
        learning_rate=0.001,
        weight_decay=0.004,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name=None,
        **kwargs,
    ):
        if weight_decay is None:
            raise ValueError("AdamW needs a float `weight_decay`; use Adam for no decay.")
        super().__init__(
            learning_rate=learning_rate,
            beta_1=beta_1,
            beta_2=beta_2,
            epsilon=epsilon,
            amsgrad=amsgrad,
            name=name,
            weight_decay=weight_decay,
            **kwargs,
        )


@register
class Adamax(Optimizer):
    """Adamax: Adam with the infinity norm (Kingma & Ba, 2015, section 7).

    `u = max(beta_2 * u, |g|)` replaces the second moment;
    `w -= lr * m / ((1 - beta_1**t) * (u + epsilon))`. Often steadier than Adam with
    embeddings.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.001).
        beta_1: decay of the first-moment average.
        beta_2: decay of the infinity norm.
        epsilon: added to the norm for stability.
        **kwargs: the base `Optimizer` arguments.

    >>> Adamax(0.002).get_config()["learning_rate"]
    0.002
    """

    _hyperparameters = ("beta_1", "beta_2", "epsilon")

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name=None, **kwargs
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def _slot_groups(self):
        return (("momentum", "norm"),)

    def _update(self, grad, slots, learning_rate, step):
        return rules.adamax(
            grad, slots, learning_rate, step, self.beta_1, self.beta_2, self.epsilon
        )


@register
class Nadam(Optimizer):
    """Nadam: Adam with Nesterov momentum (Dozat, 2016), as Keras 3 writes it.

    The momentum follows the schedule `mu_t = beta_1 * (1 - 0.5 * 0.96**t)`; the
    optimizer keeps the running product of `mu_t` in an extra `u_product` variable
    (the last of `variables`).

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable (default 0.001).
        beta_1: decay of the first-moment average.
        beta_2: decay of the second-moment average.
        epsilon: added to `sqrt(v_hat)` for stability.
        schedule_decay: Keras 2's argument: the momentum schedule becomes
            `mu_t = beta_1 * (1 - 0.5 * 0.96**(t * schedule_decay))`, Keras 2's Nadam
            (whose default was 0.004). None (the default): Keras 3's schedule.
        **kwargs: the base `Optimizer` arguments.

    >>> import lamina
    >>> w = lamina.Variable([1.0])
    >>> opt = Nadam(0.1)
    >>> opt.apply([lamina.ops.convert_to_tensor([1.0])], [w])
    >>> [v.name for v in opt.variables]
    ['iteration', 'learning_rate', 'variable_momentum', 'variable_velocity', 'u_product']
    """

    _hyperparameters = ("beta_1", "beta_2", "epsilon")

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        schedule_decay=None,
        name=None,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        if schedule_decay is not None and (
            isinstance(schedule_decay, bool) or not schedule_decay >= 0
        ):
            raise ValueError(
                f"Nadam `schedule_decay` must be a float >= 0 or None; received {schedule_decay!r}."
            )
        self.schedule_decay = None if schedule_decay is None else float(schedule_decay)

    def get_config(self):
        config = super().get_config()
        if self.schedule_decay is not None:  # written only when set: Keras 3 has no such key
            config["schedule_decay"] = self.schedule_decay
        return config

    def _slot_groups(self):
        return (("momentum", "velocity"),)

    def _build_extra(self):
        dtype = self._trainable_variables[0].dtype if self._trainable_variables else None
        self._u_product = backend.Variable(1.0, dtype=dtype, trainable=False, name="u_product")
        return [self._u_product]

    def _before_update(self, step):
        mu_t = rules.nadam_momentum_cache(step, self.beta_1, self.schedule_decay)
        self._u_product.assign(self._u_product.value * mu_t)

    def _update(self, grad, slots, learning_rate, step):
        return rules.nadam(
            grad,
            slots,
            learning_rate,
            step,
            self._u_product.value,
            self.beta_1,
            self.beta_2,
            self.epsilon,
            self.schedule_decay,
        )
