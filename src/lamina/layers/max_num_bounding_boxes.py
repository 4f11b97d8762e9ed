"""MaxNumBoundingBoxes: give every image the same number of bounding boxes.

Object-detection data holds a different number of boxes per image, but a batch needs
one size. This layer pads the box rows with `fill_value` (or drops the rows past
`max_number`), so boxes come out as `(batch, max_number, 4)` and labels as
`(batch, max_number)`. It needs no box format: it moves whole rows only.

The padding amounts are Python integers read from the static shapes, so the layer also
runs inside a compiled program (where shapes are static anyway).
"""

from __future__ import annotations

import numbers

from lamina import backend, ops
from lamina.common import serialization
from lamina.graph.keras_tensor import KerasTensor
from lamina.layers.layer import Layer


def _integer(who: str, name: str, value, positive: bool = False) -> int:
    """`value` as an int, when it is an integer (or an integral float)."""
    integral = isinstance(value, numbers.Integral) or (
        isinstance(value, float) and value.is_integer()
    )
    if isinstance(value, bool) or not integral or (positive and value < 1):
        kind = "a positive integer" if positive else "an integer"
        raise ValueError(f"{who}: {name} must be {kind}; received {value!r}.")
    return int(value)


class MaxNumBoundingBoxes(Layer):
    """Pads or truncates the bounding boxes of each image to `max_number`.

    Use it before batching detection data (or inside a model) so every image carries
    the same number of boxes. Images (and any other keys) pass through unchanged; a
    plain image tensor, without boxes, passes through as is. It acts in training and
    in inference alike.

    Args:
        max_number: how many boxes each image has afterwards: rows past it are dropped,
            missing rows are filled with `fill_value`.
        fill_value: the integer written into padded boxes and labels. Defaults to `-1`.
        bounding_box_format: the format of the boxes (e.g. `"xyxy"`), recorded as Keras
            does; rows are padded or dropped whatever it is, so it may be left unset.
        data_format: `"channels_last"` or `"channels_first"`, recorded for the images.

    Call arguments:
        inputs: a dict `{"images": ..., "bounding_boxes": {"boxes": ..., "labels":
            ...}}` (other keys pass through), or an image tensor. Batched images
            `(batch, height, width, channels)` go with boxes `(batch, num_boxes, 4)` and
            labels `(batch, num_boxes)`; one image `(height, width, channels)` with
            boxes `(num_boxes, 4)` and labels `(num_boxes,)`.

    Returns:
        The same dict with `boxes` `(batch, max_number, 4)` (float32, as in Keras) and
        `labels` `(batch, max_number)` (unbatched: without the batch axis).

    >>> import numpy as np
    >>> layer = MaxNumBoundingBoxes(max_number=3)
    >>> boxes = {"boxes": np.ones((2, 4)), "labels": np.array([1, 2])}
    >>> out = layer({"images": np.zeros((8, 8, 3)), "bounding_boxes": boxes})
    >>> ops.convert_to_numpy(out["bounding_boxes"]["labels"]).tolist()
    [1, 2, -1]
    """

    _keras_base_factor = "store"  # Keras's image base takes `factor`

    def __init__(
        self,
        max_number: int,
        fill_value: int = -1,
        bounding_box_format: str | None = None,
        data_format: str | None = None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        who = self.who
        self.max_number = _integer(who, "max_number", max_number, positive=True)
        self.fill_value = _integer(who, "fill_value", fill_value)
        if bounding_box_format is not None and not isinstance(bounding_box_format, str):
            raise TypeError(
                f"{who}: bounding_box_format must be a string such as 'xyxy' or None; "
                f"received {bounding_box_format!r}."
            )
        self.bounding_box_format = bounding_box_format
        try:
            self.data_format = backend.standardize_data_format(data_format)
        except ValueError as e:
            raise ValueError(f"{who}: {e}") from None
        self.built = True

    @property
    def who(self) -> str:
        return f"{type(self).__name__} {self.name!r}"

    def _check_images(self, images) -> bool:
        """Whether `images` is a batch (rank 4) rather than one image (rank 3)."""
        rank = len(images.shape)
        if rank not in (3, 4):
            raise ValueError(
                f"{self.who} expects a batch of images (batch, height, width, channels) or "
                f"one image (height, width, channels); received shape {tuple(images.shape)}."
            )
        return rank == 4

    def _pad_rows(self, values, rows: int):
        """Drop the rows of axis 1 past `max_number`, or pad them up to it."""
        if rows > self.max_number:
            return values[:, : self.max_number]
        if rows < self.max_number:
            widths = [(0, 0)] * len(values.shape)
            widths[1] = (0, self.max_number - rows)
            return ops.pad(values, widths, constant_values=self.fill_value)
        return values

    def _check_dict(self, inputs) -> None:
        if "images" not in inputs:
            raise ValueError(
                f"{self.who}: a dict input needs an 'images' key (and optionally "
                f"'bounding_boxes'); received keys {sorted(inputs)}."
            )
        bounding_boxes = inputs.get("bounding_boxes", {"boxes": None, "labels": None})
        if (
            not isinstance(bounding_boxes, dict)
            or "boxes" not in bounding_boxes
            or "labels" not in bounding_boxes
        ):
            received = (
                f"a dict with keys {sorted(bounding_boxes)}"
                if isinstance(bounding_boxes, dict)
                else type(bounding_boxes).__name__
            )
            raise ValueError(
                f"{self.who}: 'bounding_boxes' must be a dict with keys 'boxes' and "
                f"'labels'; received {received}."
            )

    def _check_boxes(self, box_shape, label_shape, batched: bool) -> None:
        rank = 3 if batched else 2
        expected = "(batch, num_boxes, 4)" if batched else "(num_boxes, 4)"
        if len(box_shape) != rank or box_shape[-1] != 4:
            raise ValueError(
                f"{self.who}: with {'batched' if batched else 'unbatched'} images, "
                f"bounding_boxes['boxes'] must have shape {expected}; received shape "
                f"{box_shape}."
            )
        if label_shape != box_shape[:-1]:
            raise ValueError(
                f"{self.who}: bounding_boxes['labels'] must have shape {box_shape[:-1]} "
                f"(one label per box of boxes {box_shape}); received shape {label_shape}."
            )
        if box_shape[-2] is None:
            raise ValueError(
                f"{self.who}: the number of boxes must be known; received boxes of shape "
                f"{box_shape}."
            )

    def _bounding_boxes(self, bounding_boxes, batched: bool):
        # Boxes are float32 whatever they came as, as in Keras.
        boxes = ops.cast(ops.convert_to_tensor(bounding_boxes["boxes"]), "float32")
        labels = ops.convert_to_tensor(bounding_boxes["labels"])
        self._check_boxes(tuple(boxes.shape), tuple(labels.shape), batched)
        if not batched:
            boxes, labels = ops.expand_dims(boxes, 0), ops.expand_dims(labels, 0)
        rows = boxes.shape[1]
        boxes, labels = self._pad_rows(boxes, rows), self._pad_rows(labels, rows)
        if not batched:
            boxes, labels = ops.squeeze(boxes, 0), ops.squeeze(labels, 0)
        return {**bounding_boxes, "boxes": boxes, "labels": labels}

    def call(self, data):
        if not isinstance(data, dict):
            self._check_images(data)
            return data
        self._check_dict(data)
        parts = dict(data)
        batched = self._check_images(parts["images"])
        if "bounding_boxes" in parts:
            parts["bounding_boxes"] = self._bounding_boxes(parts["bounding_boxes"], batched)
        return parts

    def compute_output_spec(self, inputs):
        # Built from the shapes rather than traced: labels keep their dtype, boxes are
        # float32, everything else passes through.
        if not isinstance(inputs, dict):
            self._check_images(inputs)
            return KerasTensor(inputs.shape, inputs.dtype)
        self._check_dict(inputs)
        batched = self._check_images(inputs["images"])
        specs = {
            key: KerasTensor(value.shape, value.dtype)
            for key, value in inputs.items()
            if key != "bounding_boxes"
        }
        if "bounding_boxes" in inputs:
            bounding_boxes = inputs["bounding_boxes"]
            boxes, labels = bounding_boxes["boxes"], bounding_boxes["labels"]
            self._check_boxes(tuple(boxes.shape), tuple(labels.shape), batched)
            out = dict(bounding_boxes)
            out["boxes"] = KerasTensor(tuple(boxes.shape[:-2]) + (self.max_number, 4), "float32")
            out["labels"] = KerasTensor(tuple(labels.shape[:-1]) + (self.max_number,), labels.dtype)
            specs["bounding_boxes"] = out
        return specs

    def compute_output_shape(self, input_shape):
        if not isinstance(input_shape, dict):
            return tuple(input_shape)
        shapes = dict(input_shape)
        if "bounding_boxes" in shapes:
            boxes = dict(shapes["bounding_boxes"])
            boxes["boxes"] = tuple(boxes["boxes"][:-2]) + (self.max_number, 4)
            boxes["labels"] = tuple(boxes["labels"][:-1]) + (self.max_number,)
            shapes["bounding_boxes"] = boxes
        return shapes

    def get_config(self):
        config = {
            **super().get_config(),
            "data_format": self.data_format,
            "max_number": self.max_number,
            # Keras leaves fill_value out of its config (so a reloaded layer pads with
            # -1); lamina keeps it, and Keras's constructor accepts it back.
            "fill_value": self.fill_value,
        }
        if self.bounding_box_format is not None:
            config["bounding_box_format"] = self.bounding_box_format
        return config


serialization.register_builtin("layers", MaxNumBoundingBoxes)
