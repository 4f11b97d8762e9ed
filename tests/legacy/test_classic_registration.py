"""The classic API joins the engine seam by registration: `lamina.legacy` registers its
namespace with `lamina.backend` when `lamina` is imported, and the seam imports nothing
above it (issue 31, item 1)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import lamina
from lamina import backend as K
from lamina.backend.common import classic
from lamina.legacy import backend as classic_backend
from lamina.legacy import function as classic_function


def test_importing_lamina_registers_the_classic_api():
    assert classic.classic_api() is classic_backend
    assert K.function is classic_function.function
    assert K.placeholder is classic_backend.placeholder
    assert K.gradients is classic_backend.gradients
    assert {"function", "placeholder", "gradients", "mean", "floatx"} <= set(dir(K))
    assert "function" in K.__all__ and lamina.legacy.backend is classic_backend


def test_k_function_runs_a_graph():
    x = K.placeholder(shape=(None, 2))
    f = K.function([x], [K.sum(x * 3.0, axis=1)])
    np.testing.assert_allclose(f([np.ones((2, 2), "float32")])[0], [6.0, 6.0])


@pytest.fixture
def unregistered(monkeypatch):
    """The seam as it is before `lamina.legacy` registers (or if that never ran)."""
    monkeypatch.setattr(classic, "_REGISTERED", [None])


def test_a_classic_name_before_registration_says_how_to_get_it(unregistered):
    assert not hasattr(K, "placeholder")
    with pytest.raises(AttributeError, match=r"no attribute 'function'.*import lamina"):
        K.function  # noqa: B018
    assert "placeholder" not in dir(K) and "floatx" in dir(K)
    x = lamina.Input((2,))
    with pytest.raises(RuntimeError, match=r"lamina.backend.shape: .*import lamina"):
        K.shape(x)
    with pytest.raises(RuntimeError, match=r"lamina.backend.cast: .*lamina.legacy"):
        K.cast(x, "int32")
    # Engine arrays never needed the classic API.
    assert K.convert_to_numpy(K.cast(np.array([1.5]), "int32")).tolist() == [1]
    assert K.convert_to_numpy(K.stop_gradient(np.array([2.0]))).tolist() == [2.0]


def test_registering_again_replaces_the_namespace(monkeypatch):
    monkeypatch.setattr(classic, "_REGISTERED", [None])
    classic.register_classic_api(classic_backend)
    assert K.placeholder is classic_backend.placeholder


# Once is enough: the script runs on the default engine whatever this run's engine is.
@pytest.mark.engine("jax")
def test_importing_only_the_backend_registers_too():
    # `import lamina.backend` imports `lamina` first, whose import registers the classic API.
    script = "import lamina.backend as K\nprint(K.function.__module__, K.placeholder.__module__)\n"
    env = {k: v for k, v in os.environ.items() if k not in ("LAMINA_BACKEND", "KERAS_BACKEND")}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["lamina.legacy.function", "lamina.legacy.graph_api"]
