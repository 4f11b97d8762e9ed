"""`ops.image.map_coordinates`, `scale_and_translate` and `elastic_transform` against
SciPy, `jax.image` and Keras 3 (on JAX), on whichever engine runs the tests."""

from __future__ import annotations

import os

import numpy as np
import pytest
from scipy import ndimage

from lamina import backend, ops
from lamina.ops import image
from lamina.ops.image_warps import _elastic_warp

# Keras's boundary modes as SciPy names them (Keras's "constant" and "wrap" are SciPy's
# grid modes).
SCIPY_MODES = {
    "constant": "grid-constant",
    "nearest": "nearest",
    "wrap": "grid-wrap",
    "mirror": "mirror",
    "reflect": "reflect",
}


def _np(x):
    return ops.convert_to_numpy(x)


def _keras():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras

    return keras


def _coordinates(rng, shape, order, n=(3, 4)):
    """Positions inside and up to two cells outside each axis; none at a half (order 0
    rounds halves differently in SciPy)."""
    coords = np.stack([rng.uniform(-2.0, s + 1.0, size=n) for s in shape]).astype("float32")
    if order == 0:
        coords = np.where(np.abs(coords - np.floor(coords) - 0.5) < 0.05, coords + 0.1, coords)
    return coords


def test_map_coordinates_matches_scipy_and_keras():
    rng = np.random.default_rng(0)
    inputs = rng.uniform(-1, 1, size=(5, 6)).astype("float32")
    volume = rng.uniform(-1, 1, size=(3, 4, 2)).astype("float32")
    for i, (mode, scipy_mode) in enumerate(SCIPY_MODES.items()):
        for order in (0, 1):
            x = (inputs, volume)[(i + order) % 2]
            coords = _coordinates(rng, x.shape, order)
            got = image.map_coordinates(x, coords, order, fill_mode=mode, fill_value=0.5)
            want = ndimage.map_coordinates(
                x.astype("float64"), coords, order=order, mode=scipy_mode, cval=0.5
            )
            np.testing.assert_allclose(_np(got), want, atol=1e-5, err_msg=f"{order} {mode}")
            assert tuple(got.shape) == coords.shape[1:]
    # A sequence of per-axis arrays works as the stacked array does.
    coords = _coordinates(rng, inputs.shape, 1)
    np.testing.assert_allclose(
        _np(image.map_coordinates(inputs, list(coords), 1)),
        _np(image.map_coordinates(inputs, coords, 1)),
    )
    # Keras's op (JAX) on integer inputs: the interpolated values are rounded.
    keras = _keras()
    ints = rng.integers(0, 255, size=(5, 6)).astype("int32")
    for order, mode in ((1, "constant"), (0, "wrap")):
        coords = _coordinates(rng, ints.shape, order)
        want = keras.ops.convert_to_numpy(
            keras.ops.image.map_coordinates(ints, coords, order, mode, 7)
        )
        got = image.map_coordinates(ints, coords, order, mode, 7)
        assert str(_np(got).dtype) == "int32"
        np.testing.assert_array_equal(_np(got), want)


def test_map_coordinates_refuses_bad_arguments():
    x = np.zeros((4, 4), "float32")
    coords = np.zeros((2, 3), "float32")
    with pytest.raises(ValueError, match="order must be 0"):
        image.map_coordinates(x, coords, 3)
    with pytest.raises(ValueError, match="unknown fill_mode 'edge'"):
        image.map_coordinates(x, coords, 1, fill_mode="edge")
    with pytest.raises(ValueError, match="one entry per axis"):
        image.map_coordinates(x, np.zeros((3, 3), "float32"), 1)
    with pytest.raises(ValueError, match="rank 2 or more"):
        image.map_coordinates(x, np.zeros((2,), "float32"), 1)


def test_map_coordinates_is_differentiable_in_its_inputs():
    rng = np.random.default_rng(1)
    x = rng.uniform(size=(4, 5)).astype("float32")
    weights = rng.uniform(size=(3, 4)).astype("float32")
    for mode in ("constant", "mirror"):
        scipy_mode = SCIPY_MODES[mode]
        coords = _coordinates(rng, x.shape, 1)

        def loss(v, coords=coords, mode=mode):
            return ops.sum(
                image.map_coordinates(v, coords, 1, mode, 0.25) * ops.convert_to_tensor(weights)
            )

        _, grad = backend.value_and_grad(loss)(ops.convert_to_tensor(x))
        # The op is affine in the inputs: each input's gradient is the weighted sum of
        # what a unit change of it moves the outputs (SciPy, fill value 0).
        want = np.zeros(x.shape)
        for index in np.ndindex(x.shape):
            unit = np.zeros(x.shape)
            unit[index] = 1.0
            moved = ndimage.map_coordinates(unit, coords, order=1, mode=scipy_mode, cval=0.0)
            want[index] = np.sum(moved * weights)
        np.testing.assert_allclose(_np(grad), want, atol=1e-5, err_msg=mode)


def test_scale_and_translate_matches_jax_image():
    import jax

    rng = np.random.default_rng(2)
    images = rng.uniform(size=(2, 6, 7, 3)).astype("float32")
    # Each case scales one axis down and the other up, or shifts partly outside.
    down_up = ((2, 3, 10, 3), (0.5, 1.4), (0.0, 0.25))
    shift = ((2, 6, 7, 3), (1.0, 1.0), (1.5, -2.0))
    cases = [
        ("linear", True, down_up),
        ("bilinear", False, down_up),
        ("cubic", True, shift),
        ("tricubic", False, down_up),
        ("lanczos3", True, down_up),
        ("lanczos5", False, ((2, 4, 9, 3), (0.6, 1.3), (0.3, -0.5))),
    ]
    if backend.backend() == "jax":
        # The JAX engine calls jax.image itself: one case checks the wiring, and each
        # compilation costs ~0.3 s.
        cases = cases[:1]
    for method, antialias, (out_shape, scale, translation) in cases:
        scale = np.array(scale, "float32")
        translation = np.array(translation, "float32")
        got = image.scale_and_translate(
            images, out_shape, scale, translation, (1, 2), method, antialias
        )
        want = jax.jit(jax.image.scale_and_translate, static_argnums=(1, 2, 5, 6))(
            images, out_shape, (1, 2), scale, translation, method, antialias
        )
        np.testing.assert_allclose(
            _np(got), np.asarray(want), atol=2e-5, err_msg=f"{method} {antialias}"
        )
    # Keras's documented example (Keras on JAX), on a 2-D array and negative dims.
    keras = _keras()
    square = np.arange(9, dtype="float32").reshape((3, 3))
    scale = np.array([2.0, 2.0], "float32")
    translation = -(scale / 2.0 - 0.5)
    want = keras.ops.image.scale_and_translate(square, (5, 5), scale, translation, (0, 1), "linear")
    got = image.scale_and_translate(square, (5, 5), scale, translation, (-2, -1), "linear")
    np.testing.assert_allclose(_np(got), keras.ops.convert_to_numpy(want), atol=1e-6)


def test_scale_and_translate_gradients_and_errors():
    rng = np.random.default_rng(3)
    x = rng.uniform(size=(4, 5)).astype("float32")
    weights = rng.uniform(size=(3, 7)).astype("float32")
    scale, translation = np.array([0.8, 1.3], "float32"), np.array([0.1, -0.2], "float32")

    def loss(v):
        out = image.scale_and_translate(v, (3, 7), scale, translation, (0, 1), "cubic")
        return ops.sum(out * ops.convert_to_tensor(weights))

    _, grad = backend.value_and_grad(loss)(ops.convert_to_tensor(x))
    # Linear in the images: the gradient is the response to each unit image.
    want = np.zeros(x.shape)
    for index in np.ndindex(x.shape):
        unit = np.zeros(x.shape, "float32")
        unit[index] = 1.0
        out = image.scale_and_translate(unit, (3, 7), scale, translation, (0, 1), "cubic")
        want[index] = np.sum(_np(out) * weights)
    np.testing.assert_allclose(_np(grad), want, atol=1e-5)
    with pytest.raises(ValueError, match="unknown method 'nearest'"):
        image.scale_and_translate(x, (3, 3), scale, translation, (0, 1), "nearest")
    with pytest.raises(ValueError, match="output size must stay 4"):
        image.scale_and_translate(x, (3, 3), scale[:1], translation[:1], (1,), "linear")
    with pytest.raises(ValueError, match="one number per spatial dim"):
        image.scale_and_translate(x, (3, 3), scale[:1], translation, (0, 1), "linear")
    with pytest.raises(ValueError, match="one size per axis"):
        image.scale_and_translate(x, (3, 3, 1), scale, translation, (0, 1), "linear")


def test_elastic_warp_matches_scipy_for_a_given_field():
    rng = np.random.default_rng(4)
    images = rng.uniform(size=(2, 8, 8, 2)).astype("float32")
    noise = rng.normal(size=(4, 8, 8, 1)).astype("float32")
    alpha, sigma, k = 3.0, 1.0, 7
    # Keras's algorithm in NumPy/SciPy: fields of noise times sigma, blurred by a
    # normalized Gaussian window of k taps with zero padding, times alpha.
    taps = np.exp(-0.5 * ((np.arange(k) - (k - 1) / 2) / sigma) ** 2)
    taps /= taps.sum()
    fields = [
        alpha * ndimage.correlate(noise[i, :, :, 0] * sigma, np.outer(taps, taps), mode="constant")
        for i in range(4)
    ]
    rows, cols = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    for order, mode in [(1, mode) for mode in SCIPY_MODES] + [(0, "mirror")]:
        got = _np(_elastic_warp(images, noise, alpha, sigma, k, order, mode, 0.5))
        for b in range(2):
            where = np.stack([rows + fields[b], cols + fields[2 + b]])
            for c in range(2):
                want = ndimage.map_coordinates(
                    images[b, :, :, c], where, order=order, mode=SCIPY_MODES[mode], cval=0.5
                )
                np.testing.assert_allclose(got[b, :, :, c], want, atol=1e-4)


def test_elastic_transform_properties():
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 255, size=(2, 8, 8, 1)).astype("float32")
    one = image.elastic_transform(x, sigma=1.0, seed=3)
    again = image.elastic_transform(x, sigma=1.0, seed=3)
    other = image.elastic_transform(x, sigma=1.0, seed=4)
    assert tuple(one.shape) == x.shape and str(_np(one).dtype) == "float32"
    np.testing.assert_array_equal(_np(one), _np(again))
    assert np.abs(_np(one) - _np(other)).max() > 1.0
    assert np.abs(_np(one) - x).max() > 1.0
    # Each image gets its own field.
    twin = image.elastic_transform(np.concatenate([x[:1], x[:1]]), sigma=1.0, seed=3)
    assert np.abs(_np(twin)[0] - _np(twin)[1]).max() > 1.0
    # No displacement (alpha or sigma zero): the input comes back exactly.
    for kwargs in ({"alpha": 0.0}, {"sigma": 0.0}):
        np.testing.assert_allclose(
            _np(image.elastic_transform(x, seed=1, **{"sigma": 1.0, **kwargs})), x, err_msg=kwargs
        )
    # One image is the batch of one; channels first is channels last transposed.
    np.testing.assert_allclose(
        _np(image.elastic_transform(x[0], sigma=1.0, seed=3)),
        _np(image.elastic_transform(x[:1], sigma=1.0, seed=3))[0],
    )
    first = image.elastic_transform(
        np.transpose(x, (0, 3, 1, 2)), sigma=1.0, seed=3, data_format="channels_first"
    )
    np.testing.assert_allclose(np.transpose(_np(first), (0, 2, 3, 1)), _np(one), atol=1e-5)
    # Integer images come back as integers (rounded).
    ints = image.elastic_transform(x.astype("uint8"), sigma=1.0, seed=3)
    floats = image.elastic_transform(x.astype("uint8").astype("float32"), sigma=1.0, seed=3)
    assert str(_np(ints).dtype) == "uint8"
    np.testing.assert_array_equal(_np(ints), np.round(_np(floats)))
    with pytest.raises(ValueError, match="unknown interpolation 'bicubic'"):
        image.elastic_transform(x, interpolation="bicubic")
    with pytest.raises(ValueError, match="unknown fill_mode 'edge'"):
        image.elastic_transform(x, fill_mode="edge")
    with pytest.raises(ValueError, match="sigma must be >= 0"):
        image.elastic_transform(x, sigma=-1.0)
    with pytest.raises(ValueError, match="rank 4"):
        image.elastic_transform(np.zeros((8, 8)))


def test_ops_image_has_the_keras_names_and_builds_graphs():
    from lamina import Input

    for name in ("map_coordinates", "scale_and_translate", "elastic_transform"):
        assert name in image.__all__
        assert getattr(ops.image, name).__doc__
    x = Input((8, 8, 3))
    assert tuple(image.elastic_transform(x, sigma=1.0, seed=1).shape) == (None, 8, 8, 3)
    scale, translation = np.array([0.5, 0.5], "float32"), np.zeros(2, "float32")
    out = image.scale_and_translate(x, (None, 4, 4, 3), scale, translation, (1, 2), "linear")
    assert tuple(out.shape) == (None, 4, 4, 3)
    with pytest.raises(ValueError, match="needs a size for each axis in spatial_dims"):
        image.scale_and_translate(np.zeros((8, 8)), (None, 4), scale, translation, (0, 1), "linear")
