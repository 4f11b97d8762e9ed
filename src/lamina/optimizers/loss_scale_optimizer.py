"""LossScaleOptimizer: dynamic loss scaling around another optimizer (mixed precision).

In float16 small gradients underflow to 0. The training step multiplies the loss by a
large scale (`scale_loss`) before differentiating, and this optimizer divides the
gradients by it before its inner optimizer sees them. The scale adapts as Keras's does:
a step with a non-finite gradient is skipped and halves the scale; after
`dynamic_growth_steps` finite steps in a row the scale doubles.
"""

from __future__ import annotations

from lamina import backend, initializers, ops
from lamina.common import serialization
from lamina.optimizers.base import Optimizer, register

# Base arguments Keras once wrote into this optimizer's config; their defaults are
# accepted when reading old configs, any other value belongs on the inner optimizer.
_BASE_DEFAULTS = {
    "weight_decay": None,
    "clipnorm": None,
    "global_clipnorm": None,
    "clipvalue": None,
    "use_ema": False,
    "ema_momentum": 0.99,
    "ema_overwrite_frequency": None,
    "loss_scale_factor": None,
    "gradient_accumulation_steps": None,
}


@register
class LossScaleOptimizer(Optimizer):
    """Wrap `inner_optimizer` with dynamic loss scaling.

    Args:
        inner_optimizer: the optimizer that takes the (unscaled) steps.
        initial_scale: the starting loss scale (default `2 ** 15`); too high costs a
            few skipped steps, too low loses small gradients.
        dynamic_growth_steps: double the scale after this many finite steps in a row
            (default 2000).
        name: the optimizer's name.

    `learning_rate`, `iterations` and `finalize_variable_values` are the inner
    optimizer's; `variables` are this optimizer's (`iteration`, `learning_rate`,
    `step_counter`, `dynamic_scale`) followed by the inner optimizer's, as in Keras.

    >>> import lamina
    >>> opt = LossScaleOptimizer(lamina.optimizers.SGD(0.1), initial_scale=8.0)
    >>> w = lamina.Variable([1.0])
    >>> opt.apply([lamina.ops.convert_to_tensor([float("inf")])], [w])  # skipped
    >>> float(opt.dynamic_scale.numpy()), w.numpy().tolist()
    (4.0, [1.0])
    >>> opt.apply([lamina.ops.convert_to_tensor([4.0])], [w])  # the gradient 4 / 4
    >>> [round(x, 4) for x in w.numpy().tolist()]
    [0.9]
    """

    def __init__(
        self,
        inner_optimizer,
        initial_scale=2.0**15,
        dynamic_growth_steps=2000,
        name=None,
        **kwargs,
    ):
        if not kwargs.pop("dynamic", True):
            raise ValueError(
                "LossScaleOptimizer only scales dynamically (received dynamic=False). For a "
                "fixed scale set `loss_scale_factor` on the inner optimizer instead."
            )
        for arg, default in _BASE_DEFAULTS.items():
            if arg in kwargs and kwargs.pop(arg) != default:
                raise ValueError(
                    f"LossScaleOptimizer does not take `{arg}`; set it on the inner optimizer."
                )
        if kwargs:
            raise ValueError(
                f"LossScaleOptimizer got unexpected argument(s) {sorted(kwargs)}; it takes "
                "inner_optimizer, initial_scale, dynamic_growth_steps and name."
            )
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(
                "LossScaleOptimizer wraps an optimizer instance; received "
                f"{inner_optimizer!r}. Pass e.g. `LossScaleOptimizer(lamina.optimizers.Adam())`."
            )
        super().__init__(learning_rate=0.0, name=name)
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        # The inner optimizer must not unscale a second time.
        self.inner_optimizer.loss_scale_factor = None

    def build(self, var_list):
        """The step counter and the scale, then the inner optimizer's state."""
        if self.built:
            return
        self.step_counter = self.add_variable((), "zeros", dtype="int32", name="step_counter")
        self.dynamic_scale = self.add_variable(
            (), initializers.Constant(self.initial_scale), dtype="float32", name="dynamic_scale"
        )
        self.inner_optimizer.build(var_list)
        super().build(var_list)

    @property
    def variables(self) -> list:
        return list(self._variables) + list(self.inner_optimizer.variables)

    @property
    def learning_rate(self):
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        self.inner_optimizer.learning_rate = value

    @property
    def iterations(self):
        return self.inner_optimizer.iterations

    def scale_loss(self, loss):
        """`loss` times the current scale (the initial scale before the first step)."""
        scale = self.dynamic_scale if self.built else self.initial_scale
        return ops.multiply(loss, ops.cast(scale, ops.dtype(loss)))

    def check_finite(self, grads):
        """A boolean scalar: whether every given gradient is finite."""
        finite = [ops.all(ops.isfinite(g)) for g in grads if g is not None]
        return ops.all(ops.stack(finite)) if finite else ops.convert_to_tensor(True)

    def apply(self, grads, trainable_variables=None) -> None:
        """Unscale `grads` and let the inner optimizer step, unless one is not finite;
        then adapt the scale."""
        grads = list(grads)
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    f"LossScaleOptimizer {self.name!r} is not built: pass "
                    "`trainable_variables` to the first `apply`."
                )
            trainable_variables = self._trainable_variables
        trainable_variables = list(trainable_variables)
        if not self.built:
            self.build(trainable_variables)
        finite = self.check_finite(grads)
        scale = self.dynamic_scale.value
        unscaled = [None if g is None else g / ops.cast(scale, ops.dtype(g)) for g in grads]
        if backend.core.is_concrete(finite) and not backend.in_stateless_scope():
            # Eager (not traced, outside a step's stateless scope): decide on the host,
            # skip the step for real.
            if bool(ops.convert_to_numpy(finite)):
                self.inner_optimizer.apply(unscaled, trainable_variables)
        else:
            # Traced or stateless: run the step, keep its results only where finite.
            touched = list(trainable_variables) + self.inner_optimizer.variables
            before = [v.value for v in touched]
            self.inner_optimizer.apply(unscaled, trainable_variables)
            for v, old in zip(touched, before):
                v.assign(ops.where(finite, v.value, old))
        counter = self.step_counter.value
        grow = ops.logical_and(finite, ops.equal(counter, self.dynamic_growth_steps - 1))
        self.step_counter.assign(ops.where(finite, ops.where(grow, 0, counter + 1), 0))
        new_scale = ops.where(finite, ops.where(grow, scale * 2.0, scale), scale * 0.5)
        self.dynamic_scale.assign(ops.cast(new_scale, "float32"))

    def finalize_variable_values(self, var_list) -> None:
        self.inner_optimizer.finalize_variable_values(var_list)

    def get_config(self) -> dict:
        return {
            "name": self.name,
            "inner_optimizer": serialization.serialize_keras_object(
                self.inner_optimizer, "optimizers"
            ),
            "initial_scale": self.initial_scale,
            "dynamic_growth_steps": self.dynamic_growth_steps,
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        inner = serialization.deserialize_keras_object(
            config.pop("inner_optimizer"),
            "optimizers",
            custom_objects=custom_objects,
            printable_module_name="optimizer",
        )
        return cls(inner, **config)
