"""`lamina.visualization` against Keras 3's: segmentation masks value for value, boxes by
their geometry (Keras draws them with OpenCV, lamina without), galleries by the files
they write (matplotlib, an optional extra)."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("MPLBACKEND", "Agg")
keras = pytest.importorskip("keras")

from lamina import visualization  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

_RNG = np.random.default_rng(0)
_IMAGES = _RNG.uniform(0, 255, (2, 5, 6, 3)).astype("float32")
_MASKS = _RNG.integers(-1, 4, (2, 5, 6, 1))


# segmentation masks --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"num_classes": 5},
        {"blend": False},
        {"ignore_index": 0, "alpha": 0.3},
        {"color_mapping": {0: (1, 2, 3), 1: (4, 5, 6), 2: (7, 8, 9)}},
    ],
)
def test_segmentation_masks_match_keras(kwargs):
    ours = visualization.draw_segmentation_masks(_IMAGES, _MASKS, **kwargs)
    theirs = np.asarray(keras.visualization.draw_segmentation_masks(_IMAGES, _MASKS, **kwargs))
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)


def test_segmentation_masks_channels_first_match_keras():
    images, masks = _IMAGES.transpose(0, 3, 1, 2), _MASKS.transpose(0, 3, 1, 2)
    ours = visualization.draw_segmentation_masks(images, masks, data_format="channels_first")
    theirs = keras.visualization.draw_segmentation_masks(
        images, masks, data_format="channels_first"
    )
    np.testing.assert_array_equal(ours, np.asarray(theirs))


def test_segmentation_masks_errors():
    with pytest.raises(ValueError, match="batched 4D"):
        visualization.draw_segmentation_masks(_IMAGES[0], _MASKS[0])
    with pytest.raises(TypeError, match="integer dtype"):
        visualization.draw_segmentation_masks(_IMAGES, _MASKS.astype("float32"))


# bounding boxes -------------------------------------------------------------------------------
def _boxes(boxes, labels, **extra):
    return {"boxes": np.array(boxes, "float32"), "labels": np.array(labels), **extra}


def _painted(out, color=(255, 0, 0)):
    return np.all(out == np.array(color, "uint8"), axis=-1)


def test_a_thin_box_outlines_its_corners_exactly():
    images = np.zeros((1, 10, 12, 3), "uint8")
    out = visualization.draw_bounding_boxes(
        images, _boxes([[[2, 3, 8, 7]]], [[0]]), "xyxy", color=(255, 0, 0), line_thickness=1
    )
    expected = np.zeros((10, 12), bool)
    expected[3, 2:9] = expected[7, 2:9] = True
    expected[3:8, 2] = expected[3:8, 8] = True
    np.testing.assert_array_equal(_painted(out[0]), expected)
    assert out.dtype == np.uint8 and out.shape == images.shape


@pytest.mark.parametrize("thickness", [2, 3])
def test_thick_lines_are_centred_on_the_edges(thickness):
    images = np.zeros((1, 16, 16, 3), "uint8")
    boxes = _boxes([[[4, 4, 11, 11]]], [[1]])
    out = visualization.draw_bounding_boxes(
        images, boxes, "xyxy", color=(255, 0, 0), line_thickness=thickness
    )
    painted = _painted(out[0])
    assert painted[4, 4:12].all() and painted[11, 4:12].all()  # the edges themselves
    rows = np.flatnonzero(painted[:, 8])  # a column through the top and bottom edges
    assert len(rows) == 2 * thickness
    assert not painted[6:10, 6:10].any()  # the inside stays as it was


def test_formats_padding_and_float_images():
    images = np.zeros((1, 20, 20, 3), "float32")
    expected = visualization.draw_bounding_boxes(
        images, _boxes([[[2, 4, 10, 16]]], [[0]]), "xyxy", color=(255, 0, 0)
    )
    for fmt, box in [
        ("yxyx", [4, 2, 16, 10]),
        ("xywh", [2, 4, 8, 12]),
        ("center_xywh", [6, 10, 8, 12]),
        ("rel_xyxy", [0.1, 0.2, 0.5, 0.8]),
    ]:
        got = visualization.draw_bounding_boxes(
            images, _boxes([[box, [0, 0, 5, 5]]], [[0, -1]]), fmt, color=(255, 0, 0)
        )
        np.testing.assert_array_equal(got, expected, err_msg=fmt)  # label -1: not drawn
    halves = np.full((1, 4, 4, 3), 0.5, "float32")  # [0, 1] floats become [0, 255]
    out = visualization.draw_bounding_boxes(halves, _boxes([[[0, 0, 0, 0]]], [[-1]]), "xyxy")
    assert out.dtype == np.uint8 and int(out[0, 2, 2, 0]) == 127
    first = visualization.draw_bounding_boxes(
        images.transpose(0, 3, 1, 2),
        _boxes([[[2, 4, 10, 16]]], [[0]]),
        "xyxy",
        color=(255, 0, 0),
        data_format="channels_first",
    )
    np.testing.assert_array_equal(first.transpose(0, 2, 3, 1), expected)


def test_labels_are_written_in_the_box_colour_by_the_box():
    images = np.zeros((1, 64, 64, 3), "uint8")
    boxes = _boxes([[[10, 40, 50, 60]]], [[3]])
    bare = visualization.draw_bounding_boxes(images, boxes, "xyxy", color=(0, 255, 0))
    named = visualization.draw_bounding_boxes(
        images, boxes, "xyxy", class_mapping={3: "cat"}, color=(0, 255, 0)
    )
    scored = visualization.draw_bounding_boxes(
        images,
        {**boxes, "confidences": np.array([[0.25]])},
        "xyxy",
        class_mapping={3: "cat"},
        color=(0, 255, 0),
    )
    text = np.any(named != bare, axis=-1)
    assert text[:40].any() and not text[40:].any()  # above the box (room there)
    assert np.all(named[text][:, [0, 2]] == 0)  # green only
    assert (np.any(scored != bare, axis=-1).sum()) > text.sum()  # "cat | 0.25" is longer
    # No room above: the label goes inside the box, near its top.
    high = visualization.draw_bounding_boxes(
        images, _boxes([[[10, 2, 50, 60]]], [[3]]), "xyxy", class_mapping={3: "cat"}
    )
    low = visualization.draw_bounding_boxes(images, _boxes([[[10, 2, 50, 60]]], [[3]]), "xyxy")
    rows = np.flatnonzero(np.any(high != low, axis=(-1, -2)))
    assert rows.min() > 2 and rows.max() < 40


def test_bounding_box_errors():
    images = np.zeros((1, 4, 4, 3), "uint8")
    with pytest.raises(ValueError, match="batched 4D"):
        visualization.draw_bounding_boxes(images[0], _boxes([[[0, 0, 1, 1]]], [[0]]), "xyxy")
    with pytest.raises(TypeError, match="should be a dict"):
        visualization.draw_bounding_boxes(images, [[0, 0, 1, 1]], "xyxy")
    with pytest.raises(ValueError, match="'boxes' and 'labels'"):
        visualization.draw_bounding_boxes(images, {"boxes": np.zeros((1, 1, 4))}, "xyxy")


# galleries -------------------------------------------------------------------------------------
def _png_size(path):
    from PIL import Image

    with Image.open(path) as image:
        return image.size


@pytest.mark.parametrize("kwargs", [{}, {"rows": 1, "cols": 2}, {"scale": 1, "dpi": 40}])
def test_image_gallery_writes_the_figure_keras_writes(tmp_path, kwargs):
    pytest.importorskip("matplotlib")
    images = _RNG.uniform(0, 1, (4, 8, 8, 3)).astype("float32")
    labels = {"y_true": np.array([0, 1, 0, 1]), "label_map": {0: "a", 1: "b"}}
    ours, theirs = str(tmp_path / "ours.png"), str(tmp_path / "theirs.png")
    visualization.plot_image_gallery(images, value_range=(0, 1), path=ours, **labels, **kwargs)
    keras.visualization.plot_image_gallery(
        images, value_range=(0, 1), path=theirs, **labels, **kwargs
    )
    assert _png_size(ours) == _png_size(theirs)


def test_box_and_mask_galleries(tmp_path):
    pytest.importorskip("matplotlib")
    images = np.zeros((2, 16, 16, 3), "uint8")
    boxes = _boxes([[[2, 2, 10, 10]], [[4, 4, 12, 12]]], [[0], [1]])
    path = tmp_path / "boxes.png"
    visualization.plot_bounding_box_gallery(
        images,
        "xyxy",
        y_true=boxes,
        y_pred=boxes,
        class_mapping={0: "a", 1: "b"},
        legend=True,
        path=str(path),
    )
    assert path.stat().st_size > 0
    masks = np.zeros((2, 16, 16, 1), "int32")
    ours, theirs = tmp_path / "ours.png", tmp_path / "theirs.png"
    visualization.plot_segmentation_mask_gallery(
        images, 3, y_true=masks, y_pred=masks, path=str(ours)
    )
    keras.visualization.plot_segmentation_mask_gallery(
        images, 3, y_true=masks, y_pred=masks, path=str(theirs)
    )
    assert _png_size(ours) == _png_size(theirs)


def test_gallery_errors(tmp_path):
    pytest.importorskip("matplotlib")
    images = np.zeros((2, 4, 4, 3), "uint8")
    with pytest.raises(ValueError, match="not both"):
        visualization.plot_image_gallery(images, path=str(tmp_path / "x.png"), show=True)
    with pytest.raises(ValueError, match="label_map"):
        visualization.plot_image_gallery(images, y_true=np.array([0, 1]), show=False)
    with pytest.raises(ValueError, match="legend"):
        visualization.plot_bounding_box_gallery(
            images, "xyxy", legend=True, legend_handles=[object()], show=False
        )


def test_galleries_name_matplotlib_when_it_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    images = np.zeros((1, 4, 4, 3), "uint8")
    for call in (
        lambda: visualization.plot_image_gallery(images),
        lambda: visualization.plot_bounding_box_gallery(images, "xyxy"),
        lambda: visualization.plot_segmentation_mask_gallery(images, 2),
    ):
        with pytest.raises(ImportError, match="pip install matplotlib"):
            call()
