"""image_dataset_from_directory: the file listing, labels and split are Keras's own
(compared with Keras's `index_directory` and split helpers, which need no TensorFlow);
pixels are compared with Pillow decoding plus Keras's `ops.image.resize`."""

import os

import numpy as np
import pytest

pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")
from keras.src.utils import dataset_utils as keras_dataset_utils  # noqa: E402

import lamina  # noqa: E402
from lamina import layers, ops  # noqa: E402
from lamina.utils import PyDataset, image_dataset_from_directory  # noqa: E402

FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """3 classes of tiny images of assorted sizes, modes and formats, plus clutter."""
    root = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(0)
    layout = {
        "cats": ["c1.png", "c2.JPG", "c3.bmp", "sub/c4.png"],
        "dogs": ["d1.png", "d2.gif", "d3.png"],
        "owls": ["o1.png", "o2.png", "o3.png", "o4.jpeg", "o5.png"],
    }
    sizes = [(5, 7), (9, 4)]  # few distinct sizes: the reference resize compiles per shape
    for cls, names in layout.items():
        for k, name in enumerate(names):
            path = root / cls / name
            path.parent.mkdir(parents=True, exist_ok=True)
            h, w = sizes[k % 2]
            pixels = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
            mode = "RGBA" if name.startswith("o2") else "RGB"
            if mode == "RGBA":
                pixels = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
            img = Image.fromarray(pixels, mode)
            if name.startswith("d3"):
                img = img.convert("L")
            img.save(path)
    (root / "cats" / "notes.txt").write_text("not an image")
    (root / ".hidden").mkdir()
    Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(root / ".hidden" / "h.png")
    Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(root / "top_level.png")
    return str(root)


def _reference_image(path, size, channels=3, interpolation="bilinear", **kwargs):
    with Image.open(path) as img:
        img.load()
        mode = {1: "L", 3: "RGB", 4: "RGBA"}[channels]
        if img.mode != mode and not (channels == 1 and img.mode in ("L", "I;16", "I")):
            img = img.convert(mode)
        x = np.asarray(img, dtype="float32")
    if x.ndim == 2:
        x = x[:, :, None]
    return np.asarray(keras.ops.image.resize(x, size, interpolation=interpolation, **kwargs))


def _collect(ds):
    xs, ys = [], []
    for batch in ds:
        x, y = batch
        xs.append(ops.convert_to_numpy(x))
        ys.append(ops.convert_to_numpy(y))
    return np.concatenate(xs), np.concatenate(ys)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(shuffle=False),
        dict(shuffle=True, seed=7),
        dict(shuffle=True, seed=123, class_names=["owls", "cats"]),
        dict(shuffle=False, labels=None),
        dict(shuffle=True, seed=3, follow_links=True),
    ],
)
def test_listing_matches_keras(folder, kwargs):
    kwargs = dict(kwargs)
    labels = kwargs.pop("labels", "inferred")
    ds = image_dataset_from_directory(
        folder, labels=labels, image_size=(5, 5), batch_size=4, verbose=False, **kwargs
    )
    paths, expected_labels, class_names = keras_dataset_utils.index_directory(
        folder,
        labels,
        formats=FORMATS,
        class_names=kwargs.get("class_names"),
        shuffle=kwargs.get("shuffle", True),
        seed=kwargs.get("seed"),
        follow_links=kwargs.get("follow_links", False),
        verbose=False,
    )
    assert isinstance(ds, PyDataset)
    assert ds.file_paths == paths
    assert ds.class_names == class_names
    if labels is None:
        batch = ds[0]
        assert not isinstance(batch, tuple) and batch.shape == (4, 5, 5, 3)
    else:
        np.testing.assert_array_equal(_collect(ds)[1], expected_labels)


def test_pixels_and_labels(folder):
    ds = image_dataset_from_directory(
        folder, image_size=(6, 7), batch_size=5, shuffle=False, verbose=False
    )
    assert len(ds) == 3  # 12 images
    images, labels = _collect(ds)
    assert images.dtype == np.float32 and images.shape == (12, 6, 7, 3)
    assert labels.dtype == np.int32 and labels.shape == (12,)
    np.testing.assert_array_equal(labels, [0] * 4 + [1] * 3 + [2] * 5)
    for image, path in zip(images, ds.file_paths):
        np.testing.assert_allclose(image, _reference_image(path, (6, 7)), atol=5e-3)
    assert 0.0 <= images.min() and images.max() <= 255.0


@pytest.mark.parametrize(
    "options",
    [
        dict(color_mode="grayscale", interpolation="nearest"),
        dict(color_mode="rgba", interpolation="bicubic"),
        dict(crop_to_aspect_ratio=True),
        dict(pad_to_aspect_ratio=True, interpolation="lanczos3"),
        dict(data_format="channels_first"),
        dict(interpolation="lanczos5", crop_to_aspect_ratio=True),
    ],
)
def test_image_options(folder, options):
    ds = image_dataset_from_directory(
        folder, image_size=(4, 9), batch_size=32, shuffle=False, verbose=False, **options
    )
    images = ops.convert_to_numpy(ds[0][0])
    channels = {"grayscale": 1, "rgba": 4}.get(options.get("color_mode"), 3)
    ref_kwargs = {k: v for k, v in options.items() if k != "color_mode"}
    for image, path in zip(images, ds.file_paths):
        if options.get("data_format") == "channels_first":
            assert image.shape == (channels, 4, 9)
            image = image.transpose(1, 2, 0)
            ref_kwargs = {}
        expected = _reference_image(path, (4, 9), channels, **ref_kwargs)
        np.testing.assert_allclose(image, expected, atol=5e-3)


def test_label_modes(folder):
    common = dict(image_size=(3, 3), shuffle=False, verbose=False, batch_size=16)
    _, int_labels = _collect(image_dataset_from_directory(folder, **common))
    _, one_hot = _collect(image_dataset_from_directory(folder, label_mode="categorical", **common))
    assert one_hot.dtype == np.float32
    np.testing.assert_array_equal(one_hot, np.eye(3, dtype="float32")[int_labels])
    binary = image_dataset_from_directory(
        folder, label_mode="binary", class_names=["dogs", "owls"], **common
    )
    _, values = _collect(binary)
    assert values.dtype == np.float32 and values.shape == (8, 1)
    np.testing.assert_array_equal(values[:, 0], [0] * 3 + [1] * 5)
    # Explicit labels, in sorted file order (top-level file and hidden dir included).
    paths, _, _ = keras_dataset_utils.index_directory(
        folder, None, formats=FORMATS, shuffle=False, verbose=False
    )
    given = [i % 2 for i in range(len(paths))]
    ds = image_dataset_from_directory(folder, labels=given, **common)
    assert ds.file_paths == paths and ds.class_names == ["0", "1"]
    np.testing.assert_array_equal(_collect(ds)[1], given)


def test_validation_split_same_seed_no_overlap(folder):
    common = dict(image_size=(3, 3), seed=11, validation_split=0.25, verbose=False, batch_size=4)
    train = image_dataset_from_directory(folder, subset="training", **common)
    val = image_dataset_from_directory(folder, subset="validation", **common)
    train2, val2 = image_dataset_from_directory(folder, subset="both", **common)
    paths, labels, _ = keras_dataset_utils.index_directory(
        folder, "inferred", formats=FORMATS, seed=11, verbose=False
    )
    expected_train, train_labels = keras_dataset_utils.get_training_or_validation_split(
        paths, labels, 0.25, "training"
    )
    expected_val, val_labels = keras_dataset_utils.get_training_or_validation_split(
        paths, labels, 0.25, "validation"
    )
    assert train.file_paths == train2.file_paths == expected_train
    assert val.file_paths == val2.file_paths == expected_val
    assert len(expected_val) == int(0.25 * 12) and len(expected_train) == 9
    assert not set(train.file_paths) & set(val.file_paths)
    np.testing.assert_array_equal(_collect(train)[1], train_labels)
    np.testing.assert_array_equal(_collect(val2)[1], val_labels)
    # The same seed again gives the same files in the same order.
    again = image_dataset_from_directory(folder, subset="training", **common)
    assert again.file_paths == train.file_paths


def test_epochs_reshuffle_reproducibly(folder):
    def epoch_orders(seed):
        ds = image_dataset_from_directory(
            folder, image_size=(2, 2), batch_size=None, seed=seed, verbose=False
        )
        orders = []
        for _ in range(3):
            orders.append([int(label) for _, label in ds])
            ds.on_epoch_end()
        return ds, orders

    ds, orders = epoch_orders(5)
    assert len(ds) == 12 and ds[0][0].shape == (2, 2, 3) and ds[0][1].shape == ()
    assert sorted(orders[0]) == sorted(orders[1]) == sorted(orders[2])
    assert orders[0] != orders[1] or orders[1] != orders[2]
    assert epoch_orders(5)[1] == orders


def test_fit_and_predict(folder):
    lamina.utils.set_random_seed(0)
    ds = image_dataset_from_directory(
        folder, image_size=(8, 8), batch_size=4, seed=1, label_mode="categorical", verbose=False
    )
    model = lamina.Sequential(
        [
            lamina.Input((8, 8, 3)),
            layers.Rescaling(1 / 255),
            layers.Flatten(),
            layers.Dense(3, activation="softmax"),
        ]
    )
    model.compile("adam", "categorical_crossentropy")
    history = model.fit(ds, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    predictions = ops.convert_to_numpy(model.predict(ds, verbose=0))
    assert predictions.shape == (12, 3)
    unlabeled = image_dataset_from_directory(
        folder, labels=None, image_size=(8, 8), shuffle=False, verbose=False
    )
    assert ops.convert_to_numpy(model.predict(unlabeled, verbose=0)).shape == (14, 3)


def test_verbose_messages(folder, capsys):
    image_dataset_from_directory(folder, image_size=(2, 2), shuffle=False)
    assert "Found 12 files belonging to 3 classes." in capsys.readouterr().out
    image_dataset_from_directory(
        folder, image_size=(2, 2), validation_split=0.5, subset="both", seed=1
    )
    out = capsys.readouterr().out
    assert "Using 6 files for training." in out and "Using 6 files for validation." in out


def test_errors(folder, tmp_path):
    def build(directory=folder, **kwargs):
        kwargs.setdefault("verbose", False)
        return image_dataset_from_directory(directory, image_size=(3, 3), **kwargs)

    # A corrupt file is named when its batch is read.
    bad = tmp_path / "bad"
    (bad / "a").mkdir(parents=True)
    Image.fromarray(np.zeros((3, 3, 3), np.uint8)).save(bad / "a" / "fine.png")
    (bad / "a" / "broken.png").write_bytes(b"\x89PNG not really")
    ds = build(bad, shuffle=False)
    with pytest.raises(OSError, match="broken.png"):
        ds[0]
    # An empty directory, and one with files but no class folders.
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="No images found in directory .*empty"):
        build(tmp_path / "empty")
    flat = tmp_path / "flat"
    flat.mkdir()
    Image.fromarray(np.zeros((3, 3, 3), np.uint8)).save(flat / "x.png")
    with pytest.raises(ValueError, match="one subdirectory per class"):
        build(flat)
    assert len(build(flat, labels=None).file_paths) == 1
    with pytest.raises(FileNotFoundError, match="missing"):
        build(tmp_path / "missing")
    # A class folder with no images is refused, naming it (Keras keeps it silently as a
    # class no sample has); leaving it out through class_names works.
    (bad / "b_empty").mkdir()
    (bad / "c_no_images").mkdir()
    (bad / "c_no_images" / "notes.txt").write_text("not an image")
    with pytest.raises(ValueError, match=r"2 class folder\(s\).*\['b_empty', 'c_no_images'\]"):
        build(bad, shuffle=False)
    with pytest.raises(ValueError, match="Add files to these folders, remove them"):
        build(bad, shuffle=False)
    assert build(bad, class_names=["a"], shuffle=False).class_names == ["a"]
    assert len(build(bad, labels=None).file_paths) == 2
    with pytest.raises(ValueError, match="len\\(labels\\) is 3 while we found 14 files"):
        build(labels=[0, 1, 0])
    with pytest.raises(ValueError, match="`validation_split` must be set"):
        build(subset="training")
    with pytest.raises(ValueError, match="must provide a `seed`"):
        build(validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="no files on one side"):
        build(flat, labels=None, validation_split=0.5, subset="training", seed=1)
    for image_size in [(3, 3, 3), "32x32", (3.5, 2), (0, 4)]:
        with pytest.raises(ValueError, match="Invalid `image_size`"):
            image_dataset_from_directory(folder, image_size=image_size, verbose=False)
    with pytest.raises(ValueError, match="exactly 2 class_names"):
        build(label_mode="binary")
    with pytest.raises(ValueError, match="class_names.*did not match"):
        build(class_names=["cats", "unicorns"])
    with pytest.raises(ValueError, match="label_mode"):
        build(label_mode="sparse")
    with pytest.raises(ValueError, match="color_mode"):
        build(color_mode="cmyk")
    with pytest.raises(ValueError, match="TensorFlow's own resize"):
        build(interpolation="gaussian")
    with pytest.raises(ValueError, match="Only one of"):
        build(crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(TypeError, match="batch_size"):
        build(batch_size=2.5)


def test_take_map_prefetch(folder):
    ds = image_dataset_from_directory(
        folder, image_size=(3, 3), batch_size=5, shuffle=False, verbose=False
    )
    first = list(ds.take(1))
    assert len(first) == 1 and first[0][0].shape == (5, 3, 3, 3)
    assert len(ds.take(2)) == 2 and ds.take(2).file_paths == ds.file_paths[:10]
    scaled = ds.map(lambda x, y: (x / 255.0, y), num_parallel_calls=-1).prefetch(2)
    assert len(scaled) == len(ds) and scaled.class_names == ds.class_names
    np.testing.assert_allclose(scaled[2][0], ds[2][0] / 255.0)
    np.testing.assert_array_equal(scaled[2][1], ds[2][1])
