"""Bounding boxes and segmentation masks drawn onto batches of images (NumPy out).

`draw_segmentation_masks` computes what Keras 3's computes, value for value.
`draw_bounding_boxes` takes Keras's arguments and draws the same boxes, but Keras draws
them with OpenCV (`cv2.rectangle`, `cv2.putText`) and lamina without it: each box is an
outline `line_thickness` pixels wide centred on the box's edges, in NumPy, and a label
is written with Pillow's default font (Pillow is needed only when labels are drawn), so
the pixels of thick lines' corners and of the letters differ from OpenCV's.
"""

from __future__ import annotations

import numpy as np

from lamina import backend, ops
from lamina.utils.bounding_boxes import convert_format


def _check_batch(images) -> tuple:
    shape = tuple(ops.shape(images))
    if len(shape) != 4:
        raise ValueError(f"`images` must be batched 4D tensor. Received: images.shape={shape}")
    return shape


def _as_uint8(images: np.ndarray) -> np.ndarray:
    """Images as uint8, as Keras converts them: floats with a maximum of at most 1 are
    taken as [0, 1] and scaled to [0, 255], other floats clipped to [0, 255]."""
    if images.dtype.kind == "f" and images.size > 0:
        if images.max() <= 1.0:
            images = np.clip(images, 0, 1) * 255
        else:
            images = np.clip(images, 0, 255)
    return images.astype("uint8")


def _outline(image: np.ndarray, box, color, thickness: int) -> None:
    """Paint the outline of `box` (x1, y1, x2, y2, inclusive pixel corners) on `image`
    (height, width, channels) in place: bands `thickness` wide centred on each edge."""
    height, width = image.shape[:2]
    x1, y1, x2, y2 = box
    x1, x2 = sorted((x1, x2))
    y1, y2 = sorted((y1, y2))
    before = (thickness - 1) // 2
    after = thickness // 2
    color = np.asarray(color, dtype=image.dtype)[: image.shape[-1]]

    def paint(top, bottom, left, right):
        top, bottom = max(top, 0), min(bottom, height - 1)
        left, right = max(left, 0), min(right, width - 1)
        if top <= bottom and left <= right:
            image[top : bottom + 1, left : right + 1] = color

    paint(y1 - before, y1 + after, x1 - before, x2 + after)  # top
    paint(y2 - before, y2 + after, x1 - before, x2 + after)  # bottom
    paint(y1 - before, y2 + after, x1 - before, x1 + after)  # left
    paint(y1 - before, y2 + after, x2 - before, x2 + after)  # right


def _text_location(x: int, y: int, font_scale: float, thickness: int) -> tuple[int, int]:
    """Where a label's baseline starts: above the box, or inside it near the top when
    there is no room above (Keras's rule)."""
    font_height = int(font_scale * 12)
    if y - 8 - 2 * font_height > 0:
        return x, y - 8
    return x + 3, y + 2 * font_height + thickness + 3


def _write(image: np.ndarray, text: str, origin, color, font_scale: float) -> np.ndarray:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as err:
        raise ImportError(
            "draw_bounding_boxes writes class labels with Pillow, which is not installed: "
            "`pip install pillow` (the `image` extra of lamina), or pass no "
            "`class_mapping` to draw the boxes alone."
        ) from err
    channels = image.shape[-1]
    picture = Image.fromarray(image[..., 0] if channels == 1 else image[..., :3])
    draw = ImageDraw.Draw(picture)
    size = max(int(round(22 * font_scale)), 6)  # about OpenCV's simplex font at this scale
    font = ImageFont.load_default(size=size)
    fill = tuple(int(c) for c in color[:3]) if channels != 1 else int(color[0])
    draw.text(origin, text, fill=fill, font=font, anchor="ls")  # origin: baseline, left
    written = np.asarray(picture)
    if channels == 1:
        written = written[..., None]
    elif channels > 3:
        written = np.concatenate([written, image[..., 3:]], axis=-1)
    return written


def draw_bounding_boxes(
    images,
    bounding_boxes,
    bounding_box_format,
    class_mapping=None,
    color=(128, 128, 128),
    line_thickness=2,
    text_thickness=1,
    font_scale=1.0,
    data_format=None,
):
    """Draw bounding boxes (and their class labels) on a batch of images.

    Args:
        images: a batch of images, `(batch, height, width, channels)` (channels first
            with `data_format="channels_first"`). Float images whose values are at most
            1 are taken as [0, 1].
        bounding_boxes: a dict with `"boxes"` `(batch, num_boxes, 4)`, `"labels"`
            `(batch, num_boxes)` and, optionally, `"confidences"` `(batch, num_boxes)`.
            A box labelled -1 is padding and is not drawn.
        bounding_box_format: the format of the boxes (`"xyxy"`, `"yxyx"`, `"xywh"`,
            `"center_xywh"`, `"center_yxhw"`, `"rel_*"`; see
            `lamina.utils.bounding_boxes.convert_format`).
        class_mapping: `{class id: name}`; labels in it are written above their box
            (with the confidence, `"name | 0.87"`, when given).
        color: the RGB colour of boxes and labels.
        line_thickness: the boxes' line width in pixels.
        text_thickness: Keras's stroke width of the labels; Pillow's font has one
            weight, so it only moves a label placed inside its box (as in Keras).
        font_scale: the size of the labels (1.0 is about 12 pixels high).
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format).

    Returns:
        A uint8 NumPy array of the images with the boxes drawn, in the layout given.

    >>> import numpy as np
    >>> images = np.zeros((1, 8, 8, 3), "uint8")
    >>> boxes = {"boxes": np.array([[[1, 1, 6, 6]]]), "labels": np.array([[0]])}
    >>> out = draw_bounding_boxes(images, boxes, "xyxy", color=(255, 0, 0), line_thickness=1)
    >>> out[0, 1, 1:7, 0].tolist(), int(out[0, 3, 3].sum())
    ([255, 255, 255, 255, 255, 255], 0)
    """
    class_mapping = class_mapping or {}
    text_thickness = text_thickness or line_thickness
    data_format = data_format or backend.image_data_format()
    shape = _check_batch(images)
    if not isinstance(bounding_boxes, dict):
        raise TypeError(
            "`bounding_boxes` should be a dict. Received: "
            f"bounding_boxes={bounding_boxes!r:.200} of type {type(bounding_boxes)}"
        )
    if "boxes" not in bounding_boxes or "labels" not in bounding_boxes:
        raise ValueError(
            "`bounding_boxes` should be a dict containing 'boxes' and 'labels' keys. "
            f"Received keys: {sorted(bounding_boxes)}"
        )
    channels_first = data_format == "channels_first"
    height, width = (shape[2], shape[3]) if channels_first else (shape[1], shape[2])
    boxes = convert_format(bounding_boxes["boxes"], bounding_box_format, "xyxy", height, width)
    boxes = ops.convert_to_numpy(boxes)
    labels = ops.convert_to_numpy(bounding_boxes["labels"])
    confidences = bounding_boxes.get("confidences")
    if confidences is not None:
        confidences = ops.convert_to_numpy(confidences)
    images = _as_uint8(np.array(ops.convert_to_numpy(images)))
    if channels_first:
        images = images.transpose(0, 2, 3, 1)
    drawn = []
    for i, image in enumerate(images):
        image = np.ascontiguousarray(image)
        for j in range(boxes.shape[1]):
            label = int(labels[i][j])
            if label == -1:
                continue
            x1, y1, x2, y2 = (int(v) for v in boxes[i][j].astype("int32"))
            _outline(image, (x1, y1, x2, y2), color, int(line_thickness))
            if label in class_mapping:
                text = str(class_mapping[label])
                if confidences is not None:
                    text = f"{text} | {float(confidences[i][j]):.2f}"
                origin = _text_location(x1, y1, font_scale, int(text_thickness))
                image = _write(image, text, origin, color, font_scale)
        drawn.append(image)
    result = np.stack(drawn, axis=0)
    return result.transpose(0, 3, 1, 2) if channels_first else result


def _palette(num_classes: int) -> list:
    """Keras's default colours: class `i` gets `(i * (2**25 - 1, 2**15 - 1, 2**21 - 1))
    % 255`."""
    base = np.array([2**25 - 1, 2**15 - 1, 2**21 - 1])
    return [((i * base) % 255).tolist() for i in range(num_classes)]


def draw_segmentation_masks(
    images,
    segmentation_masks,
    num_classes=None,
    color_mapping=None,
    alpha=0.8,
    blend=True,
    ignore_index=-1,
    data_format=None,
):
    """Colour each pixel of a batch of images by its segmentation class.

    Args:
        images: a batch of images, `(batch, height, width, channels)`.
        segmentation_masks: integer class indices, `(batch, height, width, 1)`.
        num_classes: the number of classes (default: the largest index in the masks;
            as in Keras, that class itself is then left uncoloured).
        color_mapping: `{class index: (r, g, b)}` for classes 0 to `num_classes - 1`
            (default: Keras's palette, class 0 black).
        alpha: the colours' opacity when blending.
        blend: mix the colours with the image (`image * (1 - alpha) + colour *
            alpha`, as uint8); if False, return the coloured float32 images unmixed.
        ignore_index: the class left as the image shows it when blending.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format); the result is channels last, as Keras's.

    Returns:
        A NumPy array, `(batch, height, width, channels)`: uint8 when blended, else
        float32.

    >>> import numpy as np
    >>> images = np.full((1, 2, 2, 3), 100, "uint8")
    >>> masks = np.array([[[[1], [0]], [[2], [-1]]]])
    >>> out = draw_segmentation_masks(images, masks, num_classes=3, alpha=0.5)
    >>> out[0, :, :, 0].tolist()
    [[50, 50], [51, 100]]
    """
    data_format = data_format or backend.image_data_format()
    _check_batch(images)
    if data_format == "channels_first":
        images = ops.transpose(images, (0, 2, 3, 1))
        segmentation_masks = ops.transpose(segmentation_masks, (0, 2, 3, 1))
    images = ops.convert_to_numpy(ops.cast(images, "float32"))
    masks = ops.convert_to_numpy(segmentation_masks)
    if masks.dtype.kind not in "iu":
        raise TypeError(
            "`segmentation_masks` must be in integer dtype. Received: "
            f"segmentation_masks.dtype={backend.standardize_dtype(masks.dtype)}"
        )
    if num_classes is None:
        num_classes = int(masks.max())
    if color_mapping is None:
        colors = _palette(num_classes)
    else:
        colors = [color_mapping[i] for i in range(num_classes)]
    valid = (masks != ignore_index)[..., 0]
    classes = masks[..., 0]
    colored = images.copy()
    for index, color in enumerate(colors):
        colored[classes == index] = np.asarray(color, dtype=colored.dtype)[None, :]
    if not blend:
        return colored
    blended = images * (1 - alpha) + colored * alpha
    blended = np.where(valid[..., None], blended, images)
    return ops.convert_to_numpy(ops.cast(blended, "uint8"))


__all__ = ["draw_bounding_boxes", "draw_segmentation_masks"]
