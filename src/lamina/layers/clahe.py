"""Contrast Limited Adaptive Histogram Equalization (CLAHE) as a layer.

The image is cut into a grid of tiles (`tile_grid_size`, rows by columns); each tile
of each channel gets its own 256-bin histogram, clipped at `clip_limit` times the
mean bin count with the clipped excess spread evenly over all bins, and the
histogram's normalized CDF becomes the tile's value mapping. Each pixel then takes
the bilinear blend of the mappings of the four tiles whose centers surround it, so no
tile borders show. Deterministic: it acts at inference too, as Keras's layer does.
"""

from __future__ import annotations

from lamina import backend, ops
from lamina.layers.augmentation_base import BaseAugmentation, check_value_range, register

_BINS = 256


def _tile_neighbours(size: int, tiles: int, tile: int):
    """For each padded pixel index along one axis: the two surrounding tile indices
    (clamped at the borders) and the weight of the second one."""
    position = ops.arange(size, dtype="float32")
    grid = (position - tile / 2.0) / tile + 1.0  # in the edge-padded tile grid
    first = ops.floor(grid)
    weight = grid - first
    first = ops.cast(first, "int32")
    low = ops.clip(first - 1, 0, tiles - 1)
    high = ops.clip(first, 0, tiles - 1)
    return low, high, weight


def _clahe(images, clip_limit, grid_h, grid_w):
    """CLAHE on a channels-last float32 batch already in 0-255 units."""
    n, height, width, channels = images.shape
    tile_h = -(-height // grid_h)
    tile_w = -(-width // grid_w)
    pad_h, pad_w = tile_h * grid_h - height, tile_w * grid_w - width
    padded = images
    if pad_h or pad_w:
        padded = ops.pad(images, [[0, 0], [0, pad_h], [0, pad_w], [0, 0]], mode="symmetric")
    full_h, full_w = tile_h * grid_h, tile_w * grid_w
    levels = ops.clip(ops.cast(padded, "int32"), 0, _BINS - 1)  # (n, H, W, c)

    # Per-tile histograms, (n, grid_h, grid_w, c, bins): one count per pixel into the
    # flat bin of its (image, tile, channel, level), so memory grows with the pixels
    # (a one-hot per pixel, as Keras builds, takes 256 floats each).
    image = ops.arange(n, dtype="int32")[:, None, None, None]
    row = (ops.arange(full_h, dtype="int32") // tile_h)[None, :, None, None]
    col = (ops.arange(full_w, dtype="int32") // tile_w)[None, None, :, None]
    channel = ops.arange(channels, dtype="int32")[None, None, None, :]
    bin_index = (((image * grid_h + row) * grid_w + col) * channels + channel) * _BINS + levels
    counts = ops.segment_sum(
        ops.ones((n * full_h * full_w * channels,), dtype="float32"),
        ops.reshape(bin_index, (-1,)),
        num_segments=n * grid_h * grid_w * channels * _BINS,
    )
    hist = ops.reshape(counts, (n, grid_h, grid_w, channels, _BINS))
    pixels = float(tile_h * tile_w)
    if clip_limit > 0:
        limit = clip_limit * pixels / _BINS
        clipped = ops.minimum(hist, limit)
        excess = ops.sum(hist - clipped, axis=-1, keepdims=True)
        hist = clipped + excess / _BINS
    cdf = ops.cumsum(hist, axis=-1)
    cdf_min = cdf[..., :1]
    denominator = pixels - cdf_min
    denominator = ops.where(denominator == 0, ops.ones_like(denominator), denominator)
    table = ops.clip((cdf - cdf_min) * 255.0 / denominator, 0.0, 255.0)
    table = ops.reshape(table, (n, grid_h * grid_w * channels * _BINS))

    # Bilinear blend of the four neighbouring tiles' mappings, by flat gathers.
    y_low, y_high, wy = _tile_neighbours(full_h, grid_h, tile_h)
    x_low, x_high, wx = _tile_neighbours(full_w, grid_w, tile_w)
    base = ops.arange(channels, dtype="int32")[None, None, :] * _BINS + levels  # (n,H,W,c)

    def lookup(rows, cols):
        index = (rows[:, None, None] * grid_w + cols[None, :, None]) * (channels * _BINS)
        index = ops.reshape(base + index[None], (n, full_h * full_w * channels))
        return ops.reshape(ops.take_along_axis(table, index, axis=1), (n, full_h, full_w, channels))

    wx = wx[None, None, :, None]
    wy = wy[None, :, None, None]
    top = lookup(y_low, x_low) * (1.0 - wx) + lookup(y_low, x_high) * wx
    bottom = lookup(y_high, x_low) * (1.0 - wx) + lookup(y_high, x_high) * wx
    result = top * (1.0 - wy) + bottom * wy
    return result[:, :height, :width, :]


def _clahe_in_range(images, clip_limit, grid_h, grid_w, low, high):
    dtype = images.dtype
    x = ops.cast(images, "float32")
    unit = (low, high) != (0.0, 255.0)
    if unit:
        x = (x - low) / (high - low) * 255.0
    x = _clahe(x, clip_limit, grid_h, grid_w)
    if unit:
        x = x / 255.0 * (high - low) + low
    return ops.cast(x, dtype)


_clahe_program = backend.jit(_clahe_in_range, static_argnums=(1, 2, 3, 4, 5))


def _check_grid(who: str, tile_grid_size) -> tuple[int, int]:
    if (
        not isinstance(tile_grid_size, (list, tuple))
        or len(tile_grid_size) != 2
        or not all(isinstance(t, int) and not isinstance(t, bool) for t in tile_grid_size)
        or min(tile_grid_size) < 1
    ):
        raise ValueError(
            f"{who}: tile_grid_size must be a pair of positive ints (rows, columns) "
            f"such as (8, 8); received {tile_grid_size!r}."
        )
    return int(tile_grid_size[0]), int(tile_grid_size[1])


@register
class ContrastLimitedAdaptiveHistogramEqualization(BaseAugmentation):
    """Contrast Limited Adaptive Histogram Equalization (CLAHE).

    Equalizes contrast locally: each tile of a `tile_grid_size` grid equalizes its own
    256-bin histogram (per channel), with each bin capped at `clip_limit` times the
    tile's mean bin count (the excess is spread evenly over all bins) to keep noise in
    flat regions from being amplified; each pixel blends the mappings of the four
    nearest tiles bilinearly. When the grid does not divide the image, the image is
    padded by mirroring for the histograms and cropped back. Deterministic, and
    applied at inference too, as in Keras.

    The histograms are counted by a segment sum, so the working memory grows with the
    number of pixels (Keras's one-hot histograms take 256 floats per pixel).

    Args:
        value_range: the range of the pixel values, `(0, 255)` by default; values are
            mapped onto 0-255 (and truncated to integer levels) for the histograms.
        clip_limit: the contrast limit (4.0 by default); 0 or less means no clipping,
            i.e. plain adaptive histogram equalization.
        tile_grid_size: `(rows, columns)` of tiles, `(8, 8)` by default.
        data_format: `"channels_last"` (default from the config) or
            `"channels_first"`.

    Integer images (e.g. `uint8`) keep their dtype, the results truncated to whole
    values, as in Keras; float images come back in the layer's compute dtype.

    Input shape: `(batch, height, width, channels)` or one image
    `(height, width, channels)` (channels first with `data_format="channels_first"`).
    Output shape: the same.

    >>> import numpy as np
    >>> image = np.tile(np.array([[10.0, 20.0]]), (2, 1)).reshape(2, 2, 1)
    >>> layer = ContrastLimitedAdaptiveHistogramEqualization(
    ...     clip_limit=0, tile_grid_size=(1, 1))
    >>> np.asarray(layer(image)).ravel().tolist()
    [127.5, 255.0, 127.5, 255.0]
    """

    _keras_base_factor = "store"  # Keras's image base takes `factor`

    applies_at_inference = True

    def __init__(
        self,
        value_range=(0, 255),
        clip_limit=4.0,
        tile_grid_size=(8, 8),
        data_format=None,
        **kwargs,
    ):
        kwargs.pop("seed", None)
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = check_value_range(self.who, value_range)
        if not isinstance(clip_limit, (int, float)) or isinstance(clip_limit, bool):
            raise ValueError(
                f"{self.who}: clip_limit must be a number (e.g. 4.0; 0 disables "
                f"clipping); received {clip_limit!r}."
            )
        self.clip_limit = float(clip_limit)
        self.tile_grid_size = _check_grid(self.who, tile_grid_size)

    def call(self, data, training=True):
        # As in Keras, integer images (e.g. uint8) come back in their own dtype, the
        # equalized values truncated; float images come back in the compute dtype.
        source = data.get("images") if isinstance(data, dict) else data
        dtype = getattr(source, "dtype", None)
        outputs = super().call(data, training=training)
        if dtype is None or not backend.is_int_dtype(backend.standardize_dtype(dtype)):
            return outputs
        if isinstance(outputs, dict):
            return {**outputs, "images": ops.cast(outputs["images"], dtype)}
        return ops.cast(outputs, dtype)

    def augment_images(self, images):
        _, height, width, _ = images.shape
        grid_h, grid_w = self.tile_grid_size
        if grid_h > height or grid_w > width:
            raise ValueError(
                f"{self.who}: tile_grid_size {self.tile_grid_size} has more tiles than "
                f"the image has pixels along an axis (image {height}x{width}); pass a "
                "tile_grid_size of at most (height, width)."
            )
        return _clahe_program(images, self.clip_limit, grid_h, grid_w, *self.value_range)

    def get_config(self):
        config = super().get_config()
        config.pop("seed")
        return {
            **config,
            "value_range": list(self.value_range),
            "clip_limit": self.clip_limit,
            "tile_grid_size": list(self.tile_grid_size),
        }
