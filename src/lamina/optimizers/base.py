"""Optimizer: Keras-style objects that hold state and apply a pure update rule.

An optimizer owns `iterations`, the learning rate (a variable, so it can change between
epochs without recompiling), one set of slot variables per trained variable, and
optional EMA copies. `apply(grads, variables)` is written in stateful style (`assign`), so
the trainer runs it purely inside a stateless scope in the compiled step. The maths of
each algorithm is a pure function in `rules.py`.
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.optimizers import schedules
from lamina.utils import serialization

_BASE_ARGS = (
    "weight_decay",
    "clipnorm",
    "clipvalue",
    "global_clipnorm",
    "use_ema",
    "ema_momentum",
    "ema_overwrite_frequency",
    "loss_scale_factor",
    "gradient_accumulation_steps",
)


class Optimizer:
    """Base class of the optimizers.

    Args:
        learning_rate: a float or a `LearningRateSchedule`.
        weight_decay: decoupled weight decay: each step, `w -= w * weight_decay * lr`.
        clipnorm: clip each gradient to this norm. global_clipnorm: clip all gradients
            together to this global norm. clipvalue: clip each gradient element.
        use_ema: keep an exponential moving average of the weights (momentum
            `ema_momentum`), copied into the model at the end of `fit`, and every
            `ema_overwrite_frequency` steps if set.
        name: the optimizer's name.
    """

    _slots: tuple = ()  # per-variable slot names, in order

    def __init__(
        self,
        learning_rate=0.001,
        weight_decay=None,
        clipnorm=None,
        clipvalue=None,
        global_clipnorm=None,
        use_ema=False,
        ema_momentum=0.99,
        ema_overwrite_frequency=None,
        loss_scale_factor=None,
        gradient_accumulation_steps=None,
        name=None,
        **kwargs,
    ):
        if kwargs:
            raise TypeError(
                f"{type(self).__name__} got unexpected keyword argument(s) {sorted(kwargs)}."
            )
        if clipnorm is not None and global_clipnorm is not None:
            raise ValueError("Pass at most one of `clipnorm` and `global_clipnorm`, not both.")
        for arg, value in (
            ("clipnorm", clipnorm),
            ("clipvalue", clipvalue),
            ("global_clipnorm", global_clipnorm),
        ):
            if value is not None and value <= 0:
                raise ValueError(f"`{arg}` must be positive; received {value}.")
        if not 0 <= ema_momentum <= 1:
            raise ValueError(f"`ema_momentum` must be in [0, 1]; received {ema_momentum}.")
        self.name = name or type(self).__name__.lower()
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.use_ema = use_ema
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.built = False
        self.iterations = backend.Variable(0, dtype="int32", trainable=False, name="iteration")
        if isinstance(learning_rate, schedules.LearningRateSchedule):
            self._schedule = learning_rate
            self._learning_rate = None
        elif callable(learning_rate):
            self._schedule = learning_rate
            self._learning_rate = None
        else:
            self._schedule = None
            self._learning_rate = backend.Variable(
                float(learning_rate), dtype="float32", trainable=False, name="learning_rate"
            )
        self._variables_to_train: list = []
        self._slot_variables: list[list] = []
        self._ema_variables: list = []
        self._exclude_ids: set = set()
        self._exclude_names: list[str] = []

    # Learning rate -------------------------------------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate (evaluated from the schedule at `iterations`)."""
        if self._schedule is not None:
            return self._schedule(self.iterations.value)
        return self._learning_rate.value

    @learning_rate.setter
    def learning_rate(self, value):
        if self._schedule is not None:
            raise TypeError(
                f"{type(self).__name__} uses a learning-rate schedule; its learning rate cannot "
                "be set. Create the optimizer with a float learning rate to set it."
            )
        if isinstance(value, schedules.LearningRateSchedule):
            raise TypeError("Set a schedule when creating the optimizer, not afterwards.")
        self._learning_rate.assign(float(value))

    lr = learning_rate

    # Variables -----------------------------------------------------------------------
    def _slot_initial(self, name, variable):
        return ops.zeros(variable.shape, dtype=variable.dtype)

    def build(self, variables) -> None:
        """Create slot (and EMA) variables for `variables`; idempotent."""
        if self.built:
            return
        self._variables_to_train = list(variables)
        for v in self._variables_to_train:
            slots = []
            for slot in self._slot_names():
                slot_var = backend.Variable(
                    self._slot_initial(slot, v),
                    dtype=v.dtype,
                    trainable=False,
                    name=f"{v.path.replace('/', '_')}_{slot}",
                )
                slots.append(slot_var)
            self._slot_variables.append(slots)
            if self.use_ema:
                self._ema_variables.append(
                    backend.Variable(
                        v.value,
                        dtype=v.dtype,
                        trainable=False,
                        name=f"{v.path.replace('/', '_')}_average",
                    )
                )
        self._build_extra()
        self.built = True

    def _slot_names(self) -> tuple:
        return self._slots

    def _build_extra(self) -> None:
        pass

    def _extra_variables(self) -> list:
        return []

    @property
    def variables(self) -> list:
        """All optimizer state: iterations, learning rate, slots, EMA and extras."""
        out = [self.iterations]
        if self._learning_rate is not None:
            out.append(self._learning_rate)
        for slots in self._slot_variables:
            out.extend(slots)
        out.extend(self._ema_variables)
        out.extend(self._extra_variables())
        return out

    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        """Skip weight decay for these variables, or for variables whose path contains any
        of `var_names`."""
        self._exclude_ids |= {id(v) for v in var_list or []}
        self._exclude_names.extend(var_names or [])

    def _decays(self, variable) -> bool:
        if id(variable) in self._exclude_ids:
            return False
        return not any(name in variable.path for name in self._exclude_names)

    # Applying ------------------------------------------------------------------------
    def _clip(self, grads):
        if self.clipvalue is not None:
            grads = [ops.clip(g, -self.clipvalue, self.clipvalue) for g in grads]
        if self.clipnorm is not None:
            clipped = []
            for g in grads:
                norm = ops.sqrt(ops.sum(ops.square(g)))
                clipped.append(g * ops.minimum(1.0, self.clipnorm / ops.maximum(norm, 1e-12)))
            grads = clipped
        if self.global_clipnorm is not None:
            norm = ops.sqrt(sum(ops.sum(ops.square(g)) for g in grads))
            scale = ops.minimum(1.0, self.global_clipnorm / ops.maximum(norm, 1e-12))
            grads = [g * scale for g in grads]
        return grads

    def apply(self, grads, trainable_variables=None):
        """One update of `trainable_variables` (default: those the optimizer was built
        with) from `grads`; increments `iterations`."""
        if trainable_variables is None:
            if not self.built:
                raise ValueError("Pass trainable_variables the first time apply() is called.")
            trainable_variables = self._variables_to_train
        trainable_variables = list(trainable_variables)
        grads = list(grads)
        if len(grads) != len(trainable_variables):
            raise ValueError(
                f"apply received {len(grads)} gradients for {len(trainable_variables)} variables."
            )
        self.build(trainable_variables)
        index = {id(v): i for i, v in enumerate(self._variables_to_train)}
        missing = [v.path for v in trainable_variables if id(v) not in index]
        if missing:
            raise ValueError(
                f"Optimizer {self.name!r} was built for other variables; it has no state for "
                f"{missing}. Create a new optimizer (or recompile) for a new set of variables."
            )
        pairs = [(g, v) for g, v in zip(grads, trainable_variables, strict=True) if g is not None]
        clipped = self._clip([g for g, _ in pairs])
        lr = ops.cast(self.learning_rate, "float32")
        step = ops.cast(self.iterations.value + 1, "float32")
        if self.weight_decay:
            for _, v in pairs:
                if self._decays(v):
                    v.assign(v.value - v.value * self.weight_decay * lr)
        self._before_update(step)
        for g, (_, v) in zip(clipped, pairs, strict=True):
            slots = self._slot_variables[index[id(v)]]
            new_param, new_slots = self._update(
                v.value, ops.cast(g, v.dtype), tuple(s.value for s in slots), lr, step
            )
            v.assign(new_param)
            for s, value in zip(slots, new_slots, strict=True):
                s.assign(value)
        if self.use_ema:
            self._update_ema(trainable_variables, index)
        self.iterations.assign(self.iterations.value + 1)

    def apply_gradients(self, grads_and_vars):
        """Keras's pair form: `apply_gradients(zip(grads, variables))`."""
        grads_and_vars = list(grads_and_vars)
        self.apply([g for g, _ in grads_and_vars], [v for _, v in grads_and_vars])
        return self.iterations

    def _before_update(self, step) -> None:
        pass

    def _update(self, param, grad, slots, lr, step):  # pragma: no cover - abstract
        raise NotImplementedError

    def _update_ema(self, variables, index):
        first = ops.cast(ops.equal(self.iterations.value, 0), "float32")
        momentum = (1.0 - first) * self.ema_momentum
        for v in variables:
            ema = self._ema_variables[index[id(v)]]
            ema.assign(momentum * ema.value + (1.0 - momentum) * v.value)
        if self.ema_overwrite_frequency:
            overwrite = ops.equal((self.iterations.value + 1) % self.ema_overwrite_frequency, 0)
            for v in variables:
                ema = self._ema_variables[index[id(v)]]
                v.assign(ops.where(overwrite, ema.value, v.value))

    def finalize_variable_values(self, variables) -> None:
        """At the end of training, copy the EMA weights into the model (with `use_ema`)."""
        if not self.use_ema or not self.built:
            return
        index = {id(v): i for i, v in enumerate(self._variables_to_train)}
        for v in variables:
            if id(v) in index:
                v.assign(self._ema_variables[index[id(v)]].value)

    # Config --------------------------------------------------------------------------
    def get_config(self) -> dict:
        if self._schedule is not None:
            lr = schedules.serialize(self._schedule)
        else:
            lr = float(ops.convert_to_numpy(self._learning_rate.value))
        config = {"name": self.name, "learning_rate": lr}
        config.update({arg: getattr(self, arg) for arg in _BASE_ARGS})
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        lr = config.get("learning_rate")
        if isinstance(lr, dict):
            config["learning_rate"] = schedules.deserialize(lr, custom_objects=custom_objects)
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"


def register(cls, *aliases):
    serialization.register_builtin("optimizers", cls)
    for alias in aliases:
        serialization.register_builtin("optimizers", cls, name=alias)
    return cls
