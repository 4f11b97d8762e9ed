"""`backend.execution.profile_trace`: the engine's profiler writes a trace TensorBoard finds."""

from __future__ import annotations

import numpy as np

import lamina
from lamina import backend


def test_profile_trace_writes_a_trace_under_plugins_profile(tmp_path):
    f = backend.function([x := lamina.Input((2,))], [x * 2.0])
    with backend.execution.profile_trace(tmp_path), backend.profile():
        f([np.ones((1, 2), "float32")])
    runs = list((tmp_path / "plugins" / "profile").iterdir())
    assert len(runs) == 1 and runs[0].is_dir()
    traces = [p for p in runs[0].iterdir() if p.name.endswith((".xplane.pb", ".pt.trace.json"))]
    assert traces and all(p.stat().st_size > 0 for p in traces)
