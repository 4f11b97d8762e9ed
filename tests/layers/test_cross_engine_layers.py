"""Every layer case gives the same outputs and gradients on JAX and on torch.

The cases (`cross_engine_cases.py`) are computed in this process (JAX) and in a fresh
process on torch, with the same weights and inputs; outputs and gradients with respect
to the inputs and every trainable weight must agree within rtol 1e-4, atol 2e-5
(float32, different kernels and summation orders).
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("torch")
pytestmark = pytest.mark.engine("jax")  # one run compares both engines

HERE = pathlib.Path(__file__).parent


def test_layers_agree_across_engines(tmp_path):
    sys.path.insert(0, str(HERE))
    try:
        import cross_engine_cases
    finally:
        sys.path.remove(str(HERE))
    mine = cross_engine_cases.compute()
    env = dict(os.environ, LAMINA_BACKEND="torch")
    out = tmp_path / "torch.npz"
    result = subprocess.run(
        [sys.executable, str(HERE / "cross_engine_cases.py"), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    theirs = dict(np.load(out))
    assert sorted(theirs) == sorted(mine)
    mismatched = []
    for key in sorted(mine):
        if not np.allclose(theirs[key], mine[key], rtol=1e-4, atol=2e-5):
            worst = float(np.max(np.abs(theirs[key] - mine[key])))
            mismatched.append(f"{key}: max abs difference {worst:.3g}")
    assert not mismatched, "engines disagree:\n" + "\n".join(mismatched)
