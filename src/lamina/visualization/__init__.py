"""`lamina.visualization`: draw boxes and segmentation masks on images, and show
galleries of images, as `keras.visualization`.

The drawing functions return NumPy images and need nothing beyond lamina (Pillow, the
`image` extra, only to write box labels). The galleries draw with matplotlib, an
optional extra: `pip install "lamina[visualization]"` (or `pip install matplotlib`).
"""

from lamina.visualization.draw import draw_bounding_boxes, draw_segmentation_masks
from lamina.visualization.galleries import (
    plot_bounding_box_gallery,
    plot_image_gallery,
    plot_segmentation_mask_gallery,
)

__all__ = [
    "draw_bounding_boxes",
    "draw_segmentation_masks",
    "plot_bounding_box_gallery",
    "plot_image_gallery",
    "plot_segmentation_mask_gallery",
]
