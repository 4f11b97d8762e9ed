"""The global seed state, which every program carries.

A random op given no seed (`seed=None`, as classic Keras's `K.random_normal(shape)` in a
`Lambda`) draws from one global `SeedGenerator` (`lamina.random`), whose state is a
variable. No model tracks that variable, so a compiled step would otherwise bake its
value in as a constant (the same noise on every call) or leak a traced value into it.
Instead every program takes the state as an extra argument and returns its new value:

- `Program.__call__` reads the state (`read`), runs the step inside `carried(value)`,
  a stateless scope that maps the global seed variable to that value, and writes what
  the step drew back (`write`) when it drew anything;
- a loop of steps inside one program (`lax.scan` of `steps_per_execution` batches)
  carries the state from step to step in the same way (`carried` per step), so each
  step draws fresh numbers.

`lamina.random` makes the generator and registers how to reach its state here, since
the backend sits below it.
"""

from __future__ import annotations

from lamina.backend.common.variables import StatelessScope, _scope_stack

_FACTORY: list = [None]


def register(factory) -> None:
    """Register `factory() -> Variable`, the global seed state (made on first use)."""
    _FACTORY[0] = factory


def variable():
    """The global seed state's variable (made now if it was not), or None when no
    random module registered one."""
    factory = _FACTORY[0]
    return None if factory is None else factory()


def read(state):
    """The value a program is given: the innermost scope's (a program run inside
    another's trace), else the stored one. Read without `Variable.value`, which would
    first write back the state a running `fit` holds outside the model's variables."""
    for scope in reversed(_scope_stack()):
        value = scope.get_current_value(state)
        if value is not None:
            return value
    return state._value


def write(state, value) -> None:
    """Store the value a program returned (in the innermost scope mapping the state,
    when the program ran inside another's trace)."""
    for scope in reversed(_scope_stack()):
        if scope.maps(state):
            scope.add_update(state, value)
            return
    state._value = value if state._placement is None else state._placement(value)


class carried(StatelessScope):
    """A stateless scope mapping the global seed state to `value` for one step;
    `drawn()` is the state's new value, or None when the step drew nothing."""

    def __init__(self, state, value):
        super().__init__([(state, value)])
        self.state = state

    def drawn(self):
        return self.get_update(self.state)

    def current(self):
        return self.get_current_value(self.state)
