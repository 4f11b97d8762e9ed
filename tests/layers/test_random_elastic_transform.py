"""RandomElasticTransform: Keras 3's config and arguments, identity at inference (and
with no strength or probability), seeded draws, clipping, and a `.keras` round trip."""

from __future__ import annotations

import os

import numpy as np
import pytest

import lamina
from lamina import Input, Model, layers, ops

# One image shape throughout: each new shape costs JAX a compilation.
RNG = np.random.default_rng(0)
IMAGES = RNG.uniform(0, 255, (2, 8, 8, 3)).astype("float32")


def _np(x):
    return ops.convert_to_numpy(x)


def test_deforms_in_training_only_seeded_and_clipped():
    # Always applied, with a visible strength (the default draws both in [0, 1]).
    layer = layers.RandomElasticTransform(factor=(1.0, 1.0), scale=(0.5, 1.0), seed=1)
    np.testing.assert_array_equal(_np(layer(IMAGES, training=False)), IMAGES)
    first = _np(layer(IMAGES))
    assert first.shape == IMAGES.shape and first.dtype == np.float32
    assert np.abs(first - IMAGES).max() > 1.0
    assert first.min() >= 0.0 and first.max() <= 255.0
    # The same seed gives the same draws; the generator moves on between calls.
    again = layers.RandomElasticTransform.from_config(layer.get_config())
    np.testing.assert_allclose(_np(again(IMAGES)), first, atol=1e-4)
    assert np.abs(_np(layer(IMAGES)) - first).max() > 1.0
    # No strength, or no probability: the images come back.
    for kwargs in ({"scale": 0.0}, {"factor": 0.0}):
        out = layers.RandomElasticTransform(seed=1, **kwargs)(IMAGES)
        np.testing.assert_array_equal(_np(out), IMAGES)
    # Clipped to value_range; one image is a batch of one; channels first works.
    clipped = _np(layers.RandomElasticTransform(value_range=(50, 200), seed=2)(IMAGES))
    assert clipped.min() >= 50.0 and clipped.max() <= 200.0
    single = layers.RandomElasticTransform(seed=3, interpolation="nearest")(IMAGES[0])
    assert tuple(single.shape) == (8, 8, 3)
    first_layout = layers.RandomElasticTransform.from_config(
        {**layer.get_config(), "data_format": "channels_first"}
    )(np.transpose(IMAGES, (0, 3, 1, 2)))
    np.testing.assert_allclose(np.transpose(_np(first_layout), (0, 2, 3, 1)), first, atol=1e-4)


def test_keras_config_and_errors():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras

    kwargs = {
        "factor": 0.5,
        "scale": (0.2, 0.6),
        "interpolation": "nearest",
        "fill_mode": "constant",
        "fill_value": 3.0,
        "value_range": (0, 1),
        "seed": 7,
    }
    ours = layers.RandomElasticTransform(**kwargs).get_config()
    theirs = keras.layers.RandomElasticTransform(**kwargs).get_config()
    for key in ("factor", "scale", "interpolation", "fill_mode", "fill_value", "seed"):
        assert tuple(np.ravel(ours[key])) == tuple(np.ravel(theirs[key])), key
    assert tuple(ours["value_range"]) == tuple(theirs["value_range"])
    theirs.pop("dtype")
    built = layers.RandomElasticTransform.from_config(theirs)
    assert built.get_config()["scale"] == ours["scale"]
    with pytest.raises(ValueError, match="unknown interpolation 'bicubic'"):
        layers.RandomElasticTransform(interpolation="bicubic")
    with pytest.raises(ValueError, match="unknown fill_mode 'edge'"):
        layers.RandomElasticTransform(fill_mode="edge")
    with pytest.raises(ValueError, match="scale must be a number or a pair"):
        layers.RandomElasticTransform(scale=2.0)
    with pytest.raises(ValueError, match="value_range must be"):
        layers.RandomElasticTransform(value_range=(1, 0))


def test_saved_model_round_trip(tmp_path):
    inputs = Input((8, 8, 3))
    h = layers.RandomElasticTransform(scale=0.5, seed=4)(inputs)
    outputs = layers.Dense(2)(layers.Flatten()(h))
    model = Model(inputs, outputs)
    path = tmp_path / "elastic.keras"
    model.save(path)
    loaded = lamina.models.load_model(path)
    # Inference is the identity, so both predict alike.
    np.testing.assert_allclose(
        loaded.predict(IMAGES, verbose=0), model.predict(IMAGES, verbose=0), rtol=1e-5, atol=1e-5
    )
    layer = loaded.layers[1]
    assert type(layer).__name__ == "RandomElasticTransform"
    assert layer.get_config()["scale"] == (0.0, 0.5) and layer.seed == 4
