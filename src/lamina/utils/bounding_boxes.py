"""Bounding-box helpers (Keras 3's `keras.utils.bounding_boxes`).

A box is four numbers on the last axis of an array of shape `(num_boxes, 4)` or
`(batch, num_boxes, 4)`. What the four numbers mean is the box *format*:

- `"xyxy"`: left, top, right, bottom.
- `"yxyx"`: top, left, bottom, right.
- `"xywh"`: left, top, width, height.
- `"center_xywh"`: center x, center y, width, height.
- `"center_yxhw"`: center y, center x, height, width.
- `"rel_xyxy"`, `"rel_yxyx"`, `"rel_xywh"`, `"rel_center_xywh"`: the same in fractions
  of the image width (x values) and height (y values), so they need the image size.

Every conversion goes through `"xyxy"`: each format knows how to turn itself into
corners and back, which keeps the table at one entry per format instead of one per pair.
The functions are written on `lamina.ops`, so they run on every engine.
"""

from __future__ import annotations

import math

from lamina import backend, ops
from lamina.graph.keras_tensor import is_keras_tensor

SUPPORTED_FORMATS = (
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


# Each absolute format: whether it lists y before x, and what its second pair holds
# ("corners": the far corner, "size": width and height from the first corner, "center":
# width and height around the first pair, the center). Boxes are handled as two (x, y)
# pairs, so a conversion is a handful of whole-array ops whatever the two formats.
_LAYOUTS = {
    "xyxy": (False, "corners"),
    "yxyx": (True, "corners"),
    "xywh": (False, "size"),
    "center_xywh": (False, "center"),
    "center_yxhw": (True, "center"),
}


def _tensor(x):
    # Symbolic tensors stay symbolic, so the helpers also build graph nodes.
    return x if is_keras_tensor(x) else ops.convert_to_tensor(x)


def _check_format(name: str, value) -> str:
    if not isinstance(value, str) or value.lower() not in SUPPORTED_FORMATS:
        raise ValueError(
            f"Invalid bounding box format: received {name}={value!r}. Expected one of "
            f"{SUPPORTED_FORMATS} (case-insensitive); pass one of these names."
        )
    return value.lower()


def _pairs(boxes, yx: bool = False):
    first, second = boxes[..., :2], boxes[..., 2:]
    if yx:
        return ops.flip(first, axis=-1), ops.flip(second, axis=-1)
    return first, second


def _to_corners(boxes, base: str):
    yx, kind = _LAYOUTS[base]
    first, second = _pairs(boxes, yx)
    if kind == "size":
        return first, first + second
    if kind == "center":
        return first - second / 2.0, first + second / 2.0
    return first, second


def _from_corners(low, high, base: str):
    _, kind = _LAYOUTS[base]
    if kind == "size":
        return low, high - low
    if kind == "center":
        size = high - low
        return low + size / 2.0, size
    return low, high


def convert_format(boxes, source, target, height=None, width=None, dtype="float32"):
    """Convert bounding boxes from one format to another.

    The formats are listed in the module docstring (case-insensitive). Converting to
    or from a relative (`"rel_*"`) format needs the image `height` and `width`.

    Args:
        boxes: an array of shape `(..., 4)`, or a dict whose `"boxes"` entry is one
            (the other entries, such as `"labels"`, are kept).
        source: the format of `boxes`.
        target: the format to return.
        height: the image height, for relative formats.
        width: the image width, for relative formats.
        dtype: the dtype of the result (default `"float32"`).

    Returns:
        The converted boxes, or for a dict input a new dict with converted `"boxes"`.

    >>> boxes = [[10.0, 20.0, 30.0, 40.0]]
    >>> ops.convert_to_numpy(convert_format(boxes, "xyxy", "xywh")).tolist()
    [[10.0, 20.0, 20.0, 20.0]]
    """
    if isinstance(boxes, dict):
        result = dict(boxes)
        result["boxes"] = convert_format(
            boxes["boxes"], source, target, height=height, width=width, dtype=dtype
        )
        return result
    source = _check_format("source", source)
    target = _check_format("target", target)
    boxes = _tensor(boxes)
    if len(boxes.shape) == 0 or boxes.shape[-1] != 4:
        raise ValueError(
            "convert_format expects `boxes` with a last dimension of 4, received "
            f"shape {tuple(boxes.shape)}. Pass boxes of shape (num_boxes, 4) or "
            "(batch, num_boxes, 4)."
        )
    relative = source.startswith("rel_") or target.startswith("rel_")
    if relative and (height is None or width is None):
        raise ValueError(
            "convert_format() must receive `height` and `width` to convert between "
            f"relative and absolute formats; received source={source!r}, "
            f"target={target!r}, height={height}, width={width}. Pass the image size."
        )
    boxes = ops.cast(boxes, dtype)
    if source == target:
        return boxes
    if source.startswith("rel_") and target.startswith("rel_"):
        # Both relative: the image size cancels out.
        source, target = source[4:], target[4:]
    if source.startswith("rel_") or target.startswith("rel_"):
        image_size = ops.cast(ops.stack([width, height]), dtype)
    low, high = _to_corners(boxes, source.removeprefix("rel_"))
    if source.startswith("rel_"):
        low, high = low * image_size, high * image_size
    base = target.removeprefix("rel_")
    first, second = _from_corners(low, high, base)
    if target.startswith("rel_"):
        first, second = first / image_size, second / image_size
    if _LAYOUTS[base][0]:
        first, second = ops.flip(first, axis=-1), ops.flip(second, axis=-1)
    return ops.concatenate([first, second], axis=-1)


def clip_to_image_size(bounding_boxes, height=None, width=None, bounding_box_format="xyxy"):
    """Clip boxes to the image; a box left with no area gets label -1.

    Args:
        bounding_boxes: a dict with `"boxes"` of shape `(N, 4)` or `(batch, N, 4)`
            and optionally `"labels"` of shape `(N,)` or `(batch, N)`.
        height: the image height (required for `"xyxy"`).
        width: the image width (required for `"xyxy"`).
        bounding_box_format: `"xyxy"` (clip to `[0, width] x [0, height]`) or
            `"rel_xyxy"` (clip to `[0, 1]`).

    Returns:
        A new dict with clipped `"boxes"` and, if given, updated `"labels"`.

    >>> out = clip_to_image_size(
    ...     {"boxes": [[-5.0, 2.0, 20.0, 8.0]], "labels": [3]}, height=10, width=10
    ... )
    >>> ops.convert_to_numpy(out["boxes"]).tolist(), ops.convert_to_numpy(out["labels"]).tolist()
    ([[0.0, 2.0, 10.0, 8.0]], [3])
    """
    if bounding_box_format not in ("xyxy", "rel_xyxy"):
        raise NotImplementedError(
            "clip_to_image_size supports bounding_box_format 'xyxy' or 'rel_xyxy'; "
            f"received {bounding_box_format!r}. Convert the boxes first with "
            "convert_format(..., target='xyxy')."
        )
    if bounding_box_format == "xyxy" and (height is None or width is None):
        raise ValueError(
            "clip_to_image_size with bounding_box_format='xyxy' needs `height` and "
            f"`width`; received height={height}, width={width}."
        )
    boxes = _tensor(bounding_boxes["boxes"])
    labels = bounding_boxes.get("labels", None)
    if bounding_box_format == "xyxy":
        limit = ops.cast(ops.stack([width, height]), boxes.dtype)
    else:
        limit = ops.ones((2,), boxes.dtype)
    low, high = _pairs(boxes)
    low = ops.minimum(ops.maximum(low, 0), limit)
    high = ops.minimum(ops.maximum(high, 0), limit)
    result = dict(bounding_boxes)
    result["boxes"] = ops.concatenate([low, high], axis=-1)
    if labels is not None:
        area = ops.prod(high - low, axis=-1)
        result["labels"] = ops.where(area > 0, labels, -1)
    return result


def _require_xyxy(function: str, bounding_box_format) -> None:
    if bounding_box_format != "xyxy":
        raise NotImplementedError(
            f"{function} supports only bounding_box_format='xyxy'; received "
            f"{bounding_box_format!r}. Convert the boxes first with "
            "convert_format(..., target='xyxy') and back afterwards."
        )


# Indices into an xyxy box of its four corners' (x, y).
_CORNERS = ((0, 1), (2, 1), (2, 3), (0, 3))


def _inverse_affine_matrix(
    center_x, center_y, angle, translate_x, translate_y, scale, shear_x, shear_y, height, width
):
    """The `(batch, 2, 3)` matrix that maps input pixels to output pixels (the inverse
    of the image-space transform, as TF's `_get_inverse_affine_matrix` builds it)."""
    # Multiplying by negative constants (rather than negating) keeps the number of
    # distinct small programs an eager JAX call compiles down.
    to_radians = -math.pi / 180.0
    rotation = angle * to_radians
    shear_x = shear_x * to_radians
    shear_y = shear_y * to_radians
    cx = center_x * (width - 1)
    cy = center_y * (height - 1)
    tx = translate_x * -(width - 1)
    ty = translate_y * -(height - 1)
    # Rotation and shear without the scale; its determinant is 1.
    cos_shear_y = ops.cos(shear_y)
    tan_shear_x = ops.tan(shear_x)
    a = ops.cos(rotation - shear_y) / cos_shear_y
    b = a * tan_shear_x + ops.sin(rotation)
    c = ops.sin(rotation - shear_y) / cos_shear_y * -1.0
    d = ops.cos(rotation) - c * tan_shear_x
    a0, a1, b0, b1 = d * scale, b * scale * -1.0, c * scale * -1.0, a * scale
    a2 = cx - a0 * (cx + tx) - a1 * (cy + ty)
    b2 = cy - b0 * (cx + tx) - b1 * (cy + ty)
    rows = ops.stack([a0, a1, a2, b0, b1, b2], axis=-1)
    return ops.reshape(rows, (-1, 2, 3))


def affine_transform(
    boxes,
    angle,
    translate_x,
    translate_y,
    scale,
    shear_x,
    shear_y,
    height,
    width,
    center_x=None,
    center_y=None,
    bounding_box_format="xyxy",
):
    """Move boxes with the affine transform that Keras's image augmentation layers
    apply (rotation, translation, scale, shear), as the axis-aligned box around each
    transformed box's four corners.

    Args:
        boxes: `(batch, N, 4)` boxes (or `(N, 4)` with scalar transform arguments).
        angle: rotation in degrees, shape `(batch,)`.
        translate_x: horizontal shift, a fraction of the width, shape `(batch,)`.
        translate_y: vertical shift, a fraction of the height, shape `(batch,)`.
        scale: scale factor, shape `(batch,)`.
        shear_x: horizontal shear in degrees, shape `(batch,)`.
        shear_y: vertical shear in degrees, shape `(batch,)`.
        height: the image height.
        width: the image width.
        center_x: transform center as a fraction of the width (default 0.5).
        center_y: transform center as a fraction of the height (default 0.5).
        bounding_box_format: must be `"xyxy"`.

    Returns:
        Boxes of the same shape as `boxes`.

    >>> same = affine_transform([[[1.0, 2.0, 5.0, 6.0]]], [0.0], [0.0], [0.0], [1.0],
    ...                         [0.0], [0.0], height=10, width=10)
    >>> ops.convert_to_numpy(same).round(4).tolist()
    [[[1.0, 2.0, 5.0, 6.0]]]
    """
    _require_xyxy("affine_transform", bounding_box_format)
    boxes = _tensor(boxes)
    unbatched = len(boxes.shape) == 2
    if unbatched:
        boxes = ops.expand_dims(boxes, 0)
    if len(boxes.shape) != 3 or boxes.shape[-1] != 4:
        raise ValueError(
            "affine_transform expects `boxes` of shape (batch, num_boxes, 4) or "
            f"(num_boxes, 4); received shape {tuple(boxes.shape)}."
        )
    angle = ops.reshape(_tensor(angle), (-1,))
    if not backend.is_float_dtype(angle.dtype):
        angle = ops.cast(angle, "float32")
    dtype = angle.dtype

    def vector(value):
        return ops.reshape(ops.cast(value, dtype), (-1,))

    matrix = _inverse_affine_matrix(
        vector(0.5 if center_x is None else center_x),
        vector(0.5 if center_y is None else center_y),
        angle,
        vector(translate_x),
        vector(translate_y),
        vector(scale),
        vector(shear_x),
        vector(shear_y),
        height,
        width,
    )
    # The four corners (x1, y1), (x2, y1), (x2, y2), (x1, y2) as homogeneous points:
    # (batch, N, 4 corners, 3).
    corners = ops.take(ops.cast(boxes, dtype), _CORNERS, axis=-1)
    points = ops.concatenate([corners, ops.ones_like(corners[..., :1])], axis=-1)
    moved = ops.einsum("bnkj,bij->bnki", points, matrix)
    result = ops.concatenate([ops.amin(moved, axis=2), ops.amax(moved, axis=2)], axis=-1)
    return result[0] if unbatched else result


def crop(boxes, top, left, height, width, bounding_box_format="xyxy"):
    """Express boxes in the coordinates of a crop of the image, clipped to the crop.

    Args:
        boxes: `(N, 4)` or `(batch, N, 4)` boxes.
        top: the crop's top offset in the image.
        left: the crop's left offset in the image.
        height: the crop's height.
        width: the crop's width.
        bounding_box_format: must be `"xyxy"`.

    Returns:
        The cropped boxes, same shape as `boxes`.

    >>> out = crop([[10.0, 20.0, 50.0, 60.0]], top=10, left=20, height=40, width=30)
    >>> ops.convert_to_numpy(out).tolist()
    [[0.0, 10.0, 30.0, 40.0]]
    """
    _require_xyxy("crop", bounding_box_format)
    boxes = _tensor(boxes)
    shift = ops.stack([left, top])
    limit = ops.stack([width, height])
    low, high = _pairs(boxes)
    low = ops.minimum(ops.maximum(low - shift, 0), limit)
    high = ops.minimum(ops.maximum(high - shift, 0), limit)
    return ops.concatenate([low, high], axis=-1)


def pad(boxes, top, left, height=None, width=None, bounding_box_format="xyxy"):
    """Shift boxes by the padding added above and to the left of the image.

    Args:
        boxes: `(N, 4)` or `(batch, N, 4)` boxes.
        top: rows of padding added above.
        left: columns of padding added on the left.
        height: unused (accepted for Keras compatibility).
        width: unused (accepted for Keras compatibility).
        bounding_box_format: must be `"xyxy"`.

    Returns:
        The shifted boxes, same shape as `boxes`.

    >>> ops.convert_to_numpy(pad([[1.0, 2.0, 3.0, 4.0]], top=10, left=5)).tolist()
    [[6.0, 12.0, 8.0, 14.0]]
    """
    _require_xyxy("pad", bounding_box_format)
    boxes = _tensor(boxes)
    return boxes + ops.stack([left, top, left, top])


def _check_variance(variance):
    if variance is None:
        return None
    variance = ops.convert_to_tensor(variance, "float32")
    if len(variance.shape) == 0 or variance.shape[-1] != 4:
        raise ValueError(
            f"`variance` must have length 4, one factor per box coordinate; received "
            f"shape {tuple(variance.shape)}."
        )
    return variance


def _check_center_format(name: str, value) -> None:
    if value not in ("center_xywh", "center_yxhw"):
        raise ValueError(f"`{name}` must be 'center_xywh' or 'center_yxhw'; received {value!r}.")


def _image_size(image_shape):
    if image_shape is None:
        return None, None
    height, width, _ = image_shape
    return height, width


def encode_box_to_deltas(
    anchors,
    boxes,
    anchor_format,
    box_format,
    encoding_format="center_yxhw",
    variance=None,
    image_shape=None,
):
    """Encode boxes as offsets from anchors (the regression target of a detector).

    Both are converted to `encoding_format`; the deltas are the center offset divided
    by the anchor size and the log of the size ratio, divided by `variance` if given.

    Args:
        anchors: `(N, 4)` anchor boxes.
        boxes: `(N, 4)` or `(batch, N, 4)` boxes to encode.
        anchor_format: the format of `anchors`.
        box_format: the format of `boxes`.
        encoding_format: `"center_yxhw"` (default) or `"center_xywh"`.
        variance: optional 4 factors that divide the deltas.
        image_shape: `(height, width, channels)`, for relative formats.

    Returns:
        Deltas with the shape of `boxes`, in `encoding_format` order.

    >>> deltas = encode_box_to_deltas([[0.0, 0.0, 2.0, 2.0]], [[1.0, 1.0, 3.0, 3.0]],
    ...                               anchor_format="xyxy", box_format="xyxy")
    >>> ops.convert_to_numpy(deltas).tolist()
    [[0.5, 0.5, 0.0, 0.0]]
    """
    variance = _check_variance(variance)
    _check_center_format("encoding_format", encoding_format)
    height, width = _image_size(image_shape)
    anchors = convert_format(anchors, anchor_format, encoding_format, height, width)
    boxes = convert_format(boxes, box_format, encoding_format, height, width)
    anchor_size = ops.maximum(anchors[..., 2:], backend.epsilon())
    box_size = ops.maximum(boxes[..., 2:], backend.epsilon())
    deltas = ops.concatenate(
        [(boxes[..., :2] - anchors[..., :2]) / anchor_size, ops.log(box_size / anchor_size)],
        axis=-1,
    )
    return deltas if variance is None else deltas / variance


def decode_deltas_to_boxes(
    anchors,
    boxes_delta,
    anchor_format,
    box_format,
    encoded_format="center_yxhw",
    variance=None,
    image_shape=None,
):
    """Turn deltas from a detector's regression head back into boxes (the inverse of
    `encode_box_to_deltas`).

    Args:
        anchors: `(N, 4)` anchor boxes, or a dict of them keyed by feature level.
        boxes_delta: `(N, 4)` or `(batch, N, 4)` deltas, or a dict with the same keys
            as `anchors`.
        anchor_format: the format of `anchors`.
        box_format: the format of the returned boxes.
        encoded_format: the deltas' order, `"center_yxhw"` (default) or `"center_xywh"`.
        variance: optional 4 factors that multiply the deltas.
        image_shape: `(height, width, channels)`, for relative formats.

    Returns:
        Boxes in `box_format` (a dict per level when the inputs are dicts).

    >>> boxes = decode_deltas_to_boxes([[0.0, 0.0, 2.0, 2.0]], [[0.5, 0.5, 0.0, 0.0]],
    ...                                anchor_format="xyxy", box_format="xyxy")
    >>> ops.convert_to_numpy(boxes).tolist()
    [[1.0, 1.0, 3.0, 3.0]]
    """
    variance = _check_variance(variance)
    _check_center_format("encoded_format", encoded_format)
    height, width = _image_size(image_shape)

    def decode(anchor, delta):
        anchor = convert_format(anchor, anchor_format, encoded_format, height, width)
        delta = _tensor(delta)
        if variance is not None:
            delta = delta * variance
        box = ops.concatenate(
            [
                delta[..., :2] * anchor[..., 2:] + anchor[..., :2],
                ops.exp(delta[..., 2:]) * anchor[..., 2:],
            ],
            axis=-1,
        )
        return convert_format(box, encoded_format, box_format, height, width)

    if isinstance(anchors, dict) and isinstance(boxes_delta, dict):
        return {level: decode(anchor, boxes_delta[level]) for level, anchor in anchors.items()}
    return decode(anchors, boxes_delta)


def _check_image_shape(function: str, bounding_box_format: str, image_shape):
    if bounding_box_format.startswith("rel_") and image_shape is None:
        raise ValueError(
            f"{function} with a relative bounding_box_format ({bounding_box_format!r}) "
            "needs `image_shape=(height, width, channels)`; received image_shape=None."
        )


def compute_iou(
    boxes1, boxes2, bounding_box_format, use_masking=False, mask_val=-1, image_shape=None
):
    """Pairwise intersection over union of two sets of boxes.

    Either set may be batched: `(M, 4)` with `(N, 4)` gives `(M, N)`; if either has a
    batch axis the result is `(batch, M, N)`.

    Args:
        boxes1: `(M, 4)` or `(batch, M, 4)` boxes.
        boxes2: `(N, 4)` or `(batch, N, 4)` boxes.
        bounding_box_format: the format of both sets (case-insensitive).
        use_masking: if True, pairs where either box has all four coordinates
            negative (padding boxes) get `mask_val` instead of an IoU.
        mask_val: the value for masked pairs (default -1).
        image_shape: `(height, width, channels)`, for relative formats.

    Returns:
        The IoU table.

    >>> iou = compute_iou([[0.0, 0.0, 2.0, 2.0]], [[1.0, 0.0, 3.0, 2.0]], "xyxy")
    >>> print(ops.convert_to_numpy(iou).round(4))
    [[0.3333]]
    """
    boxes1 = _tensor(boxes1)
    boxes2 = _tensor(boxes2)
    for name, boxes in (("boxes1", boxes1), ("boxes2", boxes2)):
        if len(boxes.shape) not in (2, 3):
            raise ValueError(
                f"compute_iou expects {name} of shape (num_boxes, 4) or "
                f"(batch, num_boxes, 4); received shape {tuple(boxes.shape)}."
            )
    bounding_box_format = _check_format("bounding_box_format", bounding_box_format)
    _check_image_shape("compute_iou", bounding_box_format, image_shape)
    height, width = _image_size(image_shape)
    boxes1 = convert_format(boxes1, bounding_box_format, "xyxy", height, width)
    boxes2 = convert_format(boxes2, bounding_box_format, "xyxy", height, width)
    # (..., M, 1, 4) against (..., 1, N, 4) broadcasts to every pair.
    first = ops.expand_dims(boxes1, -2)
    second = ops.expand_dims(boxes2, -3)
    low1, high1 = _pairs(first)
    low2, high2 = _pairs(second)
    overlap = ops.minimum(high1, high2) - ops.maximum(low1, low2)
    intersection = ops.prod(ops.maximum(overlap, 0.0), axis=-1)
    area1 = ops.prod(high1 - low1, axis=-1)
    area2 = ops.prod(high2 - low2, axis=-1)
    iou = intersection / (area1 + area2 - intersection + backend.epsilon())
    if not use_masking:
        return iou
    padding = ops.logical_or(
        ops.max(first, axis=-1) < 0.0,
        ops.max(second, axis=-1) < 0.0,
    )
    return ops.where(padding, ops.cast(mask_val, iou.dtype), iou)


def compute_ciou(boxes1, boxes2, bounding_box_format, image_shape=None):
    """Complete IoU of matching boxes: IoU minus a center-distance and an aspect-ratio
    penalty (the CIoU loss's similarity term).

    Boxes are matched element by element, so the shapes must broadcast.

    Args:
        boxes1: boxes of shape `(..., 4)`.
        boxes2: boxes of shape `(..., 4)`.
        bounding_box_format: the format of both (case-insensitive).
        image_shape: `(height, width, channels)`, for relative formats.

    Returns:
        The CIoU, of shape `(...)`.

    >>> ciou = compute_ciou([[0.0, 0.0, 2.0, 2.0]], [[0.0, 0.0, 2.0, 2.0]], "xyxy")
    >>> ops.convert_to_numpy(ciou).round(4).tolist()
    [1.0]
    """
    bounding_box_format = _check_format("bounding_box_format", bounding_box_format)
    _check_image_shape("compute_ciou", bounding_box_format, image_shape)
    height, width = _image_size(image_shape)
    boxes1 = convert_format(boxes1, bounding_box_format, "xyxy", height, width)
    boxes2 = convert_format(boxes2, bounding_box_format, "xyxy", height, width)
    eps = backend.epsilon()
    low1, high1 = _pairs(boxes1)
    low2, high2 = _pairs(boxes2)
    # As Keras does, epsilon keeps the heights (not the widths) away from zero.
    size1 = high1 - low1 + ops.convert_to_tensor([0.0, eps])
    size2 = high2 - low2 + ops.convert_to_tensor([0.0, eps])
    overlap = ops.maximum(ops.minimum(high1, high2) - ops.maximum(low1, low2), 0.0)
    intersection = ops.prod(overlap, axis=-1)
    union = ops.prod(size1, axis=-1) + ops.prod(size2, axis=-1) - intersection + eps
    iou = intersection / (union + eps)
    enclosing = ops.maximum(high1, high2) - ops.minimum(low1, low2)
    diagonal = ops.sum(enclosing**2, axis=-1) + eps
    center_distance = ops.sum(((low1 + high1) / 2 - (low2 + high2) / 2) ** 2, axis=-1)
    angle1 = ops.arctan(size1[..., 0] / size1[..., 1])
    angle2 = ops.arctan(size2[..., 0] / size2[..., 1])
    aspect = (4 / math.pi**2) * (angle2 - angle1) ** 2
    alpha = aspect / (aspect - iou + (1 + eps))
    return iou - (center_distance / diagonal + aspect * alpha)
