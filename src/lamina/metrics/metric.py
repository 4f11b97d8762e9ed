"""The `Metric` base class: state in variables, updated batch by batch.

A metric keeps running totals in non-trainable variables. `update_state` folds in a
batch, `result` reads the value, `reset_state` zeroes the totals. Code is written in
stateful style (`self.total.assign_add(...)`) and stays traceable: no Python branch
depends on a tensor value. Compiled training runs it statelessly, either by opening a
`backend.StatelessScope` that maps `metric.variables` to values, or through the
`stateless_update_state` / `stateless_result` / `stateless_reset_state` helpers.

Metrics whose variable shapes depend on the data (such as `F1Score`, which keeps one
total per class) create them in `build(y_true_shape, y_pred_shape)`; a trainer calls
`build` before tracing so every variable exists when the step is compiled.
"""

from __future__ import annotations

import numpy as np

from lamina import backend, initializers, ops
from lamina.backend.common.global_state import to_snake_case


def _initializer(initializer):
    if callable(initializer):  # a function, or an initializer object or class
        return initializers.get(initializer)
    if initializer in ("zeros", "ones"):
        fill = 0.0 if initializer == "zeros" else 1.0
        return lambda shape, dtype=None: np.full(shape, fill, dtype=dtype)
    if isinstance(initializer, (str, dict)):
        # Any other initializer by name or config, as Keras's `add_variable` takes it.
        return initializers.get(initializer)
    value = np.asarray(initializer)
    return lambda shape, dtype=None: np.broadcast_to(value, shape).astype(dtype)


class Metric:
    """Base class for metrics: running state in variables, read with `result()`.

    Subclasses create their state with `add_variable` in `__init__` (or in `build`),
    and implement `update_state(y_true, y_pred, sample_weight=None)` and `result()`.

    Args:
        name: the metric name (default: the class name in snake case).
        dtype: the dtype of the state and result (default `floatx()`).

    >>> import numpy as np
    >>> class Total(Metric):
    ...     def __init__(self, name="total"):
    ...         super().__init__(name=name)
    ...         self.total = self.add_variable((), name="total")
    ...     def update_state(self, values, sample_weight=None):
    ...         self.total.assign_add(ops.sum(values))
    ...     def result(self):
    ...         return self.total.value
    >>> metric = Total()
    >>> float(metric(np.array([1.0, 2.0])))
    3.0
    """

    def __init__(self, name=None, dtype=None):
        self.name = name or to_snake_case(type(self).__name__)
        self._dtype = dtype
        self._variables: list = []
        self._initializers: list = []
        self.built = True

    @property
    def dtype(self) -> str:
        return backend.standardize_dtype(self._dtype or backend.floatx())

    @property
    def variables(self) -> list:
        """The state variables, in creation order."""
        return list(self._variables)

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="sum", name=None):
        """Create a non-trainable state variable.

        Args:
            shape: the variable's shape.
            initializer: `"zeros"`, `"ones"`, a callable `(shape, dtype) -> array`, or a
                value broadcast to `shape`.
            dtype: the dtype (default: the metric's dtype).
            aggregation: how the processes of a data-parallel job combine the
                variable when the metric is read on an engine whose totals are each
                process's own (torch): `"sum"` (totals, counts), `"mean"`,
                `"only_first_replica"` (process 0's value) or `"none"` (this
                process's). On JAX a step's totals are the job's already.
            name: a short name such as `"total"`.
        """
        initializer = _initializer(initializer)
        dtype = backend.standardize_dtype(dtype or self.dtype)
        variable = backend.Variable(
            initializer,
            shape=tuple(shape),
            dtype=dtype,
            trainable=False,
            aggregation=aggregation,
            name=name,
            path=f"{self.name}/{name or 'variable'}",
        )
        self._variables.append(variable)
        self._initializers.append(initializer)
        return variable

    def add_weight(self, shape=(), initializer=None, dtype=None, name=None):
        """Keras's older name for `add_variable` (zeros when no initializer is given)."""
        return self.add_variable(shape, initializer or "zeros", dtype=dtype, name=name)

    def build(self, y_true_shape, y_pred_shape) -> None:
        """Create data-dependent variables; a no-op for metrics with fixed-shape state."""
        self.built = True

    def update_state(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement `update_state`.")

    def result(self):
        raise NotImplementedError(f"{type(self).__name__} must implement `result`.")

    def reset_state(self) -> None:
        """Set every state variable back to its initial value."""
        for variable, initializer in zip(self._variables, self._initializers):
            variable.assign(initializer(variable.shape, dtype=variable.dtype))

    def __call__(self, *args, **kwargs):
        """Update the state with one batch, then return the result."""
        self.update_state(*args, **kwargs)
        return self.result()

    # Pure forms, for compiled steps that carry metric state explicitly ------------------
    def _mapping(self, metric_variables, what: str) -> list:
        variables = self.variables
        metric_variables = list(metric_variables)
        if len(metric_variables) != len(variables):
            raise ValueError(
                f"{type(self).__name__} {self.name!r}.{what} received {len(metric_variables)} "
                f"variable values; the metric has {len(variables)} variables "
                f"({[v.name for v in variables]}). Pass one value per variable, in the "
                "order of `metric.variables`."
            )
        return list(zip(variables, metric_variables))

    def stateless_update_state(self, metric_variables, *args, **kwargs) -> list:
        """`update_state` as a pure function from variable values to new values."""
        mapping = self._mapping(metric_variables, "stateless_update_state")
        with backend.StatelessScope(state_mapping=mapping) as scope:
            self.update_state(*args, **kwargs)
        return [_current(scope, v, old) for v, old in mapping]

    def stateless_result(self, metric_variables):
        """`result` read from the given variable values."""
        mapping = self._mapping(metric_variables, "stateless_result")
        with backend.StatelessScope(state_mapping=mapping):
            return self.result()

    def stateless_reset_state(self) -> list:
        """The variable values `reset_state` would assign."""
        return [
            ops.convert_to_tensor(init(v.shape, dtype=v.dtype), dtype=v.dtype)
            for v, init in zip(self._variables, self._initializers)
        ]

    # Config ----------------------------------------------------------------------------
    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self._dtype}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"


def _current(scope, variable, old):
    value = scope.get_update(variable)
    return old if value is None else value
