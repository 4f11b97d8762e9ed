"""The Keras 3 image augmentation layers lamina lacked (issue 16): deterministic ones
against Keras 3 itself and NumPy, random ones against their documented ranges, all
identity at inference, seeded, and round-tripping through configs and `.keras` files."""

import colorsys
import os

import numpy as np
import pytest

import lamina
from lamina import Input, Model, Sequential, layers, ops

RNG = np.random.default_rng(0)
# One image shape for (nearly) every call: each new shape costs JAX a compile per op.
PIXELS = RNG.integers(0, 256, (4, 8, 8, 3)).astype("float32")
BATCH = RNG.uniform(0, 255, (4, 8, 8, 3)).astype("float32")


def _np(x):
    return ops.convert_to_numpy(x)


@pytest.fixture(scope="module")
def keras():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras

    return keras


# (lamina/keras layer name, kwargs): layers deterministic under these arguments.
# (RandomInvert, RandomGrayscale, RandomPosterization and AutoContrast on 0-255 are
# checked against NumPy below.)
DETERMINISTIC = [
    ("Solarization", {}),
    ("RandomColorDegeneration", {"factor": (1.0, 1.0)}),
    ("RandomSharpness", {"factor": (0.9, 0.9)}),
]


@pytest.mark.parametrize("name, kwargs", DETERMINISTIC, ids=[d[0] for d in DETERMINISTIC])
def test_deterministic_layers_match_keras(keras, name, kwargs):
    expected = np.asarray(getattr(keras.layers, name)(**kwargs)(PIXELS, training=True))
    got = _np(getattr(layers, name)(**kwargs)(PIXELS, training=True))
    np.testing.assert_allclose(got, expected, atol=1e-3)


def _equalize(channel, bins=256):
    """Histogram equalization of one 0-255 channel (NumPy)."""
    index = np.clip((channel * (bins - 1) / 255).astype(int), 0, bins - 1)
    hist = np.bincount(index.ravel(), minlength=bins)
    if np.count_nonzero(hist) <= 1:
        return channel
    cdf = np.cumsum(hist)
    cdf_min = cdf[np.nonzero(cdf)[0][0]]
    table = np.clip(np.round((cdf - cdf_min) * 255 / (cdf[-1] - cdf_min)), 0, 255)
    return table[index]


@pytest.mark.parametrize("bins", [256, 32])
def test_equalization_against_numpy(bins):
    got = _np(layers.Equalization(bins=bins)(PIXELS))
    for image, out in zip(PIXELS, got, strict=True):
        for c in range(3):
            np.testing.assert_allclose(out[..., c], _equalize(image[..., c], bins), atol=1e-3)
    assert np.array_equal(_np(layers.Equalization()(PIXELS, training=False)), PIXELS)
    flat = np.full((4, 8, 8, 3), 7.0, "float32")  # a single value is left as it is
    np.testing.assert_array_equal(_np(layers.Equalization()(flat)), flat)


def test_color_layers_against_numpy():
    x = PIXELS
    gray = x @ np.array([0.2989, 0.5870, 0.1140], "float32")
    np.testing.assert_allclose(
        _np(layers.RandomGrayscale(1.0)(x)), np.repeat(gray[..., None], 3, -1), rtol=1e-5
    )
    np.testing.assert_array_equal(_np(layers.RandomInvert((1.0, 1.0))(x)), 255 - x)
    np.testing.assert_array_equal(_np(layers.RandomPosterization((2, 2))(x)), x // 64 * 64)
    auto = _np(layers.AutoContrast()(x))
    low, high = x.min(axis=(1, 2), keepdims=True), x.max(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(auto, (x - low) * 255 / (high - low), atol=1e-3)
    unit = _np(layers.AutoContrast(value_range=(0, 1))(x / 255))
    np.testing.assert_allclose(unit, (x - low) / (high - low), atol=1e-5)
    bright = _np(layers.RandomBrightness((0.1, 0.1))(x))
    np.testing.assert_allclose(bright, np.clip(x + 25.5, 0, 255), atol=1e-4)
    # Solarization with a threshold of 128 and no addition.
    solar = _np(layers.Solarization(threshold_factor=(128 / 255, 128 / 255))(x))
    np.testing.assert_allclose(solar, np.where(x < 128, x, 255 - x), atol=1e-3)
    # Hue: a shift of 0 is the identity through HSV; saturation 0 gives gray (= value).
    np.testing.assert_allclose(_np(layers.RandomHue((0.0, 0.0))(x)), x, atol=1e-2)
    flat = _np(layers.RandomSaturation((0.0, 0.0))(x))
    np.testing.assert_allclose(flat, np.repeat(x.max(-1, keepdims=True), 3, -1), atol=1e-2)
    # A hue turn of exactly 1/4 (factor 0.5, random sign per image) against colorsys.
    turned = _np(layers.RandomHue((0.5, 0.5), seed=3)(x))
    signs = set()
    for image, got in zip(x, turned, strict=True):
        hsv = [colorsys.rgb_to_hsv(*p) for p in image.reshape(-1, 3) / 255.0]
        for sign in (1, -1):
            rgb = [colorsys.hsv_to_rgb((h + sign * 0.25) % 1, s, v) for h, s, v in hsv]
            if np.allclose(got, np.reshape(rgb, image.shape) * 255, atol=0.05):
                signs.add(sign)
                break
        else:
            raise AssertionError("RandomHue(0.5) did not turn the hue by a quarter")


def test_random_crop_cuts_a_window_and_resizes_at_inference():
    x = BATCH
    layer = layers.RandomCrop(4, 5, seed=2)
    starts = set()
    for _ in range(6):
        out = _np(layer(x))
        assert out.shape == (4, 4, 5, 3)
        hits = [
            (i, j)
            for i in range(8 - 4 + 1)
            for j in range(8 - 5 + 1)
            if np.array_equal(out, x[:, i : i + 4, j : j + 5])
        ]
        assert len(hits) == 1
        starts.add(hits[0])
    assert len(starts) > 1
    # Inference: the largest centered window of aspect 4:5 (6x8), resized to 4x5.
    inferred = _np(layer(x, training=False))
    expected = _np(layers.Resizing(4, 5, crop_to_aspect_ratio=True)(x))
    np.testing.assert_allclose(inferred, expected, atol=1e-5)
    # Too small for the window: resized even in training; channels first works.
    small = _np(layers.RandomCrop(10, 10)(x))
    assert small.shape == (4, 10, 10, 3)
    cf = layers.RandomCrop(4, 5, seed=2, data_format="channels_first")(np.moveaxis(x, -1, 1))
    np.testing.assert_array_equal(
        np.moveaxis(_np(cf), 1, -1), _np(layers.RandomCrop(4, 5, seed=2)(x))
    )
    assert layers.RandomCrop(4, 5).compute_output_shape((None, 7, 9, 2)) == (None, 4, 5, 2)


def test_brightness_offsets_lie_in_the_factor_range():
    flat = np.full((4, 8, 8, 3), 100.0, "float32")
    layer = layers.RandomBrightness((-0.2, 0.3), seed=1)
    out = np.concatenate([_np(layer(flat)) for _ in range(8)])
    delta = out[:, 0, 0, 0] - 100.0
    assert np.all(out == out[:, :1, :1, :1])  # one offset per image, all channels
    assert delta.min() >= -0.2 * 255 - 1e-3 and delta.max() <= 0.3 * 255 + 1e-3
    assert delta.std() > 20
    clipped = _np(layers.RandomBrightness((1.0, 1.0), value_range=(0, 1))(flat / 255))
    np.testing.assert_array_equal(clipped, 1.0)


def test_mixup_is_a_convex_combination_with_matching_labels():
    n = 4
    images = BATCH / 255
    labels = np.eye(n, dtype="float32")
    out = layers.MixUp(alpha=0.8, seed=4)({"images": images, "labels": labels})
    mixed, soft = _np(out["images"]), _np(out["labels"])
    np.testing.assert_allclose(soft.sum(axis=1), 1.0, rtol=1e-5)
    weights = []
    for i in range(n):
        partners = np.nonzero(soft[i] > 1e-6)[0]
        w = soft[i, i] if soft[i, i] > 0 else 0.0
        other = [p for p in partners if p != i] or [i]
        j = other[0]
        expected = soft[i, i] * images[i] + soft[i, j] * images[j] if j != i else images[i]
        np.testing.assert_allclose(mixed[i], expected, atol=1e-5)
        weights.append(w)
    assert 0 < np.mean(weights) < 1
    # Without labels: images only.
    assert _np(layers.MixUp(seed=1)(images)).shape == images.shape


def test_cutmix_pastes_a_box_and_mixes_labels_by_area():
    n = 4
    images = np.stack([np.full((8, 8, 3), float(k)) for k in range(n)]).astype("float32")
    out = layers.CutMix(seed=5)({"images": images, "labels": np.eye(n)})
    mixed, soft = _np(out["images"]), _np(out["labels"])
    for i in range(n):
        values, counts = np.unique(mixed[i, ..., 0], return_counts=True)
        share = dict(zip(values.astype(int), counts / 64.0, strict=True))
        for k, fraction in share.items():
            assert abs(soft[i, k] - fraction) < 1e-5 or k == i
        pasted = mixed[i, ..., 0] != i
        if pasted.any():  # the pasted pixels form one rectangle
            rows, cols = np.nonzero(pasted)
            assert pasted[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1].all()
    np.testing.assert_allclose(soft.sum(axis=1), 1.0, rtol=1e-5)


@pytest.mark.parametrize("make", [lambda: layers.MixUp(seed=1), lambda: layers.CutMix(seed=1)])
def test_mixing_layers_take_symbolic_image_and_label_dicts(make):
    # A functional graph takes the output shapes of the dict the layer returns (it
    # recursed without end on the dict's keys).
    out = make()({"images": Input((8, 8, 3)), "labels": Input((4,))})
    assert {key: value.shape for key, value in out.items()} == {
        "images": (None, 8, 8, 3),
        "labels": (None, 4),
    }


def test_geometry_layers():
    x = BATCH
    erased = _np(layers.RandomErasing((1.0, 1.0), fill_value=-1.0, seed=0)(x))
    for image in erased:
        rows, cols = np.nonzero(image[..., 0] == -1.0)
        assert len(rows) > 0
        assert (image[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1] == -1).all()
    # Shearing x by 0.5 (sign random): output (x, y) samples the input at (x +- y/2, y).
    sheared = _np(layers.RandomShear((0.5, 0.5), 0.0, fill_mode="constant", seed=1)(x))
    rows, cols = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    for image, got in zip(x, sheared, strict=True):
        candidates = []
        for sign in (1, -1):
            src = cols + sign * 0.5 * rows
            lo = np.floor(src).astype(int)
            frac = src - lo
            ref = np.zeros_like(image)
            for c in (lo, lo + 1):
                weight = (1 - frac) if c is lo else frac
                valid = (c >= 0) & (c < 8)
                ref += (
                    np.where(valid[..., None], image[rows, np.clip(c, 0, 7)], 0) * weight[..., None]
                )
            candidates.append(ref)
        assert min(np.abs(got - r).max() for r in candidates) < 1e-2
    np.testing.assert_allclose(_np(layers.RandomPerspective(scale=0.0, seed=1)(x)), x, atol=1e-3)
    warped = _np(layers.RandomPerspective((1.0, 1.0), scale=0.5, seed=1)(x))
    assert warped.shape == x.shape and not np.allclose(warped, x)


RANDOM = [
    lambda: layers.RandomCrop(6, 6, seed=1),
    lambda: layers.RandomBrightness(0.3, seed=1),
    lambda: layers.RandomGrayscale(seed=1),
    lambda: layers.RandomInvert(seed=1),
    lambda: layers.RandomHue(0.5, seed=1),
    lambda: layers.RandomSaturation(0.5, seed=1),
    lambda: layers.RandomColorDegeneration(0.5, seed=1),
    lambda: layers.RandomSharpness(0.5, seed=1),
    lambda: layers.RandomPosterization(4, seed=1),
    lambda: layers.Solarization(0.5, 0.5, seed=1),
    lambda: layers.Equalization(),
    lambda: layers.RandomErasing(seed=1),
    lambda: layers.RandomGaussianBlur(seed=1),
    lambda: layers.RandomShear(0.3, 0.3, seed=1),
    lambda: layers.RandomPerspective(seed=2),
    lambda: layers.MixUp(seed=1),
    lambda: layers.CutMix(seed=1),
    lambda: layers.RandomColorJitter(brightness_factor=0.2, hue_factor=0.2, seed=1),
    lambda: layers.RandAugment(num_ops=1, seed=1),
    lambda: layers.AugMix(num_chains=1, chain_depth=1, seed=1),
]


@pytest.mark.parametrize("make", RANDOM, ids=lambda make: type(make()).__name__)
def test_identity_at_inference_seeded_and_config_round_trip(make):
    layer = make()
    x = BATCH
    inferred = _np(layer(x, training=False))
    if isinstance(layer, layers.RandomCrop):
        assert inferred.shape == (4, 6, 6, 3)
    else:
        np.testing.assert_array_equal(inferred, x)
    first = _np(layer(x))
    assert first.shape != x.shape or not np.allclose(first, x)
    again = type(layer).from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    np.testing.assert_allclose(_np(again(x)), first, atol=1e-4)  # same seed, same draw


def test_saved_model_with_augmentation_loads(tmp_path):
    inputs = Input((8, 8, 3))
    h = layers.Pipeline([layers.RandomBrightness(0.2, seed=1), layers.RandomCrop(6, 6, seed=2)])(
        inputs
    )
    h = layers.AutoContrast()(h)
    h = layers.RandAugment(num_ops=1, seed=3)(h)
    outputs = layers.Dense(2)(layers.Flatten()(h))
    model = Model(inputs, outputs)
    path = tmp_path / "augmented.keras"
    model.save(path)
    loaded = lamina.models.load_model(path)
    np.testing.assert_allclose(
        loaded.predict(BATCH, verbose=0), model.predict(BATCH, verbose=0), rtol=1e-5, atol=1e-5
    )
    assert [type(layer).__name__ for layer in loaded.layers[1].layers] == [
        "RandomBrightness",
        "RandomCrop",
    ]


def test_augmentation_trains_in_compiled_fit():
    x = np.concatenate([BATCH] * 4)
    y = RNG.integers(0, 2, 16)
    lamina.utils.set_random_seed(3)
    model = Sequential(
        [
            Input((8, 8, 3)),
            layers.RandomCrop(6, 6),
            layers.RandomBrightness(0.2),
            layers.Flatten(),
            layers.Dense(2, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    history = model.fit(x / 255, y, epochs=1, batch_size=8, verbose=0)
    assert np.isfinite(history.history["loss"][-1])


def test_augmentation_errors():
    with pytest.raises(ValueError, match=r"factor must be a number or a pair.*received 2"):
        layers.RandomBrightness(2)
    with pytest.raises(ValueError, match="value_range must be"):
        layers.RandomInvert(value_range=(1, 0))
    with pytest.raises(ValueError, match="factor must be in"):
        layers.RandomGrayscale(1.5)
    with pytest.raises(ValueError, match="odd positive int"):
        layers.RandomGaussianBlur(kernel_size=4)
    with pytest.raises(ValueError, match="alpha must be"):
        layers.MixUp(alpha=0)
    with pytest.raises(ValueError, match="3 channels"):
        layers.RandomHue(0.2)(np.ones((1, 4, 4, 1)))
    with pytest.raises(ValueError, match="'images' key"):
        layers.MixUp()({"pixels": np.ones((2, 4, 4, 3))})
    with pytest.raises(ValueError, match="expects a batch of images"):
        layers.RandomCrop(2, 2)(np.ones((4, 4)))
    with pytest.raises(ValueError, match="every entry must be a layer"):
        layers.Pipeline([np.mean])


KERAS_CONFIG_CASES = {
    "RandomCrop": {"height": 3, "width": 4},
    "RandomBrightness": {"factor": 0.2},
    "RandomGrayscale": {},
    "RandomInvert": {},
    "RandomHue": {"factor": 0.3},
    "RandomSaturation": {"factor": 0.3},
    "RandomColorDegeneration": {"factor": 0.3},
    "RandomSharpness": {"factor": 0.3},
    "RandomPosterization": {"factor": 4},
    "Solarization": {"addition_factor": 0.2, "threshold_factor": 0.5},
    "AutoContrast": {},
    "Equalization": {},
    "RandomErasing": {},
    "RandomGaussianBlur": {},
    "RandomShear": {"x_factor": 0.2, "y_factor": 0.1},
    "RandomPerspective": {},
    "MixUp": {},
    "CutMix": {},
    "RandomColorJitter": {"brightness_factor": 0.2, "hue_factor": 0.1},
    "RandAugment": {},
    "AugMix": {},
}


def test_keras_configs_build_the_same_layers(keras):
    # Configs written by Keras 3 (as in a Keras-saved .keras file) build lamina's layers.
    for name, kwargs in KERAS_CONFIG_CASES.items():
        config = getattr(keras.layers, name)(**kwargs).get_config()
        config.pop("dtype")
        layer = getattr(layers, name).from_config(config)
        assert type(layer).__name__ == name
    config = keras.layers.Pipeline([keras.layers.RandomCrop(2, 2)]).get_config()
    for entry in config["layers"]:
        entry["config"].pop("dtype")
    assert (
        lamina.utils.deserialize_keras_object({"class_name": "Pipeline", "config": config})
        .layers[0]
        .height
        == 2
    )
