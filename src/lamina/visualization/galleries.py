"""Galleries of images, boxes and segmentation masks, drawn with matplotlib (an optional
extra, imported when a gallery is made), laid out as Keras 3 lays them out: one image
per subplot, `scale` inches each, saved to `path` or shown."""

from __future__ import annotations

import math

import numpy as np

from lamina import backend, ops
from lamina.visualization.draw import draw_bounding_boxes, draw_segmentation_masks

_NEEDS_MATPLOTLIB = (
    "`{name}` draws with matplotlib, which is not installed. Install it with `pip install "
    'matplotlib` (or lamina\'s extra: `pip install "lamina[visualization]"`).'
)


def _pyplot(name: str):
    try:
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError(_NEEDS_MATPLOTLIB.format(name=name)) from err
    return plt


def _to_display_range(images: np.ndarray, value_range) -> np.ndarray:
    """Images mapped linearly from `value_range` to [0, 255] and clipped there."""
    low, high = value_range
    images = images.astype("float32")
    if tuple(value_range) != (0, 255):
        images = (images - low) / (high - low) * 255.0
    return np.clip(images, 0, 255)


def plot_image_gallery(
    images,
    y_true=None,
    y_pred=None,
    label_map=None,
    rows=None,
    cols=None,
    value_range=(0, 255),
    scale=2,
    path=None,
    show=None,
    transparent=True,
    dpi=60,
    legend_handles=None,
    data_format=None,
):
    """Show (or save) a grid of images, with their true and predicted labels as titles.

    Args:
        images: a batch of images, `(batch, height, width, channels)`.
        y_true: class indices shown as `"Label: <name>"` (needs `label_map`).
        y_pred: class indices shown as `"Pred: <name>"` (needs `label_map`).
        label_map: `{class index: name}`.
        rows: rows of the grid (default: the square root of the batch, rounded up).
        cols: columns (default: `batch // rows`).
        value_range: the images' value range, mapped to [0, 255] for display.
        scale: inches per image.
        path: save the figure to this file instead of showing it.
        show: show the figure (default: when no `path` is given).
        transparent: save with a transparent background.
        dpi: the resolution of the saved file.
        legend_handles: matplotlib patches for a legend under the grid.
        data_format: `"channels_last"` or `"channels_first"`.

    >>> import os, tempfile
    >>> import numpy as np
    >>> from lamina import visualization
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "gallery.png")
    >>> images = np.random.default_rng(0).uniform(0, 255, (4, 8, 8, 3))
    >>> labels = {"y_true": [0, 1, 0, 1], "label_map": {0: "cat", 1: "dog"}}
    >>> visualization.plot_image_gallery(images, **labels, path=path)
    >>> os.path.getsize(path) > 0  # a 2 x 2 grid, each image titled "Label: cat" or "Label: dog"
    True
    >>> tmp.cleanup()
    """
    plt = _pyplot("plot_image_gallery")
    if path is not None and show:
        raise ValueError(
            "plot_image_gallery() expects either `path` to be set, or `show` to be true, "
            f"not both; received path={path!r}, show={show!r}."
        )
    if (y_true is not None or y_pred is not None) and label_map is None:
        raise ValueError(
            "If `y_true` or `y_pred` are provided, a `label_map` must also be provided."
        )
    show = show if show is not None else path is None
    data_format = data_format or backend.image_data_format()
    shape = tuple(ops.shape(images))
    if len(shape) != 4:
        raise ValueError(
            "plot_image_gallery() needs a batch of images, `(batch, height, width, "
            f"channels)`; received shape {shape}. Stack single images with `np.stack`."
        )
    batch_size = shape[0]
    rows = rows or int(math.ceil(math.sqrt(batch_size)))
    cols = cols or int(math.ceil(batch_size // rows))
    count = rows * cols
    images = ops.convert_to_numpy(images)[: min(count, batch_size)]
    if data_format == "channels_first":
        images = images.transpose(0, 2, 3, 1)
    images = _to_display_range(np.asarray(images), value_range)
    y_true = None if y_true is None else ops.convert_to_numpy(y_true)
    y_pred = None if y_pred is None else ops.convert_to_numpy(y_pred)

    figure, axes = plt.subplots(
        nrows=rows,
        ncols=cols,
        figsize=(cols * scale, rows * scale),
        frameon=False,
        layout="tight",
        squeeze=False,
        sharex="row",
        sharey="col",
    )
    figure.subplots_adjust(wspace=0, hspace=0)
    if legend_handles is not None:
        figure.legend(handles=legend_handles, loc="lower center")
    for index in range(count):
        axis = axes[index // cols, index % cols]
        axis.axis("off")
        axis.margins(x=0, y=0)
        if index >= len(images):
            continue
        image = images[index].astype("uint8")
        axis.imshow(image[..., 0] if image.shape[-1] == 1 else image)
        title = []
        if y_true is not None and index < len(y_true):
            title.append(f"Label: {label_map.get(y_true[index], 'Unknown')}")
        if y_pred is not None and index < len(y_pred):
            title.append(f"Pred: {label_map.get(y_pred[index], 'Unknown')}")
        if title:
            axis.set_title("  ".join(title), fontsize=8)
    if path is not None:
        plt.savefig(fname=path, pad_inches=0, bbox_inches="tight", transparent=transparent, dpi=dpi)
        plt.close(figure)
    elif show:
        plt.show()
        plt.close(figure)


def plot_bounding_box_gallery(
    images,
    bounding_box_format,
    y_true=None,
    y_pred=None,
    value_range=(0, 255),
    true_color=(0, 188, 212),
    pred_color=(255, 235, 59),
    line_thickness=2,
    font_scale=1.0,
    text_thickness=None,
    class_mapping=None,
    ground_truth_mapping=None,
    prediction_mapping=None,
    legend=False,
    legend_handles=None,
    rows=None,
    cols=None,
    data_format=None,
    **kwargs,
):
    """`plot_image_gallery` of images with their true boxes (`y_true`, in
    `true_color`) and predicted boxes (`y_pred`, in `pred_color`) drawn on them by
    `draw_bounding_boxes`.

    Args:
        images: a batch of images.
        bounding_box_format: the boxes' format (see `draw_bounding_boxes`).
        y_true, y_pred: dicts of `"boxes"`, `"labels"` (and `"confidences"`).
        value_range: the images' value range.
        true_color, pred_color: RGB colours of the two sets of boxes.
        line_thickness, font_scale, text_thickness: as `draw_bounding_boxes`.
        class_mapping: `{class id: name}` for both sets, unless
            `ground_truth_mapping` / `prediction_mapping` give one each.
        legend: add a legend naming the two colours.
        legend_handles: matplotlib patches for a legend of one's own (not with
            `legend=True`).
        rows, cols, data_format, **kwargs: as `plot_image_gallery`.

    >>> import os, tempfile
    >>> import numpy as np
    >>> from lamina import visualization
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "boxes.png")
    >>> boxes = {"boxes": np.array([[[2.0, 2.0, 10.0, 10.0]]]), "labels": np.array([[0]])}
    >>> images = np.zeros((1, 16, 16, 3))
    >>> labels = {"y_true": boxes, "class_mapping": {0: "cat"}}
    >>> visualization.plot_bounding_box_gallery(images, "xyxy", **labels, path=path)
    >>> os.path.getsize(path) > 0
    True
    >>> tmp.cleanup()
    """
    _pyplot("plot_bounding_box_gallery")
    from matplotlib import patches

    prediction_mapping = prediction_mapping or class_mapping
    ground_truth_mapping = ground_truth_mapping or class_mapping
    data_format = data_format or backend.image_data_format()
    shape = tuple(ops.shape(images))
    if len(shape) != 4:
        raise ValueError(f"`images` must be batched 4D tensor. Received: images.shape={shape}")
    if data_format == "channels_first":
        images = ops.transpose(images, (0, 2, 3, 1))
    plotted = ops.convert_to_numpy(images)

    def draw(pictures, boxes, color, mapping):
        return draw_bounding_boxes(
            pictures,
            boxes,
            bounding_box_format=bounding_box_format,
            class_mapping=mapping,
            color=color,
            line_thickness=line_thickness,
            text_thickness=text_thickness,
            font_scale=font_scale,
            data_format="channels_last",
        )

    if y_true is not None:
        plotted = draw(plotted, y_true, true_color, ground_truth_mapping)
    if y_pred is not None:
        plotted = draw(plotted, y_pred, pred_color, prediction_mapping)
    if legend:
        if legend_handles:
            raise ValueError(
                "Only pass `legend` OR `legend_handles` to "
                "`lamina.visualization.plot_bounding_box_gallery()`."
            )
        legend_handles = [
            patches.Patch(color=np.array(true_color) / 255.0, label="Ground Truth"),
            patches.Patch(color=np.array(pred_color) / 255.0, label="Prediction"),
        ]
    return plot_image_gallery(
        plotted,
        value_range=value_range,
        legend_handles=legend_handles,
        rows=rows,
        cols=cols,
        data_format="channels_last",
        **kwargs,
    )


def plot_segmentation_mask_gallery(
    images,
    num_classes,
    value_range=(0, 255),
    y_true=None,
    y_pred=None,
    color_mapping=None,
    blend=True,
    alpha=0.8,
    ignore_index=-1,
    data_format=None,
    **kwargs,
):
    """`plot_image_gallery` with one row per image: the image, then its true mask
    (`y_true`) and predicted mask (`y_pred`) drawn on it by `draw_segmentation_masks`.

    Args:
        images: a batch of images.
        num_classes: the number of classes.
        value_range: the images' value range.
        y_true, y_pred: integer masks, `(batch, height, width, 1)`.
        color_mapping, blend, alpha, ignore_index: as `draw_segmentation_masks`.
        data_format, **kwargs: as `plot_image_gallery`.

    >>> import os, tempfile
    >>> import numpy as np
    >>> from lamina import visualization
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "masks.png")
    >>> masks = np.zeros((2, 16, 16, 1), "int32")
    >>> masks[:, 4:12, 4:12] = 1
    >>> images = np.zeros((2, 16, 16, 3))
    >>> visualization.plot_segmentation_mask_gallery(images, num_classes=2, y_true=masks, path=path)
    >>> os.path.getsize(path) > 0
    True
    >>> tmp.cleanup()
    """
    _pyplot("plot_segmentation_mask_gallery")
    data_format = data_format or backend.image_data_format()
    shape = tuple(ops.shape(images))
    if len(shape) != 4:
        raise ValueError(f"`images` must be batched 4D tensor. Received: images.shape={shape}")
    if data_format == "channels_first":
        images = ops.transpose(images, (0, 2, 3, 1))
    pictures = ops.convert_to_numpy(images)

    def draw(masks):
        if data_format == "channels_first":
            masks = ops.transpose(masks, (0, 2, 3, 1))
        return draw_segmentation_masks(
            pictures,
            ops.cast(masks, "int32"),
            num_classes=num_classes,
            color_mapping=color_mapping,
            alpha=alpha,
            blend=blend,
            ignore_index=ignore_index,
            data_format="channels_last",
        )

    columns = [pictures]
    if y_true is not None:
        columns.append(draw(y_true))
    if y_pred is not None:
        columns.append(draw(y_pred))
    gallery = np.stack(
        [np.asarray(column[i]) for i in range(shape[0]) for column in columns], axis=0
    )
    return plot_image_gallery(
        gallery,
        value_range=value_range,
        rows=shape[0],
        cols=len(columns),
        data_format="channels_last",
        **kwargs,
    )


__all__ = ["plot_bounding_box_gallery", "plot_image_gallery", "plot_segmentation_mask_gallery"]
