"""`lamina.remat` and `lamina.RematScope`: Keras 3's gradient checkpointing.

Rematerialization changes memory, never results: every check compares against the same
computation without remat (or a NumPy formula), and a spy shows the engine's checkpoint
really ran (`jax.checkpoint` / a `remat` primitive in the jaxpr, torch's `checkpoint`).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import lamina
from lamina import backend, layers, ops


def _numpy(x):
    return np.asarray(ops.convert_to_numpy(x))


@pytest.fixture
def remat_calls(monkeypatch):
    """The functions `backend.core.remat` is given from now on, in order. The spy only
    records (it returns the function as it is): these tests check which calls a mode
    rematerializes; the others check what rematerializing does."""
    calls = []

    def spy(f):
        calls.append(f)
        return f

    monkeypatch.setattr(backend.core, "remat", spy)
    return calls


# remat(f) ------------------------------------------------------------------------------
def test_remat_gives_the_values_and_gradients_of_the_function():
    def f(x, scale, training=False):
        return ops.sum(ops.sin(x) * scale) * (2.0 if training else 1.0)

    x = np.array([0.1, -0.7, 1.3], "float32")
    rematerialized = lamina.remat(f)
    # Compiled on JAX (a `jit` around the remat, as in a train step; eager JAX would
    # compile each operation on its own).
    value, grad = backend.jit(
        backend.value_and_grad(lambda x: rematerialized(x, 3.0, training=True))
    )(x)
    np.testing.assert_allclose(_numpy(value), np.sum(np.sin(x) * 3.0) * 2.0, rtol=1e-6)
    np.testing.assert_allclose(_numpy(grad), np.cos(x) * 6.0, rtol=1e-6)


@pytest.mark.engine("jax")
def test_jax_gradient_program_holds_a_remat_primitive():
    import jax
    import jax.numpy as jnp

    def loss(x, f):
        return jnp.sum(f(x) ** 2)

    x = jnp.ones(3)
    plain = str(jax.make_jaxpr(jax.grad(lambda x: loss(x, jnp.sin)))(x))
    remat = str(jax.make_jaxpr(jax.grad(lambda x: loss(x, lamina.remat(jnp.sin))))(x))
    assert "remat" not in plain and "checkpoint" not in plain
    assert "remat" in remat or "checkpoint" in remat


@pytest.mark.engine("torch")
def test_torch_checkpoints_only_while_autograd_records(monkeypatch):
    import torch

    calls = []
    real = torch.utils.checkpoint.checkpoint

    def spy(*args, **kwargs):
        calls.append(kwargs.get("use_reentrant"))
        return real(*args, **kwargs)

    monkeypatch.setattr(torch.utils.checkpoint, "checkpoint", spy)
    f = lamina.remat(torch.sin)
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    f(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.5, 1.0]), rtol=1e-6)
    assert calls == [False]
    with torch.no_grad():
        f(x)
    assert calls == [False]


# RematScope ----------------------------------------------------------------------------
def test_scope_rejects_an_unknown_mode_naming_the_valid_ones():
    with pytest.raises(ValueError, match="'everything'.*'full'.*'activations'.*'larger_than'"):
        lamina.RematScope(mode="everything")


def test_list_of_layers_needs_layer_names():
    with pytest.raises(ValueError, match="layer_names"):
        lamina.RematScope(mode="list_of_layers")
    with pytest.raises(TypeError, match=r"layer_names=\['dense'\]"):
        lamina.RematScope(mode="list_of_layers", layer_names="dense")
    with pytest.raises(TypeError, match="output_size_threshold"):
        lamina.RematScope(mode="larger_than", output_size_threshold="big")


def test_layers_record_the_innermost_scope_when_created():
    outside = layers.Dense(2)
    with lamina.RematScope():
        full = layers.Dense(2)
        with lamina.RematScope(mode="larger_than", output_size_threshold=8):
            larger = layers.Dense(2)
        with lamina.RematScope(mode=None):
            off = layers.Dense(2)
        again = layers.Dense(2)
    assert outside._remat_mode is None and off._remat_mode is None
    assert full._remat_mode.mode == "full" and again._remat_mode.mode == "full"
    assert larger._remat_mode == ("larger_than", 8, ())


def _eager_call(layer, batch=3):
    return layer(np.ones((batch, 4), "float32"), training=True)


def test_full_mode_rematerializes_every_call_and_keeps_results(remat_calls):
    with lamina.RematScope(mode="full"):
        dense = layers.Dense(4, activation="relu")
    plain = layers.Dense(4, activation="relu")
    plain.build((None, 4))
    dense.build((None, 4))
    dense.set_weights(plain.get_weights())
    out = _eager_call(dense)
    np.testing.assert_array_equal(_numpy(out), _numpy(_eager_call(plain)))
    assert len(remat_calls) == 1
    _eager_call(dense)
    assert len(remat_calls) == 2


def test_list_of_layers_rematerializes_only_the_named_layers(remat_calls):
    with lamina.RematScope(mode="list_of_layers", layer_names=["remat_me"]):
        named = layers.Dense(4, name="remat_me")
        other = layers.Dense(4, name="leave_me")
    _eager_call(other)
    assert remat_calls == []
    _eager_call(named)
    assert len(remat_calls) == 1


def test_larger_than_compares_the_output_size_with_the_threshold(remat_calls):
    with lamina.RematScope(mode="larger_than", output_size_threshold=16):
        small = layers.Dense(4)  # 3 x 4 = 12 outputs
        large = layers.Dense(8)  # 3 x 8 = 24 outputs
    _eager_call(small)
    assert remat_calls == []
    _eager_call(large)
    assert len(remat_calls) == 1
    _eager_call(small, batch=5)  # 20 outputs: the size is taken per input shape
    assert len(remat_calls) == 2


def test_activations_mode_rematerializes_the_activation_only(remat_calls):
    with lamina.RematScope(mode="activations"):
        dense = layers.Dense(4, activation="tanh")
        dropout = layers.Dropout(0.5)  # no activation: not rematerialized
    out = _eager_call(dense)
    assert remat_calls == [lamina.activations.tanh]
    assert dense.activation is lamina.activations.tanh  # restored after the call
    kernel, bias = dense.get_weights()
    np.testing.assert_allclose(_numpy(out), np.tanh(np.ones((3, 4)) @ kernel + bias), rtol=1e-6)
    _eager_call(dropout)
    assert len(remat_calls) == 1


def test_symbolic_calls_are_not_rematerialized(remat_calls):
    with lamina.RematScope():
        dense = layers.Dense(4)
    dense(lamina.Input((4,)))
    assert remat_calls == []


# The layer call as a pure function --------------------------------------------------------
class _AddsLoss(layers.Layer):
    def call(self, x):
        self.add_loss(ops.mean(x**2) * 0.1)
        return x


class _DropoutBlock(layers.Layer):
    """Calls its Dropout without `training`: the Dropout takes it from the call context,
    which the recomputation must have too."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dropout = layers.Dropout(0.4)

    def call(self, x):
        return self.dropout(x)


def _model(remat: bool) -> lamina.Model:
    lamina.utils.set_random_seed(3)
    with lamina.RematScope() if remat else contextlib.nullcontext():
        inputs = lamina.Input((4,))
        x = layers.Dense(4, activation="relu")(inputs)
        x = _DropoutBlock()(x)
        x = layers.BatchNormalization()(x)
        x = _AddsLoss()(x)
        # Mixed precision: the recomputation reads the weights in the compute dtype too.
        model = lamina.Model(inputs, layers.Dense(4, dtype="mixed_bfloat16")(x))
    return model


def _fit(remat: bool, jit_compile):
    model = _model(remat)
    model.compile(optimizer="sgd", loss="mse", jit_compile=jit_compile)
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(6, 4)).astype("float32"), rng.normal(size=(6, 4)).astype("float32")
    history = model.fit(x, y, batch_size=3, epochs=1, shuffle=False, verbose=0)
    return history.history["loss"], [_numpy(w) for w in model.weights]


def _assert_same_fit(a, b):
    assert a[0] == b[0]  # fit's losses (the added loss included)
    for wa, wb in zip(a[1], b[1], strict=True):  # weights, moving statistics, seed states
        np.testing.assert_array_equal(wa, wb)


def _jax_fit_check() -> None:
    import jax

    traced = []
    real = jax.checkpoint

    def spy(f, *args, **kwargs):
        traced.append(f)
        return real(f, *args, **kwargs)

    plain = _fit(False, jit_compile=True)
    jax.checkpoint = spy
    try:
        rematerialized = _fit(True, jit_compile=True)
    finally:
        jax.checkpoint = real
    # Traced into the jitted train step: the model, its five layers (Input aside) and
    # the block's Dropout.
    assert len(traced) >= 7
    _assert_same_fit(plain, rematerialized)


@pytest.mark.engine("jax")
def test_jax_fit_is_unchanged_and_its_compiled_step_checkpoints():
    # Bitwise equality is a property of the programs XLA compiles as a user's process
    # compiles them: the suite's own XLA flags (conftest.py: its faster, older CPU code
    # generator) fuse the recomputation differently, a few ULPs apart. So both fits run
    # in a process with XLA's default flags.
    tests = pathlib.Path(__file__).parent
    env = {**os.environ, "XLA_FLAGS": "", "LAMINA_BACKEND": "jax"}
    done = subprocess.run(
        [sys.executable, "-c", "import test_remat; test_remat._jax_fit_check()"],
        cwd=tests,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]


@pytest.mark.engine("torch")
@pytest.mark.parametrize("jit_compile", [False, True])
def test_torch_fit_is_unchanged_and_checkpoints(monkeypatch, jit_compile):
    import torch

    checkpointed = []
    real = torch.utils.checkpoint.checkpoint

    def spy(f, *args, **kwargs):
        checkpointed.append(f)
        return real(f, *args, **kwargs)

    plain = _fit(False, jit_compile=jit_compile)
    monkeypatch.setattr(torch.utils.checkpoint, "checkpoint", spy)
    rematerialized = _fit(True, jit_compile=jit_compile)
    # Eager: the model and each layer, on each of the 2 steps. Under jit_compile the
    # layers run inside the compiled graph (captured without autograd), so only the
    # layers' calls outside it would checkpoint: none here.
    assert len(checkpointed) == (14 if not jit_compile else 0)
    # The backward pass recomputed the dropout masks from the seeds of the call, and
    # applied the moving statistics and the seed advance once.
    _assert_same_fit(plain, rematerialized)


def _value_and_grads(layer, trainable, non_trainable, x):
    """Loss, new non-trainable values, losses and gradients of a stateless training call
    of `layer` (compiled on JAX: eager JAX would compile each operation on its own)."""

    def loss(values):
        out, new, losses = layer.stateless_call(
            values, non_trainable, x, training=True, return_losses=True
        )
        return ops.sum(ops.cast(out, "float32") ** 2) + sum(losses), (new, losses)

    return backend.jit(backend.value_and_grad(loss, has_aux=True))(trainable)


def _assert_same_trees(a, b):
    for x, y in zip(lamina.tree.flatten(a), lamina.tree.flatten(b), strict=True):
        np.testing.assert_array_equal(_numpy(x), _numpy(y))


@pytest.mark.engine("torch")  # on JAX the recomputation is traced inside the call
def test_stateless_gradients_are_taken_at_the_given_values():
    # Values other than the variables': torch recomputes in the backward pass, after
    # `stateless_call` has returned, and must read the given values then too.
    x = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)
    results = []
    for remat in (False, True):
        lamina.utils.set_random_seed(1)
        with lamina.RematScope() if remat else contextlib.nullcontext():
            model = lamina.Sequential(
                [
                    lamina.Input((4,)),
                    layers.Dense(4),
                    layers.Dropout(0.5),
                    _AddsLoss(),
                    layers.Dense(4, dtype="mixed_bfloat16"),
                ]
            )
        trainable = [v.value * 0.5 for v in model.trainable_variables]
        non_trainable = [v.value for v in model.non_trainable_variables]
        results.append(_value_and_grads(model, trainable, non_trainable, x))
    _assert_same_trees(results[0], results[1])
