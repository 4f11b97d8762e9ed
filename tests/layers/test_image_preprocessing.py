"""Image preprocessing layers against NumPy/SciPy references; the random ones only act
in training, are seeded, and run inside compiled `fit`."""

import numpy as np
import pytest
from scipy import ndimage

import lamina
from lamina import Input, Model, Sequential, layers
from lamina.testing import check_layer

RNG = np.random.default_rng(0)
IMAGES = RNG.uniform(0, 255, (3, 6, 8, 2)).astype("float32")

CONFORMANCE = [
    (layers.Resizing, {"height": 3, "width": 5}, (2, 6, 4, 3), (2, 3, 5, 3)),
    (
        layers.Resizing,
        {"height": 3, "width": 5, "data_format": "channels_first"},
        (2, 3, 6, 4),
        (2, 3, 3, 5),
    ),
    (layers.CenterCrop, {"height": 3, "width": 2}, (2, 6, 4, 3), (2, 3, 2, 3)),
    (layers.RandomFlip, {"seed": 1}, (2, 6, 4, 3), (2, 6, 4, 3)),
    (layers.RandomRotation, {"factor": 0.2, "seed": 1}, (2, 6, 4, 3), (2, 6, 4, 3)),
    (layers.RandomZoom, {"height_factor": 0.2, "seed": 1}, (2, 6, 4, 3), (2, 6, 4, 3)),
    (
        layers.RandomTranslation,
        {"height_factor": 0.2, "width_factor": 0.1, "seed": 1},
        (2, 6, 4, 3),
        (2, 6, 4, 3),
    ),
    (layers.RandomContrast, {"factor": 0.2, "seed": 1}, (2, 6, 4, 3), (2, 6, 4, 3)),
]


@pytest.mark.parametrize(
    "cls, kwargs, shape, out_shape",
    CONFORMANCE,
    ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CONFORMANCE)],
)
def test_conformance(cls, kwargs, shape, out_shape):
    # Inference mode, so eager and graph runs see the same (unchanged) images.
    check_layer(
        cls,
        kwargs,
        input_shape=shape,
        expected_output_shape=out_shape,
        expected_num_trainable_weights=0,
        call_kwargs={"training": False} if cls.__name__.startswith("Random") else None,
    )


def _bilinear_resize(image, height, width):
    """Half-pixel-center bilinear resampling, edges clamped (SciPy, per channel)."""
    rows = (np.arange(height) + 0.5) * image.shape[0] / height - 0.5
    cols = (np.arange(width) + 0.5) * image.shape[1] / width - 0.5
    grid = np.meshgrid(rows, cols, indexing="ij")
    return np.stack(
        [
            ndimage.map_coordinates(image[..., c].astype("float64"), grid, order=1, mode="nearest")
            for c in range(image.shape[-1])
        ],
        axis=-1,
    )


@pytest.mark.parametrize("height, width", [(3, 5), (9, 13), (6, 8)])
def test_resizing_bilinear_matches_reference(height, width):
    out = np.asarray(layers.Resizing(height, width)(IMAGES))
    for image, got in zip(IMAGES, out, strict=True):
        np.testing.assert_allclose(got, _bilinear_resize(image, height, width), atol=1e-3)
    single = np.asarray(layers.Resizing(height, width)(IMAGES[0]))
    np.testing.assert_allclose(single, out[0], atol=1e-4)


def test_resizing_nearest_integer_input_and_aspect_ratio_options():
    pixels = RNG.integers(0, 255, (2, 4, 4, 1)).astype("uint8")
    doubled = np.asarray(layers.Resizing(8, 8, interpolation="nearest")(pixels))
    assert doubled.dtype == np.uint8  # as Keras 3: an integer image stays integer
    np.testing.assert_array_equal(doubled, pixels.repeat(2, axis=1).repeat(2, axis=2))
    # crop_to_aspect_ratio: the centered 6x6 window of a 6x8 image, then resized.
    cropped = np.asarray(layers.Resizing(3, 3, crop_to_aspect_ratio=True)(IMAGES))
    window = IMAGES[:, :, 1:7, :]
    np.testing.assert_allclose(cropped[0], _bilinear_resize(window[0], 3, 3), atol=1e-3)
    # pad_to_aspect_ratio: padded evenly to 8x8 with the fill value, then resized.
    padded = np.asarray(layers.Resizing(4, 4, pad_to_aspect_ratio=True, fill_value=-7.0)(IMAGES))
    canvas = np.pad(IMAGES[0], ((1, 1), (0, 0), (0, 0)), constant_values=-7.0)
    np.testing.assert_allclose(padded[0], _bilinear_resize(canvas, 4, 4), atol=1e-3)


def test_center_crop_slices_or_resizes_small_images():
    out = np.asarray(layers.CenterCrop(4, 3)(IMAGES))
    np.testing.assert_array_equal(out, IMAGES[:, 1:5, 2:5, :])
    channels_first = np.moveaxis(IMAGES, -1, 1)
    out_cf = np.asarray(layers.CenterCrop(4, 3, data_format="channels_first")(channels_first))
    np.testing.assert_array_equal(out_cf, channels_first[:, :, 1:5, 2:5])
    # Smaller than the window: crop to the window's aspect ratio, then resize up.
    up = np.asarray(layers.CenterCrop(10, 10)(IMAGES))
    expected = np.asarray(layers.Resizing(10, 10, crop_to_aspect_ratio=True)(IMAGES))
    np.testing.assert_allclose(up, expected, atol=1e-4)


def _resample(image, map_point, fill_value=0.0):
    """Output pixel (row, col) takes the input at `map_point(row, col)` (SciPy bilinear,
    constant fill)."""
    rows, cols = np.meshgrid(np.arange(image.shape[0]), np.arange(image.shape[1]), indexing="ij")
    src_rows, src_cols = map_point(rows.astype("float64"), cols.astype("float64"))
    return np.stack(
        [
            ndimage.map_coordinates(
                image[..., c].astype("float64"),
                [src_rows, src_cols],
                order=1,
                mode="grid-constant",
                cval=fill_value,
            )
            for c in range(image.shape[-1])
        ],
        axis=-1,
    )


def test_random_rotation_turns_counter_clockwise():
    square = RNG.uniform(0, 1, (2, 5, 5, 3)).astype("float32")
    quarter = np.asarray(layers.RandomRotation((0.25, 0.25))(square))
    np.testing.assert_allclose(quarter, np.rot90(square, k=1, axes=(1, 2)), atol=1e-5)
    back = np.asarray(layers.RandomRotation((-0.25, -0.25))(square))
    np.testing.assert_allclose(back, np.rot90(square, k=-1, axes=(1, 2)), atol=1e-5)
    # An arbitrary angle against the rotation formula about the image center.
    theta = 0.1 * 2 * np.pi
    out = np.asarray(layers.RandomRotation((0.1, 0.1), fill_mode="constant")(IMAGES))
    cy, cx = (IMAGES.shape[1] - 1) / 2, (IMAGES.shape[2] - 1) / 2

    def source(r, c):
        x, y = c - cx, r - cy
        return (
            np.sin(theta) * x + np.cos(theta) * y + cy,
            np.cos(theta) * x - np.sin(theta) * y + cx,
        )

    np.testing.assert_allclose(out[1], _resample(IMAGES[1], source), atol=1e-2)


def test_random_zoom_and_translation_match_their_formulas():
    zoom = np.asarray(layers.RandomZoom((-0.5, -0.5), fill_mode="constant")(IMAGES))
    cy, cx = (IMAGES.shape[1] - 1) / 2, (IMAGES.shape[2] - 1) / 2
    zoomed_in = _resample(IMAGES[0], lambda r, c: ((r - cy) * 0.5 + cy, (c - cx) * 0.5 + cx))
    np.testing.assert_allclose(zoom[0], zoomed_in, atol=1e-2)
    stretched = np.asarray(
        layers.RandomZoom((0.5, 0.5), width_factor=(0.0, 0.0), fill_mode="constant")(IMAGES)
    )
    expected = _resample(IMAGES[2], lambda r, c: ((r - cy) * 1.5 + cy, c))
    np.testing.assert_allclose(stretched[2], expected, atol=1e-2)
    # Translation by exactly one row down and two columns left, zeros shifted in.
    shift = layers.RandomTranslation((1 / 6, 1 / 6), (-0.25, -0.25), fill_mode="constant")
    out = np.asarray(shift(IMAGES))
    expected = np.zeros_like(IMAGES)
    expected[:, 1:, :-2, :] = IMAGES[:, :-1, 2:, :]
    np.testing.assert_allclose(out, expected, atol=1e-3)
    wrapped = layers.RandomTranslation((1 / 6, 1 / 6), (0.0, 0.0), fill_mode="wrap")(IMAGES)
    np.testing.assert_allclose(np.asarray(wrapped), np.roll(IMAGES, 1, axis=1), atol=1e-3)


def test_random_flip_flips_whole_images():
    images = RNG.uniform(0, 1, (16, 3, 4, 1)).astype("float32")
    out = np.asarray(layers.RandomFlip("horizontal", seed=3)(images))
    flipped = [np.array_equal(o, i[:, ::-1]) for o, i in zip(out, images, strict=True)]
    kept = [np.array_equal(o, i) for o, i in zip(out, images, strict=True)]
    assert all(f or k for f, k in zip(flipped, kept, strict=True))
    assert any(flipped) and any(kept)
    out = np.asarray(layers.RandomFlip("vertical", seed=3)(images))
    assert all(
        np.array_equal(o, i) or np.array_equal(o, i[::-1]) for o, i in zip(out, images, strict=True)
    )
    both = np.asarray(layers.RandomFlip(seed=5)(images))
    kinds = []
    for o, i in zip(both, images, strict=True):
        variants = [i, i[::-1], i[:, ::-1], i[::-1, ::-1]]
        kinds.append(next(k for k, v in enumerate(variants) if np.array_equal(o, v)))
    assert len(set(kinds)) >= 3  # each axis flips independently


def test_random_contrast_scales_around_the_channel_mean():
    images = RNG.uniform(100, 150, (6, 4, 5, 3)).astype("float32")
    out = np.asarray(layers.RandomContrast(0.4, seed=2)(images))
    mean = images.mean(axis=(1, 2), keepdims=True)
    ratios = (out - mean) / (images - mean)
    per_image = ratios.reshape(6, -1)
    # One factor per image, shared by its channels, drawn from [0.6, 1.4].
    np.testing.assert_allclose(per_image, per_image[:, :1] * np.ones_like(per_image), rtol=1e-3)
    assert np.all((per_image[:, 0] >= 0.6) & (per_image[:, 0] <= 1.4))
    assert len(np.unique(np.round(per_image[:, 0], 4))) > 1
    clipped = np.asarray(
        layers.RandomContrast((1.0, 1.0), value_range=(0, 1), seed=0)(images / 255)
    )
    assert clipped.min() >= 0 and clipped.max() <= 1


@pytest.mark.parametrize(
    "layer",
    [
        layers.RandomFlip(seed=0),
        layers.RandomRotation(0.3, seed=0),
        layers.RandomZoom(0.3, seed=0),
        layers.RandomTranslation(0.3, 0.3, seed=0),
        layers.RandomContrast(0.5, seed=0),
    ],
    ids=lambda layer: type(layer).__name__,
)
def test_random_layers_act_only_in_training_and_are_seeded(layer):
    images = RNG.uniform(0, 255, (4, 6, 6, 3)).astype("float32")
    np.testing.assert_array_equal(np.asarray(layer(images, training=False)), images)
    first = np.asarray(layer(images, training=True))
    assert not np.allclose(first, images)
    assert not np.allclose(np.asarray(layer(images)), first)  # a new draw each call
    again = type(layer).from_config(layer.get_config())
    np.testing.assert_array_equal(np.asarray(again(images)), first)  # same seed, same draw
    model = Sequential([Input((6, 6, 3)), layer])
    np.testing.assert_array_equal(model.predict(images, verbose=0), images)


def test_augmentation_in_compiled_fit_is_reproducible():
    x = RNG.uniform(0, 1, (32, 6, 6, 1)).astype("float32")
    y = RNG.integers(0, 2, 32)

    def train():
        lamina.utils.set_random_seed(7)
        inputs = Input((6, 6, 1))
        h = layers.RandomFlip()(inputs)
        h = layers.RandomRotation(0.1)(h)
        h = layers.Rescaling(2.0, offset=-1.0)(h)
        outputs = layers.Dense(2, activation="softmax")(layers.Flatten()(h))
        model = Model(inputs, outputs)
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(x, y, epochs=2, batch_size=8, verbose=0)
        return model.get_weights()

    for a, b in zip(train(), train(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_image_layer_errors():
    with pytest.raises(
        ValueError, match=r"factor must be a number or a pair.*\[-1, 1\]; received 2"
    ):
        layers.RandomRotation(2)
    with pytest.raises(ValueError, match=r"factor must be a number or a pair.*\[0, 1\]"):
        layers.RandomContrast(1.5)
    with pytest.raises(ValueError, match="unknown fill_mode 'edge'"):
        layers.RandomZoom(0.1, fill_mode="edge")
    with pytest.raises(ValueError, match="unknown interpolation 'bicubic'"):
        layers.RandomTranslation(0.1, 0.1, interpolation="bicubic")
    with pytest.raises(ValueError, match="unknown mode 'diagonal'"):
        layers.RandomFlip("diagonal")
    with pytest.raises(ValueError, match=r"expects a batch of images.*received shape \(4, 4\)"):
        layers.RandomFlip()(np.ones((4, 4)))
    with pytest.raises(ValueError, match="Unknown data_format"):
        layers.CenterCrop(2, 2, data_format="nhwc")
    with pytest.raises(ValueError, match="cannot both be True"):
        layers.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="'area' is not available"):
        layers.Resizing(2, 2, interpolation="area")
    with pytest.raises(ValueError, match="value_range must be"):
        layers.RandomContrast(0.1, value_range=(1, 0))
