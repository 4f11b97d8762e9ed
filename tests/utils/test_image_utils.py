"""load_img / img_to_array / array_to_img / save_img give what Keras 3's give on the same
files (Keras is imported as the reference), plus clear errors for bad input."""

import io
import os
import pathlib

import numpy as np
import pytest

PIL = pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

os.environ.setdefault("KERAS_BACKEND", "jax")
keras_image = pytest.importorskip("keras.src.utils.image_utils")

from lamina.utils import array_to_img, img_to_array, load_img, save_img  # noqa: E402
from lamina.utils.image_utils import smart_resize  # noqa: E402


def _read(path):
    """(pixels, mode, format) of an image file, closing the file."""
    with Image.open(path) as img:
        img.load()
        return np.asarray(img), img.mode, img.format


def _opened(path):
    """A loaded in-memory copy of an image file (no file handle left open)."""
    with Image.open(path) as img:
        img.load()
        return img.copy()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A few tiny images in several modes and formats."""
    root = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(0)
    out = {}
    rgb = rng.integers(0, 256, (7, 10, 3), dtype=np.uint8)
    out["rgb.png"] = Image.fromarray(rgb, "RGB")
    out["rgba.png"] = Image.fromarray(rng.integers(0, 256, (9, 5, 4), dtype=np.uint8), "RGBA")
    out["gray.png"] = Image.fromarray(rng.integers(0, 256, (6, 8), dtype=np.uint8), "L")
    out["gray16.png"] = Image.fromarray(rng.integers(0, 60000, (5, 6), dtype=np.uint16))
    out["rgb.jpg"] = Image.fromarray(rgb, "RGB")
    out["pal.gif"] = Image.fromarray(rgb, "RGB").convert("P")
    out["rgb.bmp"] = Image.fromarray(rgb, "RGB")
    paths = {}
    for name, img in out.items():
        path = root / name
        img.save(path)
        paths[name] = path
    return paths


@pytest.mark.parametrize(
    "name", ["rgb.png", "rgba.png", "gray.png", "gray16.png", "rgb.jpg", "pal.gif", "rgb.bmp"]
)
@pytest.mark.parametrize("color_mode", ["grayscale", "rgb", "rgba"])
def test_load_img_matches_keras(files, name, color_mode):
    path = files[name]
    ours = load_img(path, color_mode=color_mode)
    theirs = keras_image.load_img(path, color_mode=color_mode)
    assert ours.mode == theirs.mode and ours.size == theirs.size
    np.testing.assert_array_equal(img_to_array(ours), keras_image.img_to_array(theirs))


@pytest.mark.parametrize(
    "interpolation", ["nearest", "bilinear", "bicubic", "hamming", "box", "lanczos"]
)
@pytest.mark.parametrize("keep_aspect_ratio", [False, True])
def test_load_img_resize_matches_keras(files, interpolation, keep_aspect_ratio):
    for target_size in [(4, 4), (3, 12)]:
        kwargs = dict(
            target_size=target_size,
            interpolation=interpolation,
            keep_aspect_ratio=keep_aspect_ratio,
        )
        ours = load_img(files["rgb.png"], **kwargs)
        theirs = keras_image.load_img(files["rgb.png"], **kwargs)
        assert ours.size == (target_size[1], target_size[0])
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def test_load_img_path_kinds(files):
    path = files["rgb.png"]
    expected = np.asarray(_opened(path).convert("RGB"))
    for source in (
        str(path),
        pathlib.Path(path),
        os.fsencode(str(path)),
        io.BytesIO(path.read_bytes()),
    ):
        np.testing.assert_array_equal(np.asarray(load_img(source)), expected)
    with pytest.raises(TypeError, match="path.*received int"):
        load_img(3)


def test_load_img_errors(tmp_path, files):
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"this is not an image")
    with pytest.raises(PIL.UnidentifiedImageError, match="broken.png"):
        load_img(bad)
    with pytest.raises(ValueError, match="color_mode.*'cmyk'"):
        load_img(files["rgb.png"], color_mode="cmyk")
    with pytest.raises(ValueError, match="Invalid interpolation method 'cubic'"):
        load_img(files["rgb.png"], target_size=(2, 2), interpolation="cubic")
    with pytest.raises(FileNotFoundError):
        load_img(tmp_path / "missing.png")


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("dtype", [None, "uint8", "float64"])
def test_img_to_array_matches_keras(files, data_format, dtype):
    for name in ("rgb.png", "gray.png", "gray16.png", "rgba.png"):
        img = _opened(files[name])
        ours = img_to_array(img, data_format=data_format, dtype=dtype)
        theirs = keras_image.img_to_array(img, data_format=data_format, dtype=dtype)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        np.testing.assert_array_equal(ours, theirs)
    with pytest.raises(ValueError, match="Unsupported image shape"):
        img_to_array(np.zeros((1, 2, 3, 4)))


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("scale", [True, False])
def test_array_to_img_matches_keras(data_format, scale):
    rng = np.random.default_rng(1)
    for channels, high in [(1, 1.0), (1, 255.0), (1, 4000.0), (3, 300.0), (4, 2.0)]:
        x = rng.uniform(0, high, (5, 6, channels)).astype("float32")
        if data_format == "channels_first":
            x = x.transpose(2, 0, 1)
        ours = array_to_img(x, data_format=data_format, scale=scale)
        theirs = keras_image.array_to_img(x, data_format=data_format, scale=scale)
        assert ours.mode == theirs.mode and ours.size == theirs.size
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    with pytest.raises(ValueError, match="rank 3"):
        array_to_img(np.zeros((4, 4)))
    with pytest.raises(ValueError, match="Unsupported channel number: 2"):
        array_to_img(np.zeros((4, 4, 2)))


@pytest.mark.parametrize("file_name", ["out.png", "out.jpg", "out.bmp"])
def test_save_img_matches_keras(tmp_path, file_name):
    x = np.random.default_rng(2).uniform(0, 255, (6, 5, 3)).astype("float32")
    save_img(tmp_path / ("a_" + file_name), x)
    keras_image.save_img(tmp_path / ("b_" + file_name), x)
    ours, theirs = _read(tmp_path / ("a_" + file_name)), _read(tmp_path / ("b_" + file_name))
    assert ours[1:] == theirs[1:]
    np.testing.assert_array_equal(ours[0], theirs[0])


def test_save_img_file_object_and_rgba_jpeg(tmp_path):
    x = np.random.default_rng(3).uniform(0, 255, (4, 4, 4)).astype("float32")
    buffer = io.BytesIO()
    save_img(buffer, x, file_format="png", scale=False)
    buffer.seek(0)
    np.testing.assert_array_equal(_read(buffer)[0], x.astype("uint8"))
    with pytest.warns(UserWarning, match="JPEG format does not support RGBA"):
        save_img(tmp_path / "rgba.jpg", x)
    assert _read(tmp_path / "rgba.jpg")[1] == "RGB"
    # channels_first round trip
    save_img(tmp_path / "cf.png", x.transpose(2, 0, 1), data_format="channels_first", scale=False)
    np.testing.assert_array_equal(_read(tmp_path / "cf.png")[0], x.astype("uint8"))


def test_smart_resize_matches_keras():
    x = np.random.default_rng(4).uniform(0, 255, (9, 14, 3)).astype("float32")
    for size in [(4, 4), (10, 20)]:
        ours = smart_resize(x, size)
        theirs = keras_image.smart_resize(x, size)
        assert isinstance(ours, np.ndarray) and ours.shape == (*size, 3)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-3)


def test_missing_pillow_names_the_extra(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pil(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("No module named 'PIL'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pil)
    with pytest.raises(ImportError, match=r"pip install lamina\[image\]"):
        array_to_img(np.zeros((2, 2, 3)))
