"""The Adam family: Adam, AdamW, Adamax, Nadam."""

from __future__ import annotations

from lamina import backend, ops
from lamina.optimizers import rules
from lamina.optimizers.base import Optimizer, register


class Adam(Optimizer):
    """Adam: adaptive moment estimation (Kingma & Ba, 2015).

    Args:
        learning_rate: float or schedule (default 0.001).
        beta_1, beta_2: decay rates of the first and second moment estimates.
        epsilon: added to the denominator for stability.
        amsgrad: use the maximum of past second moments (Reddi et al., 2018).
    """

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name="adam",
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = beta_1, beta_2, epsilon, amsgrad

    def _slot_names(self):
        return (
            ("momentum", "velocity", "velocity_hat") if self.amsgrad else ("momentum", "velocity")
        )

    def _update(self, param, grad, slots, lr, step):
        return rules.adam(
            param, grad, slots, lr, step, self.beta_1, self.beta_2, self.epsilon, self.amsgrad
        )

    def get_config(self):
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
            "amsgrad": self.amsgrad,
        }


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2019); default decay 0.004."""

    def __init__(
        self,
        learning_rate=0.001,
        weight_decay=0.004,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name="adamw",
        **kwargs,
    ):
        if weight_decay is None:
            raise ValueError("AdamW needs a `weight_decay` value; use Adam for none.")
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


class Adamax(Optimizer):
    """Adamax: Adam with the infinity norm (Kingma & Ba, 2015, section 7)."""

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="adamax", **kwargs
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    _slots = ("m", "u")

    def _update(self, param, grad, slots, lr, step):
        return rules.adamax(param, grad, slots, lr, step, self.beta_1, self.beta_2, self.epsilon)

    def get_config(self):
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
        }


class Nadam(Optimizer):
    """Nadam: Adam with Nesterov momentum (Dozat, 2016)."""

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="nadam", **kwargs
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    _slots = ("momentum", "velocity")

    def _build_extra(self):
        self._u_product = backend.Variable(1.0, dtype="float32", trainable=False, name="u_product")

    def _extra_variables(self):
        return [self._u_product] if self.built else []

    def _before_update(self, step):
        u_t = self.beta_1 * (1.0 - 0.5 * ops.power(0.96, step))
        self._u_product.assign(self._u_product.value * u_t)

    def _update(self, param, grad, slots, lr, step):
        return rules.nadam(
            param,
            grad,
            slots,
            lr,
            step,
            self._u_product.value,
            self.beta_1,
            self.beta_2,
            self.epsilon,
        )

    def get_config(self):
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
        }


register(Adam, "adam")
register(AdamW, "adamw")
register(Adamax, "adamax")
register(Nadam, "nadam")
