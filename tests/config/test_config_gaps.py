"""`lamina.config`'s flash-attention switch, `set_backend` and `is_nnx_enabled`, against
Keras 3's own config functions (the reference for every returned value)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lamina
from lamina import config, layers, ops

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")


@pytest.fixture
def restore_flash():
    yield
    config.enable_flash_attention()
    keras.config.enable_flash_attention()


def test_flash_attention_switch_matches_keras(restore_flash):
    assert config.is_flash_attention_enabled() == keras.config.is_flash_attention_enabled()
    assert config.is_flash_attention_enabled() is None  # "auto", the default
    for ours, theirs in [
        (config.disable_flash_attention, keras.config.disable_flash_attention),
        (config.enable_flash_attention, keras.config.enable_flash_attention),
        (config.disable_flash_attention, keras.config.disable_flash_attention),
    ]:
        assert ours() is None and theirs() is None
        assert config.is_flash_attention_enabled() is keras.config.is_flash_attention_enabled()
    # Keras keeps the switch in session state: clear_session brings back "auto".
    lamina.backend.clear_session(free_memory=False)
    assert config.is_flash_attention_enabled() is None


@pytest.mark.parametrize("switch", ["enable", "disable"])
@pytest.mark.parametrize("argument", [None, False, True])
def test_attention_layers_read_the_switch_as_keras_does(restore_flash, switch, argument):
    getattr(config, f"{switch}_flash_attention")()
    getattr(keras.config, f"{switch}_flash_attention")()
    ours = layers.MultiHeadAttention(2, 4, flash_attention=argument)
    theirs = keras.layers.MultiHeadAttention(2, 4, flash_attention=argument)
    assert ours._flash_attention is theirs._flash_attention
    ours = layers.GroupQueryAttention(4, 2, 1, flash_attention=argument)
    theirs = keras.layers.GroupQueryAttention(4, 2, 1, flash_attention=argument)
    assert ours._flash_attention is theirs._flash_attention


def _attention_reference(q, k, v):
    logits = np.einsum("btnh,bsnh->bnts", q, k) / np.sqrt(q.shape[-1])
    weights = np.exp(logits - logits.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return np.einsum("bnts,bsnh->btnh", weights, v)


def test_flash_attention_request_without_a_kernel_is_an_error(restore_flash):
    rng = np.random.default_rng(0)
    q, k, v = (rng.normal(size=(2, 3, 2, 4)).astype("float32") for _ in range(3))
    expected = _attention_reference(q, k, v)
    for flag in (None, False):
        got = ops.convert_to_numpy(ops.dot_product_attention(q, k, v, flash_attention=flag))
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    config.disable_flash_attention()
    got = ops.convert_to_numpy(ops.dot_product_attention(q, k, v))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    # Keras on a CPU raises RuntimeError ("cuDNN is not detected"); lamina has no kernel.
    with pytest.raises(RuntimeError, match="flash_attention=True"):
        ops.dot_product_attention(q, k, v, flash_attention=True)
    x = rng.normal(size=(2, 3, 4)).astype("float32")
    with pytest.raises(RuntimeError, match="flash_attention=True"):
        layers.MultiHeadAttention(2, 4, flash_attention=True)(x, x)
    with pytest.raises(RuntimeError, match="flash_attention=True"):
        layers.GroupQueryAttention(4, 2, 1, flash_attention=True)(x, x)


def test_is_nnx_enabled_is_false_as_in_keras_by_default():
    assert config.is_nnx_enabled() is False
    assert keras.config.is_nnx_enabled() is False


def test_set_backend_refuses_unknown_names():
    with pytest.raises(ValueError, match=r"'tensorflow'.*\['jax', 'torch'\]"):
        config.set_backend("tensorflow")
    assert lamina.backend.backend() in ("jax", "torch")


_SWITCH_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    import lamina

    lamina.config.set_backend("torch")
    import lamina
    from lamina import layers

    assert lamina.backend.backend() == "torch", lamina.backend.backend()
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    assert model.predict(np.ones((4, 3), "float32"), verbose=0).shape == (4, 2)
    assert type(model.weights[0].value).__module__.startswith("torch"), type(
        model.weights[0].value
    )

    lamina.config.set_backend("jax")
    import lamina

    assert lamina.backend.backend() == "jax"
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    out = lamina.ops.convert_to_numpy(model(np.ones((4, 3), "float32")))
    assert out.shape == (4, 2) and type(model.weights[0].value).__module__.startswith("jax")
    print("switched")
    """
)


def test_set_backend_names_the_missing_package(monkeypatch):
    from lamina.config import engine

    real = engine.importlib.util.find_spec
    monkeypatch.setattr(
        engine.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "torch" else real(name, *a),
    )
    with pytest.raises(ImportError, match=r"`torch` package, which is not installed"):
        config.set_backend("torch")
    assert "lamina.config" in sys.modules


# The script starts from the default engine whatever this run's engine is: once is enough.
@pytest.mark.engine("jax")
def test_set_backend_switches_engines_in_a_fresh_process():
    env = {k: v for k, v in os.environ.items() if k not in ("LAMINA_BACKEND", "KERAS_BACKEND")}
    result = subprocess.run(
        [sys.executable, "-c", _SWITCH_SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "switched" in result.stdout
