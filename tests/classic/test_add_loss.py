"""`model.add_loss(<graph tensor>)` on a functional model compiled without a loss, the
Keras 2 way (issue 32, item 7): it trains on that loss on every engine, and a model
whose loss cannot reach its weights is an error that says so, never a silent zero.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import backend as K
from lamina.layers import Dense, Input, Lambda
from lamina.losses import binary_crossentropy, mse
from lamina.models import Model

RNG = np.random.default_rng(7)


def test_a_variational_autoencoder_trains_on_its_added_loss():
    lamina.utils.set_random_seed(2)
    original_dim, intermediate_dim, latent_dim = 8, 6, 2
    inputs = Input(shape=(original_dim,), name="encoder_input")
    hidden = Dense(intermediate_dim, activation="relu")(inputs)
    z_mean = Dense(latent_dim, name="z_mean")(hidden)
    z_log_var = Dense(latent_dim, name="z_log_var")(hidden)

    def sampling(args):
        z_mean, z_log_var = args
        batch, dim = K.shape(z_mean)[0], K.int_shape(z_mean)[1]
        epsilon = K.random_normal(shape=(batch, dim))
        return z_mean + K.exp(0.5 * z_log_var) * epsilon

    z = Lambda(sampling, output_shape=(latent_dim,), name="z")([z_mean, z_log_var])
    decoded = Dense(original_dim, activation="sigmoid")(
        Dense(intermediate_dim, activation="relu")(z)
    )
    vae = Model(inputs, decoded, name="vae_mlp")
    reconstruction_loss = original_dim * binary_crossentropy(inputs, decoded)
    kl_loss = -0.5 * K.sum(1 + z_log_var - K.square(z_mean) - K.exp(z_log_var), axis=-1)
    vae.add_loss(K.mean(reconstruction_loss + kl_loss))
    vae.compile(optimizer=lamina.optimizers.Adam(0.01))

    # Two binary patterns, a few bits flipped: something for the code to capture.
    patterns = np.array([[1, 1, 1, 1, 0, 0, 0, 0], [0, 1, 0, 1, 0, 1, 0, 1]], "float32")
    data = patterns[RNG.integers(0, 2, size=64)]
    data = np.where(RNG.uniform(size=data.shape) < 0.05, 1 - data, data)
    history = vae.fit(data, epochs=6, batch_size=16, validation_data=(data[:16], None), verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.9 * losses[0], losses
    assert "val_loss" in history.history
    # Evaluating reports the added loss too: about the last epoch's, as noise allows.
    assert 0.5 * losses[-1] < vae.evaluate(data, verbose=0) < 1.5 * losses[-1]
    assert vae.predict(data[:3], verbose=0).shape == (3, original_dim)


def test_an_added_loss_trains_exactly_as_the_compiled_loss_would():
    def build():
        inputs = Input(shape=(3,))
        outputs = Dense(3, kernel_initializer="glorot_uniform")(inputs)
        return inputs, outputs, Model(inputs, outputs)

    data = RNG.normal(size=(8, 3)).astype("float32")
    inputs, outputs, added = build()
    added.add_loss(K.mean(K.square(outputs - inputs)))  # a per-sample mse, averaged
    _, _, compiled = build()
    compiled.set_weights(added.get_weights())
    added.compile(optimizer=lamina.optimizers.SGD(0.1))
    compiled.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    history_added = added.fit(data, epochs=3, batch_size=4, shuffle=False, verbose=0)
    history_compiled = compiled.fit(data, data, epochs=3, batch_size=4, shuffle=False, verbose=0)
    np.testing.assert_allclose(
        history_added.history["loss"], history_compiled.history["loss"], rtol=1e-5
    )
    for a, b in zip(added.get_weights(), compiled.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # A call on data computes the added loss beside the outputs, as a loss of that call.
    predicted = lamina.ops.convert_to_numpy(added(data))
    (value,) = added.losses
    np.testing.assert_allclose(
        lamina.ops.convert_to_numpy(value), np.mean((predicted - data) ** 2), rtol=1e-5
    )


def _classic_vae(latent_sampling, original_dim=6, intermediate_dim=5, latent_dim=2):
    """Keras 2.2.4's examples/variational_autoencoder.py, small: the encoder and decoder
    are models of their own, `vae` calls them, and the loss reads `z_mean`/`z_log_var`
    from inside the encoder's graph."""
    inputs = Input(shape=(original_dim,), name="encoder_input")
    hidden = Dense(intermediate_dim, activation="relu")(inputs)
    z_mean = Dense(latent_dim, name="z_mean")(hidden)
    z_log_var = Dense(latent_dim, name="z_log_var")(hidden)
    z = Lambda(latent_sampling, output_shape=(latent_dim,), name="z")([z_mean, z_log_var])
    encoder = Model(inputs, [z_mean, z_log_var, z], name="encoder")
    latent_inputs = Input(shape=(latent_dim,), name="z_sampling")
    decoded = Dense(intermediate_dim, activation="relu")(latent_inputs)
    decoded = Dense(original_dim, activation="sigmoid")(decoded)
    decoder = Model(latent_inputs, decoded, name="decoder")
    outputs = decoder(encoder(inputs)[2])
    vae = Model(inputs, outputs, name="vae_mlp")
    reconstruction_loss = mse(inputs, outputs) * original_dim
    kl_loss = 1 + z_log_var - K.square(z_mean) - K.exp(z_log_var)
    kl_loss = K.sum(kl_loss, axis=-1) * -0.5
    vae.add_loss(K.mean(reconstruction_loss + kl_loss))
    return vae


def _sampling(args):
    z_mean, z_log_var = args
    batch, dim = K.shape(z_mean)[0], K.int_shape(z_mean)[1]
    return z_mean + K.exp(0.5 * z_log_var) * K.random_normal(shape=(batch, dim))


def _numpy_vae_loss(weights, x):
    """The VAE's loss in NumPy (float64) with z = z_mean (no noise)."""
    w1, b1, wm, bm, wv, bv, w3, b3, w4, b4 = (np.asarray(w, "float64") for w in weights)
    hidden = np.maximum(x @ w1 + b1, 0)
    z_mean, z_log_var = hidden @ wm + bm, hidden @ wv + bv
    decoded = 1 / (1 + np.exp(-(np.maximum(z_mean @ w3 + b3, 0) @ w4 + b4)))
    reconstruction = np.mean((x - decoded) ** 2, axis=-1) * x.shape[1]
    kl = -0.5 * np.sum(1 + z_log_var - z_mean**2 - np.exp(z_log_var), axis=-1)
    return np.mean(reconstruction + kl)


def test_a_loss_read_from_inside_a_nested_encoder_trains_the_vae():
    """The loss goes through the nested encoder's own layers, whose weights are the
    model's: its value is Keras 2's formula, and a step moves the weights exactly as the
    same VAE written as one flat graph moves them (both paths of the gradient)."""
    lamina.utils.set_random_seed(3)
    data = RNG.uniform(size=(8, 6)).astype("float32")
    nested = _classic_vae(lambda args: args[0] + 0.0 * args[1])
    weights = nested.get_weights()

    layers = [Dense(5, activation="relu"), Dense(2), Dense(2)]
    layers += [Dense(5, activation="relu"), Dense(6, activation="sigmoid")]
    inputs = Input(shape=(6,))
    hidden = layers[0](inputs)
    z_mean, z_log_var = layers[1](hidden), layers[2](hidden)
    outputs = layers[4](layers[3](z_mean))
    # z_log_var is an output so that its layer belongs to the flat model.
    flat = Model(inputs, [outputs, z_log_var])
    kl_loss = -0.5 * K.sum(1 + z_log_var - K.square(z_mean) - K.exp(z_log_var), axis=-1)
    flat.add_loss(K.mean(mse(inputs, outputs) * 6 + kl_loss))
    for index, layer in enumerate(layers):
        layer.set_weights(weights[2 * index : 2 * index + 2])
    flat_weights = [w for layer in layers for w in layer.weights]

    nested.compile(optimizer="rmsprop")
    flat.compile(optimizer="rmsprop")
    first = nested.fit(data, epochs=1, batch_size=8, verbose=0).history["loss"][0]
    assert first == pytest.approx(_numpy_vae_loss(weights, data), rel=1e-5)
    flat.fit(data, epochs=1, batch_size=8, verbose=0)
    moved = False
    flat_after = [lamina.ops.convert_to_numpy(w) for w in flat_weights]
    for a, b, before in zip(nested.get_weights(), flat_after, weights, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        moved = moved or not np.allclose(a, before)
    assert moved
    # evaluate and a call on data compute the same loss from the updated weights.
    after = _numpy_vae_loss(nested.get_weights(), data)
    assert nested.evaluate(data, batch_size=8, verbose=0) == pytest.approx(after, rel=1e-5)


def test_the_keras2_vae_program_trains_with_noise_on_both_engines():
    lamina.utils.set_random_seed(4)
    vae = _classic_vae(_sampling)
    vae.compile(optimizer="rmsprop")
    patterns = np.array([[1, 1, 1, 0, 0, 0], [0, 1, 0, 1, 0, 1]], "float32")
    data = patterns[RNG.integers(0, 2, size=64)]
    history = vae.fit(data, epochs=5, batch_size=16, validation_data=(data[:16], None), verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < losses[0], losses
    assert np.isfinite(history.history["val_loss"]).all()
    assert vae.predict(data[:2], verbose=0).shape == (2, 6)


def test_a_loss_weight_held_in_a_k_variable_is_read_at_every_step():
    """KL annealing the Keras 2 way: `beta = K.variable(0.0)` weighs an added loss and a
    callback sets it with `K.set_value`; every step reads the value it has then."""
    inputs = Input(shape=(3,))
    outputs = Dense(3, kernel_initializer="ones", bias_initializer="zeros")(inputs)
    model = Model(inputs, outputs)
    beta = K.variable(0.0)
    model.add_loss(beta * K.mean(K.square(outputs - inputs)))
    model.compile(optimizer=lamina.optimizers.SGD(0.0))  # the weights stay put
    data = RNG.normal(size=(4, 3)).astype("float32")
    error = np.mean((data @ np.ones((3, 3)) - data) ** 2)

    class Anneal(lamina.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            K.set_value(beta, 0.5 * epoch)

    history = model.fit(data, epochs=3, batch_size=4, verbose=0, callbacks=[Anneal()])
    np.testing.assert_allclose(history.history["loss"], [0.0, 0.5 * error, error], rtol=1e-5)
    K.set_value(beta, 2.0)
    assert model.evaluate(data, verbose=0) == pytest.approx(2 * error, rel=1e-5)


def test_no_loss_reaching_the_weights_is_an_error():
    data = np.ones((4, 3), "float32")
    inputs = Input(shape=(3,))
    outputs = Dense(2)(inputs)
    nothing = Model(inputs, outputs)
    nothing.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="No loss to compute"):
        nothing.fit(data, verbose=0)
    constant = Model(inputs, outputs)
    constant.add_loss(K.mean(K.square(inputs)))  # computed from the data alone
    constant.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="no loss that reaches its trainable weights"):
        constant.fit(data, verbose=0)
    other = Input(shape=(3,))
    with pytest.raises(ValueError, match="not computed from the model's inputs"):
        Model(inputs, outputs).add_loss(K.mean(other))
    # A layer in no model the model holds (nested ones count) would never be trained.
    with pytest.raises(ValueError, match=r"layer\(s\) \['stray'\], which are not part"):
        Model(inputs, outputs).add_loss(K.mean(Dense(1, name="stray")(inputs)))
