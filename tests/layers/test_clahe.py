"""ContrastLimitedAdaptiveHistogramEqualization: outputs against Keras 3's layer (JAX
backend) and a NumPy reference, config and `.keras` round trips, input checks."""

from __future__ import annotations

import os

import numpy as np
import pytest

import lamina
from lamina import Input, Model, layers, ops
from lamina.layers.clahe import ContrastLimitedAdaptiveHistogramEqualization as CLAHE


def _np(x):
    return ops.convert_to_numpy(x)


@pytest.fixture(scope="module")
def keras():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras

    return keras


def _reference(image, clip_limit, grid):
    """Plain-loop CLAHE on one channels-last image in 0-255 units (the documented
    algorithm: mirrored padding to whole tiles, clipped 256-bin tile histograms with
    the excess spread evenly, CDF maps, bilinear blend between tile centers)."""
    height, width, channels = image.shape
    gh, gw = grid
    th, tw = -(-height // gh), -(-width // gw)
    padded = np.pad(image, [(0, th * gh - height), (0, tw * gw - width), (0, 0)], "symmetric")
    levels = np.clip(padded.astype(np.int64), 0, 255)
    maps = np.zeros((gh, gw, channels, 256))
    n = th * tw
    for i in range(gh):
        for j in range(gw):
            for c in range(channels):
                block = levels[i * th : (i + 1) * th, j * tw : (j + 1) * tw, c]
                hist = np.bincount(block.ravel(), minlength=256).astype(np.float64)
                if clip_limit > 0:
                    limit = clip_limit * n / 256
                    excess = np.sum(np.maximum(hist - limit, 0))
                    hist = np.minimum(hist, limit) + excess / 256
                cdf = np.cumsum(hist)
                den = n - cdf[0] if n - cdf[0] != 0 else 1.0
                maps[i, j, c] = np.clip((cdf - cdf[0]) * 255 / den, 0, 255)
    out = np.zeros(levels.shape)
    for y in range(height):
        fy = (y - th / 2) / th
        y0 = int(np.floor(fy))
        wy = fy - y0
        rows = (min(max(y0, 0), gh - 1), min(max(y0 + 1, 0), gh - 1))
        for x in range(width):
            fx = (x - tw / 2) / tw
            x0 = int(np.floor(fx))
            wx = fx - x0
            cols = (min(max(x0, 0), gw - 1), min(max(x0 + 1, 0), gw - 1))
            for c in range(channels):
                v = levels[y, x, c]
                m = [[maps[r, k, c, v] for k in cols] for r in rows]
                top = m[0][0] * (1 - wx) + m[0][1] * wx
                bottom = m[1][0] * (1 - wx) + m[1][1] * wx
                out[y, x, c] = top * (1 - wy) + bottom * wy
    return out[:height, :width]


# (input shape, kwargs, compare with Keras too): gray and RGB, batched and unbatched,
# channels first, grids that do not divide the image, another value range, no clipping.
CASES = [
    ((2, 3, 16, 12), {"tile_grid_size": (3, 5), "data_format": "channels_first"}, True),
    ((16, 16, 1), {"tile_grid_size": (4, 4), "clip_limit": 2.0, "value_range": (0, 1)}, True),
    ((3, 12, 16), {"tile_grid_size": (2, 3), "data_format": "channels_first"}, False),
    ((1, 10, 14, 1), {"tile_grid_size": (3, 4), "clip_limit": 0.0}, False),
]


def _image(shape, kwargs, rng):
    high = kwargs.get("value_range", (0, 255))[1]
    if high == 255:
        return rng.integers(0, 256, shape).astype("float32")  # uint8-range floats
    return rng.uniform(0, high, shape).astype("float32")


def test_matches_keras_and_numpy_reference(keras):
    rng = np.random.default_rng(0)
    import jax  # Keras runs on its JAX backend; one compiled call is faster than eager

    for shape, kwargs, with_keras in CASES:
        x = _image(shape, kwargs, rng)
        got = _np(CLAHE(**kwargs)(x))
        assert got.shape == shape and got.dtype == np.float32
        if with_keras:
            theirs = keras.layers.ContrastLimitedAdaptiveHistogramEqualization(**kwargs)
            expected = np.asarray(jax.jit(theirs)(x))
            np.testing.assert_allclose(got, expected, atol=1e-3, err_msg=str(kwargs))
        # NumPy reference on the channels-last batch, in 0-255 units.
        low, high = kwargs.get("value_range", (0, 255))
        batch = x if len(shape) == 4 else x[None]
        if kwargs.get("data_format") == "channels_first":
            batch = np.transpose(batch, (0, 2, 3, 1))
        units = (batch.astype(np.float32) - low) / (high - low) * 255
        grid, clip = kwargs["tile_grid_size"], kwargs.get("clip_limit", 4.0)
        ref = np.stack([_reference(image, clip, grid) for image in units]) / 255 * (high - low)
        ref = ref + low
        if kwargs.get("data_format") == "channels_first":
            ref = np.transpose(ref, (0, 3, 1, 2))
        np.testing.assert_allclose(got, ref.reshape(shape), atol=1e-3, err_msg=str(kwargs))


def test_inference_dict_and_bad_arguments():
    x = np.random.default_rng(1).integers(0, 256, (2, 8, 8, 3)).astype("float32")
    layer = CLAHE(tile_grid_size=(2, 2))
    acted = _np(layer(x))
    assert not np.allclose(acted, x)
    np.testing.assert_allclose(_np(layer(x, training=False)), acted)  # also at inference
    out = layer({"images": x, "labels": np.ones((2, 2), "float32")})
    np.testing.assert_allclose(_np(out["images"]), acted)
    # Integer images keep their dtype, values truncated (as Keras casts back).
    as_uint8 = _np(layer(x.astype("uint8")))
    assert as_uint8.dtype == np.uint8
    np.testing.assert_allclose(as_uint8, np.floor(acted), atol=1)
    for bad in ({"tile_grid_size": (0, 2)}, {"tile_grid_size": 4}, {"clip_limit": "4"}):
        with pytest.raises(ValueError, match="CLAHE|ContrastLimited"):
            CLAHE(**bad)
    with pytest.raises(ValueError, match="tile_grid_size"):
        CLAHE(tile_grid_size=(16, 2))(x)


def test_config_and_keras_file_round_trip(keras, tmp_path):
    layer = CLAHE(value_range=(0, 1), clip_limit=3.0, tile_grid_size=(2, 4))
    config = layer.get_config()
    assert config["value_range"] == [0.0, 1.0] and config["clip_limit"] == 3.0
    assert config["tile_grid_size"] == [2, 4] and "seed" not in config
    again = CLAHE.from_config(config)
    assert again.tile_grid_size == (2, 4) and again.value_range == (0.0, 1.0)
    # A config written by Keras 3 builds the same layer.
    kconfig = keras.layers.ContrastLimitedAdaptiveHistogramEqualization(
        clip_limit=3.0, tile_grid_size=(2, 4)
    ).get_config()
    kconfig.pop("dtype")
    assert layers.ContrastLimitedAdaptiveHistogramEqualization.from_config(
        kconfig
    ).tile_grid_size == (2, 4)

    inputs = Input((8, 8, 3))
    h = layers.ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(2, 2))(inputs)
    model = Model(inputs, layers.Dense(2)(layers.Flatten()(h)))
    path = tmp_path / "clahe.keras"
    model.save(path)
    loaded = lamina.models.load_model(path)
    assert loaded.layers[1].tile_grid_size == (2, 2)
    x = np.random.default_rng(2).integers(0, 256, (2, 8, 8, 3)).astype("float32")
    np.testing.assert_allclose(_np(loaded(x)), _np(model(x)), rtol=1e-5, atol=1e-4)
