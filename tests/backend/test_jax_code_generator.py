"""The XLA CPU code generator lamina asks for, per model (`backend/jax/compilation.py`).

Models holding an image or volume convolution compile their steps with XLA's elemental
CPU code generator (half the compile time, steps as fast; bench/RESULTS.md); others keep
XLA's default. `LAMINA_XLA_CPU_CODEGEN` and a choice in `XLA_FLAGS` override it. (The
suite itself runs with the elemental generator for every program, set in `XLA_FLAGS`
by conftest.py; these tests clear that setting.)
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lamina
from lamina import layers

pytestmark = pytest.mark.engine("jax")

ELEMENTAL = {"xla_cpu_use_fusion_emitters": False}


@pytest.fixture
def default_flags(monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "")
    monkeypatch.delenv("LAMINA_XLA_CPU_CODEGEN", raising=False)
    return monkeypatch


def _convnet():
    return lamina.Sequential(
        [
            lamina.Input((8, 8, 1)),
            layers.Conv2D(4, 3, activation="relu"),
            layers.MaxPooling2D(),
            layers.Flatten(),
            layers.Dense(3),
        ]
    )


def _mlp():
    return lamina.Sequential([lamina.Input((6,)), layers.Dense(4), layers.Dense(3)])


def _options(model, kind="train"):
    model.compile(optimizer="adam", loss="mse")
    maker = {
        "train": model.make_train_function,
        "test": model.make_test_function,
        "predict": model.make_predict_function,
    }[kind]
    return {repr(program.compiler_options) for program in maker().values()}


def test_a_model_with_an_image_convolution_asks_for_the_elemental_generator(default_flags):
    for kind in ("train", "test", "predict"):
        assert _options(_convnet(), kind) == {repr(ELEMENTAL)}
    assert _options(_mlp()) == {"None"}
    conv1d = lamina.Sequential([lamina.Input((10, 2)), layers.Conv1D(3, 3), layers.Flatten()])
    assert _options(conv1d) == {"None"}  # measured slower to run: XLA's default
    # A convolution inside a nested model counts.
    inner = _convnet()
    outer = lamina.Sequential([lamina.Input((8, 8, 1)), inner, layers.Dense(2)])
    assert _options(outer) == {repr(ELEMENTAL)}


def test_the_switch_and_xla_flags_override_the_choice(default_flags):
    default_flags.setenv("LAMINA_XLA_CPU_CODEGEN", "fusion")
    assert _options(_convnet()) == {"None"}
    default_flags.setenv("LAMINA_XLA_CPU_CODEGEN", "elemental")
    assert _options(_mlp()) == {repr(ELEMENTAL)}
    default_flags.setenv("XLA_FLAGS", "--xla_cpu_use_fusion_emitters=true")
    assert _options(_mlp()) == {"None"}  # the user's own XLA flag wins
    default_flags.setenv("XLA_FLAGS", "")
    default_flags.setenv("LAMINA_XLA_CPU_CODEGEN", "fast")
    with pytest.raises(ValueError, match="LAMINA_XLA_CPU_CODEGEN='fast'.*'auto'"):
        _options(_mlp())


def test_run_eagerly_compiles_nothing(default_flags):
    model = _convnet()
    model.compile(optimizer="adam", loss="mse", run_eagerly=True)
    assert all(p.compiler_options is None for p in model.make_train_function().values())


def test_a_convnet_trains_the_same_with_either_generator():
    # In fresh processes with XLA's default flags: the two generators emit different
    # code for the same operations; the losses agree to float32 rounding.
    script = textwrap.dedent(
        """
        import json, numpy as np, lamina
        from lamina import layers
        lamina.utils.set_random_seed(0)
        rng = np.random.default_rng(0)
        x = rng.random((64, 8, 8, 1), dtype=np.float32)
        y = rng.integers(0, 3, 64)
        model = lamina.Sequential([lamina.Input((8, 8, 1)), layers.Conv2D(4, 3, activation="relu"),
            layers.MaxPooling2D(), layers.Flatten(), layers.Dense(3)])
        model.compile("adam", lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
        history = model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)
        print(json.dumps([model.train_function["one"].compiler_options, history.history["loss"]]))
        """
    )
    results = []
    for choice in ("auto", "fusion"):
        env = dict(os.environ, XLA_FLAGS="", LAMINA_XLA_CPU_CODEGEN=choice, LAMINA_BACKEND="jax")
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert results[0][0] == ELEMENTAL and results[1][0] is None
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5)
