"""Unseeded random ops inside layers, the Keras 2 way (issue 32, item 6).

Classic programs draw noise with `K.random_normal(shape)` in a `Lambda` (a VAE's
reparameterisation) and expect fresh numbers on every step, in `fit`, `predict`,
`model(x)` and `K.function` alike. Every compiled program carries the global seed state
those ops draw from, so the numbers are fresh each step and reproducible from
`lamina.utils.set_random_seed`.
"""

from __future__ import annotations

import numpy as np

import lamina
from lamina import backend as K
from lamina.layers import Dense, Input, Lambda
from lamina.models import Model


def _noisy_model():
    # Made right after a fresh session: the global generator is first drawn from while
    # the Lambda is evaluated abstractly (on JAX inside a trace, on torch on the meta
    # device), and the layers built after it must not notice.
    K.clear_session()
    x = Input(shape=(3,))
    noisy = Lambda(lambda t: t + K.random_normal(shape=K.shape(t), mean=0.0, stddev=1.0))(x)
    return x, noisy, Model(x, Dense(1, kernel_initializer="ones")(noisy))


def test_unseeded_noise_is_fresh_in_predict_calls_and_k_function():
    x, noisy, _ = _noisy_model()
    sampler = Model(x, noisy)
    zeros = np.zeros((64, 3), "float32")
    first, second = (sampler.predict(zeros, verbose=0) for _ in range(2))
    assert not np.allclose(first, second)
    assert 0.7 < first.std() < 1.3 and abs(first.mean()) < 0.3  # a standard normal
    one, two = (np.asarray(sampler(zeros[:4])) for _ in range(2))
    assert not np.allclose(one, two)
    f = K.function([x], [noisy])
    assert not np.allclose(f([zeros[:4]])[0], f([zeros[:4]])[0])
    # Several batches in one program (`steps_per_execution`, a scan): each its own noise.
    sampler.compile(loss="mse", steps_per_execution=2)
    rows = sampler.predict(zeros[:4], batch_size=1, verbose=0)
    assert len({tuple(np.round(r, 5)) for r in rows}) == 4
    # The global seed state is one variable, named as such (not after a layer).
    state = lamina.random.global_seed_generator().state
    assert state.path == "global_seed_generator/seed_generator_state"


def test_unseeded_noise_is_fresh_at_every_training_step_and_reproducible():
    _, _, model = _noisy_model()
    # A learning rate of zero: the weights stay, so the losses differ only by the noise.
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    data, targets = np.zeros((4, 3), "float32"), np.zeros((4, 1), "float32")

    def losses():
        lamina.utils.set_random_seed(11)
        history = model.fit(data, targets, batch_size=4, epochs=3, verbose=0)
        return history.history["loss"]

    run = losses()
    assert len(set(np.round(run, 6))) == 3  # each step drew new noise
    np.testing.assert_allclose(losses(), run)  # and the same ones from the same seed
