"""`fit`, `evaluate` and `predict` refuse a count argument that makes no sense
(`epochs=-1`, `steps_per_epoch=0`, `batch_size=2.5`) with an error naming it (issue 33).

Keras 3 runs `fit(epochs=-1)` as a silent no-op and fails deep in its loop on
`batch_size=-1` (an UnboundLocalError); lamina says which argument is wrong."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers

X = np.ones((6, 3), "float32")
Y = np.ones((6, 1), "float32")


@pytest.fixture(scope="module")
def model():
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(1)])
    model.compile("sgd", "mse")
    return model


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(epochs=-1), "epochs"),
        (dict(epochs=1.5), "epochs"),
        (dict(epochs="2"), "epochs"),
        (dict(epochs=True), "epochs"),
        (dict(initial_epoch=-1), "initial_epoch"),
        (dict(steps_per_epoch=0), "steps_per_epoch"),
        (dict(steps_per_epoch=-1), "steps_per_epoch"),
        (dict(validation_data=(X, Y), validation_steps=-1), "validation_steps"),
        (dict(validation_data=(X, Y), validation_batch_size=0), "validation_batch_size"),
        (dict(validation_data=(X, Y), validation_freq=0), "validation_freq"),
        (dict(validation_data=(X, Y), validation_freq=[1, -2]), "validation_freq"),
    ],
)
def test_fit_names_the_bad_count(model, kwargs, name):
    weights = model.get_weights()
    with pytest.raises(ValueError, match=rf"fit received {name}=") as info:
        model.fit(X, Y, verbose=0, **kwargs)
    assert "must be an integer" in str(info.value)
    for after, before in zip(model.get_weights(), weights, strict=True):
        np.testing.assert_array_equal(after, before)  # refused before any step


@pytest.mark.parametrize("batch_size", [0, -1, 2.5])
def test_fit_names_a_bad_batch_size(model, batch_size):
    with pytest.raises(ValueError, match=r"batch_size must be a positive int; received"):
        model.fit(X, Y, batch_size=batch_size, verbose=0)


def test_evaluate_and_predict_name_a_bad_steps(model):
    with pytest.raises(ValueError, match=r"evaluate received steps=-1"):
        model.evaluate(X, Y, steps=-1, verbose=0)
    with pytest.raises(ValueError, match=r"predict received steps=0"):
        model.predict(X, steps=0, verbose=0)


def test_counts_that_make_sense_still_run(model):
    assert model.fit(X, Y, epochs=0, verbose=0).history == {}  # no epoch, as in Keras
    history = model.fit(
        X, Y, epochs=np.int64(2), initial_epoch=1, batch_size=np.int32(3), verbose=0
    )
    assert len(history.history["loss"]) == 1
    model.fit(X, Y, epochs=1, validation_data=(X, Y), validation_freq=[1], verbose=0)
    assert model.predict(X, steps=1, batch_size=6, verbose=0).shape == (6, 1)
