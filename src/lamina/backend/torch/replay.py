"""predict's step on torch (and the train step's forward pass and loss), captured once
per input signature and replayed.

JAX traces a step once per signature and runs the compiled program after; torch runs
each call eagerly, through every layer's Python. For a read-only step (predict's),
`Replay` records the aten operations one eager call dispatches into an FX graph and
runs that graph on later calls with the same signature. Nothing is compiled: the
kernels are the eager step's, so the outputs are bitwise the same, without the layers'
Python around them. `Program(replay=...)` (`execution.py`) uses it, and so does
`captured(...)`, for a stateful train step's forward pass and loss: replayed under
autograd, the same operations on the variables' own tensors record the same backward
graph.

State is carried through the graph as JAX carries it through a program: random draws
made through `lamina.random` are recorded as the custom op `lamina::random_draw`
(`random.recording_draws`), whose input is the seed tensor the step computed from a
seed generator's state (the global one included, an input of every graph); what the
call assigned (the seed states' next values, moving statistics, metric totals, an
RNN's states) comes out of the graph, and each replay assigns it, as the eager call's
`assign`s did.
"""

from __future__ import annotations

import collections
import contextlib
import operator
import re
import threading
import types

import numpy as np
import torch
import torch.fx
from torch.overrides import TorchFunctionMode
from torch.utils import _pytree
from torch.utils._python_dispatch import TorchDispatchMode

from lamina.backend.common import seed_state
from lamina.backend.common.variables import StatelessScope, reads_are_plain, strict_trace
from lamina.backend.common.variables import structure_version as _structure_version
from lamina.backend.torch import core as backend_core
from lamina.backend.torch import random as backend_random
from lamina.backend.torch.core_gradients import CUSTOM_GRADIENT_CALLS

_read_value = backend_core.Variable.value.fget


# What `Replay.run` returns when the step must run eagerly instead.
EAGER = object()

_REPLAY_INPUTS = (np.ndarray, torch.Tensor, torch.nn.Parameter)

# Operations whose replay would not compute what the eager call did: fresh random
# numbers (the eager step draws from seed state), outputs shaped by values (later
# operations' arguments were computed from the shape in Python).
_UNREPLAYABLE_TAGS = {
    torch.Tag.nondeterministic_seeded: "draws random numbers",
    torch.Tag.dynamic_output_shape: "makes an output whose shape depends on values",
    torch.Tag.data_dependent_output: "reads a tensor's value",
}


_LIFT_FRESH = torch.ops.aten.lift_fresh.default


class _Tape(TorchDispatchMode):
    """Records each aten operation a call dispatches as a node of an FX graph whose
    inputs are the tensors registered in `known` (`id(tensor) -> (tensor, node)`).

    `refused` says why the call cannot be replayed from the graph: an operation that
    changes a tensor in place, draws random numbers or makes a value-shaped output, an
    operation that reads a tensor neither registered nor computed in the call (a
    constant, or data brought in from NumPy), or one that returns a Python value (the
    call reads a tensor's value in Python: `float(x)`, `if x > 0`). The call itself runs
    as it would without the tape.
    """

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # torch wraps a mode's `__torch_dispatch__` to keep `torch.compile` out of it by
        # default, importing torch._dynamo (~1 s, 800 modules) on the first operation.
        return False

    def __init__(self, graph, known: dict):
        super().__init__()
        self.graph = graph
        self.known = known
        self.constants: dict = {}  # attribute name -> a tensor made in the call from data
        self.refused: str | None = None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if self.refused is None:
            self.refused = self._record(func, args, kwargs, out)
        return out

    def _node(self, value):
        if isinstance(value, torch.Tensor):
            found = self.known.get(id(value))
            if found is None or found[0] is not value:
                raise _Refused("reads a tensor made outside the call (a constant, or data)")
            return found[1]
        if isinstance(value, (list, tuple)):
            return type(value)(self._node(v) for v in value)
        return value

    def _record(self, func, args, kwargs, out) -> str | None:
        name = getattr(func, "__name__", repr(func))
        if func is _LIFT_FRESH:
            # A tensor made in the call from Python or NumPy data (a constant such as
            # `convert_to_tensor(0.5)`; values read from tensors are refused by
            # `_HostReads`): the graph keeps it.
            attribute = f"constant_{len(self.constants)}"
            self.constants[attribute] = out
            self.known[id(out)] = (out, self.graph.get_attr(attribute))
            return None
        if func._schema.is_mutable:
            return f"changes a tensor in place ({name})"
        for tag, what in _UNREPLAYABLE_TAGS.items():
            if tag in func.tags:
                return f"{what} ({name})"
        if isinstance(out, torch.Tensor) and self._from_constants(func, args, kwargs):
            # Computed from constants alone (`scalar_tensor(0)`, `zeros(())`, a constant's
            # `detach`): deterministic, so its value is kept as a constant of the graph
            # rather than made again on every replay.
            attribute = f"constant_{len(self.constants)}"
            self.constants[attribute] = out
            self.known[id(out)] = (out, self.graph.get_attr(attribute))
            return None
        if func is backend_random._OP and not args[5]:
            # A draw with no tensor parameters, which autograd has nothing to do with:
            # the graph calls the sampler itself, without the custom op's dispatch
            # (~110 us a call against ~7 us). The numbers are the same.
            func = backend_random.draw_from_seed
        try:
            node = self.graph.call_function(
                func,
                tuple(self._node(a) for a in args),
                {k: self._node(v) for k, v in kwargs.items()},
            )
        except _Refused as refused:
            return f"{refused} ({name})"
        if isinstance(out, torch.Tensor):
            self.known[id(out)] = (out, node)
            return None
        if isinstance(out, (list, tuple)) and all(
            o is None or isinstance(o, torch.Tensor) for o in out
        ):
            for i, o in enumerate(out):
                if o is not None:
                    self.known[id(o)] = (o, self.graph.call_function(operator.getitem, (node, i)))
            return None
        return f"returns a Python value to the call ({name})"

    def _from_constants(self, func, args, kwargs) -> bool:
        if func.namespace != "aten" or _aliases_input(func):
            return False
        for value in _pytree.tree_leaves((args, kwargs)):
            if isinstance(value, torch.Tensor):
                found = self.known.get(id(value))
                if found is None or found[0] is not value or found[1].op != "get_attr":
                    return False
        return True


def _aliases_input(func) -> bool:
    """Whether the operation's output may share memory with an input (a view)."""
    return any(r.alias_info is not None for r in func._schema.returns)


_PERMUTE = torch.ops.aten.permute.default


def _fold_permute_pairs(graph) -> None:
    """Replace `permute(permute(x, p), q)` whose two orders undo each other by `x` (the
    channels-last layers' conversions around a torch kernel that keeps the layout: one
    layer's `(0, 2, 3, 1)` followed by the next one's `(0, 3, 1, 2)`). The result is `x`
    with the same shape and strides, without two dispatched views."""
    for node in graph.nodes:
        if node.op != "call_function" or node.target is not _PERMUTE:
            continue
        inner = node.args[0]
        if not (
            isinstance(inner, torch.fx.Node)
            and inner.op == "call_function"
            and inner.target is _PERMUTE
        ):
            continue
        first, second = inner.args[1], node.args[1]
        if [first[axis] for axis in second] == list(range(len(second))):
            node.replace_all_uses_with(inner.args[0])


_OP_CALL = re.compile(r"torch\.ops\.([A-Za-z_]\w*)\.([A-Za-z_]\w*)\.([A-Za-z_]\w*)\(")


def _direct_forward(module, graph):
    """The graph's generated `forward`, bound to `module`, with each operation called
    through its C++ entry point (`OpOverload._op`, a global of the code) instead of the
    `torch.ops.aten.<name>.<overload>` lookups and `OpOverload.__call__`'s Python frame:
    ~0.5 us less per operation, the same kernels. `module.forward` where that fails."""
    try:
        code = graph.python_code("self")
        namespace = dict(code.globals)

        def entry(match):
            space, name, overload = match.groups()
            target = f"_op_{space}_{name}_{overload}"
            if target not in namespace:
                namespace[target] = getattr(getattr(getattr(torch.ops, space), name), overload)._op
            return f"{target}("

        source = _OP_CALL.sub(entry, code.src)
        exec(compile(source, "<lamina replay>", "exec"), namespace)  # noqa: S102
        return types.MethodType(namespace["forward"], module)
    except Exception:  # noqa: BLE001 - FX's own forward computes the same
        return module.forward


def _storage(tensor) -> int:
    return tensor.untyped_storage().data_ptr()


class _Refused(Exception):
    pass


def _with_global_seed(variables) -> list:
    """The variables a step reads, and the global seed state, which a random op given no
    seed draws from (and advances): an input and an output of every graph."""
    variables = list(variables)
    state = seed_state.variable()
    if state is not None and all(v is not state for v in variables):
        variables.append(state)
    return variables


def _assign(variables, values) -> None:
    """Assign a replay's new values, as the eager call's `assign`s did (in place)."""
    if not reads_are_plain():
        for variable, value in zip(variables, values, strict=True):
            variable.assign(value)
        return
    before = torch.is_grad_enabled()
    torch._C._set_grad_enabled(False)
    try:
        for variable, value in zip(variables, values, strict=True):
            # Straight into the stored tensor, as `assign` would write it (~1 us, not ~10).
            param = variable.__dict__["_param"]
            if (
                variable._placement is None
                and value.dtype is param.dtype
                and value.shape == param.shape
                and value.device == param.device
            ):
                param.copy_(value)
            else:
                variable.assign(value)
    finally:
        torch._C._set_grad_enabled(before)


# The spec of data that is a flat tuple of tensors (`Replay.run`).
_FLAT = "flat tuple"


def _unflatten(leaves, spec):
    if spec is None:
        return leaves[0]
    if spec is _FLAT:
        return tuple(leaves)
    return _pytree.tree_unflatten(leaves, spec)


# Tensor methods through which Python reads a tensor's value: a call that uses them may
# compute what follows from the value on the host, which a replay would not repeat.
_HOST_READS = {
    torch.Tensor.numpy,
    torch.Tensor.tolist,
    torch.Tensor.item,
    torch.Tensor.__array__,
    torch.Tensor.__bool__,
    torch.Tensor.__float__,
    torch.Tensor.__int__,
    torch.Tensor.__index__,
    torch.Tensor.__complex__,
    torch.Tensor.data_ptr,
}


class _HostReads(TorchFunctionMode):
    """Notes the first tensor method that hands a tensor's value to Python."""

    def __init__(self):
        super().__init__()
        self.read: str | None = None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if self.read is None and func in _HOST_READS:
            self.read = f"Tensor.{getattr(func, '__name__', func)}"
        return func(*args, **(kwargs or {}))


class _Attributes:
    """The attributes of a user's layers (less those lamina's classes define) as they
    were after a capture, by identity: `changed()` says whether one was set since (a
    callback setting a value the call reads), so that the graph, which holds the value
    the capture met, is captured again."""

    def __init__(self, objects):
        self._spaces = []
        for obj in objects:
            own = {n for cls in type(obj).__mro__ if not _foreign(cls) for n in vars(cls)}
            space = _Without(vars(obj), own)
            self._spaces.append((space, _identities(space)))

    def changed(self) -> bool:
        return any(_identities(space) != before for space, before in self._spaces)


def _foreign(obj) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return not module.startswith(("lamina.", "builtins", "torch", "numpy"))


class _PythonEffects:
    """What a user's layer could change in Python while its call is captured, noted
    before the capture: the layer's attributes, its classes' attributes (those written
    outside lamina) and the globals of the modules its methods come from, each as
    name -> identity of the value. `changed()` names the first that differs after the
    call: a counter, a flag, a cache, a global the call set, an item of a list, dict or
    set they hold (the items' identities, and the closures of the class's methods, are
    noted too). A replay would skip that Python, so such a call runs eagerly. What
    keeps those identities (a change deeper down, a print, a file written) is not seen:
    such a layer opts out (`capturable = False`, or `run_eagerly=True`)."""

    def __init__(self, objects):
        self._watched = []
        seen: set = set()
        for obj in objects:
            # The names lamina's own classes define are the layer machinery's to write
            # (`_passed_call`, the last signature a call took), not the user's.
            own = {n for cls in type(obj).__mro__ if not _foreign(cls) for n in vars(cls)}
            spaces = [("", _Without(vars(obj), own))]
            for cls in type(obj).__mro__:
                if _foreign(cls):
                    spaces.append((f"{cls.__qualname__}.", vars(cls)))
                    for value in vars(cls).values():
                        globals_ = getattr(value, "__globals__", None)
                        if globals_ is not None and _foreign(value):
                            spaces.append((f"{value.__module__}.", globals_))
                            cells = value.__closure__ or ()
                            names = value.__code__.co_freevars
                            spaces.append((f"{value.__qualname__}.", _Cells(names, cells)))
            for prefix, space in spaces:
                if id(space) in seen:
                    continue
                seen.add(id(space))  # (a `_Without` is new each time: never skipped)
                owner = "" if prefix else f"{getattr(obj, 'name', type(obj).__name__)}."
                self._watched.append((owner + prefix, space, _identities(space)))

    def changed(self) -> str | None:
        for prefix, space, before in self._watched:
            after = _identities(space)
            if after != before:
                names = sorted(
                    k for k in before.keys() | after.keys() if before.get(k) != after.get(k)
                )
                return f"changes Python state in a user's layer ({prefix}{names[0]})"
        return None


class _Without:
    """A namespace less some names (what `_identities` reads)."""

    def __init__(self, space, names):
        self.space, self.names = space, names

    def items(self):
        return [(k, v) for k, v in list(self.space.items()) if k not in self.names]


class _Cells:
    """A function's closure as a namespace (what `_identities` reads)."""

    def __init__(self, names, cells):
        self.pairs = list(zip(names, cells, strict=True))

    def items(self):
        out = []
        for name, cell in self.pairs:
            try:
                out.append((name, cell.cell_contents))
            except ValueError:  # an empty cell
                continue
        return out


_CONTAINERS = (list, dict, set, bytearray, collections.deque)


def _identities(space) -> dict:
    # A container's items as well, by identity (a counter in a list, an item appended,
    # a key added to a cache); a large one by its length only.
    return {name: (id(value), _contents(value)) for name, value in list(space.items())}


def _contents(value):
    if not isinstance(value, _CONTAINERS):
        return None
    if len(value) > 256:
        return len(value)
    if isinstance(value, dict):
        return tuple((id(k), id(v)) for k, v in list(value.items()))
    if isinstance(value, set):
        return frozenset(id(v) for v in value)
    return tuple(id(v) for v in list(value)) if not isinstance(value, bytearray) else bytes(value)


class Replay:
    """A read-only step `fn(state, data)` (predict's) run from a graph captured once per
    input signature, as JAX traces a step once and runs the compiled program after.

    The capture is an eager run of the step that also records, through a torch
    dispatch mode (`_Tape`), each aten operation it dispatches into an FX graph whose
    inputs are the variables' values and the data. Replaying the graph runs those
    operations and nothing else, skipping the layers' Python (a 784-32-32-10 MLP's
    one-sample step: ~60 us eager, ~20 us replayed, less than its `nn.Sequential`'s own
    call). Nothing is compiled: the kernels are the eager step's, so the outputs are
    bitwise the same. The first call with a signature runs eagerly without the tape, so
    shapes met once cost nothing; the second captures (an eager call, plus ~1 ms).

    `variables_for()` says which variables the step reads, or None when its code may do
    more than compute tensors (a `Lambda`, an overridden `predict_step`): then every
    call runs eagerly; its `watched()`, if it has one, names a user's layers, whose
    Python state the capture checks (`_PythonEffects`). Every call runs eagerly once a
    capture is refused; `off` says why: the step reads a variable it was not given,
    adds a loss (an activity regularizer), changes a user's layer's Python state, or
    does what the graph cannot repeat (see `_Tape`). What it assigns is an output of
    the graph, assigned after each replay. Graphs are keyed by the data's structure,
    shapes, dtypes and devices and by the model's structure version (a layer added or
    rebuilt), 32 at most.
    """

    def __init__(self, variables_for, name: str, differentiable: bool = False):
        self._variables_for = variables_for
        self.name = name
        # A forward pass that a train step differentiates (`Captured`): captured and
        # replayed with autograd recording (the train step's mode); not strict; a refused
        # capture is run again eagerly.
        self.differentiable = bool(differentiable)
        self.off: str | None = None
        self._graphs: dict = {}
        self._variables: list | None = None
        # Objects whose Python state a capture checks (`_PythonEffects`): a user's layers.
        self._watched = getattr(variables_for, "watched", lambda: ())
        self._guard: _Attributes | None = None  # their attributes since the last capture
        self._version = None
        self._lock = threading.Lock()

    @property
    def graph_count(self) -> int:
        """How many captured graphs are held (one per input signature)."""
        return len(self._graphs)

    def run(self, fn, state, data):
        if self.off is not None:
            return EAGER
        version = _structure_version()
        if version != self._version:
            # Asked again only when the model's structure changed.
            variables = self._variables_for()
            self._variables = None if variables is None else _with_global_seed(variables)
            self._version = version
        variables = self._variables
        if variables is None:
            return EAGER
        if type(data) in _REPLAY_INPUTS:  # one array: no tree to walk
            leaf = backend_core.convert_to_tensor(data)
            leaves, spec = [leaf], None
            key = (leaf.shape, leaf.dtype, leaf.device, version)
        elif type(data) is tuple and data and all(type(leaf) is torch.Tensor for leaf in data):
            # A train step's `(x, y)` or `(x, y, sample_weight)`: a flat tuple of tensors,
            # keyed without walking a tree (a tree spec hashes slowly); `_FLAT` stands
            # for its spec.
            leaves, spec = list(data), _FLAT
            key = (_FLAT, *((leaf.shape, leaf.dtype, leaf.device) for leaf in leaves), version)
        else:
            flat, spec = _pytree.tree_flatten(data)
            if not flat or not all(type(leaf) in _REPLAY_INPUTS for leaf in flat):
                return EAGER  # Python values, strings: not graph inputs
            leaves = [backend_core.convert_to_tensor(leaf) for leaf in flat]
            key = (spec, *((leaf.shape, leaf.dtype, leaf.device) for leaf in leaves), version)
        guard = self._guard
        if guard is not None and guard.changed():
            # A user's layer's attribute was set since the capture: capture again.
            self._graphs.clear()
            self._guard = None
        entry = self._graphs.get(key)
        if entry is None:
            with self._lock:  # one capture at a time (predicts from several threads)
                entry = self._graphs.get(key)
                if entry is None:
                    return self._capture(fn, state, spec, leaves, key, variables)
        forward, stores, assigned = entry
        if reads_are_plain() and not backend_core._meta[0]:
            # The stored values, read without the variable's property (~0.5 us each).
            out = forward(*[store["_param"] for store in stores], *leaves)
        else:
            out = forward(*[_read_value(v) for v in variables], *leaves)
        if assigned:
            out, values = out
            _assign(assigned, values)
        return out

    def lone_runner(self, x):
        """`run(x)` for later calls whose data is a NumPy array of `x`'s shape and dtype,
        once a graph for that signature is held: the graph called on the stored values
        with nothing else looked up (one-sample serving, where each microsecond shows).
        `run` returns None when the graph may no longer be what the step computes (the
        model's variables changed, a scope is open, the device moved, another
        signature): the caller then makes the ordinary call. None if no graph is held."""
        if (
            self.off is not None
            or self._guard is not None  # a user's layer: `run` checks its attributes
            or type(x) is not np.ndarray
            or x.dtype not in backend_core._SAME_DTYPES
            or self._variables is None
        ):
            return None
        version = self._version
        device = backend_core.get_device()
        shape, dtype = x.shape, x.dtype
        key = (shape, backend_core.to_torch_dtype(dtype.name), device, version)
        entry = self._graphs.get(key)
        if entry is None:
            return None
        forward, stores, assigned = entry
        if assigned:
            return None  # a step that assigns takes the ordinary call
        meta, get_device = backend_core._meta, backend_core.get_device

        def run(x):
            if (
                type(x) is not np.ndarray
                or x.shape != shape
                or x.dtype != dtype
                or _structure_version() != version
                or self.off is not None
                or meta[0]
                or not reads_are_plain()
                or get_device() != device
            ):
                return None
            # A fresh C-ordered copy, as `convert_to_tensor` makes (never the caller's memory).
            leaf = torch.from_numpy(np.array(x, order="C"))
            if leaf.device != device:
                leaf = leaf.to(device)
            return forward(*[store["_param"] for store in stores], leaf)

        return run

    def _capture(self, fn, state, spec, leaves, key, variables):
        """Run the step eagerly on the tape; keep its graph if it can be replayed."""
        values = [_read_value(v) for v in variables]
        graph = torch.fx.Graph()
        known: dict = {}
        for i, tensor in enumerate([*values, *leaves]):
            if id(tensor) in known:
                # Two inputs holding one tensor (tied values, data that is a weight):
                # the graph could not tell them apart once they part.
                self.off = "two of its inputs hold the same tensor"
                return fn(state, _unflatten(leaves, spec))
            known[id(tensor)] = (tensor, graph.placeholder(f"input_{i}"))
        data = _unflatten(leaves, spec)
        tape = _Tape(graph, known)
        watched = list(self._watched())
        effects = _PythonEffects(watched)
        custom_gradients = CUSTOM_GRADIENT_CALLS[0]
        with (
            # A differentiated step is not strict: a variable read outside `variables`
            # is a tensor the tape does not know, which refuses the capture, and the
            # step then runs eagerly as it would have.
            contextlib.nullcontext() if self.differentiable else strict_trace(self.name),
            StatelessScope(zip(variables, values, strict=True), collect_losses=True) as scope,
            _HostReads() as host,
            backend_random.recording_draws(),
            tape,
        ):
            out = fn(state, data)
        flat_out, out_spec = _pytree.tree_flatten(out)
        refused = tape.refused
        if refused is None and host.read is not None:
            refused = f"reads a tensor's value in Python ({host.read})"
        if refused is None and scope.losses:
            refused = "adds losses (an activity regularizer)"
        if refused is None and self.differentiable and CUSTOM_GRADIENT_CALLS[0] != custom_gradients:
            refused = "has a custom gradient (a quantized layer's), which the graph would not keep"
        if refused is None:
            refused = effects.changed()
        updates = scope.updates
        # A trainable variable assigned in a differentiated step (SpectralNormalization's
        # kernel): its backward pass reads the value the assignment would overwrite in
        # place, so the step runs as the eager step does, assigning as it goes.
        assigns_trainable = self.differentiable and any(v.trainable for v, _ in updates)
        if refused is None and assigns_trainable:
            refused = "assigns a trainable variable"
        if refused is None:
            # What the call computed and what it assigned (seed states, moving
            # statistics, metric totals, an RNN's states): the graph returns both, and
            # each replay assigns the latter after the graph has run.
            nodes = []
            constant_storages = {_storage(t) for t in tape.constants.values()}
            for leaf in [*flat_out, *(value for _, value in updates)]:
                if leaf is None:
                    nodes.append(None)
                    continue
                found = known.get(id(leaf)) if isinstance(leaf, torch.Tensor) else None
                if found is None or found[0] is not leaf:
                    refused = "returns a value the call did not compute from its inputs"
                    break
                node = found[1]
                if len(nodes) < len(flat_out) and _storage(leaf) in constant_storages:
                    # A constant of the graph (or a view of one): each replay returns a
                    # fresh copy, as each eager call made a fresh tensor (the caller may
                    # change it in place).
                    node = graph.call_function(torch.ops.aten.clone.default, (node,))
                nodes.append(node)
        if refused is not None:
            self.off = f"the step {refused}"
            if self.differentiable and (scope.losses or assigns_trainable):
                # The captured run kept its added losses in the scope, and its loss
                # lacks them: run the step again, eagerly, as if nothing had been
                # captured (a step that adds losses is lamina's own code, which does
                # nothing else a second run would repeat).
                return fn(state, data)
            # Otherwise the captured run was the eager step: keep what it computed and
            # assign what it assigned (a user's code is not run twice).
            for variable, value in updates:
                variable.assign(value)  # what the eager step would have done
            return out
        # The graph returns the step's own structure: nothing to rebuild per call.
        result = _pytree.tree_unflatten(nodes[: len(flat_out)], out_spec)
        graph.output((result, nodes[len(flat_out) :]) if updates else result)
        _fold_permute_pairs(graph)
        graph.eliminate_dead_code()
        if len(self._graphs) >= 32:
            self._graphs.clear()
        # The graph's generated `forward`, called directly: `GraphModule.__call__` adds
        # a module call's hook machinery (~3 us) for nothing.
        root = torch.nn.Module()
        for attribute, tensor in tape.constants.items():
            setattr(root, attribute, tensor)
        module = torch.fx.GraphModule(root, graph)
        assigned = [variable for variable, _ in updates]
        forward = _direct_forward(module, graph)
        self._graphs[key] = (forward, [vars(v) for v in variables], assigned)
        if watched:
            self._guard = _Attributes(watched)
        for variable, value in updates:
            variable.assign(value)
        return out
