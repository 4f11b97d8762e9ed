"""Large host buffers from malloc's heap instead of fresh memory mappings (glibc).

glibc's `malloc` gives each allocation above its mapping threshold (32 MB at most, by
default) a fresh `mmap`, and unmaps it when freed. A tensor of that size (a
transformer's attention scores, a large batch's activations) then costs a page fault
and the kernel's zeroing for every 4 KB page, each time one is made: on the CPU, torch's
tensors and XLA's buffers all come from `malloc`. On keras-io's timeseries transformer
(4 blocks, sequence 200, batch 64), that was 60% of a torch training step and 30% of a
JAX evaluation step (`bench/host_memory.py`).

When an engine loads, lamina raises the threshold to `THRESHOLD` (256 MB) with
`mallopt(M_MMAP_THRESHOLD)`, as PyTorch's CPU tuning guides advise doing with an
environment variable or another allocator: buffers below it come from the heap, and
their pages are reused. It raises the heap's trim threshold to the same size
(`M_TRIM_THRESHOLD`), so that freeing the last buffer does not hand the top of the heap
back to the kernel at once (XLA's step buffers were otherwise faulted in again on every
call). The cost is memory held: up to 256 MB of freed heap at its top, and memory freed
in its middle until the blocks around it are freed too, as for any small allocation.

It is left alone where the process says how to allocate, unless `LAMINA_HOST_MALLOC=1`
asks for it (glibc only):
`LAMINA_HOST_MALLOC=0` (or `off`, `false`); `MALLOC_MMAP_THRESHOLD_`,
`MALLOC_TRIM_THRESHOLD_` or a `glibc.malloc` tunable in `GLIBC_TUNABLES`; another allocator preloaded (`LD_PRELOAD`);
a C library other than glibc (macOS, Windows, musl).
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys

ENV = "LAMINA_HOST_MALLOC"
THRESHOLD = 256 * 2**20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's <malloc.h>
_OFF = frozenset({"0", "off", "false", "no"})
_ON = frozenset({"1", "on", "true", "yes"})

_applied: bool | None = None  # what `configure` did (None: not called)


def reason_to_leave_alone(environ=os.environ, libc: str | None = None) -> str | None:
    """Why `configure` leaves malloc as it is, or None when it tunes it."""
    asked = environ.get(ENV, "").strip().lower()
    if asked in _OFF:
        return f"{ENV}={environ[ENV]}"
    if asked in _ON:  # asked for: the other settings below are only guesses
        return None if _libc(libc) == "glibc" else "the C library is not glibc"
    for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"):
        if name in environ:
            return f"{name} is set"
    if "glibc.malloc." in environ.get("GLIBC_TUNABLES", ""):
        return "GLIBC_TUNABLES sets glibc.malloc"
    if environ.get("LD_PRELOAD", "").strip():
        return "LD_PRELOAD may bring another allocator"
    if _libc(libc) != "glibc":
        return "the C library is not glibc"
    return None


def _libc(libc: str | None) -> str:
    if libc is not None:
        return libc
    return platform.libc_ver()[0] if sys.platform.startswith("linux") else ""


def configure(environ=os.environ) -> bool:
    """Raise glibc's mapping and trim thresholds once per process, unless
    `reason_to_leave_alone` says otherwise; returns whether they are raised."""
    global _applied
    if _applied is None:
        _applied = False
        if reason_to_leave_alone(environ) is None:
            try:
                mallopt = ctypes.CDLL(None).mallopt
                _applied = bool(mallopt(_M_TRIM_THRESHOLD, THRESHOLD)) and bool(
                    mallopt(_M_MMAP_THRESHOLD, THRESHOLD)
                )
            except (OSError, AttributeError):  # no mallopt to call: leave it
                _applied = False
    return _applied


def applied() -> bool:
    """Whether this process's large buffers come from the heap (see the module)."""
    return bool(_applied)
