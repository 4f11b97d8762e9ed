"""Large host buffers from malloc's heap (`backend.common.host_memory`): when lamina tunes
glibc's malloc, when it leaves it alone, and what the tuning does to a large buffer made
again and again (page faults counted by the kernel, in a fresh process)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import textwrap

import pytest

from lamina.backend.common import host_memory

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


@pytest.mark.parametrize(
    "environ, libc, reason",
    [
        ({}, "glibc", None),
        ({"LAMINA_HOST_MALLOC": "1"}, "glibc", None),
        ({"LAMINA_HOST_MALLOC": "0"}, "glibc", "LAMINA_HOST_MALLOC=0"),
        ({"LAMINA_HOST_MALLOC": " Off "}, "glibc", "LAMINA_HOST_MALLOC= Off "),
        ({"MALLOC_MMAP_THRESHOLD_": "65536"}, "glibc", "MALLOC_MMAP_THRESHOLD_ is set"),
        ({"MALLOC_TRIM_THRESHOLD_": "0"}, "glibc", "MALLOC_TRIM_THRESHOLD_ is set"),
        (
            {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=1024"},
            "glibc",
            "GLIBC_TUNABLES sets glibc.malloc",
        ),
        ({"GLIBC_TUNABLES": "glibc.rtld.nns=2"}, "glibc", None),
        ({"LD_PRELOAD": "/usr/lib/libjemalloc.so.2"}, "glibc", "LD_PRELOAD"),
        # Asked for by name: the guesses from other settings give way, the C library not.
        ({"LAMINA_HOST_MALLOC": "1", "LD_PRELOAD": "/usr/lib/libjemalloc.so.2"}, "glibc", None),
        ({"LAMINA_HOST_MALLOC": "on", "MALLOC_TRIM_THRESHOLD_": "0"}, "glibc", None),
        ({"LAMINA_HOST_MALLOC": "1"}, "musl", "the C library is not glibc"),
        ({}, "", "the C library is not glibc"),
        ({}, "musl", "the C library is not glibc"),
    ],
)
def test_tuning_is_left_to_the_process_where_it_says_how_to_allocate(environ, libc, reason):
    got = host_memory.reason_to_leave_alone(environ, libc=libc)
    if reason is None:
        assert got is None
    else:
        assert got is not None and got.startswith(reason)


_FAULTS = """
import ctypes, json, resource, sys
import lamina  # the engine loads: malloc is tuned unless told otherwise
from lamina.backend.common import host_memory

libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
size = 64 * 2**20  # above glibc's largest default mapping threshold (32 MB)

def one_buffer():
    pointer = libc.malloc(size)
    ctypes.memset(pointer, 1, size)  # touch every page, as a tensor's writes do
    libc.free(pointer)

one_buffer()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(4):
    one_buffer()
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(json.dumps({"applied": host_memory.applied(), "faults": faults}))
"""


def _faults(**env):
    environ = {k: v for k, v in os.environ.items() if k != "LAMINA_HOST_MALLOC"}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_FAULTS)],
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _transparent_huge_pages_always() -> bool:
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return "[always]" in f.read()
    except OSError:
        return False


@pytest.mark.skipif(not GLIBC, reason="glibc's malloc only")
def test_a_large_buffer_made_again_reuses_its_pages_unless_switched_off():
    # 4 buffers of 64 MB are 65,536 pages of 4 KB: with the tuning they come from the
    # heap and its pages are reused (a few faults); without, each is a fresh mapping
    # faulted in page by page.
    ambient = {k: v for k, v in os.environ.items() if k != "LAMINA_HOST_MALLOC"}
    reason = host_memory.reason_to_leave_alone(ambient)
    if reason is not None:
        pytest.skip(f"this process's environment leaves malloc alone: {reason}")
    tuned = _faults()
    assert tuned["applied"] is True
    assert tuned["faults"] < 2_000, tuned
    untuned = _faults(LAMINA_HOST_MALLOC="0")
    assert untuned["applied"] is False
    if not _transparent_huge_pages_always():  # (2 MB pages would fault 512x less)
        assert untuned["faults"] > 30_000, untuned


def test_configure_runs_once_per_process(monkeypatch):
    monkeypatch.setattr(host_memory, "_applied", None)
    calls = []

    class FakeLibc:
        def mallopt(self, option, value):
            calls.append((option, value))
            return 1

    monkeypatch.setattr(host_memory.ctypes, "CDLL", lambda name: FakeLibc())
    monkeypatch.setattr(host_memory, "reason_to_leave_alone", lambda environ: None)
    assert host_memory.configure() is True
    assert host_memory.configure() is True
    # Both thresholds, the trim threshold first, each once.
    assert calls == [(-1, host_memory.THRESHOLD), (-3, host_memory.THRESHOLD)]
    assert host_memory.applied()
