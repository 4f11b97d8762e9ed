"""Optimizer: the Keras-style object that holds optimizer state and runs a pure rule.

An optimizer owns `iterations`, the learning rate (a variable, so it can change between
epochs without recompiling; or a schedule evaluated at `iterations`), slot variables for
each trained variable, and optional EMA copies of the weights. `apply` composes the
pieces of `rules.py` in Keras 3's order: clip the gradients, decay the weights, run the
algorithm's rule, add the updates, average the weights, apply constraints, count the
step. It is written in stateful style (`assign`), so the trainer runs it purely inside a
`StatelessScope` in the compiled step, and `stateless_apply` does the same for callers
holding plain arrays.

Variables are created in Keras 3's order (iterations, learning rate, EMA averages, then
slots group by group, then extras such as Nadam's `u_product`), so optimizer state moves
both ways between lamina and Keras `.keras` files. `iterations` is int32: JAX runs
without 64-bit types, and Keras 3 on JAX uses int32 as well.
"""

from __future__ import annotations

import contextlib
import copy
import numbers
import re
import warnings

from lamina import backend, initializers, ops
from lamina.backend.common.global_state import current_distribution, to_snake_case
from lamina.common import serialization
from lamina.optimizers import rules, schedules


class Optimizer:
    """Base class of the optimizers.

    Subclasses give their slot names (`_slot_groups`), the rule (`_update`) and their
    hyperparameter names (`_hyperparameters`, used by `get_config`).

    Keras 3's way works too: override `build(var_list)` (call `super().build(var_list)`
    first, then make state with `add_variable_from_reference` / `add_variable`), and
    `update_step(gradient, variable, learning_rate)`, writing with `self.assign`,
    `assign_add` and `assign_sub`; find a variable's slots with
    `self._get_variable_index(variable)`. Such an `update_step` runs statelessly in the
    compiled step on every engine.

    Args:
        learning_rate: a float, a `LearningRateSchedule` (called with `iterations`) or
            a callable taking no arguments.
        weight_decay: decoupled weight decay: each step, `w -= w * weight_decay * lr`.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient element to `[-clipvalue, clipvalue]`.
        global_clipnorm: clip all gradients together to this global norm. At most one
            of the three clipping arguments may be set.
        use_ema: keep an exponential moving average of the weights, copied into the
            model by `finalize_variable_values` (at the end of `fit`).
        ema_momentum: the EMA momentum, in `[0, 1]`.
        ema_overwrite_frequency: if set, copy the EMA into the weights every this many
            steps.
        loss_scale_factor: the loss is multiplied by this before gradients are taken
            (`scale_loss`) and the gradients divided by it before use, as in Keras.
        name: the optimizer's name.
        lr: Keras 2's name for `learning_rate` (a `DeprecationWarning`).
        decay: Keras 2's time-based decay: step `t` (from 0) uses
            `learning_rate / (1 + decay * t)`, eagerly and in compiled steps alike.
            `learning_rate` (and `lr`) stay the undecayed rate, as in Keras 2.

    >>> import numpy as np, lamina
    >>> weight = lamina.Variable(np.array([1.0, 2.0]))
    >>> optimizer = lamina.optimizers.SGD(learning_rate=0.5)
    >>> optimizer.apply([np.array([1.0, 1.0])], [weight])  # weight -= 0.5 * gradient
    >>> np.asarray(weight.value).tolist()
    [0.5, 1.5]
    """

    _hyperparameters: tuple = ()

    def __init__(
        self,
        learning_rate,
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
        who = type(self).__name__
        if "lr" in kwargs:
            # Keras 2's name for the learning rate; it wins over the default, as there.
            learning_rate = kwargs.pop("lr")
            warnings.warn(
                f"{who}: `lr` is Keras 2's name for `learning_rate`; use `learning_rate=`.",
                DeprecationWarning,
                stacklevel=3,
            )
        # Keras 2's time-based decay, applied as Keras 2 did (Keras 3 ignores it): each
        # step uses `learning_rate / (1 + decay * iterations)`.
        decay = kwargs.pop("decay", None)
        decay = 0.0 if decay is None else decay
        if isinstance(decay, bool) or not isinstance(decay, numbers.Real) or decay < 0:
            raise ValueError(f"{who}: `decay` must be a float >= 0; received {decay!r}.")
        self.decay = float(decay)
        if kwargs:
            raise TypeError(
                f"{who} got unexpected keyword argument(s) {sorted(kwargs)}. Valid base "
                "arguments: learning_rate, weight_decay, clipnorm, clipvalue, "
                "global_clipnorm, use_ema, ema_momentum, ema_overwrite_frequency, "
                "loss_scale_factor, gradient_accumulation_steps, name (and Keras 2's lr "
                "and decay)."
            )
        clips = {"clipnorm": clipnorm, "clipvalue": clipvalue, "global_clipnorm": global_clipnorm}
        given = {k: v for k, v in clips.items() if v is not None}
        if len(given) > 1:
            raise ValueError(
                f"{who}: pass at most one of `clipnorm`, `clipvalue` and `global_clipnorm`; "
                f"received {given}."
            )
        for arg, value in given.items():
            if value <= 0:
                raise ValueError(f"{who}: `{arg}` must be positive; received {value}.")
        if not 0 <= ema_momentum <= 1:
            raise ValueError(f"{who}: `ema_momentum` must be in [0, 1]; received {ema_momentum}.")
        if ema_overwrite_frequency is not None and (
            not isinstance(ema_overwrite_frequency, int) or ema_overwrite_frequency < 1
        ):
            raise ValueError(
                f"{who}: `ema_overwrite_frequency` must be an integer >= 1 or None; received "
                f"{ema_overwrite_frequency!r}."
            )
        if gradient_accumulation_steps is not None and (
            isinstance(gradient_accumulation_steps, bool)
            or not isinstance(gradient_accumulation_steps, int)
            or gradient_accumulation_steps < 2
        ):
            raise ValueError(
                f"{who}: `gradient_accumulation_steps` must be an integer >= 2 (or None); "
                f"received {gradient_accumulation_steps!r}."
            )
        # Keras's default name: the class name in snake case ("adam_w", "rm_sprop").
        self.name = name or to_snake_case(who)
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.use_ema = bool(use_ema)
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps or None
        self.built = False
        self._iterations = backend.Variable(0, dtype="int32", trainable=False, name="iteration")
        self._variables = [self._iterations]
        self._schedule = None
        self._learning_rate = None  # the variable, when the rate is a float
        if isinstance(learning_rate, schedules.LearningRateSchedule) or callable(learning_rate):
            self._schedule = learning_rate
        elif isinstance(learning_rate, numbers.Real) and not isinstance(learning_rate, bool):
            self._learning_rate = backend.Variable(
                float(learning_rate),
                dtype=backend.floatx(),
                trainable=False,
                name="learning_rate",
            )
            self._variables.append(self._learning_rate)
        else:
            raise ValueError(
                f"{who}: `learning_rate` must be a float, a LearningRateSchedule or a "
                f"callable; received {learning_rate!r}."
            )
        self._trainable_variables: list = []
        self._index: dict[int, int] = {}
        self._slots: dict[str, list] = {}
        self._averages: list = []
        self._excluded: list = []  # variables `exclude_from_weight_decay` named
        self._exclude_ids: set = set()
        self._exclude_pattern = None

    # Subclass hooks ------------------------------------------------------------------
    def _slot_groups(self) -> tuple:
        """Slot names as Keras creates them: groups created together (interleaved per
        variable), one group after another. Flattened, the order of the rule's slots."""
        return ()

    def _slot_initial_value(self, slot: str) -> float:
        return 0.0

    def _build_extra(self) -> list:
        """Extra variables created after the slots (returned in order)."""
        return []

    def _before_update(self, step) -> None:
        """Runs once per step, before the per-variable rule (Nadam's momentum cache)."""

    def _update(self, grad, slots, learning_rate, step):  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement `_update`.")

    # State ---------------------------------------------------------------------------
    @property
    def iterations(self):
        """The number of steps applied so far (an int32 variable). With
        `gradient_accumulation_steps`, as in Keras, the number of updates made: the
        calls of `apply` divided by the steps accumulated per update (a tensor)."""
        if self.gradient_accumulation_steps:
            return ops.floor_divide(self._iterations.value, self.gradient_accumulation_steps)
        return self._iterations

    def _applied_steps(self):
        """The number of updates made so far (`iterations`' value): the step counter of
        the update rules (Adam's bias correction) and of EMA. Learning-rate schedules
        read the calls of `apply` (`_iterations`), as Keras's do."""
        if self.gradient_accumulation_steps:
            return self._iterations.value // self.gradient_accumulation_steps
        return self._iterations.value

    @property
    def variables(self) -> list:
        """All optimizer state, in Keras 3's order: iterations, learning rate (when a
        float), EMA averages, slots, extras."""
        return list(self._variables)

    @property
    def learning_rate(self):
        """The current learning rate: the learning-rate variable when the optimizer was
        made with a float (so `learning_rate.assign(0.01)` works, as in Keras), else the
        schedule's value at `iterations` as a float tensor. Settable to a float when the
        optimizer was made with one."""
        if self._learning_rate is not None:
            return self._learning_rate
        if isinstance(self._schedule, schedules.LearningRateSchedule):
            return self._schedule(self._iterations.value)
        return self._schedule()

    @learning_rate.setter
    def learning_rate(self, value):
        if self._learning_rate is None:
            raise TypeError(
                f"{type(self).__name__} {self.name!r} was created with a learning-rate "
                "schedule, so its learning rate cannot be set. Create the optimizer with a "
                "float `learning_rate` to make it settable."
            )
        if isinstance(value, schedules.LearningRateSchedule) or callable(value):
            raise TypeError(
                f"Cannot replace the float learning rate of {type(self).__name__} "
                f"{self.name!r} with the schedule {value!r}; pass the schedule when "
                "creating the optimizer."
            )
        self._learning_rate.assign(ops.cast(value, self._learning_rate.dtype))

    @property
    def lr(self):
        """Keras 2's name for `learning_rate` (`K.set_value(optimizer.lr, 0.01)`)."""
        return self.learning_rate

    @lr.setter
    def lr(self, value):
        self.learning_rate = value

    def _current_learning_rate(self):
        """The rate this step uses: `learning_rate`, divided by `1 + decay * updates`
        when Keras 2's `decay` is set (`updates`: the updates made before this one)."""
        learning_rate = ops.cast(self.learning_rate, "float32")
        if self.decay:
            done = ops.cast(self._applied_steps(), "float32")
            learning_rate = learning_rate / (1.0 + self.decay * done)
        return learning_rate

    def _new_variable(self, reference, suffix, make):
        distribution = current_distribution()
        # Under a distribution a slot is laid out (and made) as the variable it follows.
        with (
            distribution._layout_like(reference)
            if distribution is not None
            else contextlib.nullcontext()
        ):
            variable = backend.Variable(
                make,
                shape=reference.shape,
                dtype=reference.dtype,
                trainable=False,
                name=f"{reference.path.replace('/', '_')}_{suffix}",
            )
        variable._store_like(reference)
        if reference._placement is not None and variable._placement is None:
            # The variable was laid out under a distribution that is no longer in use.
            variable._placement = reference._placement
            variable._value = reference._placement(variable._value)
        self._variables.append(variable)
        return variable

    def build(self, var_list=None, *, variables=None) -> None:
        """Create the EMA, gradient-accumulator and slot variables for `var_list`, in
        Keras 3's order; later calls do nothing. (Keras names the argument `var_list` on
        most optimizers and `variables` on its base class and SGD; both are taken.)"""
        if self.built:
            return
        variables = var_list if var_list is not None else variables
        if variables is None:
            raise TypeError(
                f"{type(self).__name__}.build needs the variables to optimize: "
                "`optimizer.build(model.trainable_variables)`."
            )
        self._trainable_variables = list(variables)
        self._index = {id(v): i for i, v in enumerate(self._trainable_variables)}
        if self.use_ema:
            # A callable initializer runs eagerly and outside any stateless scope, so
            # the average starts at the variable's real value even under tracing. It
            # copies: a buffer shared with the weight could not be donated twice.
            self._averages = [
                self._new_variable(
                    v, "average", lambda shape, dtype, v=v: ops.copy(ops.cast(v.value, dtype))
                )
                for v in self._trainable_variables
            ]
        if self.gradient_accumulation_steps:
            self._accumulators = [
                self._new_variable(
                    v, "gradient_accumulator", lambda shape, dtype: ops.zeros(shape, dtype)
                )
                for v in self._trainable_variables
            ]
        for group in self._slot_groups():
            for name in group:
                self._slots[name] = []
            for v in self._trainable_variables:
                for name in group:
                    fill = self._slot_initial_value(name)
                    make = lambda shape, dtype, fill=fill: ops.full(shape, fill, dtype=dtype)
                    self._slots[name].append(self._new_variable(v, name, make))
        self._variables.extend(self._build_extra())
        self.built = True

    def _slots_for(self, index: int) -> list:
        return [self._slots[name][index] for group in self._slot_groups() for name in group]

    # Keras 3's custom-optimizer API --------------------------------------------------
    def add_variable(
        self, shape, initializer="zeros", dtype=None, aggregation="none", layout=None, name=None
    ):
        """Create an optimizer variable (state saved with the optimizer), as Keras does.

        Args:
            shape: its shape (fully known).
            initializer: an initializer or its name (default `"zeros"`).
            dtype: its dtype (default `floatx()`).
            aggregation: accepted for Keras compatibility; lamina reduces gradients,
                not optimizer state, across replicas.
            layout: accepted for Keras compatibility; the variable is replicated.
            name: its name.

        Returns:
            The new `Variable`, appended to `variables`.
        """
        variable = backend.Variable(
            initializers.get(initializer),
            shape=tuple(shape),
            dtype=dtype or backend.floatx(),
            trainable=False,
            name=name or "variable",
        )
        self._variables.append(variable)
        return variable

    def add_variable_from_reference(self, reference_variable, name=None, initializer="zeros"):
        """Create an optimizer variable shaped and typed like `reference_variable`,
        named `<reference path>_<name>` as Keras names it (e.g. `dense_kernel_momentum`)."""
        return self._new_variable(reference_variable, name or "var", initializers.get(initializer))

    def add_optimizer_variables(self, trainable_variables, name, initializer="zeros"):
        """`add_variable_from_reference` for each of `trainable_variables`.

        With a list of names (and one initializer or one per name) the variables of one
        trainable variable are made together, interleaved, as Keras makes them, and a
        tuple of lists comes back; with one name, one list.
        """
        names = [name] if isinstance(name, str) else list(name)
        inits = initializer
        if isinstance(name, str) or not isinstance(initializer, (list, tuple)):
            inits = [initializer] * len(names)
        if len(inits) != len(names):
            raise ValueError(
                f"add_optimizer_variables received {len(names)} names {names} but "
                f"{len(inits)} initializers; pass one initializer, or one per name."
            )
        made = tuple([] for _ in names)
        for variable in trainable_variables:
            for i, (var_name, init) in enumerate(zip(names, inits)):
                made[i].append(self.add_variable_from_reference(variable, var_name, init))
        return made[0] if isinstance(name, str) else made

    def _get_variable_index(self, variable) -> int:
        """The position of `variable` in the list the optimizer was built for."""
        return self._index[id(variable)]

    def assign(self, variable, value) -> None:
        """`variable.assign(value)` (the Keras hook custom `update_step`s write through)."""
        variable.assign(value)

    def assign_add(self, variable, value) -> None:
        """`variable.assign_add(value)`."""
        variable.assign_add(value)

    def assign_sub(self, variable, value) -> None:
        """`variable.assign_sub(value)`."""
        variable.assign_sub(value)

    def update_step(self, gradient, variable, learning_rate) -> None:
        """Update one `variable` from its `gradient` (Keras 3's hook; override it).

        The built-in optimizers run their pure rule here; `learning_rate` arrives cast
        to the variable's dtype, and the step number is `iterations + 1`.
        """
        slots = self._slots_for(self._get_variable_index(variable))
        step = ops.cast(self._applied_steps() + 1, variable.dtype)
        update, new_slots = self._update(
            gradient, tuple(s.value for s in slots), learning_rate, step
        )
        variable.assign(rules.apply_updates(variable.value, update))
        for slot, value in zip(slots, new_slots, strict=True):
            slot.assign(value)

    def set_weights(self, weights) -> None:
        """Assign `weights` (arrays in the order of `variables`) to the built optimizer."""
        if not self.built:
            raise ValueError(
                f"set_weights() on optimizer {self.name!r} before it is built: call "
                "`optimizer.build(trainable_variables)` first."
            )
        weights = list(weights)
        if len(weights) != len(self._variables):
            raise ValueError(
                f"set_weights() received {len(weights)} arrays; optimizer {self.name!r} has "
                f"{len(self._variables)} variables."
            )
        for variable, weight in zip(self._variables, weights):
            if tuple(variable.shape) != tuple(ops.shape(weight)):
                raise ValueError(
                    f"Optimizer variable {variable.name!r} has shape {tuple(variable.shape)}; "
                    f"set_weights() received shape {tuple(ops.shape(weight))}."
                )
            variable.assign(weight)

    def save_own_variables(self, store) -> None:
        """Write the state into `store` (a dict-like), keyed `"0"`, `"1"`, ... in the
        order of `variables`, as Keras's `.weights.h5` files hold it."""
        for i, variable in enumerate(self.variables):
            store[str(i)] = variable.numpy()

    def load_own_variables(self, store) -> None:
        """Read the state `save_own_variables` wrote. A store with another number of
        variables is skipped with a warning, as Keras does (e.g. an unbuilt optimizer)."""
        variables = self.variables
        if len(store.keys()) != len(variables):
            hint = (
                " Build it first: `optimizer.build(trainable_variables)`." if not self.built else ""
            )
            warnings.warn(
                f"Skipping the state of optimizer {self.name!r}: it has {len(variables)} "
                f"variables and the store holds {len(store.keys())}.{hint}",
                stacklevel=2,
            )
            return
        for i, variable in enumerate(variables):
            variable.assign(store[str(i)])

    # Weight decay --------------------------------------------------------------------
    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        """Skip weight decay for the variables in `var_list` and for those whose name
        contains (as a regular expression) any of `var_names`. Call before `build`."""
        if self.built:
            raise ValueError(
                f"Call `exclude_from_weight_decay()` on optimizer {self.name!r} before it is "
                "built (before the first `apply`, `fit` or `build`)."
            )
        self._excluded = list(var_list or [])
        self._exclude_ids = {id(v) for v in self._excluded}
        names = sorted(set(var_names or []))
        self._exclude_pattern = re.compile("|".join(names)) if names else None

    def __deepcopy__(self, memo):
        # The lookups by `id` must name the copies' variables, not the originals'.
        cls = type(self)
        new = cls.__new__(cls)
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key not in ("_index", "_exclude_ids"):
                new.__dict__[key] = copy.deepcopy(value, memo)
        new._index = {id(v): i for i, v in enumerate(new._trainable_variables)}
        new._exclude_ids = {id(v) for v in new._excluded}
        return new

    def _use_weight_decay(self, variable) -> bool:
        if id(variable) in self._exclude_ids:
            return False
        pattern = self._exclude_pattern
        return pattern is None or pattern.search(variable.name) is None

    # Applying ------------------------------------------------------------------------
    def _clip(self, grads: list) -> list:
        if self.clipnorm:
            return [rules.clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm:
            return rules.clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue:
            return [rules.clip_by_value(g, self.clipvalue) for g in grads]
        return grads

    def scale_loss(self, loss):
        """The loss to differentiate: `loss * loss_scale_factor` when that is set.

        `apply` divides the gradients by the same factor, so a training step that
        scales its loss (as Keras's does) takes the unscaled step.
        """
        if self.loss_scale_factor is not None:
            return loss * self.loss_scale_factor
        return loss

    def apply(self, grads, trainable_variables=None) -> None:
        """Apply one step of `grads` to `trainable_variables` and count it.

        On the first call the optimizer is built for `trainable_variables`; later calls
        may leave them out (the built list is used) or pass any of the built variables.
        `None` gradients skip their variable. Reads and writes go through `Variable`, so
        inside a `StatelessScope` the step is a pure function of the scope's values.
        """
        grads = list(grads)
        if not grads:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    f"{self._who()} is not built: pass `trainable_variables` to the first `apply`, "
                    "or call `optimizer.build(trainable_variables)` first."
                )
            trainable_variables = self._trainable_variables
        trainable_variables = list(trainable_variables)
        if len(grads) != len(trainable_variables):
            raise ValueError(
                f"{self._who()}.apply received {len(grads)} gradients for "
                f"{len(trainable_variables)} variables; pass one gradient per variable."
            )
        if not self.built:
            self.build(trainable_variables)
        unknown = [v.path for v in trainable_variables if id(v) not in self._index]
        if unknown:
            raise ValueError(
                f"{self._who()} was built for other variables and has no state for {unknown}. Use a "
                "new optimizer (or recompile) to train a different set of variables."
            )
        pairs = [(g, v) for g, v in zip(grads, trainable_variables) if g is not None]
        if not pairs:
            raise ValueError(f"{self._who()}.apply received no gradients (all were None).")
        grads = [
            g if backend.is_tensor(g) and g.dtype == v._value.dtype else ops.cast(g, v.dtype)
            for g, v in pairs
        ]
        variables = [v for _, v in pairs]
        distribution = current_distribution()
        if distribution is not None:
            grads = distribution._reduce_gradients(grads)
        if any(getattr(v, "overwrite_with_gradient", False) for v in variables):
            grads, variables = self._overwrite_with_gradients(grads, variables)
        if self.loss_scale_factor is not None:
            grads = [g / self.loss_scale_factor for g in grads]
        if self.gradient_accumulation_steps:
            self._accumulating_update(grads, variables)
        else:
            self._update_variables(grads, variables)
        if self.use_ema:
            self._update_averages()
        for v in variables:
            if getattr(v, "constraint", None) is not None:
                v.assign(v.constraint(v.value))
        self._iterations.assign_add(1)

    def _update_variables(self, grads, variables) -> None:
        """One update of `variables` from `grads`: clipping, weight decay, the rule."""
        grads = self._clip(grads)
        learning_rate = self._current_learning_rate()
        self._apply_weight_decay(variables, learning_rate)
        # The step tensor is made only for who needs it: a per-step hook, or the generic
        # rule (the fused update reads the count as a number itself).
        step = None
        if type(self)._before_update is not Optimizer._before_update:
            step = self._step_tensor()
            self._before_update(step)
        if not self._fused_step(variables, grads, learning_rate, step):
            step = self._step_tensor() if step is None else step
            self._generic_step(variables, grads, learning_rate, step)

    def _accumulating_update(self, grads, variables) -> None:
        """Gradient accumulation, as Keras 3 does it: each call adds `grads` to the
        accumulators; every `gradient_accumulation_steps`-th call updates `variables`
        from the mean of the gradients accumulated since the last update (this call's
        included) and empties the accumulators.

        Eagerly the branch is taken in Python. Traced (a compiled step) both are
        computed and each variable the update touches keeps its old value or takes the
        new one by the step's count, so one program serves every step.
        """
        steps = self.gradient_accumulation_steps
        accumulators = [self._accumulators[self._index[id(v)]] for v in variables]
        due = ops.equal((self._iterations.value + 1) % steps, 0)
        sums = [acc.value + g for acc, g in zip(accumulators, grads)]
        if backend.core.is_concrete(due):
            if bool(backend.convert_to_numpy(due)):
                self._update_variables([total / steps for total in sums], variables)
                for acc in accumulators:
                    acc.assign(ops.zeros_like(acc.value))
            else:
                for acc, total in zip(accumulators, sums):
                    acc.assign(total)
            return
        # Every state an update may write (slots, extras, a custom optimizer's own
        # variables), besides the counter and the accumulators.
        skip = {id(self._iterations), *(id(a) for a in self._accumulators)}
        touched = list(variables) + [v for v in self.variables if id(v) not in skip]
        before = [v.value for v in touched]
        self._update_variables([total / steps for total in sums], variables)
        for v, old in zip(touched, before):
            v.assign(ops.where(due, v.value, old))
        for acc, total in zip(accumulators, sums):
            acc.assign(ops.where(due, ops.zeros_like(total), total))

    def _step_tensor(self):
        """The number of the update being applied, as a float32 tensor."""
        return ops.cast(self._applied_steps() + 1, "float32")

    def _who(self) -> str:
        return f"{type(self).__name__} {self.name!r}"

    @staticmethod
    def _overwrite_with_gradients(grads, variables):
        """Set each `overwrite_with_gradient` variable to its gradient (as Keras does,
        before loss-scale division and clipping) and leave it out of the update."""
        kept_grads, kept_variables = [], []
        for grad, v in zip(grads, variables):
            if getattr(v, "overwrite_with_gradient", False):
                v.assign(grad)
            else:
                kept_grads.append(grad)
                kept_variables.append(v)
        return kept_grads, kept_variables

    def _apply_weight_decay(self, variables, learning_rate) -> None:
        """Decoupled weight decay, `w -= w * weight_decay * lr`, before the rule."""
        if self.weight_decay is None:
            return
        for v in variables:
            if self._use_weight_decay(v):
                lr = ops.cast(learning_rate, v.dtype)
                v.assign(rules.decay_weights(v.value, self.weight_decay, lr))

    def _fused_kind(self) -> str | None:
        """The engine's fused update that computes this optimizer's rule (None: none)."""
        return None

    def _fused_hyperparameters(self) -> dict:
        return {name: getattr(self, name) for name in self._hyperparameters}

    def _fused_step(self, variables, grads, learning_rate, step) -> bool:
        """On a stateful engine, outside any stateless scope: the whole update in place
        with the engine's fused kernels, when it has them for this rule."""
        kind = self._fused_kind()
        if kind not in backend.optimizers.FUSED or backend.in_stateless_scope():
            return False
        slots = [self._slots_for(self._index[id(v)]) for v in variables]
        if step is None:
            step = float(backend.convert_to_numpy(self._applied_steps())) + 1.0
        return backend.optimizers.fused_apply(
            kind, variables, grads, slots, learning_rate, step, self._fused_hyperparameters()
        )

    def _generic_step(self, variables, grads, learning_rate, step) -> None:
        if type(self).update_step is not Optimizer.update_step:
            # Written the Keras way: its own `update_step` per variable.
            for grad, v in zip(grads, variables):
                self.update_step(grad, v, ops.cast(learning_rate, v.dtype))
            return
        for grad, v in zip(grads, variables):
            slots = self._slots_for(self._index[id(v)])
            lr, t = ops.cast(learning_rate, v.dtype), ops.cast(step, v.dtype)
            update, new_slots = self._update(grad, tuple(s.value for s in slots), lr, t)
            v.assign(rules.apply_updates(v.value, update))
            for slot, value in zip(slots, new_slots, strict=True):
                slot.assign(value)

    def apply_gradients(self, grads_and_vars):
        """Keras's pair form, `apply_gradients(zip(grads, variables))`; returns
        `iterations`."""
        grads_and_vars = list(grads_and_vars)
        self.apply([g for g, _ in grads_and_vars], [v for _, v in grads_and_vars])
        return self._iterations

    def stateless_apply(self, optimizer_variables, grads, trainable_variables):
        """Pure `apply` on values: returns `(new_trainable_values, new_optimizer_values)`
        for `trainable_variables` (values for the built variables, in order) and
        `optimizer_variables` (values for `self.variables`, in order)."""
        if not self.built:
            raise ValueError(f"Build optimizer {self.name!r} before `stateless_apply`.")
        # `variables`, not `_variables`: a wrapper (LossScaleOptimizer) adds its inner
        # optimizer's state.
        own = self._trainable_variables + self.variables
        values = list(trainable_variables) + list(optimizer_variables)
        if len(values) != len(own):
            raise ValueError(
                f"stateless_apply expected {len(self._trainable_variables)} trainable and "
                f"{len(self.variables)} optimizer values; received "
                f"{len(trainable_variables)} and {len(optimizer_variables)}."
            )
        with backend.StatelessScope(zip(own, values, strict=True)) as scope:
            self.apply(grads, self._trainable_variables)
            new = [scope.get_current_value(v) for v in own]
        n = len(self._trainable_variables)
        return new[:n], new[n:]

    def _update_averages(self) -> None:
        # The first step starts the average at the weights themselves (Keras).
        first = ops.equal(self._applied_steps(), 0)
        for v, average in zip(self._trainable_variables, self._averages):
            momentum = ops.where(first, 0.0, self.ema_momentum)
            average.assign(rules.moving_average(average.value, v.value, momentum))
        if self.ema_overwrite_frequency:
            now = ops.equal((self._applied_steps() + 1) % self.ema_overwrite_frequency, 0)
            for v, average in zip(self._trainable_variables, self._averages):
                v.assign(ops.where(now, average.value, v.value))

    def finalize_variable_values(self, var_list) -> None:
        """With `use_ema`, copy the averages into `var_list` (the variables the optimizer
        was built for); called at the end of `fit`. Otherwise does nothing."""
        if not self.use_ema or not self.built:
            return
        var_list = list(var_list)
        if len(var_list) != len(self._averages):
            raise ValueError(
                f"finalize_variable_values received {len(var_list)} variables; optimizer "
                f"{self.name!r} averages {len(self._averages)}."
            )
        for v, average in zip(var_list, self._averages):
            v.assign(average.value)

    # Config --------------------------------------------------------------------------
    def get_config(self) -> dict:
        if self._learning_rate is not None:
            # The shortest decimal that reads back as the same float32: 0.001, not
            # 0.0010000000474974513, so configs round-trip exactly and read cleanly.
            learning_rate = float(str(self._learning_rate.numpy()))
        else:
            learning_rate = serialization.serialize_keras_object(self._schedule, "schedules")
        config = {
            "name": self.name,
            "learning_rate": learning_rate,
            "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm,
            "global_clipnorm": self.global_clipnorm,
            "clipvalue": self.clipvalue,
            "use_ema": self.use_ema,
            "ema_momentum": self.ema_momentum,
            "ema_overwrite_frequency": self.ema_overwrite_frequency,
            "loss_scale_factor": self.loss_scale_factor,
            "gradient_accumulation_steps": self.gradient_accumulation_steps,
        }
        config.update({k: getattr(self, k) for k in self._hyperparameters})
        if self.decay:
            config["decay"] = self.decay  # Keras 2's argument, written only when used
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        learning_rate = config.get("learning_rate")
        if isinstance(learning_rate, (dict, str)):
            config["learning_rate"] = schedules.deserialize(
                learning_rate, custom_objects=custom_objects
            )
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def register(cls):
    """Register a built-in optimizer class (by class name) for `get`/deserialization."""
    serialization.register_builtin("optimizers", cls)
    return cls
