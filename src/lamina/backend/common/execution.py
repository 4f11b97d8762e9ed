"""What every engine's execution module shares: trace bookkeeping and its warning.

A *program* is a pure step compiled by the engine. Each time the engine traces it
again (a new input signature: another batch size, sequence length or dtype) the
compile cost is paid again; a program that keeps retracing (a "retrace storm") turns
a 4 s compile into 30 s without any error. Programs count their traces and warn,
naming the signatures, once a program has been traced more than `RETRACE_WARNING_AT`
times.
"""

from __future__ import annotations

import os
import sys
import warnings

# A program may legitimately be traced a few times (a full batch, the last partial
# batch, a chunk of k batches and its remainder); past this it is probably a storm.
RETRACE_WARNING_AT = 5


class RetraceWarning(UserWarning):
    """A compiled program was traced again and again for new input signatures.

    >>> import warnings
    >>> from lamina import backend
    >>> issubclass(backend.RetraceWarning, UserWarning)
    True
    >>> with warnings.catch_warnings():  # make a retrace storm fail, e.g. in a test
    ...     warnings.simplefilter("error", backend.RetraceWarning)
    ...     try:
    ...         warnings.warn("step compiled 6 times", backend.RetraceWarning)
    ...     except backend.RetraceWarning as error:
    ...         print("caught:", error)
    caught: step compiled 6 times
    """


def _leaf_signatures(args) -> list[str]:
    """`shape dtype` of every array leaf of `args`, in order."""
    out: list[str] = []

    def visit(x):
        if isinstance(x, dict):
            for k in sorted(x, key=str):
                visit(x[k])
        elif isinstance(x, (list, tuple)):
            for v in x:
                visit(v)
        elif hasattr(x, "shape") and hasattr(x, "dtype"):
            out.append(f"{tuple(x.shape)} {x.dtype}")

    visit(args)
    return out


def _differences(signatures: list[list[str]]) -> str:
    """The recent signatures, each shown by the leaves that differ among them (the
    weights a step also takes stay the same, and would hide the batch that changed)."""
    if len({len(s) for s in signatures}) == 1:
        changed = [i for i in range(len(signatures[0])) if len({s[i] for s in signatures}) > 1]
        if changed:
            return "; ".join("[" + ", ".join(s[i] for i in changed[:6]) + "]" for s in signatures)
    return "; ".join("[" + ", ".join(s[:6]) + "]" for s in signatures)


def _internal_folders() -> tuple[str, ...]:
    """lamina's package folder, the engines' and the standard library's."""
    folders = [os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))]
    folders.append(os.path.dirname(os.path.abspath(os.__file__)))
    for name in ("jax", "jaxlib", "torch"):
        module = sys.modules.get(name)
        if getattr(module, "__file__", None):
            folders.append(os.path.dirname(os.path.abspath(module.__file__)))
    return tuple(folder + os.sep for folder in folders)


def _user_stacklevel() -> int:
    """The `stacklevel` naming the first caller outside lamina, the engines and the
    standard library (a warning raised while JAX traces a step would otherwise point
    into JAX)."""
    internal = _internal_folders()
    frame, level = sys._getframe(2), 2
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(internal) and not name.startswith("<"):
            return level
        frame, level = frame.f_back, level + 1
    return 2


class TraceLog:
    """Counts the traces of one program and warns on a retrace storm."""

    def __init__(self, name: str):
        self.name = name
        self.count = 0
        self.signatures: list[list[str]] = []

    def record(self, data) -> None:
        self.count += 1
        self.signatures.append(_leaf_signatures(data))
        del self.signatures[:-8]
        if (
            self.count > RETRACE_WARNING_AT
            and (self.count & (self.count - 1)) == 0
            or (self.count == RETRACE_WARNING_AT + 1)
        ):
            recent = _differences(self.signatures[-4:])
            warnings.warn(
                f"{self.name} has been compiled {self.count} times, once per new input "
                f"signature (recent data signatures: {recent}). Each compile costs as much "
                "as the first. Feed data of a few fixed shapes (pad or bucket variable "
                "lengths, use one batch size), or pass `steps_per_execution`/`batch_size` "
                "values that divide the data evenly.",
                RetraceWarning,
                stacklevel=_user_stacklevel(),
            )


# Profiling ------------------------------------------------------------------------------
class ProgramStats:
    """One program's figures inside a `profile()`: calls, compiles and wall seconds."""

    __slots__ = ("calls", "traces", "seconds")

    def __init__(self):
        self.calls = 0
        self.traces = 0
        self.seconds = 0.0

    def __repr__(self) -> str:
        return f"ProgramStats(calls={self.calls}, traces={self.traces}, seconds={self.seconds:.4f})"


class Profile:
    """What a `profile()` block collected: `stats[name]` per program name."""

    def __init__(self):
        self.stats: dict[str, ProgramStats] = {}

    def record(self, name: str, seconds: float, traced: bool) -> None:
        entry = self.stats.get(name)
        if entry is None:
            entry = self.stats[name] = ProgramStats()
        entry.calls += 1
        entry.traces += bool(traced)
        entry.seconds += seconds

    def table(self) -> str:
        """The figures as a text table, the slowest program first."""
        rows = sorted(self.stats.items(), key=lambda kv: -kv[1].seconds)
        width = max([len("program")] + [len(name) for name, _ in rows])
        lines = [f"{'program':<{width}}  {'calls':>7}  {'compiles':>8}  {'seconds':>9}"]
        for name, s in rows:
            lines.append(f"{name:<{width}}  {s.calls:>7}  {s.traces:>8}  {s.seconds:>9.4f}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Profile of {len(self.stats)} program(s)>"


_ACTIVE: list[Profile] = []


class profile:
    """Collect, per compiled program, its calls, compiles and wall time in the block.

    Every program (the train/test/predict steps of `fit`, `evaluate`, `predict`, the
    `model(x)` fast path, `backend.function`) reports here. While a profile is active,
    each call waits for its results, so the seconds are the device's real work (and
    the engine's own profiler, e.g. a `jax.profiler` trace, shows each call under the
    program's name).

    >>> import numpy as np, lamina
    >>> x = lamina.Input((2,))
    >>> f = lamina.backend.function([x], [x * 2.0])
    >>> with lamina.backend.profile() as prof:
    ...     _ = f([np.ones((1, 2), "float32")])
    >>> [s.calls for s in prof.stats.values()]
    [1]
    """

    def __enter__(self) -> Profile:
        self._profile = Profile()
        _ACTIVE.append(self._profile)
        return self._profile

    def __exit__(self, *exc):
        _ACTIVE.remove(self._profile)


def profiling() -> bool:
    """Whether a `profile()` block is collecting."""
    return bool(_ACTIVE)


def record_call(name: str, seconds: float, traced: bool) -> None:
    """Report one program call to every active profile (engines' Programs call this)."""
    for p in _ACTIVE:
        p.record(name, seconds, traced)
