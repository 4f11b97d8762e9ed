"""`lamina.utils.bounding_boxes` against Keras 3's `keras.utils.bounding_boxes` itself.

Keras runs once (module fixture) on small seeded inputs; each test compares lamina's
result with the stored Keras result.
"""

from __future__ import annotations

import inspect
import itertools
import os

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.utils import bounding_boxes as bb

FORMATS = (
    "xyxy",
    "yxyx",
    "xywh",
    "center_xywh",
    "center_yxhw",
    "rel_xyxy",
    "rel_yxyx",
    "rel_xywh",
    "rel_center_xywh",
)
NAMES = (
    "convert_format",
    "clip_to_image_size",
    "compute_iou",
    "compute_ciou",
    "affine_transform",
    "crop",
    "pad",
    "encode_box_to_deltas",
    "decode_deltas_to_boxes",
)
HEIGHT, WIDTH = 60, 80
IMAGE_SHAPE = (HEIGHT, WIDTH, 3)


def _boxes(rng, shape):
    """Valid xyxy boxes (left < right, top < bottom) inside a 60x80 image."""
    corner = rng.uniform(0, 40, shape[:-1] + (2,))
    size = rng.uniform(1, 20, shape[:-1] + (2,))
    return np.concatenate([corner, corner + size], axis=-1).astype("float32")


@pytest.fixture(scope="module")
def case():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    jax = pytest.importorskip("jax")
    kb = keras.utils.bounding_boxes
    rng = np.random.default_rng(0)
    x = {
        "batched": rng.uniform(0, 1, (2, 3, 4)).astype("float32"),
        "unbatched": rng.uniform(0, 50, (3, 4)).astype("float32"),
        "boxes1": _boxes(rng, (2, 3, 4)),
        "boxes2": _boxes(rng, (2, 4, 4)),
        "anchors": _boxes(rng, (3, 4)),
        "outside": np.array([[-10, 5, 90, 30], [70, 50, 95, 70], [85, 1, 99, 9]], "float32"),
        "labels": np.array([1, 2, 3], "int32"),
    }
    x["boxes1"][0, 0] = -1.0  # a padding box, for masking
    x["boxes2"][1, 2] = -1.0
    keys, values = [], []

    def reference():

        def keep(key, value):
            keys.append(key)
            values.append(value)

        for source, target in itertools.product(FORMATS, FORMATS):
            keep(
                ("convert", source, target),
                kb.convert_format(x["batched"], source, target, HEIGHT, WIDTH),
            )
        for target in ("xywh", "rel_center_xywh"):
            keep(
                ("convert unbatched", target),
                kb.convert_format(x["unbatched"], "xyxy", target, HEIGHT, WIDTH),
            )
        keep("convert int", kb.convert_format(np.array([[1, 2, 5, 7]]), "xyxy", "center_yxhw"))

        clipped = kb.clip_to_image_size(
            {
                "boxes": np.stack([x["outside"], x["outside"] / 100]),
                "labels": np.stack([x["labels"]] * 2),
            },
            height=HEIGHT,
            width=WIDTH,
        )
        keep("clip boxes", clipped["boxes"])
        keep("clip labels", clipped["labels"])
        keep(
            "clip rel",
            kb.clip_to_image_size({"boxes": x["outside"] / 50}, bounding_box_format="rel_xyxy")[
                "boxes"
            ],
        )

        b1, b2 = x["boxes1"], x["boxes2"]
        for r1, r2 in itertools.product((2, 3), (2, 3)):
            first, second = (b1 if r1 == 3 else b1[1]), (b2 if r2 == 3 else b2[0])
            keep(("iou", r1, r2), kb.compute_iou(first, second, "xyxy"))
        keep("iou masked", kb.compute_iou(b1, b2, "xyxy", use_masking=True, mask_val=-3))
        keep("iou yxyx", kb.compute_iou(b1, b2, "YXYX"))
        keep("iou rel", kb.compute_iou(b1 / 100, b2 / 100, "rel_xyxy", image_shape=IMAGE_SHAPE))
        keep("ciou", kb.compute_ciou(b1[..., :3, :], b2[..., 1:, :], "xyxy"))
        keep("ciou center", kb.compute_ciou(b1[1], b2[0, :3], "center_xywh"))

        params = {
            "angle": np.array([30.0, -50.0], "float32"),
            "translate_x": np.array([0.1, -0.2], "float32"),
            "translate_y": np.array([-0.05, 0.3], "float32"),
            "scale": np.array([1.2, 0.8], "float32"),
            "shear_x": np.array([10.0, 0.0], "float32"),
            "shear_y": np.array([0.0, -15.0], "float32"),
        }
        x["affine"] = params
        keep("affine", kb.affine_transform(b1, **params, height=HEIGHT, width=WIDTH))
        keep(
            "affine centered",
            kb.affine_transform(
                b1, **params, height=HEIGHT, width=WIDTH, center_x=0.2, center_y=0.7
            ),
        )
        keep("crop", kb.crop(b1, top=5, left=10, height=30, width=40))
        keep("crop unbatched", kb.crop(b1[0], top=2, left=1, height=20, width=50))
        keep("pad", kb.pad(b1, top=4, left=7))
        keep("crop int", kb.crop(np.array([[10, 20, 50, 60]]), 10, 20, 40, 30))

        anchors, boxes = x["anchors"], b1
        variance = [0.1, 0.1, 0.2, 0.2]
        keep("encode", kb.encode_box_to_deltas(anchors, boxes, "xyxy", "xyxy"))
        keep(
            "encode xywh",
            kb.encode_box_to_deltas(
                anchors / 100, boxes[0], "rel_xyxy", "xyxy", "center_xywh", variance, IMAGE_SHAPE
            ),
        )
        deltas = rng.uniform(-0.5, 0.5, (2, 3, 4)).astype("float32")
        x["deltas"] = deltas
        keep("decode", kb.decode_deltas_to_boxes(anchors, deltas, "xyxy", "yxyx"))
        keep(
            "decode rel",
            kb.decode_deltas_to_boxes(
                anchors, deltas[0], "xyxy", "rel_xywh", "center_xywh", variance, IMAGE_SHAPE
            ),
        )
        levels = kb.decode_deltas_to_boxes(
            {"P3": anchors, "P4": anchors[:2]}, {"P3": deltas, "P4": deltas[:, :2]}, "xyxy", "xyxy"
        )
        for level, value in levels.items():
            keep(("decode", level), value)
        return values

    # One compiled program instead of a few hundred small eager ones (seconds of XLA).
    ref = dict(zip(keys, map(np.asarray, jax.jit(reference)())))
    ref["signatures"] = {
        name: list(inspect.signature(getattr(kb, name)).parameters) for name in NAMES
    }
    return x, ref


def _close(ours, theirs, atol=1e-5, err_msg=""):
    np.testing.assert_allclose(
        ops.convert_to_numpy(ours), theirs, rtol=1e-5, atol=atol, err_msg=err_msg
    )


def _run(function):
    """`function()` as one compiled program on JAX (eager JAX compiles every small op on
    its own, seconds in all), plainly on other engines. The doctests run each function
    eagerly."""
    if lamina.backend.backend() == "jax":
        import jax

        return jax.jit(function)()
    return function()


def test_public_names_and_signatures_match_keras(case):
    _, ref = case
    assert lamina.utils.bounding_boxes is bb
    for name in NAMES:
        ours = list(inspect.signature(getattr(bb, name)).parameters)
        assert ours == ref["signatures"][name], name


def test_convert_format_every_pair(case):
    x, ref = case
    pairs = list(itertools.product(FORMATS, FORMATS))
    results = _run(lambda: [bb.convert_format(x["batched"], s, t, HEIGHT, WIDTH) for s, t in pairs])
    for (source, target), ours in zip(pairs, results):
        assert ops.convert_to_numpy(ours).dtype == np.float32
        _close(ours, ref[("convert", source, target)], err_msg=f"{source} -> {target}")


def test_convert_format_unbatched_dict_case_and_int_input(case):
    x, ref = case
    given = {"boxes": x["unbatched"], "labels": x["labels"]}
    xywh, center, converted, integer = _run(
        lambda: (
            bb.convert_format(x["unbatched"], "XYXY", "XYWH"),
            bb.convert_format(x["unbatched"], "xyxy", "Rel_Center_XYWH", HEIGHT, WIDTH),
            bb.convert_format(given, "xyxy", "xywh")["boxes"],
            bb.convert_format(np.array([[1, 2, 5, 7]]), "xyxy", "center_yxhw"),
        )
    )
    _close(xywh, ref[("convert unbatched", "xywh")])
    _close(center, ref[("convert unbatched", "rel_center_xywh")])
    _close(converted, ref[("convert unbatched", "xywh")])
    assert ops.convert_to_numpy(integer).dtype == np.float32
    _close(integer, ref["convert int"])
    result = bb.convert_format(given, "xyxy", "xyxy")
    assert result["labels"] is x["labels"]
    assert given["boxes"] is x["unbatched"]  # the caller's dict is not modified


def test_convert_format_errors_name_what_was_received():
    boxes = np.zeros((2, 4), "float32")
    with pytest.raises(ValueError, match=r"source='xyxz'.*'rel_center_xywh'"):
        bb.convert_format(boxes, "xyxz", "xywh")
    with pytest.raises(ValueError, match=r"target='corners'.*'center_yxhw'"):
        bb.convert_format(boxes, "xyxy", "corners")
    with pytest.raises(ValueError, match=r"`height` and `width`.*height=None"):
        bb.convert_format(boxes, "xyxy", "rel_xyxy", width=3)
    with pytest.raises(ValueError, match=r"last dimension of 4, received shape \(2, 5\)"):
        bb.convert_format(np.zeros((2, 5)), "xyxy", "xywh")


def test_clip_to_image_size(case):
    x, ref = case
    given = {
        "boxes": np.stack([x["outside"], x["outside"] / 100]),
        "labels": np.stack([x["labels"]] * 2),
    }
    clipped, relative = _run(
        lambda: (
            bb.clip_to_image_size(given, height=HEIGHT, width=WIDTH),
            bb.clip_to_image_size({"boxes": x["outside"] / 50}, bounding_box_format="rel_xyxy"),
        )
    )
    _close(clipped["boxes"], ref["clip boxes"])
    labels = ops.convert_to_numpy(clipped["labels"])
    assert labels.dtype == ref["clip labels"].dtype
    np.testing.assert_array_equal(labels, ref["clip labels"])
    assert set(relative) == {"boxes"}
    _close(relative["boxes"], ref["clip rel"])
    with pytest.raises(ValueError, match="needs `height` and `width`"):
        bb.clip_to_image_size(given)
    with pytest.raises(NotImplementedError, match="received 'xywh'"):
        bb.clip_to_image_size(given, HEIGHT, WIDTH, bounding_box_format="xywh")


def test_compute_iou(case):
    x, ref = case
    b1, b2 = x["boxes1"], x["boxes2"]
    ranks = list(itertools.product((2, 3), (2, 3)))

    def ours():
        tables = [
            bb.compute_iou(b1 if r1 == 3 else b1[1], b2 if r2 == 3 else b2[0], "xyxy")
            for r1, r2 in ranks
        ]
        return tables + [
            bb.compute_iou(b1, b2, "xyxy", use_masking=True, mask_val=-3),
            bb.compute_iou(b1, b2, "YXYX"),
            bb.compute_iou(b1 / 100, b2 / 100, "rel_xyxy", image_shape=IMAGE_SHAPE),
            # Keras 3.15 fails on this rank pair with masking: checked against NumPy below.
            bb.compute_iou(b1[0], b2, "xyxy"),
            bb.compute_iou(b1[0], b2, "xyxy", use_masking=True),
        ]

    results = _run(ours)
    for (r1, r2), table in zip(ranks, results):
        _close(table, ref[("iou", r1, r2)], err_msg=f"ranks {r1}, {r2}")
    masked, yxyx, relative, plain, masked_unbatched = results[len(ranks) :]
    _close(masked, ref["iou masked"])
    assert (ref["iou masked"] == -3).any()
    _close(yxyx, ref["iou yxyx"])
    _close(relative, ref["iou rel"])
    padding = (b1[0].max(-1) < 0)[None, :, None] | (b2.max(-1) < 0)[:, None, :]
    expected = np.where(padding, -1.0, ops.convert_to_numpy(plain))
    np.testing.assert_array_equal(ops.convert_to_numpy(masked_unbatched), expected)
    with pytest.raises(ValueError, match="image_shape"):
        bb.compute_iou(b1, b2, "rel_xyxy")
    with pytest.raises(ValueError, match=r"boxes1 .*received shape \(4,\)"):
        bb.compute_iou(b1[0, 0], b2, "xyxy")


def test_compute_ciou(case):
    x, ref = case
    b1, b2 = x["boxes1"], x["boxes2"]
    scale = np.array([WIDTH, HEIGHT, WIDTH, HEIGHT], "float32")
    corners, center, relative = _run(
        lambda: (
            bb.compute_ciou(b1[..., :3, :], b2[..., 1:, :], "xyxy"),
            bb.compute_ciou(b1[1], b2[0, :3], "center_xywh"),
            # Keras refuses relative formats outright; lamina converts them.
            bb.compute_ciou(b1[1] / scale, b2[0, :3] / scale, "rel_center_xywh", IMAGE_SHAPE),
        )
    )
    _close(corners, ref["ciou"])
    _close(center, ref["ciou center"])
    _close(relative, ref["ciou center"], atol=1e-4)
    with pytest.raises(ValueError, match="image_shape"):
        bb.compute_ciou(b1, b1, "rel_xyxy")


def test_affine_transform(case):
    x, ref = case
    params, b1 = x["affine"], x["boxes1"]
    first = {name: value[0] for name, value in params.items()}
    plain, centered, unbatched = _run(
        lambda: (
            bb.affine_transform(b1, **params, height=HEIGHT, width=WIDTH),
            bb.affine_transform(
                b1, **params, height=HEIGHT, width=WIDTH, center_x=0.2, center_y=0.7
            ),
            bb.affine_transform(b1[0], **first, height=HEIGHT, width=WIDTH),
        )
    )
    _close(plain, ref["affine"], atol=1e-4)
    _close(centered, ref["affine centered"], atol=1e-4)
    _close(unbatched, ref["affine"][0], atol=1e-4)
    with pytest.raises(NotImplementedError, match="received 'yxyx'"):
        bb.affine_transform(b1, **params, height=1, width=1, bounding_box_format="yxyx")


def test_crop_and_pad(case):
    x, ref = case
    b1 = x["boxes1"]
    cropped, cropped_unbatched, padded, integer = _run(
        lambda: (
            bb.crop(b1, top=5, left=10, height=30, width=40),
            bb.crop(b1[0], top=2, left=1, height=20, width=50),
            bb.pad(b1, top=4, left=7),
            bb.crop(np.array([[10, 20, 50, 60]]), 10, 20, 40, 30),
        )
    )
    integer = ops.convert_to_numpy(integer)
    assert integer.dtype == ref["crop int"].dtype == np.int32  # integer boxes stay integer
    np.testing.assert_array_equal(integer, ref["crop int"])
    _close(cropped, ref["crop"])
    _close(cropped_unbatched, ref["crop unbatched"])
    _close(padded, ref["pad"])
    with pytest.raises(NotImplementedError, match="received 'xywh'"):
        bb.pad(b1, 1, 1, bounding_box_format="xywh")


def test_encode_and_decode_deltas(case):
    x, ref = case
    anchors, boxes, deltas = x["anchors"], x["boxes1"], x["deltas"]
    variance = [0.1, 0.1, 0.2, 0.2]

    def ours():
        encoded = bb.encode_box_to_deltas(anchors, boxes, "xyxy", "xyxy", variance=variance)
        return (
            bb.encode_box_to_deltas(anchors, boxes, "xyxy", "xyxy"),
            bb.encode_box_to_deltas(
                anchors / 100, boxes[0], "rel_xyxy", "xyxy", "center_xywh", variance, IMAGE_SHAPE
            ),
            bb.decode_deltas_to_boxes(anchors, deltas, "xyxy", "yxyx"),
            bb.decode_deltas_to_boxes(
                anchors, deltas[0], "xyxy", "rel_xywh", "center_xywh", variance, IMAGE_SHAPE
            ),
            bb.decode_deltas_to_boxes(
                {"P3": anchors, "P4": anchors[:2]},
                {"P3": deltas, "P4": deltas[:, :2]},
                "xyxy",
                "xyxy",
            ),
            # Decoding the encoding gives the boxes back.
            bb.decode_deltas_to_boxes(anchors, encoded, "xyxy", "xyxy", variance=variance),
        )

    encoded, encoded_xywh, decoded, decoded_rel, levels, round_trip = _run(ours)
    _close(encoded, ref["encode"])
    _close(encoded_xywh, ref["encode xywh"], atol=1e-4)
    _close(decoded, ref["decode"], atol=1e-4)
    _close(decoded_rel, ref["decode rel"])
    assert set(levels) == {"P3", "P4"}
    for level, value in levels.items():
        _close(value, ref[("decode", level)], atol=1e-4)
    _close(round_trip, boxes, atol=1e-4)
    with pytest.raises(ValueError, match="`variance` must have length 4"):
        bb.encode_box_to_deltas(anchors, boxes, "xyxy", "xyxy", variance=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"`encoded_format`.*received 'xyxy'"):
        bb.decode_deltas_to_boxes(anchors, deltas, "xyxy", "xyxy", encoded_format="xyxy")


@pytest.mark.engine("jax")  # the graph machinery is engine-neutral; torch's first use costs 2 s
def test_symbolic_inputs_build_graph_nodes():
    # Keras 3.15 refuses KerasTensors here; lamina's helpers are ops, so they compose.
    boxes = lamina.Input((5, 4))
    converted = bb.convert_format(boxes, "xyxy", "rel_center_xywh", HEIGHT, WIDTH)
    assert lamina.utils.is_keras_tensor(converted)
    assert tuple(converted.shape) == (None, 5, 4) and converted.dtype == "float32"
    assert tuple(bb.compute_iou(boxes, boxes[0], "xyxy").shape) == (None, 5, 5)
    assert tuple(bb.clip_to_image_size({"boxes": boxes}, HEIGHT, WIDTH)["boxes"].shape) == (
        None,
        5,
        4,
    )
