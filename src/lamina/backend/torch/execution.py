"""How a step runs on torch: `Program`, a step run eagerly, once per call.

The same seam as the JAX engine's (`backend/jax/execution.py`): the steps of
`fit`/`evaluate`/`predict` (`step_programs`: the model's stateful steps on the live
variables, `steps_per_execution` of them as a Python loop), the `model(x)` fast path and
`backend.function` all run through a `Program`. Torch has no tracing, so `fn(*args)` runs
eagerly on every call; a "trace" is counted for each new input signature (shapes, dtypes
and static arguments), so `trace_count` and the retrace warning mean what they mean on
JAX. `donate_argnums` is ignored (eager torch has no buffer donation).

Steps run under `torch.no_grad()` unless made with `gradients=True` (a train step). While
a compiled step runs its stateless scopes are strict, as while JAX traces one: a
variable outside the state it was given is an error that names it.

`compile(jit_compile=True)` makes the programs with `jit=model`: the step stays eager and
the model's `call` in it runs as a `torch.compile`d graph (`_CompiledCall`), captured
once per input signature. Measured on a 2-core CPU with
`bench/torch_jit.py`: the first call compiles for ~20 s with inductor, and each later
`fit`/`predict` call of the tiny and large MLPs runs ~1.5x slower than eager (the
compiled call's runtime costs ~100 us more than these small matrix products save).
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import warnings
import weakref

import numpy as np
import torch
from torch.utils import _pytree

from lamina import tree
from lamina.backend.common import execution as _common
from lamina.backend.common import seed_state
from lamina.backend.common.execution import TraceLog
from lamina.backend.common.variables import StatelessScope, relaxed, strict_trace
from lamina.backend.common.variables import Variable as _BaseVariable
from lamina.backend.common.variables import structure_version as _structure_version
from lamina.backend.torch import core as backend_core
from lamina.backend.torch import distribution as torch_distribution
from lamina.backend.torch import numpy as torch_numpy
from lamina.backend.torch import replay as replay_lib
from lamina.backend.torch.core import block_until_ready
from lamina.backend.torch.replay import Replay

# Steps run on the live variables (`train_step(self, data)`), as in Keras's torch
# backend: trainable variables are autograd leaves, updated in place.
STATEFUL = True

JIT_BY_DEFAULT = False  # steps run eagerly; `jit_compile=True` asks for `torch.compile`
# int64 data reaches the steps as int64, as in Keras 3 on torch (torch's losses want it).
KEEPS_INT64_DATA = True


class Program:
    """A step `fn(*args)` run eagerly; a new input signature counts as a trace.

    Args:
        fn: a function of tensors (nested lists/tuples/dicts of them).
        name: what the program is, for messages (`"train step of 'mlp'"`).
        donate_argnums: accepted for the JAX engine's sake and ignored.
        static_argnums: positional arguments that are Python values, part of the
            signature (a slice size).
        compiled: False runs `fn` as it is, for debugging (`run_eagerly=True`): no
            signature bookkeeping and no strict scope.
        max_signatures: how many signatures are remembered before the record is
            emptied (so the count matches the JAX engine's cache policy).
        gradients: whether the step differentiates; otherwise it runs under
            `torch.no_grad()`.
        live: the step reads and updates the live variables by design (the stateful
            `train_step(self, data)`), so the strict check of pure steps does not apply.
        jit: None, or the layer (the model) whose `call` the step reaches: while the
            program runs, that call runs as a `torch.compile`d graph of its tensor
            operations (`compile(jit_compile=True)`; see `_CompiledCall`). Ignored with
            `compiled=False`.
        replay: None, or for a read-only step `fn(state, data)` (predict's) a function
            that returns the variables the step reads (None: run eagerly): from the
            second call with an input signature on, the step runs from a graph captured
            for that signature (`replay.py`). Ignored with `compiled=False`,
            `gradients=True` or `jit`.
        compiler_options: for a compiler of whole steps (XLA's, on JAX): refused here.
    """

    def __init__(
        self,
        fn,
        name: str,
        donate_argnums=(),
        static_argnums=(),
        compiled: bool = True,
        max_signatures: int = 32,
        gradients: bool = False,
        live: bool = False,
        jit=None,
        replay=None,
        compiler_options=None,
    ):
        if compiler_options:
            raise ValueError(
                f"Program {name!r}: torch runs no step compiled whole, so it "
                f"takes no compiler_options; received {compiler_options!r}."
            )
        self.compiler_options = None
        self.fn = fn
        self.live = bool(live)
        self.jit = _compiled_call_for(jit) if jit is not None and compiled else None
        self.replay = (
            Replay(replay, name)
            if replay is not None and compiled and not gradients and self.jit is None
            else None
        )
        self.name = name
        self.compiled = bool(compiled)
        self.max_signatures = int(max_signatures)
        self.gradients = bool(gradients)
        self._log = TraceLog(name)
        self._static = tuple(static_argnums)
        self._signatures: set = set()
        self._last: list | None = None
        # Calls from several threads: the signature record and count stay whole.
        self._lock = threading.Lock()

    @property
    def trace_count(self) -> int:
        """How many new input signatures the program met (JAX would trace each)."""
        return self._log.count

    def _note_signature(self, args) -> bool:
        key: list = []
        for i, arg in enumerate(args):
            if i in self._static:
                key.append(("static", arg))
            else:
                _signature(arg, key)
        # Most calls repeat the previous signature: a list comparison, no hashing.
        if key == self._last:
            return False
        with self._lock:
            self._last = key
            frozen = tuple(key)
            if frozen in self._signatures:
                return False
            if len(self._signatures) >= self.max_signatures:
                self._signatures.clear()
            self._signatures.add(frozen)
            self._log.record([a for i, a in enumerate(args) if i not in self._static])
        return True

    def _run(self, args):
        if self.live or not self.compiled:
            # A live step draws from the global seed state itself, as eager code does.
            return self._run_step(args)
        # A pure step carries the global seed state as JAX's programs do (see
        # `backend.common.seed_state`): its strict scope admits no other variable.
        state = seed_state.variable()
        with seed_state.carried(state, seed_state.read(state)) as carried:
            out = self._run_step(args)
        drawn = carried.drawn()
        if drawn is not None:
            seed_state.write(state, drawn)
        return out

    def _run_step(self, args):
        new = self._note_signature(args) if self.compiled else True
        # Autograd mode set and restored by hand: `with torch.no_grad()` costs ~1.5 us,
        # which a one-sample predict shows.
        before = torch.is_grad_enabled()
        torch._C._set_grad_enabled(self.gradients)
        try:
            if not self.compiled:
                return self.fn(*args)
            if self.replay is not None and not new:
                # A signature met before: capture it (once) and replay. The first call
                # with a signature runs eagerly, so one-off shapes cost no capture.
                out = self.replay.run(self.fn, *args)
                if out is not replay_lib.EAGER:
                    return out
            if self.jit is not None:
                with self.jit, relaxed(keep_scopes=True) if self.live else strict_trace(self.name):
                    return self.fn(*args)
            with relaxed(keep_scopes=True) if self.live else strict_trace(self.name):
                return self.fn(*args)
        finally:
            torch._C._set_grad_enabled(before)

    def __call__(self, *args):
        if _common._ACTIVE:
            return self._profiled(args)
        return self._run(args)

    def lone_runner(self, x):
        """`run(state, x)`: `self(state, x)` for NumPy arrays of `x`'s shape and dtype,
        with less looked up per call (one-sample serving); `run` returns None when it
        cannot take that path now (the caller makes the ordinary call). None without a
        replayed step (`replay=`) holding a graph for this signature."""
        if self.replay is None or not self.compiled or self.gradients:
            return None
        run = self.replay.lone_runner(x)
        if run is None:
            return None
        active, is_enabled, set_enabled = (
            _common._ACTIVE,
            torch.is_grad_enabled,
            torch._C._set_grad_enabled,
        )

        def runner(state, x):
            if active:
                return None  # profiled calls are timed and counted by `__call__`
            before = is_enabled()
            set_enabled(False)
            try:
                return run(x)
            finally:
                set_enabled(before)

        return runner

    def _profiled(self, args):
        # Waits for the results (CUDA) so that the time is the device's real work.
        before = self._log.count
        start = time.perf_counter()
        with torch.profiler.record_function(self.name):
            out = block_until_ready(self._run(args))
        _common.record_call(self.name, time.perf_counter() - start, self._log.count != before)
        return out

    def __repr__(self) -> str:
        return f"<Program {self.name}: traced {self.trace_count} time(s)>"


_PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)


def _signature(x, out: list) -> None:
    """Append the signature of `x` (shapes and dtypes of its leaves) to `out`."""
    if type(x) is np.ndarray:  # a batch: the common case first
        out.append(x.shape)
        out.append(x.dtype)
    elif isinstance(x, torch.Tensor):
        out.append(x.shape)
        out.append(x.dtype)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _signature(v, out)
    elif isinstance(x, dict):
        for k in sorted(x, key=str):
            out.append(k)
            _signature(x[k], out)
    elif hasattr(x, "shape") and hasattr(x, "dtype"):
        out.append(tuple(x.shape))
        out.append(x.dtype)  # NumPy dtypes hash and compare as they are, without `str`
    else:
        # Python scalars become weakly typed arguments under jit: their type, not their
        # value, is part of the signature.
        out.append(type(x))


def gradients(loss, variables):
    """Gradients of the scalar `loss` with respect to `variables`, detached.

    The variables' values must be autograd leaves that `loss` was computed from.
    """
    values = [v.value if isinstance(v, _BaseVariable) else v for v in variables]
    missing = [
        getattr(v, "path", repr(v))
        for v, value in zip(variables, values, strict=True)
        if not (isinstance(value, torch.Tensor) and value.requires_grad)
    ]
    if missing:
        raise ValueError(
            f"backend.execution.gradients: variables {missing} do not record gradients "
            "(their values are plain tensors, not autograd leaves), so the loss does not "
            "remember how it depends on them. Differentiate a function of the values "
            "with backend.value_and_grad(fn) instead (see Model.train_step)."
        )
    if not (isinstance(loss, torch.Tensor) and loss.requires_grad):
        raise ValueError(
            "The loss is not computed from any of the variables being trained (it records "
            "no gradient), so training would not change them. Check that the loss is "
            "computed from the model's outputs (or from losses added on its layers), and "
            "that the layers it goes through are trainable."
        )
    # In a data-parallel job, averaging starts in the backward pass, DDP's way.
    reduction = torch_distribution.reduce_in_backward(values)
    with torch.enable_grad(), reduction:
        grads = torch.autograd.grad(loss, values, allow_unused=True)
    # Without `create_graph` the gradients record no history: no `detach` (an alias
    # made per variable and step) is needed.
    grads = [
        torch.zeros_like(value) if g is None else g.detach() if g.requires_grad else g
        for value, g in zip(values, grads, strict=True)
    ]
    return reduction.finish(values, grads)


def no_grad():
    return torch.no_grad()


def grad(fn):
    """The gradient of the scalar `fn(primals)` with respect to `primals` (a tensor, or
    a list or tuple of tensors), itself differentiable while autograd records.

    A primal that records gradients already (computed from trained variables, or a
    variable's own tensor) is differentiated as it is, so what flows into it flows into
    the gradient; any other gets a fresh leaf. With autograd recording outside (a train
    step), `create_graph` keeps the gradient's own history for that outer derivative.
    """

    def gradient(primals):
        flat = tree.flatten(primals)
        leaves = [_grad_input(x) for x in flat]
        outer = torch.is_grad_enabled()
        with torch.enable_grad():
            value = fn(tree.pack_sequence_as(primals, leaves))
            value = backend_core.convert_to_tensor(value)
            if value.ndim != 0:
                raise ValueError(
                    f"grad needs `fn` to return a scalar; it returned shape {tuple(value.shape)}."
                )
            wrt = [x for x in leaves if x.requires_grad]
            found = (
                torch.autograd.grad(value, wrt, create_graph=outer, allow_unused=True)
                if wrt and value.requires_grad
                else [None] * len(wrt)
            )
        found = iter(found)
        grads = []
        for x in leaves:
            g = next(found) if x.requires_grad else None
            grads.append(torch.zeros_like(x) if g is None else g if outer else g.detach())
        return tree.pack_sequence_as(primals, grads)

    return gradient


def _grad_input(x):
    x = backend_core.convert_to_tensor(x)
    if x.requires_grad or not (x.is_floating_point() or x.is_complex()):
        return x
    return x.detach().requires_grad_(True)


def step_form(pure, live):
    """Of the two ways a model's steps are written, the one this engine runs: `live`.

    Steps here run on the live variables: autograd records the loss they compute and
    the optimizer updates the variables in place.
    """
    return live


def program(fn, name: str, **kwargs) -> Program:
    """Make the `Program` that runs the step `fn` (see its arguments)."""
    return Program(fn, name, **kwargs)


class Captured:
    """`fn(data)`, a forward pass that a stateful train step then differentiates, run
    from a graph of its aten operations captured once per input signature.

    The capture is `Replay`'s (`backend/torch/replay.py`), made under autograd: the
    replayed operations run on the variables' own tensors, so autograd records the nodes
    the eager pass would and `loss.backward()` (or `gradients`) gives the same gradients,
    bitwise on the CPU, without the layers' and the loss's Python around the kernels (a
    784-32-32-10 MLP's forward pass and sparse cross-entropy on a batch of 32: ~160 us
    eager, ~95 us replayed, ~75 us for plain torch). `variables_for()` names the
    variables `fn` reads, or None when `fn` may do more than compute tensors: then, and
    once a capture is refused (an added loss, a value read in Python, random numbers
    drawn outside `lamina.random`, a user's layer changing Python state; `off` says
    which), `fn` runs eagerly. Random draws and assignments (Dropout, BatchNormalization's
    moving statistics) are carried through the graph. `graph_count` counts the graphs.
    """

    def __init__(self, fn, name: str, variables_for):
        self.fn = fn
        self._replay = Replay(variables_for, name, differentiable=True)
        self._step = lambda state, data: fn(data)

    @property
    def off(self) -> str | None:
        return self._replay.off

    @property
    def graph_count(self) -> int:
        return self._replay.graph_count

    def __call__(self, data):
        if self._replay.off is None and not _common._ACTIVE:
            out = self._replay.run(self._step, None, data)
            if out is not replay_lib.EAGER:
                return out
        return self.fn(data)


def captured(fn, name: str, variables_for) -> Captured:
    """`fn(data)` run from a graph of its operations captured once per input signature
    (see `Captured`)."""
    return Captured(fn, name, variables_for)


# The steps of fit / evaluate / predict --------------------------------------------------
def _tensors(data):
    convert = backend_core.convert_data
    if type(data) is np.ndarray or backend_core.is_tensor(data):
        return convert(data)  # a predict batch of one array: no tree walk
    if type(data) is tuple and all(type(a) is np.ndarray or a is None for a in data):
        # A train step's `(x, y[, sample_weight])` of arrays: no tree walk either.
        return tuple(None if a is None else convert(a) for a in data)
    return tree.map_structure(lambda a: None if a is None else convert(a), data)


def _row(chunk, i):
    return tree.map_structure(lambda a: None if a is None else a[i], chunk)


def _take_rows(data, rows):
    """The batch structure `data` with each leaf's rows `rows` gathered."""
    leaves = [None if a is None else torch_numpy.take(a, rows, axis=0) for a in tree.flatten(data)]
    return tree.pack_sequence_as(data, leaves)


def step_programs(model, kind: str, replay=None) -> dict:
    """The programs `fit` (`kind="train"`), `evaluate` (`"test"`) or `predict`
    (`"predict"`) run, by form: the model's stateful steps on the live variables.

    The steps are looked up on the model at each call, so a subclass's override is what
    runs: `model.train_step(data) -> logs` (gradients and the optimizer update in place),
    `model.test_step(data) -> logs`, `model.predict_step(data) -> outputs`. The forms
    and their arguments are the JAX engine's (see its `step_programs`); the state
    arguments are passed through untouched (None: the variables are the state), and
    `"many"` forms run their batches as a Python loop (the last batch's logs are
    returned). `model.run_eagerly` runs them without the programs' bookkeeping;
    `model.jit_compile is True` runs the model's `call` inside them as a
    `torch.compile`d graph (see `Program`'s `jit`).

    Args:
        replay: for `"predict"`, a function naming the variables the model's predict
            step reads when it may be captured once per input signature and replayed,
            or returning None when it must run eagerly (see `Program`'s `replay`).
    """
    compiled = not model.run_eagerly
    jit = model if getattr(model, "jit_compile", None) is True else None

    def program(fn, form, **kwargs):
        # The steps read and update the live variables by design: no strict scope.
        return Program(
            fn,
            f"{kind} step ({form}) of model {model.name!r}",
            compiled=compiled,
            live=True,
            jit=jit,
            **kwargs,
        )

    if kind == "train":
        forms = _train_forms(model)
        return {form: program(fn, form, gradients=True) for form, fn in forms.items()}
    if kind == "test":
        return {form: program(fn, form) for form, fn in _test_forms(model)}
    if kind == "predict":
        one, many = _predict_forms(model)
        return {"one": program(one, "one", replay=replay), "many": program(many, "many")}
    raise ValueError(
        f"step_programs: kind must be 'train', 'test' or 'predict'; received {kind!r}."
    )


def _train_forms(model) -> dict:
    def one(state, data):
        return state, model.train_step(_tensors(data))

    def many(state, chunk):
        chunk = _tensors(chunk)
        logs = None
        for i in range(len(tree.flatten(chunk)[0])):
            logs = model.train_step(_row(chunk, i))
        return state, logs

    def one_from(state, data, start, size):
        start = int(start)
        return state, model.train_step(_row(data, slice(start, start + size)))

    def many_from(state, data, starts, size):
        logs = None
        for start in starts.tolist():
            logs = model.train_step(_row(data, slice(start, start + size)))
        return state, logs

    def one_at(state, data, rows):
        return state, model.train_step(_take_rows(data, rows))

    def many_at(state, data, rows):
        logs = None
        for batch_rows in rows:
            logs = model.train_step(_take_rows(data, batch_rows))
        return state, logs

    return {
        "one": one,
        "many": many,
        "one_from": one_from,
        "many_from": many_from,
        "one_at": one_at,
        "many_at": many_at,
    }


def _test_forms(model):
    def one(weights, metrics_values, data):
        return metrics_values, model.test_step(_tensors(data))

    def many(weights, metrics_values, chunk):
        chunk, logs = _tensors(chunk), None
        for i in range(len(tree.flatten(chunk)[0])):
            logs = model.test_step(_row(chunk, i))
        return metrics_values, logs

    return (("one", one), ("many", many))


def _predict_forms(model):
    def one(weights, data):
        return model.predict_step(_tensors(data)), None

    def many(weights, chunk):
        chunk = _tensors(chunk)
        outs = [model.predict_step(_row(chunk, i)) for i in range(len(tree.flatten(chunk)[0]))]
        return tree.map_structure(lambda *v: torch_numpy.stack(v), *outs), None

    return one, many


@contextlib.contextmanager
def profile_trace(log_dir):
    """Run `torch.profiler` over the block; its trace lands in `log_dir/plugins/profile/<run>/`.

    The trace is a Chrome trace, `<host>.pt.trace.json` (what TensorBoard's PyTorch
    profiler plugin reads; also opens in Perfetto or `chrome://tracing`), in a run
    folder named by the time, the layout `jax.profiler` writes.
    """
    activities = [torch.profiler.ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    run = os.path.join(os.fspath(log_dir), "plugins", "profile", time.strftime("%Y_%m_%d_%H_%M_%S"))
    with torch.profiler.profile(activities=activities) as profiler:
        yield
    os.makedirs(run, exist_ok=True)
    profiler.export_chrome_trace(os.path.join(run, f"{socket.gethostname()}.pt.trace.json"))


# jit_compile=True: the model's call as a torch.compile'd graph ---------------------------
# Which `torch.compile` backend compiles the captured calls: "inductor" (torch's default,
# generated kernels) unless the environment names another ("eager" or "aot_eager" check
# the capture without code generation, in seconds instead of ~10 s per graph on a CPU).
_COMPILE_BACKEND_VARIABLE = "LAMINA_TORCH_COMPILE_BACKEND"

# The compiled call of each model, shared by its train, test and predict programs.
_COMPILED_CALLS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_COMPILED_CALLS_LOCK = threading.Lock()


def _compiled_call_for(owner) -> _CompiledCall:
    with _COMPILED_CALLS_LOCK:
        compiled = _COMPILED_CALLS.get(owner)
        if compiled is None:
            compiled = _COMPILED_CALLS[owner] = _CompiledCall(owner)
        return compiled


def _stored_value(variable):
    """The variable's value as stored (or as an open stateless scope maps it), not cast
    by a mixed-precision layer's autocast scope: the graph casts it itself, so that the
    graph's inputs are the autograd leaves."""
    return _read_value(variable)


_read_value = backend_core.Variable.value.fget


def _describe(error: BaseException) -> str:
    """`Type: first line` of the error, and of the error it wraps (a compiler's own)."""
    parts = []
    while error is not None and len(parts) < 3:
        first_line = (str(error).strip().split("\n", 1) or [""])[0]
        parts.append(
            f"{type(error).__name__}: {first_line}" if first_line else type(error).__name__
        )
        error = getattr(error, "inner_exception", None) or error.__cause__
    return " <- ".join(parts)


class _CompiledCall:
    """`owner.call` (a layer's, usually the model's) run as a `torch.compile`d graph.

    Dynamo cannot trace lamina's Python machinery well (a whole step graph-breaks at
    it and recompiles on the step counter), so the call is captured first: for each
    input signature (the tree, shapes and dtypes of the input tensors and `training`)
    `make_fx` runs the call once on fake tensors, inside a stateless scope that maps
    each of the owner's variables to a graph input. What remains is a pure graph of
    tensor operations, `(variable values..., inputs...) -> (outputs..., assigned
    values...)`, which `torch.compile` compiles whole (`fullgraph=True`, static
    shapes). Calling it with the live variables' values keeps autograd working: the
    backward of the compiled graph is compiled too. The new values the call assigns
    (a BatchNormalization's moving statistics) come back as outputs and are assigned
    after the call, eagerly. Random draws (Dropout, GaussianNoise, augmentation
    layers) are captured too: each is one opaque node of the graph (the custom op
    `lamina::random_draw`, see `backend/torch/random.py`) whose seed input the graph
    computes from the layer's `SeedGenerator` state, whose advance is an assigned
    value like any other; it runs the eager draw, so the masks and the noise are bit
    for bit those of the eager call with the same seeds.

    While a program made with `jit=owner` runs, the compiled call is installed as the
    owner's instance attribute `call`, so `owner(x)` anywhere in the step reaches it;
    calls it cannot take (several positional arguments, a mask, non-tensor inputs) go
    to the original `call`. If the capture or the compile fails (the call reads a
    tensor's value in Python, touches a variable outside the owner, differentiates
    a random draw with respect to its parameters), the call says why in one warning
    and runs eagerly from then on.
    """

    def __init__(self, owner):
        # A weak reference: the registry's value must not keep its key (the model) alive.
        self._owner = weakref.ref(owner)
        self._call = type(owner).call
        self.name = getattr(owner, "name", type(owner).__name__)
        self.backend = os.environ.get(_COMPILE_BACKEND_VARIABLE, "inductor")
        self.failed: str | None = None
        self._log = TraceLog(f"torch.compile of the call of {self.name!r}")
        self._graphs: dict = {}
        self._variables: list = []
        self._version = None
        self._depth = 0
        self._lock = threading.Lock()
        self._capture_lock = threading.Lock()

    @property
    def owner(self):
        return self._owner()

    def original(self, *args, **kwargs):
        """The owner's own `call`, run eagerly."""
        return self._call(self.owner, *args, **kwargs)

    @property
    def capture_count(self) -> int:
        """How many graphs were captured (one per input signature and `training`)."""
        return self._log.count

    # Installed around a program's run --------------------------------------------------
    def __enter__(self):
        with self._lock:
            self._depth += 1
            if self._depth == 1 and "call" not in self.owner.__dict__:
                self.owner.__dict__["call"] = self
        return self

    def __exit__(self, *exc):
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self.owner.__dict__.get("call") is self:
                del self.owner.__dict__["call"]
        return False

    # The call --------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if self.failed is not None or len(args) != 1:
            return self.original(*args, **kwargs)
        training = None
        for key, value in kwargs.items():
            if key == "training":
                training = value
            elif value is not None:
                return self.original(*args, **kwargs)  # a mask: not captured
        leaves, spec = _pytree.tree_flatten(args[0])
        if not leaves or not all(
            type(leaf) in _PLAIN_TENSORS and not leaf.is_meta for leaf in leaves
        ):
            return self.original(*args, **kwargs)  # symbolic, abstract or host inputs
        version = _structure_version()
        if version != self._version:
            # The variables are looked up again only when the model's structure changed.
            # With the global seed state, which a random op given no seed draws from.
            found = {id(v): v for v in self.owner.variables}
            state = seed_state.variable()
            if state is not None:
                found.setdefault(id(state), state)
            self._variables = list(found.values())
            self._version = version
        variables = self._variables
        key = (spec, tuple((leaf.shape, leaf.dtype) for leaf in leaves), training, version)
        graph = self._graphs.get(key)
        if graph is None:
            with self._capture_lock:  # one capture at a time (predict beside fit)
                graph = self._graphs.get(key) or self._capture(variables, spec, leaves, kwargs, key)
            if isinstance(graph, str):
                # Reported only once the eager call has worked: an error in the model
                # itself surfaces as it is, without a word about compiling.
                out = self.original(*args, **kwargs)
                self._fail(graph)
                return out
        compiled, out_spec, assigned, losses, checked = graph
        values = [_stored_value(v) for v in variables]
        if checked:
            flat = compiled(*values, *leaves)
        else:
            # The first run compiles: a compiler failure is reported once and the call
            # runs eagerly (the graph is pure, so nothing ran twice).
            try:
                flat = compiled(*values, *leaves)
            except Exception as error:  # noqa: BLE001 - any compiler failure
                self._fail(f"torch.compile failed ({_describe(error)})")
                return self.original(*args, **kwargs)
            self._graphs[key] = (compiled, out_spec, assigned, losses, True)
        n = len(flat) - len(assigned) - losses
        for variable, value in zip(assigned, flat[n : n + len(assigned)], strict=True):
            variable.assign(value)
        for loss in flat[n + len(assigned) :]:
            self.owner.add_loss(loss)  # `add_loss` and activity regularizers in the call
        return _pytree.tree_unflatten(list(flat[:n]), out_spec)

    def _capture(self, variables, spec, leaves, kwargs, key):
        def run(inputs):
            return self.original(_pytree.tree_unflatten(inputs, spec), **kwargs)

        try:
            graph, out_spec, assigned, losses = _capture_graph(
                run, variables, leaves, self._log.name
            )
        except Exception as error:  # noqa: BLE001 - reported, then the call runs eagerly
            reason = f"capturing its graph failed ({_describe(error)})"
            if "data-dependent" in reason:
                reason += (
                    "; the call reads a tensor's value in Python (`float(x)`, `.item()`, "
                    "`int(x)`, or a slice or shape taken from a tensor)"
                )
            return reason
        self._log.record(leaves)
        if len(self._graphs) >= 32:
            self._graphs.clear()
        compiled = torch.compile(graph, backend=self.backend, dynamic=False, fullgraph=True)
        entry = (compiled, out_spec, assigned, losses, False)
        self._graphs[key] = entry
        return entry

    def _fail(self, reason: str) -> None:
        if self.failed is not None:
            return
        self.failed = reason
        warnings.warn(
            f"compile(jit_compile=True): the call of model {self.name!r} cannot be "
            f"compiled with torch.compile: {reason}. It runs eagerly from now on (the "
            "results are the same). Pass jit_compile='auto' to run eagerly without this "
            "warning.",
            UserWarning,
            stacklevel=3,
        )


def _capture_graph(run, variables, leaves, name):
    """`run(inputs)` (a list of input tensors in, any tree of tensors out) captured with
    `make_fx` on fake tensors, inside a strict stateless scope that maps each of
    `variables` to a graph input: a pure graph `(variable values..., inputs...) ->
    (outputs..., assigned values..., added losses...)`.

    Returns `(graph, out_spec, assigned variables, number of losses)`; raises whatever
    the capture raised (a variable outside `variables`, a tensor's value read in
    Python, outputs that are not tensors).
    """
    count = len(variables)
    found: dict = {}

    def pure(*flat):
        values, inputs = flat[:count], flat[count:]
        with (
            strict_trace(name),
            StatelessScope(zip(variables, values, strict=True), collect_losses=True) as scope,
        ):
            out = run(list(inputs))
            updates = scope.updates
        outputs, found["spec"] = _pytree.tree_flatten(out)
        losses = [backend_core.convert_to_tensor(loss) for loss in scope.losses]
        if not all(isinstance(o, torch.Tensor) for o in outputs):
            raise TypeError("the call returned values that are not tensors")
        found["assigned"] = [variable for variable, _ in updates]
        found["losses"] = len(losses)
        return (*outputs, *(value for _, value in updates), *losses)

    # Imported here: it costs import time, and only captures need it.
    from torch.fx.experimental.proxy_tensor import make_fx

    with torch.no_grad():
        graph = make_fx(pure, tracing_mode="fake")(*[_stored_value(v) for v in variables], *leaves)
    return graph, found["spec"], found["assigned"], found["losses"]
