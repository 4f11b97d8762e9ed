"""What every engine's execution module shares: trace bookkeeping and its warning.

A *program* is a pure step compiled by the engine. Each time the engine traces it
again (a new input signature: another batch size, sequence length or dtype) the
compile cost is paid again; a program that keeps retracing (a "retrace storm") turns
a 4 s compile into 30 s without any error. Programs count their traces and warn,
naming the signatures, once a program has been traced more than `RETRACE_WARNING_AT`
times.
"""

from __future__ import annotations

import warnings

# A program may legitimately be traced a few times (a full batch, the last partial
# batch, a chunk of k batches and its remainder); past this it is probably a storm.
RETRACE_WARNING_AT = 5


class RetraceWarning(UserWarning):
    """A compiled program was traced again and again for new input signatures."""


def describe_signature(args) -> str:
    """Shapes and dtypes of the array leaves of `args`, compactly: `(32, 784) float32`."""
    parts = []
    seen = 0

    def visit(x):
        nonlocal seen
        if isinstance(x, dict):
            for k in sorted(x, key=str):
                visit(x[k])
        elif isinstance(x, (list, tuple)):
            for v in x:
                visit(v)
        elif hasattr(x, "shape") and hasattr(x, "dtype"):
            seen += 1
            if len(parts) < 6:
                parts.append(f"{tuple(x.shape)} {x.dtype}")

    visit(args)
    if seen > len(parts):
        parts.append(f"... ({seen - len(parts)} more)")
    return "[" + ", ".join(parts) + "]"


class TraceLog:
    """Counts the traces of one program and warns on a retrace storm."""

    def __init__(self, name: str):
        self.name = name
        self.count = 0
        self.signatures: list[str] = []

    def record(self, data) -> None:
        self.count += 1
        self.signatures.append(describe_signature(data))
        del self.signatures[:-8]
        if (
            self.count > RETRACE_WARNING_AT
            and (self.count & (self.count - 1)) == 0
            or (self.count == RETRACE_WARNING_AT + 1)
        ):
            recent = "; ".join(self.signatures[-4:])
            warnings.warn(
                f"{self.name} has been compiled {self.count} times, once per new input "
                f"signature (recent data signatures: {recent}). Each compile costs as much "
                "as the first. Feed data of a few fixed shapes (pad or bucket variable "
                "lengths, use one batch size), or pass `steps_per_execution`/`batch_size` "
                "values that divide the data evenly.",
                RetraceWarning,
                stacklevel=4,
            )
