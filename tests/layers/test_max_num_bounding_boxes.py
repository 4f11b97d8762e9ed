"""MaxNumBoundingBoxes: outputs equal Keras 3's layer (its JAX backend) on the same
inputs (padding, truncation, exact fit, batched and unbatched, fill_value, plain image
passthrough), a compiled call, the config against Keras's, and the errors for bad
input."""

import json
import os

import numpy as np
import pytest

import lamina
from lamina import backend, layers, ops

os.environ.setdefault("KERAS_BACKEND", "jax")

# Keras's NumPy-level `__array__` trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

RNG = np.random.default_rng(3)


def _keras():
    return pytest.importorskip("keras")


def _data(batch, num_boxes, image_dtype="float32"):
    """Images, boxes and labels; `batch=None` means one unbatched image."""
    lead = () if batch is None else (batch,)
    images = RNG.integers(0, 255, lead + (5, 6, 3)).astype(image_dtype)
    boxes = RNG.uniform(0, 5, lead + (num_boxes, 4)).astype("float32")
    labels = RNG.integers(0, 9, lead + (num_boxes,)).astype("int32")
    return images, boxes, labels


def _numpy(tree):
    if isinstance(tree, dict):
        return {key: _numpy(value) for key, value in tree.items()}
    return ops.convert_to_numpy(tree)


def test_outputs_equal_keras():
    keras = _keras()
    cases = [
        # (batch, num_boxes, max_number, fill_value)
        (2, 2, 5, -1),  # padding
        (2, 6, 3, -1),  # truncation
        (3, 4, 4, -1),  # exact fit
        (None, 2, 4, -1),  # one image, padding
        (None, 5, 2, 0),  # one image, truncation
        (1, 0, 3, 7),  # no boxes at all, another fill_value
        (2, 1, 4, -5),
    ]
    for batch, num_boxes, max_number, fill_value in cases:
        images, boxes, labels = _data(batch, num_boxes)
        kwargs = {"max_number": max_number, "fill_value": fill_value}
        theirs = keras.layers.MaxNumBoundingBoxes(**kwargs, bounding_box_format="xyxy")
        expected = theirs({"images": images, "bounding_boxes": {"boxes": boxes, "labels": labels}})
        # lamina needs no box format (rows are padded or dropped whatever it is).
        ours = layers.MaxNumBoundingBoxes(**kwargs)
        got = ours({"images": images, "bounding_boxes": {"boxes": boxes, "labels": labels}})
        case = (batch, num_boxes, max_number, fill_value)
        lead = () if batch is None else (batch,)
        for key, shape in (("boxes", (max_number, 4)), ("labels", (max_number,))):
            want = np.asarray(expected["bounding_boxes"][key])
            have = ops.convert_to_numpy(got["bounding_boxes"][key])
            assert have.shape == want.shape == lead + shape, case
            assert have.dtype == want.dtype, (case, key, have.dtype, want.dtype)
            np.testing.assert_array_equal(have, want, err_msg=str(case))
        np.testing.assert_array_equal(ops.convert_to_numpy(got["images"]), images)

    # Other keys pass through; the same keys as Keras come out; uint8 images stay uint8.
    images, boxes, labels = _data(2, 3, image_dtype="uint8")
    data = {
        "images": images,
        "labels": np.array([1, 0], "int32"),
        "bounding_boxes": {"boxes": boxes, "labels": labels},
    }
    theirs = keras.layers.MaxNumBoundingBoxes(2, bounding_box_format="xyxy")
    expected = theirs({**data, "bounding_boxes": dict(data["bounding_boxes"])})
    got = layers.MaxNumBoundingBoxes(2, bounding_box_format="xyxy")(data)
    assert set(got) == set(expected) and set(got["bounding_boxes"]) == {"boxes", "labels"}
    assert data["bounding_boxes"]["boxes"] is boxes  # the caller's dict is left alone
    assert str(got["images"].dtype).endswith("uint8")
    np.testing.assert_array_equal(_numpy(got)["labels"], np.asarray(expected["labels"]))
    np.testing.assert_array_equal(
        _numpy(got)["bounding_boxes"]["boxes"], np.asarray(expected["bounding_boxes"]["boxes"])
    )

    # A plain image tensor (batched or one image) passes through unchanged, as in Keras.
    for shape in ((2, 5, 6, 3), (5, 6, 3)):
        images = RNG.uniform(0, 1, shape).astype("float32")
        expected = keras.layers.MaxNumBoundingBoxes(4)(images)
        got = layers.MaxNumBoundingBoxes(4)(images)
        np.testing.assert_array_equal(ops.convert_to_numpy(got), np.asarray(expected))
        np.testing.assert_array_equal(ops.convert_to_numpy(got), images)
    # Inference does the same (the layer is not a random augmentation).
    images, boxes, labels = _data(2, 1)
    got = layers.MaxNumBoundingBoxes(3)(
        {"images": images, "bounding_boxes": {"boxes": boxes, "labels": labels}},
        training=False,
    )
    assert tuple(got["bounding_boxes"]["boxes"].shape) == (2, 3, 4)


def test_compiled_call_and_output_shape():
    layer = layers.MaxNumBoundingBoxes(4, fill_value=-1)

    def pad(boxes, labels):
        boxes_and_labels = {"boxes": boxes, "labels": labels}
        return layer({"images": ops.zeros((2, 5, 6, 3)), "bounding_boxes": boxes_and_labels})[
            "bounding_boxes"
        ]

    boxes = np.arange(16, dtype="float32").reshape(2, 2, 4)
    labels = np.array([[1, 2], [3, 4]], "int32")
    out = _numpy(backend.jit(pad)(boxes, labels))
    want_boxes = np.concatenate([boxes, np.full((2, 2, 4), -1.0, "float32")], axis=1)
    np.testing.assert_array_equal(out["boxes"], want_boxes)
    np.testing.assert_array_equal(out["labels"], [[1, 2, -1, -1], [3, 4, -1, -1]])

    shapes = {
        "images": (None, 5, 6, 3),
        "bounding_boxes": {"boxes": (None, 7, 4), "labels": (None, 7)},
    }
    assert layer.compute_output_shape(shapes) == {
        "images": (None, 5, 6, 3),
        "bounding_boxes": {"boxes": (None, 4, 4), "labels": (None, 4)},
    }
    assert layer.compute_output_shape((None, 5, 6, 3)) == (None, 5, 6, 3)

    # In a functional model: the symbolic outputs carry the shapes and dtypes the eager
    # call gives (labels keep their integer dtype, boxes are float32).
    images = lamina.Input((5, 6, 3))
    boxes_in = lamina.Input((3, 4))
    labels_in = lamina.Input((3,), dtype="int32")
    outputs = layers.MaxNumBoundingBoxes(2)(
        {"images": images, "bounding_boxes": {"boxes": boxes_in, "labels": labels_in}}
    )
    assert outputs["bounding_boxes"]["boxes"].shape == (None, 2, 4)
    assert outputs["bounding_boxes"]["labels"].shape == (None, 2)
    assert outputs["bounding_boxes"]["labels"].dtype == "int32"
    model = lamina.Model([images, boxes_in, labels_in], outputs["bounding_boxes"])
    boxes = RNG.uniform(0, 5, (2, 3, 4)).astype("float32")
    labels = np.array([[1, 2, 3], [4, 5, 6]], "int32")
    out = _numpy(model([np.zeros((2, 5, 6, 3), "float32"), boxes, labels]))
    np.testing.assert_array_equal(out["boxes"], boxes[:, :2])
    np.testing.assert_array_equal(out["labels"], labels[:, :2])


def test_config_matches_keras_and_round_trips():
    keras = _keras()
    for kwargs in ({"max_number": 5}, {"max_number": 2, "bounding_box_format": "yxyx"}):
        theirs = keras.layers.MaxNumBoundingBoxes(**kwargs, fill_value=-3, name="boxes")
        ours = layers.MaxNumBoundingBoxes(**kwargs, fill_value=-3, name="boxes")
        keras_config = json.loads(json.dumps(keras.layers.serialize(theirs)))
        our_config = json.loads(json.dumps(lamina.layers.serialize(ours)))
        # Keras drops fill_value from its config; lamina keeps it (and Keras reads it).
        assert set(our_config["config"]) == set(keras_config["config"]) | {"fill_value"}
        for key in ("max_number", "data_format", "name"):
            assert our_config["config"][key] == keras_config["config"][key]
        again = layers.MaxNumBoundingBoxes.from_config(ours.get_config())
        assert again.get_config() == ours.get_config()
        assert (again.max_number, again.fill_value) == (kwargs["max_number"], -3)
        revived = lamina.layers.deserialize(keras_config)  # a Keras config loads in lamina
        assert type(revived) is layers.MaxNumBoundingBoxes
        assert revived.max_number == kwargs["max_number"]
        assert keras.layers.MaxNumBoundingBoxes.from_config(ours.get_config()).fill_value == -3


def test_errors_name_what_was_received():
    for bad in (0, -2, 2.5, "3", None, True):
        with pytest.raises(
            ValueError, match=rf"max_number must be a positive integer; received {bad!r}"
        ):
            layers.MaxNumBoundingBoxes(bad)
    with pytest.raises(ValueError, match=r"fill_value must be an integer; received 0\.5"):
        layers.MaxNumBoundingBoxes(3, fill_value=0.5)
    with pytest.raises(TypeError, match=r"bounding_box_format must be a string"):
        layers.MaxNumBoundingBoxes(3, bounding_box_format=4)
    assert layers.MaxNumBoundingBoxes(3.0, fill_value=-1.0).max_number == 3

    layer = layers.MaxNumBoundingBoxes(3)
    images = np.zeros((2, 5, 6, 3), "float32")
    bad_inputs = [
        (  # boxes of the wrong rank for a batch
            {"images": images, "bounding_boxes": {"boxes": np.ones((2, 4)), "labels": np.ones(2)}},
            r"shape \(batch, num_boxes, 4\); received shape \(2, 4\)",
        ),
        (  # last dimension not 4
            {
                "images": images,
                "bounding_boxes": {"boxes": np.ones((2, 3, 5)), "labels": np.ones((2, 3))},
            },
            r"must have shape \(batch, num_boxes, 4\); received shape \(2, 3, 5\)",
        ),
        (  # unbatched image with batched boxes
            {
                "images": images[0],
                "bounding_boxes": {"boxes": np.ones((1, 2, 4)), "labels": np.ones((1, 2))},
            },
            r"with unbatched images.*\(num_boxes, 4\); received shape \(1, 2, 4\)",
        ),
        (  # labels that do not match the boxes
            {
                "images": images,
                "bounding_boxes": {"boxes": np.ones((2, 3, 4)), "labels": np.ones((2, 2))},
            },
            r"labels'\] must have shape \(2, 3\).*received shape \(2, 2\)",
        ),
        (
            {"images": images, "bounding_boxes": {"boxes": np.ones((2, 3, 4))}},
            r"keys 'boxes' and 'labels'; received a dict with keys \['boxes'\]",
        ),
        ({"bounding_boxes": {}}, r"needs an 'images' key.*received keys \['bounding_boxes'\]"),
        ({"images": np.zeros((5, 6))}, r"received shape \(5, 6\)"),
        (np.zeros((1, 2, 5, 6, 3)), r"received shape \(1, 2, 5, 6, 3\)"),
    ]
    for inputs, message in bad_inputs:
        with pytest.raises(ValueError, match=message):
            layer(inputs)
