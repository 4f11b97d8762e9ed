"""The host part of a functional model: preprocessing that runs in NumPy before the
compiled part.

Strings cannot enter an engine's compiled program, so the layers that take them
(`TextVectorization`, `StringLookup`, `Hashing`, `HashedCrossing`; any layer whose
`_runs_on_host` is true) run on the host. A model that starts with such layers,
`Input(shape=(1,), dtype="string")` feeding a `TextVectorization`, splits in two:

- the *host part*: the host layers, run eagerly in NumPy on each batch, by the data
  path (`fit`, `evaluate`, `predict`, `model(x)` on data);
- the *engine part*: everything else, a `Function` from the model's other inputs and
  the host layers' outputs to the model's outputs, run (and compiled) as any model is.

The batch handed to the engine part is a `HostPrepared` (a namedtuple, so it travels
through compiled programs and batch plumbing as any structure does) holding the engine
part's inputs in order; the model's `call` recognises it and runs the engine part only.
Host layers must come first: one that takes a tensor the engine computes is refused, as
is an engine layer that takes strings.
"""

from __future__ import annotations

import collections

import numpy as np

from lamina.graph.function import Function

HostPrepared = collections.namedtuple("HostPrepared", ["values"])
HostPrepared.__doc__ = """A batch after a model's host layers ran: the inputs of the
model's engine part, in order (`values`)."""


def _runs_on_host(op) -> bool:
    return bool(getattr(op, "_runs_on_host", False))


def _describe(op) -> str:
    return f"{type(op).__name__} {op.name!r}"


def _conform(value, ref):
    """A host input as NumPy, with the trailing axis of 1 added or dropped as the model's
    `Input` asks (as `models.calls.conform_inputs` does for numbers)."""
    if not isinstance(value, np.ndarray):
        from lamina import backend

        value = backend.convert_to_numpy(value) if backend.is_tensor(value) else np.asarray(value)
    expected = tuple(ref.shape)
    if value.ndim == len(expected) + 1 and value.shape[-1] == 1:
        value = value[..., 0]
    elif value.ndim == len(expected) - 1 and expected and expected[-1] == 1:
        value = value[..., None]
    return value


def _for_engine(value):
    """A host layer's output as the engine takes batches (as `data_adapter` converts)."""
    value = np.asarray(value)
    if value.dtype == np.float64:
        return value.astype("float32")
    if value.dtype == np.int64:
        return value.astype("int32")
    return value


class HostPlan:
    """How a model's graph splits into its host part and its engine part."""

    def __init__(self, function: Function, model_name: str):
        who = f"Model {model_name!r}"
        inputs = function.inputs
        input_ids = {id(x) for x in inputs}
        host_ids = set(input_ids)  # tensors known on the host: inputs, host outputs
        host_nodes, engine_nodes = [], []
        for node in function._plan:
            op = node.operation
            if _runs_on_host(op) and all(id(t) in host_ids for t in node.input_tensors):
                host_nodes.append(node)
                host_ids.update(id(t) for t in node.output_tensors)
                continue
            if _runs_on_host(op):
                raise ValueError(
                    f"{who}: {_describe(op)} runs on the host (in NumPy, before the compiled "
                    "part), so it must take the model's inputs (or another host layer's "
                    "outputs) directly; here it follows layers that run on the engine. Move "
                    "it to the front of the model, or apply it in the data pipeline."
                )
            for t in node.input_tensors:
                if t.dtype == "string":
                    raise ValueError(
                        f"{who}: {_describe(op)} takes the string tensor {t.name!r}, but only "
                        "preprocessing layers that run on the host (TextVectorization, "
                        "StringLookup, Hashing, HashedCrossing) can take strings. Put one of "
                        "them first to turn the strings into numbers."
                    )
            engine_nodes.append(node)
        for t in function.outputs:
            if t.dtype == "string":
                raise ValueError(
                    f"{who}: output {t.name!r} holds strings, which a compiled model cannot "
                    "return; map indices back to strings after `predict` (e.g. with "
                    "StringLookup(invert=True)) instead."
                )
        used = {id(t) for node in engine_nodes for t in node.input_tensors}
        used.update(id(t) for t in function.outputs)
        host_outputs = [t for node in host_nodes for t in node.output_tensors if id(t) in used]
        host_inputs = [
            i
            for i, x in enumerate(inputs)
            if any(id(x) == id(t) for node in host_nodes for t in node.input_tensors)
        ]
        self.direct = [i for i, x in enumerate(inputs) if id(x) in used]
        self.host_inputs = host_inputs
        self.inputs = inputs
        self.host = Function(
            [inputs[i] for i in host_inputs], host_outputs, name=f"{model_name}_host"
        )
        engine_inputs = [inputs[i] for i in self.direct] + host_outputs
        self.engine = Function(engine_inputs, function._outputs_struct, name=model_name)

    def prepare(self, flat_values: list) -> HostPrepared:
        """Run the host part on one batch (`flat_values`: the model's inputs in graph
        order); returns the engine part's inputs."""
        host_values = [_conform(flat_values[i], self.inputs[i]) for i in self.host_inputs]
        outputs, _ = self.host.run(host_values)
        produced = [_for_engine(v) for v in outputs]
        return HostPrepared([flat_values[i] for i in self.direct] + produced)


def host_plan(function, model_name: str):
    """The `HostPlan` of a functional graph, or None when nothing in it runs on the host."""
    if function is None:
        return None
    has_host = any(_runs_on_host(node.operation) for node in function._plan)
    has_strings = any(x.dtype == "string" for x in function.inputs)
    if not has_host and not has_strings:
        return None
    return HostPlan(function, model_name)
