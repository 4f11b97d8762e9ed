"""Learning-rate schedules: functions of the optimizer step, evaluated in the compiled step.

A schedule is called with `optimizer.iterations` (a tensor, possibly traced), so
`__call__` uses `ops` only and no Python branching on the step. The formulas are Keras 3's.
"""

from __future__ import annotations

import math

from lamina import ops
from lamina.common import serialization


def _float(step):
    return ops.cast(step, "float32")


def _check_positive(value, arg, who):
    if not value > 0:
        raise ValueError(f"{who} `{arg}` must be > 0; received {value!r}.")


class LearningRateSchedule:
    """Base class: `schedule(step)` returns the learning rate at optimizer step `step`.

    Subclass it with `__call__(step)` written with `ops`, and `get_config()` returning
    the constructor arguments; register it with `register_keras_serializable` to save it.

    >>> from lamina import ops
    >>> class Halving(LearningRateSchedule):
    ...     def __call__(self, step):
    ...         return 0.5 ** ops.cast(step, "float32")
    ...     def get_config(self):
    ...         return {}
    >>> float(Halving()(3))
    0.125
    """

    def __call__(self, step):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(step).")

    def get_config(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} must implement get_config.")

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


class ExponentialDecay(LearningRateSchedule):
    """`initial * decay_rate ** (step / decay_steps)` (integer division with `staircase`).

    >>> round(float(ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)(10)), 6)
    0.05
    """

    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        decay_rate,
        staircase=False,
        name="ExponentialDecay",
    ):
        _check_positive(decay_steps, "decay_steps", "ExponentialDecay")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step):
        p = _float(step) / self.decay_steps
        if self.staircase:
            p = ops.floor(p)
        return self.initial_learning_rate * ops.power(ops.cast(self.decay_rate, "float32"), p)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class InverseTimeDecay(LearningRateSchedule):
    """`initial / (1 + decay_rate * step / decay_steps)`."""

    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        decay_rate,
        staircase=False,
        name="InverseTimeDecay",
    ):
        _check_positive(decay_steps, "decay_steps", "InverseTimeDecay")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step):
        p = _float(step) / self.decay_steps
        if self.staircase:
            p = ops.floor(p)
        return self.initial_learning_rate / (1.0 + self.decay_rate * p)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[i]` for steps in `(boundaries[i-1], boundaries[i]]`.

    >>> s = PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    >>> [round(float(s(t)), 6) for t in (10, 11, 21)]
    [1.0, 0.5, 0.1]
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(values) != len(boundaries) + 1:
            raise ValueError(
                f"PiecewiseConstantDecay needs one more value than boundaries; received "
                f"{len(boundaries)} boundaries and {len(values)} values."
            )
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step):
        step = _float(step)
        out = ops.convert_to_tensor(self.values[-1], "float32")
        for boundary, value in reversed(list(zip(self.boundaries, self.values[:-1], strict=True))):
            out = ops.where(step <= boundary, value, out)
        return out

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """Polynomial decay from `initial` to `end_learning_rate` over `decay_steps`."""

    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        end_learning_rate=0.0001,
        power=1.0,
        cycle=False,
        name="PolynomialDecay",
    ):
        _check_positive(decay_steps, "decay_steps", "PolynomialDecay")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step):
        step = _float(step)
        if self.cycle:
            multiplier = ops.where(step == 0, 1.0, ops.ceil(step / self.decay_steps))
            decay_steps = self.decay_steps * multiplier
        else:
            decay_steps = self.decay_steps
            step = ops.minimum(step, float(self.decay_steps))
        fraction = 1.0 - step / decay_steps
        return (self.initial_learning_rate - self.end_learning_rate) * ops.power(
            fraction, self.power
        ) + self.end_learning_rate

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


class CosineDecay(LearningRateSchedule):
    """Cosine decay to `alpha * initial` over `decay_steps`, after optional linear warmup
    from `initial_learning_rate` to `warmup_target` over `warmup_steps`."""

    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        alpha=0.0,
        name="CosineDecay",
        warmup_target=None,
        warmup_steps=0,
    ):
        _check_positive(decay_steps, "decay_steps", "CosineDecay")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def __call__(self, step):
        step = _float(step)
        if self.warmup_target is None:
            # As in Keras, `warmup_steps` only counts when there is a warmup target.
            return self._decay(
                ops.minimum(step, float(self.decay_steps)), self.initial_learning_rate
            )
        step = ops.minimum(step, float(self.decay_steps + self.warmup_steps))
        rise = (self.warmup_target - self.initial_learning_rate) / max(self.warmup_steps, 1)
        warm = self.initial_learning_rate + rise * step
        decayed = self._decay(ops.maximum(step - self.warmup_steps, 0.0), self.warmup_target)
        return ops.where(step < self.warmup_steps, warm, decayed)

    def _decay(self, step, peak):
        cosine = 0.5 * (1.0 + ops.cos(math.pi * step / self.decay_steps))
        return peak * ((1.0 - self.alpha) * cosine + self.alpha)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): periods grow by `t_mul`, peaks by `m_mul`."""

    def __init__(
        self,
        initial_learning_rate,
        first_decay_steps,
        t_mul=2.0,
        m_mul=1.0,
        alpha=0.0,
        name="SGDRDecay",
    ):
        _check_positive(first_decay_steps, "first_decay_steps", "CosineDecayRestarts")
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self.t_mul = t_mul
        self.m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def __call__(self, step):
        fraction = _float(step) / self.first_decay_steps
        if self.t_mul == 1.0:
            restarts = ops.floor(fraction)
            fraction = fraction - restarts
        else:
            restarts = ops.floor(
                ops.log(1.0 - fraction * (1.0 - self.t_mul)) / math.log(self.t_mul)
            )
            sum_r = (1.0 - ops.power(self.t_mul, restarts)) / (1.0 - self.t_mul)
            fraction = (fraction - sum_r) / ops.power(self.t_mul, restarts)
        m_fac = ops.power(self.m_mul, restarts)
        cosine = 0.5 * m_fac * (1.0 + ops.cos(math.pi * fraction))
        return self.initial_learning_rate * ((1.0 - self.alpha) * cosine + self.alpha)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps,
            "t_mul": self.t_mul,
            "m_mul": self.m_mul,
            "alpha": self.alpha,
            "name": self.name,
        }


for _cls in (
    ExponentialDecay,
    InverseTimeDecay,
    PiecewiseConstantDecay,
    PolynomialDecay,
    CosineDecay,
    CosineDecayRestarts,
):
    serialization.register_builtin("schedules", _cls)


def serialize(learning_rate_schedule):
    """The Keras 3 config of a learning-rate schedule (`deserialize` reads it back)."""
    return serialization.serialize_keras_object(learning_rate_schedule, "schedules")


def deserialize(config, custom_objects=None):
    return serialization.deserialize_keras_object(
        config,
        "schedules",
        custom_objects=custom_objects,
        printable_module_name="learning rate schedule",
    )
