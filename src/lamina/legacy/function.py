"""The classic `K.function`: a compiled callable from input values to output values.

Classic Keras ran a graph of placeholders, variables and updates with
`K.function(inputs, outputs, updates)`, once per training iteration. Here the graph is
lamina's own (KerasTensors mapped by `lamina.graph.Function`), and each call runs one
compiled program per input signature through the engine's execution module. It lives with
the classic API it belongs to, and joins `lamina.backend` as `K.function` when
`lamina.legacy` registers that API.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np

from lamina import tree
from lamina.backend import core as backend_core
from lamina.backend import execution as backend_execution
from lamina.backend.common.variables import StatelessScope, Variable
from lamina.graph.function import Function
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.operation import CallContext
from lamina.legacy.learning_phase import fixed_learning_phase


def _describe(x) -> str:
    return f"{type(x).__name__} {x!r}"[:200]


def function(inputs, outputs, updates=None, name=None):
    """The classic `K.function`: a callable from input values to output values.

    Args:
        inputs: a KerasTensor or list of KerasTensors (from `Input`).
        outputs: a KerasTensor or list of KerasTensors computed from `inputs`.
        updates: optional list of `(variable, new_value)` pairs, where `new_value` is a
            KerasTensor of the same graph; each call assigns the computed values.
        name: a name for the compiled program (shown by `backend.profile`).

    >>> import numpy as np, lamina
    >>> x = lamina.Input((2,))
    >>> f = lamina.backend.function([x], [x * 2.0])
    >>> f([np.ones((1, 2), "float32")])[0].tolist()
    [[2.0, 2.0]]
    """
    return _BackendFunction(inputs, outputs, updates, name)


class _BackendFunction:
    """The callable returned by `K.function`: one compiled program per input shape.

    The graph runs as a pure function of the values of every variable it reads (layer
    weights, seed states, variables used as constants, update targets), inside a
    `StatelessScope`. The compiled program returns the outputs, the values of the symbolic
    updates and whatever the layers assigned (a seed state, moving statistics); the
    call then writes those back, so the variables move on exactly as in an eager run.
    """

    def __init__(self, inputs, outputs, updates, name):
        self._was_list = isinstance(outputs, (list, tuple))
        outputs = list(outputs) if self._was_list else [outputs]
        self._updates = list(updates or [])
        update_tensors = []
        for pair in self._updates:
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
                raise ValueError(
                    "`updates` must be a list of (variable, new_value) pairs; received "
                    f"{_describe(pair)}."
                )
            if not isinstance(pair[0], Variable):
                raise TypeError(
                    f"Each update must start with a Variable to assign; received "
                    f"{_describe(pair[0])}."
                )
            update_tensors.append(pair[1])
        self._symbolic_updates = [isinstance(v, KerasTensor) for v in update_tensors]
        symbolic = [v for v in update_tensors if isinstance(v, KerasTensor)]
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        # The classic learning phase fed as an input is not data: it picks the program
        # (the `training` flag every layer and `in_train_phase` of the graph sees).
        self._phase_position = None
        for i, x in enumerate(inputs):
            if getattr(getattr(x, "_keras_history", None), "operation", None) is not None and (
                getattr(x._keras_history.operation, "_is_learning_phase", False)
            ):
                self._phase_position = i
        if self._phase_position is not None:
            inputs = inputs[: self._phase_position] + inputs[self._phase_position + 1 :]
        self._num_inputs = len(inputs) + (self._phase_position is not None)
        self._function = Function(inputs, outputs + symbolic, name=name)
        self._num_outputs = len(outputs)
        self._variables = self._collect_variables()
        differentiates = any(
            getattr(op, "_differentiates", False) for op in self._function.operations
        )
        self._program = backend_execution.program(
            self._pure,
            f"backend.function {name or 'function'!r}",
            static_argnums=(2,),
            gradients=differentiates,
        )

    @property
    def trace_count(self) -> int:
        """How many programs were compiled (one per input signature)."""
        return self._program.trace_count

    def _collect_variables(self) -> list:
        found: dict = {}

        def add(v):
            if isinstance(v, Variable):
                found.setdefault(id(v), v)

        for op in self._function.operations:
            for v in getattr(op, "variables", None) or []:
                add(v)
        for node in self._function.nodes:
            for leaf in tree.flatten((node.call_args, node.call_kwargs)):
                add(leaf)
        for variable, _ in self._updates:
            add(variable)
        return list(found.values())

    def _pure(self, values, inputs, training):
        context = CallContext(training=training) if training is not None else nullcontext()
        with StatelessScope(list(zip(self._variables, values, strict=True))) as scope, context:
            results = self._function(inputs, training=training)
        assigned = {
            i: scope.get_update(v)
            for i, v in enumerate(self._variables)
            if scope.get_update(v) is not None
        }
        return results, assigned

    def _fed(self, i, value):
        """An input value as a classic session fed it: a (nested) list or tuple becomes
        one array of the input's dtype, as `np.asarray` makes it (`[image]` for an input of
        shape `(None, h, w, c)` is a batch of one), as TensorFlow's `feed_dict` did."""
        if not isinstance(value, (list, tuple)):
            return value
        tensor = self._function.inputs[i]
        try:
            return np.asarray(value, dtype=tensor.dtype)
        except ValueError as error:
            raise ValueError(
                f"Input {i} of this function ({tensor.name!r}, shape {tensor.shape}) received "
                f"a {type(value).__name__} that is not one rectangular array ({error}); pass "
                "a NumPy array, or a list of equally shaped arrays."
            ) from error

    def __call__(self, inputs):
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(inputs) != self._num_inputs:
            raise ValueError(
                f"This function takes {self._num_inputs} input(s); received {len(inputs)}."
            )
        # The phase fed as an input; else the one fixed with `K.set_learning_phase`, as
        # a classic graph built after that call had it as a constant.
        training = fixed_learning_phase()
        if self._phase_position is not None:
            phase = inputs.pop(self._phase_position)
            training = bool(int(phase)) if phase is not None else None
        inputs = [self._fed(i, value) for i, value in enumerate(inputs)]
        results, assigned = self._program([v.value for v in self._variables], inputs, training)
        for i, value in assigned.items():
            self._variables[i].assign(value)
        outs = [backend_core.convert_to_numpy(x) for x in results[: self._num_outputs]]
        computed = iter(results[self._num_outputs :])
        for (variable, value), symbolic in zip(self._updates, self._symbolic_updates, strict=True):
            variable.assign(next(computed) if symbolic else value)
        return outs if self._was_list else outs[0]
