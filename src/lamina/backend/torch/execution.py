"""How a step runs on torch: `Program`, a step run eagerly, once per call.

The same seam as the JAX engine's (`backend/jax/execution.py`): the train, test and
predict steps of `fit`/`evaluate`/`predict`, the `model(x)` fast path and
`backend.function` all run through a `Program`. Torch has no tracing, so `fn(*args)`
runs eagerly on every call; a "trace" is counted for each new input signature (shapes,
dtypes and static arguments), so `trace_count` and the retrace warning mean what they
mean on JAX. `donate_argnums` is accepted and ignored (eager torch has no buffer
donation; the old state is simply dropped).

Steps run under `torch.no_grad()` unless the program is made with `gradients=True`
(a train step): autograd records only then. While a compiled step runs its stateless
scopes are strict, as while JAX traces one: a variable outside the state it was given
is an error that names it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time

import torch

from lamina.backend.common import execution as _common
from lamina.backend.common.execution import TraceLog
from lamina.backend.common.variables import Variable as _BaseVariable
from lamina.backend.common.variables import strict_trace
from lamina.backend.torch.core import block_until_ready

# Steps run on the live variables (`train_step(self, data)`), as in Keras's torch
# backend: trainable variables are autograd leaves, updated in place.
STATEFUL = True


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
    ):
        self.fn = fn
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
        grad_mode = torch.enable_grad() if self.gradients else torch.no_grad()
        if not self.compiled:
            with grad_mode:
                return self.fn(*args)
        self._note_signature(args)
        with grad_mode, strict_trace(self.name):
            return self.fn(*args)

    def __call__(self, *args):
        if _common._ACTIVE:
            return self._profiled(args)
        return self._run(args)

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


def _signature(x, out: list) -> None:
    """Append the signature of `x` (shapes and dtypes of its leaves) to `out`."""
    if isinstance(x, torch.Tensor):
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
    with torch.enable_grad():
        grads = torch.autograd.grad(loss, values, allow_unused=True)
    return [
        torch.zeros_like(value) if g is None else g.detach()
        for value, g in zip(values, grads, strict=True)
    ]


def no_grad():
    return torch.no_grad()


def program(fn, name: str, **kwargs) -> Program:
    """Make the `Program` that runs the step `fn` (see its arguments)."""
    return Program(fn, name, **kwargs)


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
