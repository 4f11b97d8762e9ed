"""Loading a model draws no initial value that the file then overwrites.

A variable made while `load_model` runs takes its seed when it is made (as a plain
build would) but draws its value only if something reads it before the file sets it,
or if the file leaves it out. Nothing else may show: values not loaded and the state
of every seed generator are those of a plain build from the same config.
"""

import types

import numpy as np
import pytest

import lamina
from lamina import Input, Model, initializers, layers, models, ops
from lamina.ops import random

# Everything a built-in initializer draws goes through these.
_RANDOM_DRAWS = ("uniform", "normal", "truncated_normal")
_CONSTANTS = (initializers.Zeros, initializers.Ones, initializers.Constant)


@pytest.fixture
def draws(monkeypatch):
    """Counts the initial values computed: random draws (by shape) and constant fills."""
    seen: list = []
    # Built-in initializers draw through the `portable_*` forms (the same numbers on
    # every engine), which may fall back to the engine's own draw: a draw is counted
    # once, by its distribution, whichever form the initializer called.
    depth = {"calls": 0}
    for name in _RANDOM_DRAWS:
        for attribute in (name, f"portable_{name}"):
            original = getattr(random, attribute)

            def counted(shape, *args, _original=original, _name=name, **kwargs):
                if depth["calls"] == 0:
                    seen.append((_name, tuple(shape)))
                depth["calls"] += 1
                try:
                    return _original(shape, *args, **kwargs)
                finally:
                    depth["calls"] -= 1

            monkeypatch.setattr(random, attribute, counted)
    for cls in _CONSTANTS:
        original = cls.__call__

        def counted_call(self, shape, dtype=None, _original=original, _name=cls.__name__):
            seen.append((_name, tuple(shape)))
            return _original(self, shape, dtype)

        monkeypatch.setattr(cls, "__call__", counted_call)
    return seen


def _model(compile_it=True):
    inputs = Input((6, 6, 2))
    x = layers.Conv2D(3, 3, name="conv")(inputs)
    x = layers.BatchNormalization(name="norm")(x)
    x = layers.Flatten()(x)
    x = layers.Dense(5, kernel_initializer="he_normal", name="hidden")(x)
    x = layers.Dropout(0.1, seed=1)(x)
    outputs = layers.Dense(2, kernel_initializer="truncated_normal", name="out")(x)
    model = Model(inputs, outputs)
    if compile_it:
        model.compile(optimizer="adam", loss="mse")
        model.fit(np.ones((4, 6, 6, 2)), np.ones((4, 2)), epochs=1, verbose=0)
    return model


@pytest.mark.parametrize("compile_it", [True, False], ids=["compiled", "plain"])
def test_load_model_draws_no_value_the_file_sets(tmp_path, draws, compile_it):
    model = _model(compile_it)
    path = tmp_path / "model.keras"
    model.save(path)
    draws.clear()
    loaded = models.load_model(path)
    assert draws == []  # every variable is in the file: nothing is drawn to be overwritten
    for a, b in zip(model.get_weights(), loaded.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    if compile_it:
        for a, b in zip(model.optimizer.variables, loaded.optimizer.variables, strict=True):
            np.testing.assert_array_equal(ops.convert_to_numpy(a), ops.convert_to_numpy(b))
    x = np.random.default_rng(0).random((3, 6, 6, 2)).astype("float32")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def test_legacy_h5_load_draws_no_value_the_file_sets(tmp_path, draws):
    model = _model(compile_it=False)
    path = tmp_path / "model.h5"
    model.save(path)
    draws.clear()
    loaded = models.load_model(path)
    assert draws == []
    for a, b in zip(model.get_weights(), loaded.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_building_still_draws_every_initial_value(draws):
    # Outside a load nothing is put off: a build computes each value when it makes it.
    layers.Dense(3, name="d").build((None, 4))
    assert draws == [("uniform", (4, 3)), ("Zeros", (3,))]


@lamina.saving.register_keras_serializable(package="test_load_skips_initializers")
class HoldsAnUnsavedVariable(layers.Layer):
    """A weight the file holds, and a variable it does not (kept out of the layer's
    weights), both from unseeded initializers: the global generator."""

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 2), initializer="glorot_uniform")
        buffer = lamina.Variable(initializers.RandomNormal(), shape=(3, 2), trainable=False)
        self.holder = types.SimpleNamespace(buffer=buffer)  # not tracked: not in the file

    def call(self, x):
        return ops.matmul(x, self.w)

    def compute_output_shape(self, input_shape):
        return input_shape[:-1] + (2,)


def test_a_variable_the_file_leaves_out_gets_the_value_a_build_gives_it(tmp_path, draws):
    # Loading draws the one value the file does not hold, with the seed a plain build
    # gives it (the weight before it, not drawn, still takes its seed), and leaves the
    # global generator where a build leaves it.
    inputs = Input((4,))
    model = Model(inputs, HoldsAnUnsavedVariable(name="holds")(inputs))
    path = tmp_path / "holds.keras"
    model.save(path)

    lamina.utils.set_random_seed(3)
    built = Model.from_config(model.get_config())
    after_build = ops.convert_to_numpy(random.normal((4,)))

    lamina.utils.set_random_seed(3)
    draws.clear()
    loaded = models.load_model(path, compile=False)
    assert draws == [("normal", (3, 2))]
    after_load = ops.convert_to_numpy(random.normal((4,)))

    buffer = loaded.get_layer("holds").holder.buffer
    np.testing.assert_array_equal(buffer.numpy(), built.get_layer("holds").holder.buffer.numpy())
    np.testing.assert_array_equal(
        loaded.get_layer("holds").w.numpy(), model.get_layer("holds").w.numpy()
    )
    np.testing.assert_array_equal(after_load, after_build)


def test_lora_factors_are_set_by_the_load_not_drawn(tmp_path, draws):
    # The file holds a LoRA layer's merged kernel, and loading zeroes the factors (as
    # Keras does): no factor is drawn either.
    inputs = Input((4,))
    model = Model(inputs, layers.Dense(3, lora_rank=2, name="adapted")(inputs))
    path = tmp_path / "lora.keras"
    model.save(path)
    draws.clear()
    loaded = models.load_model(path)
    assert draws == []
    x = np.random.default_rng(0).random((3, 4)).astype("float32")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), 1e-6)
