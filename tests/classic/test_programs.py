"""Small programs written the Keras 2 way (issue 32), each run unchanged but for the
package name: classic module paths, optimizer arguments, NumPy sizes, the scikit-learn
wrappers, symbolic losses, Keras 2's weights files and prediction helpers.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

RNG = np.random.default_rng(7)


def _classic_warnings():
    """Keras 2 names warn (DeprecationWarning) where Keras 3 dropped them: expected here."""
    context = warnings.catch_warnings()
    context.__enter__()
    warnings.simplefilter("ignore", DeprecationWarning)
    return context


def test_a_merge_model_trained_with_lr_and_decay(tmp_path):
    from lamina import backend as K
    from lamina.layers import Dense, Input
    from lamina.layers.merge import concatenate, multiply
    from lamina.models import Model
    from lamina.optimizers import SGD
    from lamina.utils.np_utils import to_categorical

    x_a = RNG.normal(size=(64, 4)).astype("float32")
    x_b = RNG.normal(size=(64, 4)).astype("float32")
    labels = (x_a.sum(1) * x_b.sum(1) > 0).astype("int64")
    num_classes = np.max(labels) + 1  # a NumPy integer, as classic scripts computed it
    y = to_categorical(labels, num_classes)

    a, b = Input(shape=(4,)), Input(shape=(4,))
    h = concatenate([Dense(8, activation="tanh")(a), Dense(8, activation="tanh")(b)])
    h = multiply([h, Dense(16, activation="sigmoid")(h)])
    model = Model(inputs=[a, b], outputs=Dense(num_classes, activation="softmax")(h))
    context = _classic_warnings()
    try:
        optimizer = SGD(lr=0.5, momentum=0.9, decay=1e-2, nesterov=True, clipnorm=5.0)
    finally:
        context.__exit__(None, None, None)
    model.compile(loss="categorical_crossentropy", optimizer=optimizer, metrics=["accuracy"])
    history = model.fit([x_a, x_b], y, batch_size=16, epochs=12, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    # Keras 2's bookkeeping: iterations counted, the variable keeps the undecayed rate.
    assert int(K.get_value(model.optimizer.iterations)) == 12 * 4
    assert float(K.get_value(model.optimizer.lr)) == pytest.approx(0.5)
    model.save_weights(str(tmp_path / "weights00.h5"))
    model.load_weights(str(tmp_path / "weights00.h5"), by_name=True)


def test_a_cnn_with_numpy_sizes_and_classic_helpers(tmp_path):
    from lamina import optimizers
    from lamina.layers.convolutional import Conv2D, UpSampling2D
    from lamina.layers.core import Dense, Dropout, Flatten
    from lamina.layers.pooling import MaxPooling2D
    from lamina.models import Sequential
    from lamina.utils import np_utils

    images = RNG.normal(size=(24, 8, 8, 1)).astype("float32")
    labels = RNG.integers(0, 3, size=24)
    rows, cols = images.shape[1:3]
    filters, size = np.int64(4), np.int64(3)
    model = Sequential()
    model.add(Conv2D(filters, (size, size), activation="relu", input_shape=(rows, cols, 1)))
    model.add(UpSampling2D(size=(np.int64(2),) * 2))
    model.add(MaxPooling2D(pool_size=(np.int64(2), np.int64(2))))
    model.add(Dropout(0.25))
    model.add(Flatten())
    model.add(Dense(np.int64(3), activation="softmax"))
    model.compile(loss="categorical_crossentropy", optimizer=optimizers.adadelta())
    model.fit(images, np_utils.to_categorical(labels, 3), batch_size=8, epochs=1, verbose=0)
    context = _classic_warnings()
    try:
        classes = model.predict_classes(images[:5])
        probabilities = model.predict_proba(images[:5])
    finally:
        context.__exit__(None, None, None)
    assert classes.shape == (5,) and probabilities.shape == (5, 3)
    np.testing.assert_array_equal(classes, probabilities.argmax(-1))
    model.save_weights(str(tmp_path / "cnn.hdf5"))
    again = Sequential.from_config(model.get_config())
    again.load_weights(str(tmp_path / "cnn.hdf5"))
    np.testing.assert_allclose(again.predict(images[:5], verbose=0), probabilities, rtol=1e-5)


def test_a_grid_search_over_a_keras_classifier():
    pytest.importorskip("sklearn")
    from sklearn.model_selection import GridSearchCV, cross_val_score

    from lamina.layers import Dense
    from lamina.models import Sequential
    from lamina.wrappers.scikit_learn import KerasClassifier, KerasRegressor

    x = RNG.normal(size=(40, 4)).astype("float32")
    y = np.where(x[:, 0] + x[:, 1] > 0, "yes", "no")

    def create_model(hidden=4, optimizer="adam"):
        model = Sequential()
        model.add(Dense(hidden, input_dim=4, activation="relu"))
        model.add(Dense(1, activation="sigmoid"))
        model.compile(loss="binary_crossentropy", optimizer=optimizer, metrics=["accuracy"])
        return model

    classifier = KerasClassifier(build_fn=create_model, epochs=2, batch_size=10, verbose=0)
    grid = GridSearchCV(classifier, param_grid={"hidden": [2, 6]}, cv=2)
    result = grid.fit(x, y)
    assert result.best_params_["hidden"] in (2, 6)
    assert 0.0 <= result.best_score_ <= 1.0
    best = result.best_estimator_
    assert set(best.predict(x[:6])) <= {"yes", "no"}
    probabilities = best.predict_proba(x[:6])
    assert probabilities.shape == (6, 2)
    np.testing.assert_allclose(probabilities.sum(1), np.ones(6), rtol=1e-5)
    assert 0.0 <= best.score(x, y) <= 1.0
    assert best.get_params()["epochs"] == 2 and best.get_params()["build_fn"] is create_model

    # A softmax classifier with one-hot targets (categorical_crossentropy), three labels.
    labels = RNG.integers(0, 3, size=40)

    def softmax_model():
        model = Sequential([Dense(3, input_dim=4, activation="softmax")])
        model.compile(loss="categorical_crossentropy", optimizer="sgd", metrics=["acc"])
        return model

    softmax = KerasClassifier(softmax_model, epochs=1, verbose=0)
    softmax.fit(x, labels)
    assert softmax.predict(x[:4]).shape == (4,) and softmax.predict_proba(x[:4]).shape == (4, 3)
    assert 0.0 <= softmax.score(x, labels) <= 1.0

    def regression_model():
        model = Sequential([Dense(1, input_dim=4)])
        model.compile(loss="mse", optimizer="sgd")
        return model

    regressor = KerasRegressor(build_fn=regression_model, epochs=2, verbose=0)
    scores = cross_val_score(regressor, x, x[:, 0], cv=2)
    assert scores.shape == (2,) and (scores <= 0).all()
    assert regressor.fit(x, x[:, 0]).history["loss"]
    assert regressor.predict(x[:3]).shape == (3,)
    with pytest.raises(ValueError, match="'nonsense' is not an argument"):
        KerasClassifier(create_model, nonsense=1)
    with pytest.raises(ValueError, match="metrics=\\['accuracy'\\]"):
        no_accuracy = KerasClassifier(regression_model, epochs=1, verbose=0)
        no_accuracy.fit(x, y)
        no_accuracy.score(x, y)


def test_a_vae_style_loss_written_on_the_models_tensors():
    from lamina import backend as K
    from lamina import losses, metrics
    from lamina.layers import Dense, Input, Lambda
    from lamina.losses import binary_crossentropy, mse
    from lamina.models import Model

    original_dim, latent_dim = 6, 2
    x = Input(shape=(original_dim,))
    h = Dense(4, activation="relu")(x)
    z_mean, z_log_var = Dense(latent_dim)(h), Dense(latent_dim)(h)
    z = Lambda(lambda args: args[0] + K.exp(0.5 * args[1]))([z_mean, z_log_var])
    x_decoded = Dense(original_dim, activation="sigmoid")(Dense(4, activation="relu")(z))

    # As the classic VAE wrote it: loss functions called on KerasTensors.
    reconstruction = original_dim * binary_crossentropy(x, x_decoded)
    kl = -0.5 * K.sum(1 + z_log_var - K.square(z_mean) - K.exp(z_log_var), axis=-1)
    vae_loss = K.mean(reconstruction + kl)
    assert reconstruction.shape == (None,) and vae_loss.shape == ()
    assert metrics.binary_crossentropy is losses.binary_crossentropy
    assert mse(x, x_decoded).shape == (None,) and losses.kld(x, x_decoded).shape == (None,)
    assert losses.mae(x, x_decoded).shape == (None,)

    data = RNG.uniform(size=(5, original_dim)).astype("float32")
    compute = K.function([x], [vae_loss, reconstruction])
    loss_value, per_sample = compute([data])
    encoder_decoder = Model(x, [x_decoded, z_mean, z_log_var])
    decoded, mean, log_var = (np.asarray(a) for a in encoder_decoder.predict(data, verbose=0))
    clipped = np.clip(decoded, 1e-7, 1 - 1e-7)
    bce = -(data * np.log(clipped) + (1 - data) * np.log(1 - clipped)).mean(-1)
    np.testing.assert_allclose(per_sample, original_dim * bce, rtol=1e-4)
    kl_value = -0.5 * np.sum(1 + log_var - mean**2 - np.exp(log_var), axis=-1)
    np.testing.assert_allclose(loss_value, np.mean(original_dim * bce + kl_value), rtol=1e-4)
    # The loss node sits in a functional graph like any op: a model can output it.
    per_sample_model = Model(x, reconstruction)
    np.testing.assert_allclose(
        per_sample_model.predict(data, verbose=0), original_dim * bce, rtol=1e-4
    )


def test_keras_2_optimizers_by_their_lower_case_names_train():
    from lamina import optimizers
    from lamina.layers import Dense
    from lamina.models import Sequential

    x = RNG.normal(size=(32, 3)).astype("float32")
    y = x @ np.array([[1.0], [-2.0], [0.5]], "float32")
    for make in (
        optimizers.sgd,
        optimizers.rmsprop,
        optimizers.adagrad,
        optimizers.adadelta,
        optimizers.adam,
        optimizers.adamax,
        optimizers.nadam,
    ):
        model = Sequential([Dense(1, input_shape=(3,))])
        context = _classic_warnings()
        try:
            optimizer = make(lr=0.05, decay=1e-3, clipvalue=10.0)
        finally:
            context.__exit__(None, None, None)
        model.compile(optimizer=optimizer, loss="mse")
        history = model.fit(x, y, batch_size=8, epochs=4, verbose=0)
        assert history.history["loss"][-1] < history.history["loss"][0], make.__name__
