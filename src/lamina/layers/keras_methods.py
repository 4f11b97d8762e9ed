"""Keras 3's smaller public `Layer` methods, bound on `Layer` under their names.

`save_own_variables` / `load_own_variables` are the per-layer saving protocol: the
`.weights.h5` and `.keras` writers hand each layer a dict-like `store` (its `vars` entry,
keyed `"0"`, `"1"`, ...) and the readers hand it back, so a layer that overrides them
files extra state or reads an older layout, as in Keras. The rest are aliases and
introspection Keras users reach for: `add_variable`, `path`, `metrics`,
`metrics_variables`, `call_signature_parameters`, `supports_jit`, `rematerialized_call`.
"""

from __future__ import annotations

import inspect

from lamina.layers import remat


def _is_metric(value) -> bool:
    # Metrics live above layers (they may not be imported here): a metric is what has
    # the metric protocol and is not a layer.
    return (
        callable(getattr(value, "update_state", None))
        and callable(getattr(value, "result", None))
        and callable(getattr(value, "reset_state", None))
        and not hasattr(value, "_own_weights")
    )


# Saving protocol -----------------------------------------------------------------
def saved_weights(self) -> list:
    """The values a weights file holds for this layer, in order (a LoRA layer files
    its merged kernel in place of its factors: `_saved_variables`)."""
    saved = getattr(self, "_saved_variables", None)
    return saved() if saved is not None else self._own_weights()


def save_own_variables(self, store) -> None:
    """Put this layer's own state into `store` (not its sublayers': they get their own).

    `model.save()` and `save_weights()` call it once per layer with the layer's entry
    of the weights file. The default files each own weight (trainable first) under
    `"0"`, `"1"`, ...; override it to file more (any array under any name), calling
    `super().save_own_variables(store)` to keep the weights.

    Args:
        store: a dict-like object: `store[key] = array`.
    """
    for i, variable in enumerate(saved_weights(self)):
        store[str(i)] = variable.numpy()


def load_own_variables(self, store) -> None:
    """Assign this layer's own weights from `store`, as `save_own_variables` wrote it.

    Loading calls it once per layer with the layer's entry of the file; override it
    to read what an overriding `save_own_variables` filed, or an older layout (rename
    keys, transform arrays, then call `super().load_own_variables(new_store)`).

    Args:
        store: a dict-like object with `keys()` and `store[key]` (an array).
    """
    variables = saved_weights(self)
    keys = [str(k) for k in store.keys()]
    if len(keys) != len(variables):
        hint = (
            " It is not built, so it has no weights yet: build it (call it on data or "
            "call `build(input_shape)`) before loading."
            if not self.built and not variables
            else " The state was saved from a different layer or architecture."
        )
        raise ValueError(
            f"{type(self).__name__} {self.name!r} has {len(variables)} weight(s) "
            f"{[v.name for v in variables]}, but the store holds {len(keys)} entries "
            f"{keys}.{hint}"
        )
    values = []
    for i, variable in enumerate(variables):
        if str(i) not in keys:
            raise ValueError(
                f"{type(self).__name__} {self.name!r}: the store has no entry {str(i)!r} "
                f"for weight {variable.name!r}; it holds {keys}. Weights are filed as "
                "'0', '1', ... in `weights` order."
            )
        value = store[str(i)]
        shape = tuple(getattr(value, "shape", ()))
        if shape != tuple(variable.shape):
            raise ValueError(
                f"{type(self).__name__} {self.name!r}: weight {variable.name!r} has "
                f"shape {tuple(variable.shape)}, but store entry {str(i)!r} has shape "
                f"{shape}."
            )
        values.append(value)
    for variable, value in zip(variables, values, strict=True):
        variable.assign(value)


# Weights -------------------------------------------------------------------------
def add_variable(
    self,
    shape,
    initializer,
    dtype=None,
    trainable: bool = True,
    autocast: bool = True,
    regularizer=None,
    constraint=None,
    name: str | None = None,
):
    """Create a weight of this layer: `add_weight` with Keras's `add_variable`
    argument order (`shape` and `initializer` first, both required)."""
    return self.add_weight(
        shape=shape,
        initializer=initializer,
        dtype=dtype,
        trainable=trainable,
        autocast=autocast,
        regularizer=regularizer,
        constraint=constraint,
        name=name,
    )


def path(self) -> str | None:
    """The layer's name scope path (`"sequential/dense"`), fixed where it is first
    built or called; `None` before that. Its weights' paths start with it."""
    parent = self.__dict__.get("_parent_path")
    if parent is None or not self.built:
        return None
    return f"{parent}/{self.name}" if parent else self.name


# Metrics -------------------------------------------------------------------------
def metrics(self) -> list:
    """Metrics held as attributes of this layer and of its sublayers."""
    out, seen = [], set()
    for layer in self._flatten_layers():
        for value in _attribute_values(layer):
            if _is_metric(value) and id(value) not in seen:
                seen.add(id(value))
                out.append(value)
    return out


def metrics_variables(self) -> list:
    """The variables of every metric in `metrics`, in order."""
    return [v for metric in self.metrics for v in metric.variables]


# Calls ---------------------------------------------------------------------------
def call_signature_parameters(self) -> list[str]:
    """The names of `call`'s parameters (without `self`, `*args` and `**kwargs`)."""
    parameters = inspect.signature(self.call).parameters.values()
    return [
        p.name
        for p in parameters
        if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]


def supports_jit(self) -> bool:
    """Whether `call` may run inside a compiled program (Keras's flag; a layer that
    cannot sets it to False, e.g. one that reads values on the host)."""
    return self.__dict__.get("_supports_jit", True)


def set_supports_jit(self, value: bool) -> None:
    self.__dict__["_supports_jit"] = bool(value)


def rematerialized_call(self, layer_call, *args, **kwargs):
    """`layer_call` (the layer's `call`) as the layer's remat mode makes it for these
    arguments (see `lamina.RematScope`): recomputed in the backward pass instead of
    stored, or `layer_call` itself when the layer was not made in a remat scope."""
    if not self._remat_mode:
        return layer_call
    return remat.rematerialized_call(self, layer_call, args, kwargs)


def _attribute_values(layer):
    from lamina.layers.layer import _UNTRACKED

    def visit(value):
        if isinstance(value, dict):
            for v in value.values():
                yield from visit(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                yield from visit(v)
        else:
            yield value

    for key, value in layer.__dict__.items():
        if key not in _UNTRACKED and not key.startswith("__"):
            yield from visit(value)
