"""A graph model run on data: its inputs conformed to the graph's `Input`s, the host
part of the graph (layers that run in NumPy) run first, and `model(x)`'s one compiled
program.

`model(x)` on concrete data runs the graph as one program of the engine
(`compiled_call`, traced once per input signature) where it can, with the same results
as running it layer by layer; a graph holding an op whose output shape depends on the
values (`ops.unique`) cannot be traced and runs op by op (`value_dependent_ops`), with
a clear error if a compiled step meets it (`explain_value_dependent`). The functions
take the model first; `Model` binds the few that other modules call by name.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np

from lamina import backend, ops, tree
from lamina.backend import core as backend_core
from lamina.backend import execution as backend_execution
from lamina.backend.common.global_state import learning_phase_or
from lamina.backend.common.variables import StatelessScope
from lamina.common.traceback_utils import unfiltered_traceback
from lamina.graph.masks import get_mask, masks_of, set_mask
from lamina.graph.operation import Operation
from lamina.layers.input_spec import shapes_differ
from lamina.layers.layer import Layer, _hold_losses
from lamina.models.host_part import HostPrepared, host_plan
from lamina.ops.core import _SpecifiedOperation
from lamina.training import concurrency
from lamina.training import runtime as training_runtime

_VALUE_DEPENDENT_MESSAGE = (
    "Op {op} in {where} gives an output whose shape depends on the values of its "
    "input, so it cannot run inside a compiled program (JAX traces `fit`, `evaluate` and "
    "`predict` steps with jax.jit; the trace failed with {error}). Run the steps op by "
    "op: `model.compile(..., run_eagerly=True)` (or `jit_compile=False`); `model(x)` on "
    "data already runs such a graph op by op. Or give the op a fixed output size: "
    "`ops.unique(x, size=N, fill_value=...)`, `ops.bincount(x, minlength=N)`, "
    "`ops.where(condition, x1, x2)` in place of `ops.where(condition)`."
)


def _declares_own_spec(op) -> bool:
    """An op made with its own `output_spec` rule (see `lamina.ops.core._op`): what ops
    whose output length may depend on the data do, as abstract evaluation cannot know it."""
    return isinstance(op, _SpecifiedOperation)


def _abstractly_evaluable(node) -> bool:
    """Whether the engine evaluates the node's op on specs (as a trace would see it)."""
    try:
        Operation.compute_output_spec(node.operation, *node.call_args, **node.call_kwargs)
    except Exception:  # the trace of a compiled program would fail the same way
        return False
    return True


def holds_text(x) -> bool:
    """Whether `x` (one array or a structure of them) holds a NumPy array of strings."""
    if type(x) is np.ndarray:
        return x.dtype.kind in "USO"
    if backend_core.is_tensor(x):
        return False
    return any(type(v) is np.ndarray and v.dtype.kind in "USO" for v in tree.flatten(x))


def value_dependent_ops(model) -> list:
    """The graph's ops (nested models' included) whose output shape depends on the
    values of their inputs, as `(op, model)` pairs: empty for an ordinary graph.

    Such an op declares its own output spec (a length `None` that no stand-in
    evaluation could know) and the engine cannot evaluate it abstractly: neither can
    it trace it into a compiled program. Found once per graph (graphs are fixed).
    """
    function = model._function
    record = model._runtime
    cached = record.value_dependent
    if cached is not None and cached[0] is function:
        return cached[1]
    found = []
    from lamina.models.model import Model

    for node in function.nodes if function is not None else ():
        op = node.operation
        if isinstance(op, Model) and op._function is not None:
            found.extend(value_dependent_ops(op))
        elif _declares_own_spec(op) and not _abstractly_evaluable(node):
            found.append((op, model))
    record.value_dependent = (function, found)
    return found


def trains_by_default(model) -> bool:
    """Whether a layer of the graph (nested models' included) defaults its `call` to
    `training=True` (the augmentation layers, as in Keras): then a bare `model(x)`
    augments, as Keras's does, which `compiled_call`'s inference program would not.
    Found once per graph."""
    function = model._function
    record = model._runtime
    cached = record.trains_by_default
    if cached is not None and cached[0] is function:
        return cached[1]
    found = False
    for layer in model._flatten_layers(include_self=False):
        call = getattr(type(layer), "call", None)
        param = inspect.signature(call).parameters.get("training") if call else None
        if param is not None and param.default is True:
            found = True
            break
    record.trains_by_default = (function, found)
    return found


def explain_value_dependent(model, error) -> None:
    """Raise a clear error if `error` came from an op whose output shape depends on
    the values, run under tracing (a compiled `predict`, `evaluate` or `fit` step);
    return (the caller raises `error` as it is) for any other error."""
    found = value_dependent_ops(model)
    if not found:
        return
    culprits = {id(op): (op, owner) for op, owner in found}
    entry = unfiltered_traceback(error)
    while entry is not None:
        hit = culprits.get(id(entry.tb_frame.f_locals.get("self")))
        if hit is not None:
            break
        entry = entry.tb_next
    else:
        return
    op, owner = hit
    where = (
        f"model {owner.name!r}"
        if owner is model
        else (f"model {owner.name!r} (inside model {model.name!r})")
    )
    raise ValueError(
        _VALUE_DEPENDENT_MESSAGE.format(
            op=f"{getattr(op, 'function_name', type(op).__name__)} {op.name!r}",
            where=where,
            error=f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}",
        )
    ) from error


def compiled_call(model, inputs):
    """Inference on concrete data through one compiled program (`call_function`).

    Same result as running the graph layer by layer, without per-op dispatch: losses
    added during the call are kept in `model.losses`, and variables the layers assign
    (the states of a stateful RNN, seed states) are written back, as for an eager
    call. The program is traced once per input signature, with a bounded cache and a
    `RetraceWarning` when it keeps retracing.
    """
    inputs = conform_inputs(model, inputs)
    record = model._runtime
    entry = record.call_entry
    if entry is None:
        entry = record.call_entry = _compile_call(model, model.variables)
    variables, program, assigned_vars, all_layers = entry
    # A predict's reader lock: a train step in another thread waits for this call,
    # which reads the weights of one complete step. A call that assigns variables
    # (RNN states, seed states) runs alone, as serial calls would.
    lock = concurrency.state_lock(model)
    if assigned_vars:
        with lock.writing():
            outputs, masks, losses = _run_call(model, program, variables, assigned_vars, inputs)
    else:
        reader = lock.acquire_read()
        try:
            outputs, masks, losses = _run_call(model, program, variables, assigned_vars, inputs)
        finally:
            lock.release_read(reader)
    if masks is not None:
        # The masks the graph gave its outputs, on the outputs, as a run layer by layer
        # leaves them.
        for out, mask in zip(tree.flatten(outputs), tree.flatten(masks), strict=True):
            if mask is not None:
                set_mask(out, mask)
    for layer in all_layers:  # `_clear_losses` without walking the layers again
        if layer._losses:
            layer._losses = []
    model._losses = list(losses)
    if model._losses:
        _hold_losses(model)
    return outputs


def _run_call(model, program, variables, assigned_vars, inputs):
    """Run the call program (the caller holds the weights lock); write back what it
    assigned. Returns `(outputs, output_masks, losses)`."""
    live = model._runtime.live
    live = live.values if live is not None else None
    outputs, masks, losses, assigned = program(_call_values(model, variables, live), inputs)
    if live is not None:
        # `fit` donates these buffers at its next step: be done with them first.
        backend_core.block_until_ready((outputs, masks, losses, assigned))
    for variable, value in zip(assigned_vars, assigned, strict=True):
        variable._value = value
    return outputs, masks, losses


def _call_values(model, variables, live) -> list:
    """The values `model(x)` computes with: outside any stateless scope (checked by
    the caller) each variable's `_value`, except while `fit` holds newer weights
    (`live`: those of its last complete step, perhaps in another thread)."""
    if live is None:
        return [v._value for v in variables]
    trainable, non_trainable = training_runtime.state_variables(model)[:2]
    values = list(live[0]) + list(live[1])
    held = {id(v): x for v, x in zip(trainable + non_trainable, values)}
    return [held.get(id(v), v._value) for v in variables]


def _compile_call(model, variables):
    assigned_vars: list = []  # filled while tracing: what the layers assign
    index = {id(v): i for i, v in enumerate(variables)}

    def pure(values, data):
        with StatelessScope(
            list(zip(variables, values, strict=True)), collect_losses=True
        ) as scope:
            outputs = Layer.__call__(model, data, training=learning_phase_or(False))
        # Only the model's own variables can be assigned under the strict trace.
        assigned_vars[:] = [variables[index[id(v)]] for v, _ in scope.updates]
        masks = masks_of(outputs)  # carried by traced values: handed out beside them
        return outputs, masks, list(scope.losses), [value for _, value in scope.updates]

    program = backend_execution.program(pure, f"call of model {model.name!r} on data")
    # The graph's layers are fixed once it is built, so the walk over them is kept.
    return variables, program, assigned_vars, model._flatten_layers()


def conform_inputs(model, inputs) -> list:
    """The inputs as a flat list in graph order, each checked against its `Input`.

    As in Keras, a trailing dimension of 1 too many is squeezed and one too few is
    added when the `Input` ends in 1; any other rank or a known dimension that
    differs raises a ValueError naming the model and the input.
    """
    function = model._function
    if isinstance(inputs, HostPrepared):
        return inputs  # the engine part's inputs, made by `_prepare_host_inputs`
    if len(function.inputs) == 1 and not isinstance(inputs, (dict, list, tuple)):
        passed = model._runtime.conformed
        if (
            passed is not None
            and passed[0] is function
            and passed[1] is type(inputs)
            and passed[2] == getattr(inputs, "shape", None)
            and passed[3] == getattr(inputs, "dtype", None)
        ):
            return [inputs]  # the shape and dtype the last call checked: nothing to change
        flat = [inputs]  # one array for one input: what the general path gives
    else:
        flat = function._flatten_values(standardize_inputs(model, inputs))
    out = [
        _conform_one(model, i, ref, x)
        for i, (ref, x) in enumerate(zip(model._function.inputs, flat, strict=True))
    ]
    if len(out) == 1 and out[0] is inputs and backend_core.is_concrete(inputs):
        # Not a traced input (torch.export's fake tensors, of their own type, whose
        # sizes may be symbolic): comparing a later call's shape with it, or its
        # shape with a real one, would specialize the trace (a guard `batch != 3`).
        model._runtime.conformed = (function, type(inputs), inputs.shape, inputs.dtype)
    return out


def _conform_one(model, i, ref, x, host: bool = False):
    """Input `i`'s value `x` conformed to its `Input` `ref` (see `conform_inputs`);
    `host`: a NumPy batch stays NumPy (a host part's batch, before the compiled step)."""
    if x is None or not hasattr(x, "shape"):
        return x
    host = host and isinstance(x, np.ndarray)
    expected, shape = tuple(ref.shape), tuple(x.shape)
    if len(shape) == len(expected) + 1 and shape[-1] == 1:
        x = x[..., 0] if host else ops.squeeze(x, axis=-1)
    elif len(shape) == len(expected) - 1 and expected and expected[-1] == 1:
        x = x[..., None] if host else ops.expand_dims(x, axis=-1)
    if shapes_differ(x.shape, expected):
        name = ref._keras_history.operation.name
        raise ValueError(
            f"Model {model.name!r}: input {i} ({name!r}) expected shape {expected}, "
            f"received shape {shape}. Pass data of that shape (the batch "
            "dimension, and any dimension shown as None, may vary)."
        )
    if host:
        dtype = getattr(ref, "dtype", None)
        if dtype is None or dtype == "string" or backend.standardize_dtype(x.dtype) == dtype:
            return x
        try:
            return x.astype(dtype)
        except TypeError:  # a dtype NumPy lacks (bfloat16 without ml_dtypes): the engine's
            pass
    return _to_input_dtype(x, ref)


def _to_input_dtype(x, ref):
    """`x` in the dtype of its `Input`, as Keras's Functional converts each input: a
    float16 `Input` computes in float16, ints given to a float `Input` become floats."""
    dtype = getattr(ref, "dtype", None)
    if dtype is None or not hasattr(x, "dtype") or dtype == "string":
        return x
    if backend.standardize_dtype(x.dtype) == dtype:
        return x
    mask = get_mask(x)
    cast = ops.cast(x, dtype)
    if mask is not None:  # the mask rides on the tensor: it goes with the cast
        set_mask(cast, mask)
    return cast


def host_plan_of(model):
    """How the graph splits into a host part (layers such as TextVectorization, run
    in NumPy) and an engine part; None when everything runs on the engine."""
    function = model._function
    record = model._runtime
    cached = record.host_plan
    if cached is None or cached[0] is not function:
        cached = record.host_plan = (function, host_plan(function, model.name))
    return cached[1]


def prepare_host_inputs(model, inputs):
    """Run the host part on a batch of data: the engine part's inputs, as a
    `HostPrepared` (inputs already prepared, or a graph without a host part, pass
    through)."""
    plan = host_plan_of(model)
    if plan is None or isinstance(inputs, HostPrepared):
        return inputs
    function = model._function
    single = len(function.inputs) == 1
    if single and isinstance(inputs, (list, tuple)):
        if not all(hasattr(v, "shape") for v in inputs):
            inputs = np.asarray(inputs)  # one input given as a plain list of strings
    if single and not isinstance(inputs, (dict, list, tuple)):
        flat = [inputs]
    else:
        flat = function._flatten_values(standardize_inputs(model, inputs))
    # The inputs that go straight to the engine part are conformed as any model's are
    # (rank, shape, the Input's dtype); the host part conforms its own.
    flat = list(flat)
    for i in plan.direct:
        flat[i] = _conform_one(model, i, function.inputs[i], flat[i], host=True)
    return plan.prepare(flat)


def select_inputs(model, inputs):
    """A dict of inputs without the keys that name none of the graph's inputs (labels,
    ids or strings a classic generator yields beside them): Keras 2 ignored those, and
    so does lamina, saying once per model which keys it leaves out. Anything else is
    returned as it is."""
    if type(inputs) is not dict:
        return inputs
    struct = model._function._inputs_struct
    if isinstance(struct, dict):
        keys = set(struct)
    else:
        keys = {x._keras_history.operation.name for x in model._function.inputs}
    extra = sorted((k for k in inputs if k not in keys), key=str)
    if not extra or not keys <= inputs.keys():
        return inputs  # nothing to leave out, or inputs missing: `_check_input_structure`
    record = model._runtime
    warned = record.ignored_input_keys
    if warned is None or tuple(extra) not in warned:
        record.ignored_input_keys = (warned or set()) | {tuple(extra)}
        warnings.warn(
            f"Model {model.name!r} ignores the input keys {extra}: its inputs are "
            f"{sorted(keys, key=str)}. (Keras 2 ignored such keys too; drop them from the "
            "data to silence this.)",
            UserWarning,
            stacklevel=2,
        )
    return {k: v for k, v in inputs.items() if k in keys}


def standardize_inputs(model, inputs):
    if inputs is None and not model._function.inputs:
        # Every input is fed by a tensor (`Input(tensor=...)`): Keras 2 took `x=None`
        # for such a model (its `predict(None, steps=1)`, `train_on_batch(None, None)`).
        return []
    inputs = select_inputs(model, inputs)
    _check_input_structure(model, inputs)
    if isinstance(inputs, dict) and not isinstance(model._function._inputs_struct, dict):
        names = [x._keras_history.operation.name for x in model._function.inputs]
        return [inputs[n] for n in names]
    return inputs


def _check_input_structure(model, inputs):
    expected = model._function.inputs
    if not isinstance(inputs, (dict, list, tuple)) and len(expected) == 1:
        return  # one array for one input: the common case, checked in a breath
    struct = model._function._inputs_struct
    names = [x._keras_history.operation.name for x in expected]
    if isinstance(inputs, dict):
        keys = sorted(struct) if isinstance(struct, dict) else names
        unknown = sorted(k for k in inputs if k not in keys)
        missing = sorted(k for k in keys if k not in inputs)
        if unknown or missing:
            raise ValueError(
                f"Model {model.name!r} expects inputs named {keys}; received dict keys "
                f"{sorted(inputs)} (unknown: {unknown}, missing: {missing})."
            )
        return
    flat = tree.flatten(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if len(flat) != len(expected):
        raise ValueError(
            f"Model {model.name!r} expects {len(expected)} input(s) {names}, but it "
            f"received {len(flat)} input(s)."
        )
