"""`trainable` flipped after `compile`: the classic GAN idiom says so out loud.

Keras 2 trained the variables that were trainable when `compile` ran, and classic GANs
relied on it: compile the discriminator, set `discriminator.trainable = False`, compile
the combined model, then train both with `train_on_batch`. Keras 3 (and lamina) train
the variables trainable at each step, so that discriminator silently never trains.
lamina keeps Keras 3's rule and warns, once per change, when a model is trained with
flags that differ from those it was compiled with.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lamina
from lamina import layers

X = np.linspace(-1.0, 1.0, 16, dtype="float32").reshape(4, 4)
ONES = np.ones((4, 1), "float32")


def _gan():
    image = lamina.Input((4,))
    discriminator = lamina.Model(image, layers.Dense(1, activation="sigmoid")(image))
    discriminator.compile("sgd", "binary_crossentropy")
    discriminator.trainable = False
    noise = lamina.Input((2,))
    generator = lamina.Sequential([lamina.Input((2,)), layers.Dense(4)])
    combined = lamina.Model(noise, discriminator(generator(noise)))
    combined.compile("sgd", "binary_crossentropy")
    return discriminator, generator, combined


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return call()


def test_a_discriminator_frozen_after_its_compile_warns_once_and_keeps_keras3s_rule():
    discriminator, generator, combined = _gan()
    before = [w.copy() for w in discriminator.get_weights()]
    with pytest.warns(UserWarning, match=r"train_on_batch: `trainable` flags.*changed after"):
        discriminator.train_on_batch(X, ONES)
    _quiet(lambda: discriminator.train_on_batch(X, ONES))  # once per change
    # Keras 3's rule: the frozen discriminator does not move.
    for old, new in zip(before, discriminator.get_weights(), strict=True):
        np.testing.assert_array_equal(old, new)
    # The combined model was compiled with the flags it trains with: no warning, and
    # only the generator moves.
    g_before = [w.copy() for w in generator.get_weights()]
    _quiet(lambda: combined.train_on_batch(X[:, :2], ONES))
    assert any(
        not np.array_equal(a, b) for a, b in zip(g_before, generator.get_weights(), strict=True)
    )


def test_compiling_again_or_flipping_back_silences_it_and_fit_checks_too():
    discriminator, _, _ = _gan()
    discriminator.compile("sgd", "binary_crossentropy")  # recompiled after the flip
    _quiet(lambda: discriminator.train_on_batch(X, ONES))

    def dense_model():
        image = lamina.Input((4,))
        model = lamina.Model(image, layers.Dense(1)(image))
        model.compile("sgd", "mse")
        return model

    model = dense_model()
    model.layers[-1].trainable = False
    model.layers[-1].trainable = True  # back to the compiled flags: nothing to say
    _quiet(lambda: model.fit(X, ONES, epochs=1, verbose=0))
    model = dense_model()
    model.layers[-1].trainable = False  # differs from this compile: fit says so too
    with pytest.warns(UserWarning, match=r"fit: .*2 variable\(s\) frozen, 0 unfrozen"):
        model.fit(X, ONES, epochs=1, verbose=0)
