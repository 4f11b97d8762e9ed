"""MultiOptimizer and OptimizerMap: a different optimizer for different variables.

An `OptimizerMap` maps variable paths to optimizers (exact paths, or regular
expressions matched against the whole path), with a default for the rest; a
`MultiOptimizer` splits each step's gradients among those optimizers. Typical use:
Muon for the matrices of the body and AdamW for embeddings and the head, or a smaller
learning rate for a pretrained backbone.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping

from lamina.common import serialization
from lamina.optimizers.base import Optimizer, register
from lamina.optimizers.loss_scale_optimizer import LossScaleOptimizer


def _check_inner(optimizer, where):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{where} must be an optimizer instance; received {optimizer!r}.")
    if isinstance(optimizer, (LossScaleOptimizer, MultiOptimizer)):
        raise ValueError(
            f"{where} cannot be a {type(optimizer).__name__}; wrap the MultiOptimizer in a "
            "LossScaleOptimizer instead, and do not nest MultiOptimizers."
        )


class OptimizerMap(MutableMapping):
    """Variable path (or a regular expression over whole paths) -> optimizer.

    Calling it with a variable gives that variable's optimizer: the exact path's entry,
    else the one pattern that matches the path fully, else `default_optimizer`.

    Args:
        default_optimizer: the optimizer of the variables no key matches.
        optimizer_map: a dict from paths or patterns to optimizers.

    >>> import lamina
    >>> adam, sgd = lamina.optimizers.Adam(), lamina.optimizers.SGD()
    >>> m = OptimizerMap(adam, {"dense/bias": sgd, ".*embedding.*": sgd})
    >>> m["dense/bias"] is sgd, m["token_embedding/embeddings"] is sgd, m["x"] is adam
    (True, True, True)
    """

    def __init__(self, default_optimizer, optimizer_map=None):
        _check_inner(default_optimizer, "OptimizerMap's default_optimizer")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(
                f"OptimizerMap's optimizer_map must be a dict; received {optimizer_map!r}."
            )
        self._default_optimizer = default_optimizer
        self._optimizer_map = {}
        for key, optimizer in (optimizer_map or {}).items():
            self[key] = optimizer

    @property
    def default_optimizer(self):
        """The optimizer of the variables no key matches."""
        return self._default_optimizer

    def __getitem__(self, key):
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matches = [p for p in self._optimizer_map if re.fullmatch(p, key)]
        if len(matches) > 1:
            raise ValueError(
                f"OptimizerMap: variable {key!r} matches several patterns {matches}; make "
                "the patterns exclusive."
            )
        return self._optimizer_map[matches[0]] if matches else self._default_optimizer

    def __setitem__(self, key, optimizer):
        if not isinstance(key, str):
            raise ValueError(f"OptimizerMap keys are path strings; received {key!r}.")
        if key in self._optimizer_map:
            raise ValueError(
                f"OptimizerMap already maps {key!r} to {self._optimizer_map[key]!r}; each "
                "key may appear once."
            )
        _check_inner(optimizer, f"The optimizer for {key!r}")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key):
        del self._optimizer_map[key]

    def __len__(self):
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable):
        return self[variable.path]

    def get_config(self) -> dict:
        return {
            "default_optimizer": serialization.serialize_keras_object(
                self._default_optimizer, "optimizers"
            ),
            "optimizer_map": {
                key: serialization.serialize_keras_object(opt, "optimizers")
                for key, opt in self._optimizer_map.items()
            },
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        def load(c):
            return serialization.deserialize_keras_object(
                c, "optimizers", custom_objects=custom_objects, printable_module_name="optimizer"
            )

        mapping = {key: load(c) for key, c in (config.get("optimizer_map") or {}).items()}
        return cls(load(config["default_optimizer"]), mapping)


@register
class MultiOptimizer(Optimizer):
    """Apply each variable's own optimizer, chosen by `optimizer_map`.

    Args:
        optimizer_map: an `OptimizerMap`, or any callable from a variable to an
            optimizer (such a callable is not serializable).
        loss_scale_factor: passed on to every inner optimizer.
        name: the optimizer's name.

    `variables` are this optimizer's (`iteration`, `learning_rate`) followed by each
    inner optimizer's, in Keras's order (the map's optimizers, then the default). The
    learning rate belongs to the inner optimizers.

    >>> import lamina
    >>> b, k = lamina.Variable([1.0], name="bias"), lamina.Variable([[1.0]], name="kernel")
    >>> opt = MultiOptimizer(OptimizerMap(lamina.optimizers.SGD(1.0), {"bias": lamina.optimizers.SGD(0.5)}))
    >>> opt.apply([lamina.ops.ones((1,)), lamina.ops.ones((1, 1))], [b, k])
    >>> b.numpy().tolist(), k.numpy().tolist()
    ([0.5], [[0.0]])
    """

    def __init__(self, optimizer_map, loss_scale_factor=None, name=None):
        self._inner_optimizers = []
        super().__init__(learning_rate=0.0, loss_scale_factor=loss_scale_factor, name=name)
        if not callable(optimizer_map):
            raise TypeError(
                "MultiOptimizer needs an OptimizerMap (or a callable from a variable to its "
                f"optimizer); received {optimizer_map!r}."
            )
        self._optimizer_map = optimizer_map
        inner = list(getattr(optimizer_map, "values", lambda: [])())
        default = getattr(optimizer_map, "default_optimizer", None)
        for opt in [*inner, *([default] if default is not None else [])]:
            if all(opt is not known for known in self._inner_optimizers):
                opt.loss_scale_factor = loss_scale_factor
                self._inner_optimizers.append(opt)

    @property
    def optimizers(self) -> list:
        """The inner optimizers, in order."""
        return list(self._inner_optimizers)

    @property
    def loss_scale_factor(self):
        return getattr(self, "_loss_scale_factor", None)

    @loss_scale_factor.setter
    def loss_scale_factor(self, value):
        self._loss_scale_factor = value
        for opt in getattr(self, "_inner_optimizers", []):
            opt.loss_scale_factor = value

    @property
    def learning_rate(self):
        raise AttributeError(
            "A MultiOptimizer has no learning rate of its own; read it on the inner "
            "optimizers (`optimizer.optimizers`)."
        )

    @learning_rate.setter
    def learning_rate(self, value):
        raise AttributeError(
            "A MultiOptimizer has no learning rate of its own; set it on the inner "
            "optimizers (`optimizer.optimizers`)."
        )

    @property
    def variables(self) -> list:
        own = list(self._variables)
        for opt in self._inner_optimizers:
            own.extend(opt.variables)
        return own

    def _index_of(self, optimizer) -> int:
        for i, known in enumerate(self._inner_optimizers):
            if known is optimizer:
                return i
        self._inner_optimizers.append(optimizer)
        optimizer.loss_scale_factor = self.loss_scale_factor
        return len(self._inner_optimizers) - 1

    def build(self, var_list):
        """Build each inner optimizer on the variables mapped to it."""
        if self.built:
            return
        var_list = list(var_list)
        self._owner = {}
        for v in var_list:
            opt = self._optimizer_map(v)
            _check_inner(opt, f"The optimizer of variable {v.path!r}")
            self._owner[id(v)] = self._index_of(opt)
        for i, opt in enumerate(self._inner_optimizers):
            mine = [v for v in var_list if self._owner[id(v)] == i]
            if mine:
                opt.build(mine)
        super().build(var_list)

    def apply(self, grads, trainable_variables=None) -> None:
        """Give each inner optimizer the gradients of its variables; count the step."""
        grads = list(grads)
        if not grads:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    f"MultiOptimizer {self.name!r} is not built: pass `trainable_variables` "
                    "to the first `apply`."
                )
            trainable_variables = self._trainable_variables
        trainable_variables = list(trainable_variables)
        if not self.built:
            self.build(trainable_variables)
        if len(grads) != len(trainable_variables):
            raise ValueError(
                f"MultiOptimizer.apply received {len(grads)} gradients for "
                f"{len(trainable_variables)} variables; pass one gradient per variable."
            )
        groups = [([], []) for _ in self._inner_optimizers]
        for g, v in zip(grads, trainable_variables):
            if id(v) not in self._owner:
                raise ValueError(
                    f"MultiOptimizer {self.name!r} was built for other variables and has no "
                    f"optimizer for {v.path!r}."
                )
            group = groups[self._owner[id(v)]]
            group[0].append(g)
            group[1].append(v)
        for opt, (sub_grads, sub_vars) in zip(self._inner_optimizers, groups):
            if sub_vars and any(g is not None for g in sub_grads):
                opt.apply(sub_grads, sub_vars)
        self._iterations.assign(self._iterations.value + 1)

    def finalize_variable_values(self, var_list) -> None:
        for i, opt in enumerate(self._inner_optimizers):
            mine = [v for v in var_list if self._owner.get(id(v)) == i]
            if mine:
                opt.finalize_variable_values(mine)

    def __deepcopy__(self, memo):
        copied = super().__deepcopy__(memo)
        old = {id(v): i for i, v in enumerate(self._trainable_variables)}
        copied._owner = {
            id(copied._trainable_variables[old[key]]): owner
            for key, owner in getattr(self, "_owner", {}).items()
            if key in old
        }
        return copied

    def get_config(self) -> dict:
        return {
            "optimizer_map": serialization.serialize_keras_object(
                self._optimizer_map, "optimizers"
            ),
            "loss_scale_factor": self.loss_scale_factor,
            "name": self.name,
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["optimizer_map"] = serialization.deserialize_keras_object(
            config["optimizer_map"],
            "optimizers",
            custom_objects=custom_objects,
            printable_module_name="optimizer map",
        )
        return cls(**config)


serialization.register_builtin("optimizers", OptimizerMap)
