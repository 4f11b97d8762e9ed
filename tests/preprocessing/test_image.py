"""preprocessing.image against Keras's legacy implementation (same inputs, same seeds) and
SciPy's affine_transform; its iterators feed fit."""

import os
import sys
import types

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.preprocessing import image
from lamina.preprocessing._affine import affine_warp

os.environ.setdefault("KERAS_BACKEND", "jax")
keras_image = pytest.importorskip("keras.src.legacy.preprocessing.image")
ndimage = pytest.importorskip("scipy.ndimage")

# Keras's legacy code reaches affine_transform through a namespace SciPy deprecates.
pytestmark = pytest.mark.filterwarnings("ignore:.*scipy.ndimage.interpolation.*:DeprecationWarning")


def _images(n=4, height=7, width=9, channels=3, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(0, 255, size=(n, height, width, channels))).astype("float32")


def test_affine_warp_is_scipy_bit_for_bit():
    rng = np.random.default_rng(1)
    for trial in range(60):
        height, width = rng.integers(1, 8, 2)
        dtype = ("float32", "uint8", "int16")[trial % 3]
        picture = (rng.normal(size=(height, width)) * 80 + 100).clip(0, 255).astype(dtype)
        angle = np.deg2rad(90.0) if trial % 5 == 0 else rng.uniform(-3, 3)
        rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        matrix = rotation * rng.uniform(0.5, 1.8, 2)
        offset = rng.uniform(-6, 6, 2)
        for mode in ("constant", "nearest", "reflect", "wrap"):
            for order in (0, 1):
                expected = ndimage.affine_transform(
                    picture, matrix, offset, order=order, mode=mode, cval=3.0
                )
                got = affine_warp(picture, matrix, offset, order=order, mode=mode, cval=3.0)
                assert got.dtype == expected.dtype
                np.testing.assert_array_equal(got, expected, err_msg=f"{mode} {order} {trial}")
    # Order 2 goes through SciPy itself.
    picture = rng.normal(size=(5, 6)).astype("float32")
    np.testing.assert_array_equal(
        affine_warp(picture, np.eye(2) * 0.9, np.array([0.3, -0.2]), order=2, mode="reflect"),
        ndimage.affine_transform(picture, np.eye(2) * 0.9, [0.3, -0.2], order=2, mode="reflect"),
    )


TRANSFORMS = [
    {"theta": 30.0},
    {"tx": 2.0, "ty": -1.5},
    {"shear": 20.0, "zx": 0.8, "zy": 1.3},
    {"theta": -75.0, "tx": 1.0, "ty": 3.0, "shear": -10.0, "zx": 1.2, "zy": 0.7},
    {"theta": 90.0, "flip_horizontal": True, "flip_vertical": True},
    {"channel_shift_intensity": 40.0, "flip_horizontal": 1},
]


@pytest.mark.parametrize("fill_mode", ["nearest", "constant", "reflect", "wrap"])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_apply_transform_matches_keras(fill_mode, data_format):
    x = _images(1)[0]
    if data_format == "channels_first":
        x = np.ascontiguousarray(np.moveaxis(x, -1, 0))
    for order in (0, 1):
        kwargs = dict(fill_mode=fill_mode, cval=7.0, data_format=data_format)
        ours = image.ImageDataGenerator(interpolation_order=order, **kwargs)
        theirs = keras_image.ImageDataGenerator(interpolation_order=order, **kwargs)
        for params in TRANSFORMS:
            expected = theirs.apply_transform(x, params)
            got = ours.apply_transform(x, params)
            np.testing.assert_array_equal(got, expected, err_msg=str(params))
            assert got.dtype == expected.dtype


def test_brightness_matches_keras():
    x = _images(1)[0]
    for brightness in (0.5, 1.7):
        for sample in (x, x - 128.0):  # inside and outside [0, 255]
            params = {"brightness": brightness}
            expected = keras_image.ImageDataGenerator().apply_transform(sample, params)
            got = image.ImageDataGenerator().apply_transform(sample, params)
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-4)
            for scale in (True, False):
                np.testing.assert_allclose(
                    image.apply_brightness_shift(sample, brightness, scale),
                    keras_image.apply_brightness_shift(sample, brightness, scale),
                    rtol=1e-6,
                    atol=1e-4,
                )


@pytest.mark.parametrize(
    "settings",
    [
        {
            "rotation_range": 40,
            "width_shift_range": 0.2,
            "height_shift_range": 0.1,
            "shear_range": 15,
            "zoom_range": 0.3,
            "channel_shift_range": 20.0,
            "horizontal_flip": True,
            "vertical_flip": True,
            "brightness_range": (0.5, 1.5),
        },
        {"width_shift_range": 3, "height_shift_range": [-2, 0, 2], "zoom_range": (0.9, 1.0)},
        {"width_shift_range": 2.5, "fill_mode": "reflect", "horizontal_flip": True},
    ],
)
def test_random_transform_draws_like_keras(settings):
    x = _images(1)[0]
    ours, theirs = image.ImageDataGenerator(**settings), keras_image.ImageDataGenerator(**settings)
    for seed in (0, 5):
        assert ours.get_random_transform(x.shape, seed=seed) == (
            theirs.get_random_transform(x.shape, seed=seed)
        )
        np.testing.assert_allclose(
            ours.random_transform(x, seed=seed),
            theirs.random_transform(x, seed=seed),
            rtol=1e-6,
            atol=1e-3,
        )


def test_standardize_and_fit_match_keras():
    x = _images(6, 5, 4, 3)
    settings = [
        {"rescale": 1 / 255, "samplewise_center": True, "samplewise_std_normalization": True},
        {"featurewise_center": True, "featurewise_std_normalization": True},
        {"zca_whitening": True, "zca_epsilon": 1e-3},
        {"preprocessing_function": lambda v: v * 2 - 1, "rescale": 0.5},
    ]
    for kwargs in settings:
        with pytest.warns(UserWarning) if "zca_whitening" in kwargs else _nothing():
            ours = image.ImageDataGenerator(**kwargs)
        with pytest.warns(UserWarning) if "zca_whitening" in kwargs else _nothing():
            theirs = keras_image.ImageDataGenerator(**kwargs)
        ours.fit(x)
        theirs.fit(x)
        for name in ("mean", "std", "zca_whitening_matrix"):
            if getattr(theirs, name) is None:
                assert getattr(ours, name) is None
            else:
                np.testing.assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=1e-6)
        np.testing.assert_allclose(
            ours.standardize(x.copy()), theirs.standardize(x.copy()), rtol=1e-5, atol=1e-6
        )
    # Written out: feature-wise statistics per channel over the batch and pixels.
    generator = image.ImageDataGenerator(
        featurewise_center=True, featurewise_std_normalization=True
    )
    generator.fit(x)
    np.testing.assert_allclose(generator.mean.ravel(), x.mean(axis=(0, 1, 2)), rtol=1e-5)
    centered = x - x.mean(axis=(0, 1, 2))
    np.testing.assert_allclose(
        generator.standardize(x.copy()), centered / (x.std(axis=(0, 1, 2)) + 1e-6), rtol=1e-4
    )
    with pytest.warns(UserWarning, match="not fit on any data"):
        image.ImageDataGenerator(featurewise_center=True).standardize(x[0].copy())


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


def _model(input_shape, classes):
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential(
        [lamina.Input(input_shape), layers.Flatten(), layers.Dense(classes, activation="softmax")]
    )
    model.compile(optimizer="adam", loss="categorical_crossentropy")
    return model


def test_flow_matches_keras_and_feeds_fit():
    x = _images(10, 6, 6, 3)
    y = np.arange(10) % 2
    weights = np.linspace(0.5, 1.5, 10)
    settings = {"rotation_range": 20, "horizontal_flip": True, "rescale": 1 / 255}
    ours = image.ImageDataGenerator(**settings).flow(
        x, y, batch_size=4, seed=3, sample_weight=weights
    )
    theirs = keras_image.ImageDataGenerator(**settings).flow(
        x, y, batch_size=4, seed=3, sample_weight=weights
    )
    assert isinstance(ours, lamina.utils.PyDataset)
    assert len(ours) == len(theirs) == 3
    for index in (0, 2, 1):
        for got, expected in zip(ours[index], theirs[index]):
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    np.random.seed(9)
    ours.on_epoch_end()
    np.random.seed(9)
    theirs.on_epoch_end()
    np.testing.assert_array_equal(ours.index_array, theirs.index_array)
    # Keras 2's endless iteration.
    batch_x, batch_y, batch_w = next(ours)
    assert batch_x.shape == (4, 6, 6, 3) and batch_y.shape == (4,) and batch_w.shape == (4,)
    # fit takes the iterator directly.
    labels = lamina.utils.to_categorical(y, 2)
    flow = image.ImageDataGenerator(horizontal_flip=True, rescale=1 / 255).flow(
        x, labels, batch_size=5, seed=0
    )
    history = _model((6, 6, 3), 2).fit(flow, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2 and np.isfinite(history.history["loss"]).all()


def test_flow_subsets_extras_and_errors(tmp_path):
    x = _images(10, 4, 4, 1)
    y = np.arange(10) % 2
    generator = image.ImageDataGenerator(validation_split=0.3)
    train = generator.flow(x, y, batch_size=32, shuffle=False, subset="training")
    valid = generator.flow(x, y, batch_size=32, shuffle=False, subset="validation")
    np.testing.assert_array_equal(train[0][0], x[3:])
    np.testing.assert_array_equal(valid[0][1], y[:3])
    extra = np.arange(10) * 2.0
    (inputs, labels) = image.ImageDataGenerator().flow((x, extra), y, shuffle=False)[0]
    np.testing.assert_array_equal(inputs[1], extra)
    np.testing.assert_array_equal(inputs[0], x)
    only_x = image.ImageDataGenerator().flow(x, batch_size=3, shuffle=False)[3]
    assert only_x.shape == (1, 4, 4, 1)
    image.ImageDataGenerator().flow(x * 0 + 128, batch_size=2, save_to_dir=str(tmp_path))[0]
    assert len(list(tmp_path.glob("*.png"))) == 2
    with pytest.raises(ValueError, match="x and y must have the same length"):
        image.ImageDataGenerator().flow(x, y[:3])
    with pytest.raises(ValueError, match="rank-4 array"):
        image.ImageDataGenerator().flow(x[0], None)
    with pytest.raises(ValueError, match="different classes after the split"):
        image.ImageDataGenerator(validation_split=0.3).flow(x, np.sort(y), subset="training")
    with pytest.raises(ValueError, match="subset must be 'training' or 'validation'"):
        image.ImageDataGenerator(validation_split=0.3).flow(x, y, subset="test")
    with pytest.raises(ValueError, match="it has 1 batches"):
        image.ImageDataGenerator().flow(x)[1]


def test_generator_argument_errors():
    with pytest.raises(ValueError, match="data_format must be"):
        image.ImageDataGenerator(data_format="NHWC")
    with pytest.raises(ValueError, match="fill_mode must be one of"):
        image.ImageDataGenerator(fill_mode="mirror")
    with pytest.raises(ValueError, match="validation_split must be strictly between 0 and 1"):
        image.ImageDataGenerator(validation_split=1.5)
    with pytest.raises(ValueError, match="zoom_range must be a float or a pair"):
        image.ImageDataGenerator(zoom_range=(0.5, 1.0, 2.0))
    with pytest.raises(ValueError, match="brightness_range must be a tuple or list"):
        image.ImageDataGenerator(brightness_range=0.5)
    with pytest.raises(ValueError, match="rank 4"):
        image.ImageDataGenerator().fit(np.zeros((2, 3, 3)))
    with pytest.warns(UserWarning, match="turns on samplewise_center"):
        assert image.ImageDataGenerator(samplewise_std_normalization=True).samplewise_center
    with pytest.raises(ValueError, match="channel_axis must be 0 or 2"):
        image.apply_affine_transform(
            np.zeros((3, 3, 3)), theta=5, row_axis=0, col_axis=2, channel_axis=1
        )


def test_higher_interpolation_orders_need_scipy(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)
    with pytest.raises(ImportError, match="Interpolation order 3 needs SciPy"):
        image.ImageDataGenerator(rotation_range=10, interpolation_order=3).random_transform(
            np.ones((4, 4, 1)), seed=0
        )
    # Orders 0 and 1 need nothing beyond NumPy.
    image.ImageDataGenerator(rotation_range=10).random_transform(np.ones((4, 4, 1)), seed=0)


# -- files -----------------------------------------------------------------------------


@pytest.fixture
def image_folder(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(2)
    root = tmp_path / "images"
    for label, count in (("cats", 3), ("dogs", 4)):
        (root / label / "nested").mkdir(parents=True)
        for i in range(count):
            pixels = rng.integers(0, 256, size=(6 + i, 5, 3), dtype=np.uint8)
            where = root / label / ("nested" if i == 0 else "") / f"{label}_{i}.png"
            pil.fromarray(pixels).save(where)
    (root / "cats" / "notes.txt").write_text("not an image")
    return root


def _require_image_utils():
    pytest.importorskip("lamina.utils.image_utils")


def test_flow_from_directory_matches_keras_and_feeds_fit(image_folder, capsys):
    _require_image_utils()
    settings = {"rescale": 1 / 255, "horizontal_flip": True, "validation_split": 0.25}
    kwargs = {"target_size": (4, 4), "batch_size": 3, "seed": 1, "interpolation": "bilinear"}
    for subset in (None, "training", "validation"):
        ours = image.ImageDataGenerator(**settings).flow_from_directory(
            str(image_folder), subset=subset, **kwargs
        )
        theirs = keras_image.ImageDataGenerator(**settings).flow_from_directory(
            str(image_folder), subset=subset, **kwargs
        )
        assert ours.class_indices == theirs.class_indices == {"cats": 0, "dogs": 1}
        assert ours.filenames == theirs.filenames
        np.testing.assert_array_equal(ours.classes, theirs.classes)
        assert len(ours) == len(theirs)
        for index in range(len(ours)):
            for got, expected in zip(ours[index], theirs[index]):
                np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    assert "Found 7 images belonging to 2 classes." in capsys.readouterr().out
    sparse = image.ImageDataGenerator().flow_from_directory(
        image_folder, target_size=(4, 4), color_mode="grayscale", class_mode="sparse",
        shuffle=False, classes=["dogs", "cats"],
    )  # fmt: skip
    batch_x, batch_y = sparse[0]
    assert batch_x.shape == (7, 4, 4, 1)
    np.testing.assert_array_equal(batch_y, [0, 0, 0, 0, 1, 1, 1])
    no_labels = image.ImageDataGenerator().flow_from_directory(
        image_folder, target_size=(4, 4), class_mode=None, batch_size=2
    )
    assert no_labels[0].shape == (2, 4, 4, 3)
    flow = image.ImageDataGenerator(rescale=1 / 255).flow_from_directory(
        image_folder, target_size=(4, 4), batch_size=4, seed=0
    )
    history = _model((4, 4, 3), 2).fit(flow, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"]).all()


def test_flow_from_directory_errors(image_folder, tmp_path):
    with pytest.raises(FileNotFoundError, match="is not a directory"):
        image.ImageDataGenerator().flow_from_directory(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match=r"classes \['birds'\] have no subfolder"):
        image.ImageDataGenerator().flow_from_directory(str(image_folder), classes=["birds"])
    with pytest.raises(ValueError, match="class_mode must be one of"):
        image.ImageDataGenerator().flow_from_directory(str(image_folder), class_mode="raw")
    with pytest.raises(ValueError, match="color_mode must be"):
        image.ImageDataGenerator().flow_from_directory(str(image_folder), color_mode="cmyk")
    (image_folder / "empty").mkdir()
    with pytest.warns(UserWarning, match="has no image files"):
        image.ImageDataGenerator().flow_from_directory(str(image_folder))
    (tmp_path / "bare").mkdir()
    with pytest.warns(UserWarning, match=r"no images in .*bare' \(it has no subfolders\)"):
        assert len(image.ImageDataGenerator().flow_from_directory(str(tmp_path / "bare"))) == 0


class _Column:
    def __init__(self, values):
        self.values = values

    def tolist(self):
        return list(self.values)


class _Frame:
    """The little of a pandas DataFrame that flow_from_dataframe reads."""

    def __init__(self, data):
        self.data = data
        self.columns = list(data)

    def __getitem__(self, column):
        return _Column(self.data[column])


def test_flow_from_dataframe(image_folder, monkeypatch):
    _require_image_utils()
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="flow_from_dataframe needs pandas"):
            image.ImageDataGenerator().flow_from_dataframe(_Frame({"filename": []}))
        monkeypatch.setitem(sys.modules, "pandas", types.ModuleType("pandas"))
    frame = _Frame(
        {
            "filename": ["cats/cats_1.png", "dogs/dogs_2.png", "missing.png", "cats/notes.txt"],
            "class": ["cat", "dog", "dog", "cat"],
            "weight": [1.0, 2.0, 3.0, 4.0],
        }
    )
    with pytest.warns(UserWarning, match="2 invalid image file name"):
        flow = image.ImageDataGenerator().flow_from_dataframe(
            frame, directory=str(image_folder), weight_col="weight", target_size=(3, 3),
            shuffle=False,
        )  # fmt: skip
    assert flow.filenames == ["cats/cats_1.png", "dogs/dogs_2.png"]
    assert flow.class_indices == {"cat": 0, "dog": 1}
    batch_x, batch_y, batch_w = flow[0]
    assert batch_x.shape == (2, 3, 3, 3)
    np.testing.assert_array_equal(batch_y, [[1, 0], [0, 1]])
    np.testing.assert_array_equal(batch_w, [1.0, 2.0])
    raw = image.ImageDataGenerator().flow_from_dataframe(
        _Frame({"filename": ["cats/cats_1.png"], "score": [0.5]}), directory=str(image_folder),
        y_col="score", class_mode="raw", target_size=(3, 3),
    )  # fmt: skip
    np.testing.assert_array_equal(raw[0][1], [0.5])
    with pytest.raises(KeyError, match=r"columns \['label'\] are not in the dataframe"):
        image.ImageDataGenerator().flow_from_dataframe(frame, y_col="label")


def test_image_utils_are_reexported():
    utils = pytest.importorskip("lamina.utils.image_utils")
    for name in ("load_img", "img_to_array", "array_to_img", "save_img", "smart_resize"):
        assert getattr(image, name) is getattr(utils, name)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        image.nope  # noqa: B018


def test_package_paths():
    assert lamina.preprocessing.sequence.pad_sequences is lamina.utils.pad_sequences
    assert lamina.preprocessing.image.ImageDataGenerator is image.ImageDataGenerator
    assert "ImageDataGenerator" in dir(image) and "load_img" in dir(image)
    # Keras 3's keras.preprocessing.*_dataset_* names reach lamina.utils' builders.
    for name in ("image_dataset_from_directory", "timeseries_dataset_from_array"):
        assert name in dir(lamina.preprocessing)
        if hasattr(lamina.utils, name):
            assert getattr(lamina.preprocessing, name) is getattr(lamina.utils, name)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        lamina.preprocessing.nothing  # noqa: B018
    batch = image.ImageDataGenerator(vertical_flip=True).flow(np.ones((2, 3, 3, 1)))[0]
    assert ops.is_tensor(ops.convert_to_tensor(batch))
