"""Image ops Keras 3 has beyond resizing and affine warps, written once from other ops.

Patches, color spaces, crops and pads, Sobel edges, Gaussian blur, SSIM and perspective
warps: compositions of contract ops (convolutions, `affine_transform`, `linalg.solve`),
so they run and differentiate on every engine. Images are batches `(N, H, W, C)` (or
`(N, C, H, W)` with `data_format="channels_first"`); most also take one image.

>>> import numpy as np
>>> from lamina.ops import image
>>> image.extract_patches(np.zeros((1, 8, 8, 3)), 4).shape
(1, 2, 2, 48)
"""

from __future__ import annotations

import numpy as np

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, convert_to_tensor, declared_op, shape

_conv = declared_op("nn", "conv")
_depthwise_conv = declared_op("nn", "depthwise_conv")
_affine_transform = declared_op("image", "affine_transform")
_solve = declared_op("linalg", "solve")


def _float(x):
    x = convert_to_tensor(x)
    return x if "float" in dtype(x) else cast(x, backend.result_type(dtype(x), float))


def _batched(images, op, ranks=(3, 4)):
    images = convert_to_tensor(images)
    if len(shape(images)) not in ranks:
        raise ValueError(
            f"{op}: expected a batch of images (rank {ranks[-1]}) or one image (rank "
            f"{ranks[0]}), received shape {shape(images)}."
        )
    single = len(shape(images)) == ranks[0]
    return (lnp.expand_dims(images, 0) if single else images), single


def _unbatch(x, single):
    return lnp.squeeze(x, 0) if single else x


def _channels_last(data_format):
    return backend.standardize_data_format(data_format) == "channels_last"


def _tuple(value, n):
    return (int(value),) * n if isinstance(value, int) else tuple(int(v) for v in value)


def _patches(images, size, strides, dilation_rate, padding, data_format, n, op):
    images, single = _batched(images, op, (n + 1, n + 2))
    size = _tuple(size, n)
    strides = size if strides is None else _tuple(strides, n)
    channels_axis = -1 if _channels_last(data_format) else 1
    channels = shape(images)[channels_axis]
    cells = int(np.prod(size)) * channels
    # One-hot kernel: output channel (i, j[, k], c) copies that pixel of the window.
    kernel = np.eye(cells, dtype=dtype(images) if "float" in dtype(images) else "float32")
    kernel = kernel.reshape((*size, channels, cells))
    out = _conv(
        cast(images, kernel.dtype),
        kernel,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilation_rate=dilation_rate,
    )
    return _unbatch(cast(out, dtype(images)), single)


@composite
def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    """Patches of `size` pixels, each flattened into the channel axis.

    A `(N, H, W, C)` batch gives `(N, rows, cols, size_h * size_w * C)`, each patch laid
    out row by row, pixel channels innermost (TensorFlow's `extract_patches` layout).

    Args:
        images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
            `data_format="channels_first"`).
        size: The patch size: an int (square) or `(size_h, size_w)`.
        strides: The step between patch origins: an int or a pair; `None` (default)
            takes `size` (non-overlapping patches).
        dilation_rate: The spacing of the pixels within a patch (an int or a pair).
        padding: `"valid"` (default: only whole patches) or `"same"` (zero padding so
            that `rows = ceil(H / stride_h)`, likewise `cols`).
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The patches, shape `(N, rows, cols, size_h * size_w * C)` (no batch axis for
        one image; channels first gives `(N, size_h * size_w * C, rows, cols)`), in the
        dtype of `images`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> patches = ops.image.extract_patches(np.arange(16.0).reshape(1, 4, 4, 1), 2)
    >>> ops.convert_to_numpy(patches).shape
    (1, 2, 2, 4)
    >>> ops.convert_to_numpy(patches)[0, 1, 1].tolist()
    [10.0, 11.0, 14.0, 15.0]
    """
    return _patches(
        images, size, strides, dilation_rate, padding, data_format, 2, "extract_patches"
    )


@composite
def extract_patches_3d(
    volumes, size, strides=None, dilation_rate=1, padding="valid", data_format=None
):
    """3-D patches of `(N, D, H, W, C)` volumes, each flattened into the channel axis.

    The volumetric `extract_patches`: each patch is laid out depth, then row, then
    column, pixel channels innermost.

    Args:
        volumes: One volume `(D, H, W, C)` or a batch `(N, D, H, W, C)` (channels first
            with `data_format="channels_first"`).
        size: The patch size: an int (cube) or `(size_d, size_h, size_w)`.
        strides: The step between patch origins: an int or a triple; `None` (default)
            takes `size` (non-overlapping patches).
        dilation_rate: The spacing of the voxels within a patch (an int or a triple).
        padding: `"valid"` (default: only whole patches) or `"same"` (zero padding).
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The patches, shape `(N, depth, rows, cols, size_d * size_h * size_w * C)` (no
        batch axis for one volume), in the dtype of `volumes`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> patches = ops.image.extract_patches_3d(np.zeros((1, 4, 4, 4, 2)), 2)
    >>> ops.convert_to_numpy(patches).shape
    (1, 2, 2, 2, 16)
    """
    return _patches(
        volumes, size, strides, dilation_rate, padding, data_format, 3, "extract_patches_3d"
    )


_GRAY = (0.2989, 0.5870, 0.1140)


@composite
def rgb_to_grayscale(images, data_format=None):
    """Luma `0.2989 R + 0.587 G + 0.114 B`, one channel kept, in the input dtype.

    Args:
        images: RGB images, rank 3 `(H, W, 3)` or rank 4 `(N, H, W, 3)` (channels first
            with `data_format="channels_first"`); any dtype (integers are weighted as
            floats and cast back).
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The grayscale images, with a channel axis of length 1, in the dtype of
        `images`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> gray = ops.image.rgb_to_grayscale(np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]))
    >>> np.round(ops.convert_to_numpy(gray).astype(float), 4).tolist()
    [[[0.2989], [0.587]]]
    """
    images = convert_to_tensor(images)
    if len(shape(images)) not in (3, 4):
        raise ValueError(
            f"rgb_to_grayscale: expected rank 3 or 4 images, received shape {shape(images)}."
        )
    axis = -1 if _channels_last(data_format) else -3
    x = _float(images)
    weights = [1] * len(shape(x))
    weights[axis] = 3
    gray = lnp.sum(
        x * lnp.reshape(cast(np.array(_GRAY), dtype(x)), weights), axis=axis, keepdims=True
    )
    return cast(gray, dtype(images))


def _split_rgb(images, data_format, op):
    images = convert_to_tensor(images)
    if len(shape(images)) not in (3, 4):
        raise ValueError(f"{op}: expected rank 3 or 4 images, received shape {shape(images)}.")
    if "float" not in dtype(images):
        raise TypeError(
            f"{op}: expected float images with values in [0, 1], received dtype {dtype(images)}; "
            "cast them (and divide by 255) first."
        )
    axis = -1 if _channels_last(data_format) else -3
    return _unstack(images, axis), axis


def _unstack(x, axis):
    return [lnp.take(x, i, axis=axis) for i in range(3)]


@composite
def rgb_to_hsv(images, data_format=None):
    """RGB to HSV, each channel in `[0, 1]` (hue as a fraction of the circle).

    Hue 0 is red, `1/3` green, `2/3` blue; a gray pixel gets hue 0 and saturation 0.

    Args:
        images: Float RGB images with values in `[0, 1]`, rank 3 or 4 (channels last,
            or first with `data_format="channels_first"`). Integer images are refused:
            cast them and divide by 255 first.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The HSV images (hue, saturation, value on the channel axis), of the shape and
        dtype of `images`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> hsv = ops.image.rgb_to_hsv(np.array([[[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]]]))
    >>> np.round(ops.convert_to_numpy(hsv).astype(float), 4).tolist()
    [[[0.0, 1.0, 1.0], [0.5, 1.0, 0.5]]]
    """
    (r, g, b), axis = _split_rgb(images, data_format, "rgb_to_hsv")
    value = lnp.maximum(lnp.maximum(r, g), b)
    minimum = lnp.minimum(lnp.minimum(r, g), b)
    spread = value - minimum
    safe_value = lnp.where(lnp.greater(value, 0), value, 1.0)
    saturation = lnp.where(lnp.greater(value, 0), spread / safe_value, 0.0)
    safe = lnp.where(lnp.greater(spread, 0), spread, 1.0)
    hue = lnp.where(
        lnp.equal(value, r),
        (g - b) / safe,
        lnp.where(lnp.equal(value, g), 2.0 + (b - r) / safe, 4.0 + (r - g) / safe),
    )
    hue = lnp.where(lnp.greater(spread, 0), hue / 6.0, 0.0)
    hue = hue - lnp.floor(hue)
    return lnp.stack([hue, saturation, value], axis=axis)


@composite
def hsv_to_rgb(images, data_format=None):
    """HSV (each channel in `[0, 1]`) to RGB.

    The inverse of `rgb_to_hsv`: hue is a fraction of the color circle (0 red, `1/3`
    green, `2/3` blue).

    Args:
        images: Float HSV images with values in `[0, 1]`, rank 3 or 4 (channels last,
            or first with `data_format="channels_first"`). Integer images are refused.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The RGB images, values in `[0, 1]`, of the shape and dtype of `images`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> rgb = ops.image.hsv_to_rgb(np.array([[[0.5, 1.0, 1.0], [0.0, 0.0, 0.5]]]))
    >>> np.round(ops.convert_to_numpy(rgb).astype(float), 4).tolist()
    [[[0.0, 1.0, 1.0], [0.5, 0.5, 0.5]]]
    """
    (h, s, v), axis = _split_rgb(images, data_format, "hsv_to_rgb")

    def channel(n):
        k = lnp.mod(n + h * 6.0, 6.0)
        return v - v * s * lnp.clip(lnp.minimum(k, 4.0 - k), 0.0, 1.0)

    return lnp.stack([channel(5.0), channel(3.0), channel(1.0)], axis=axis)


def _window(images, data_format, op):
    images, single = _batched(images, op)
    last = _channels_last(data_format)
    height, width = shape(images)[1:3] if last else shape(images)[2:4]
    return images, single, last, height, width


def _resolve(before, after, target, size, names, op):
    """The `(before, after)` amounts of a crop or pad from Keras's keyword arguments."""
    given = [v is not None for v in (before, after, target)]
    if sum(given) != 2:
        raise ValueError(
            f"{op}: give exactly two of `{names[0]}`, `{names[1]}` and `{names[2]}`; received "
            f"{names[0]}={before}, {names[1]}={after}, {names[2]}={target}."
        )
    if target is None:
        return int(before), int(after)
    if before is None:
        return abs(size - target) - int(after), int(after)
    return int(before), abs(size - target) - int(before)


@composite
def crop_images(
    images,
    top_cropping=None,
    left_cropping=None,
    bottom_cropping=None,
    right_cropping=None,
    target_height=None,
    target_width=None,
    data_format=None,
):
    """`images` cropped to a rectangle given by its margins or its size.

    Give exactly two of `top_cropping`, `bottom_cropping` and `target_height`, and
    exactly two of `left_cropping`, `right_cropping` and `target_width`; the third of
    each is derived.

    Args:
        images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
            `data_format="channels_first"`).
        top_cropping: Rows removed at the top.
        left_cropping: Columns removed at the left.
        bottom_cropping: Rows removed at the bottom.
        right_cropping: Columns removed at the right.
        target_height: The height of the result.
        target_width: The width of the result.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The cropped images, in the dtype of `images`.

    Raises:
        ValueError: when not exactly two of each triple are given, or the crop does
            not fit the images.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.arange(16).reshape(4, 4, 1)
    >>> y = ops.image.crop_images(x, top_cropping=1, left_cropping=1, target_height=2,
    ...                           target_width=2)
    >>> ops.convert_to_numpy(y)[:, :, 0].tolist()
    [[5, 6], [9, 10]]
    """
    images, single, last, height, width = _window(images, data_format, "crop_images")
    top, bottom = _resolve(
        top_cropping,
        bottom_cropping,
        target_height,
        height,
        ("top_cropping", "bottom_cropping", "target_height"),
        "crop_images",
    )
    left, right = _resolve(
        left_cropping,
        right_cropping,
        target_width,
        width,
        ("left_cropping", "right_cropping", "target_width"),
        "crop_images",
    )
    if (
        top < 0
        or bottom < 0
        or left < 0
        or right < 0
        or top + bottom >= height
        or left + right >= width
    ):
        raise ValueError(
            f"crop_images: cropping top={top}, bottom={bottom}, left={left}, right={right} does "
            f"not fit images of height {height} and width {width}."
        )
    if last:
        out = images[:, top : height - bottom, left : width - right, :]
    else:
        out = images[:, :, top : height - bottom, left : width - right]
    return _unbatch(out, single)


@composite
def pad_images(
    images,
    top_padding=None,
    left_padding=None,
    bottom_padding=None,
    right_padding=None,
    target_height=None,
    target_width=None,
    data_format=None,
):
    """`images` padded with zeros to a size, or by given margins.

    Give exactly two of `top_padding`, `bottom_padding` and `target_height`, and exactly
    two of `left_padding`, `right_padding` and `target_width`; the third of each is
    derived.

    Args:
        images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
            `data_format="channels_first"`).
        top_padding: Rows of zeros added at the top.
        left_padding: Columns of zeros added at the left.
        bottom_padding: Rows of zeros added at the bottom.
        right_padding: Columns of zeros added at the right.
        target_height: The height of the result.
        target_width: The width of the result.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The padded images, in the dtype of `images`.

    Raises:
        ValueError: when not exactly two of each triple are given, or a padding would be
            negative (a target smaller than the images: use `crop_images`).

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.image.pad_images(np.ones((2, 2, 1)), top_padding=1, left_padding=1,
    ...                          target_height=3, target_width=4)
    >>> ops.convert_to_numpy(y)[:, :, 0].tolist()
    [[0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0]]
    """
    images, single, last, height, width = _window(images, data_format, "pad_images")
    top, bottom = _resolve(
        top_padding,
        bottom_padding,
        target_height,
        height,
        ("top_padding", "bottom_padding", "target_height"),
        "pad_images",
    )
    left, right = _resolve(
        left_padding,
        right_padding,
        target_width,
        width,
        ("left_padding", "right_padding", "target_width"),
        "pad_images",
    )
    if min(top, bottom, left, right) < 0:
        raise ValueError(
            f"pad_images: padding top={top}, bottom={bottom}, left={left}, right={right} is "
            "negative; the target is smaller than the images (use crop_images)."
        )
    spatial = [(top, bottom), (left, right)]
    pads = [(0, 0), *spatial, (0, 0)] if last else [(0, 0), (0, 0), *spatial]
    return _unbatch(lnp.pad(images, pads), single)


def _depthwise(images, kernel2d, last, padding="same"):
    """Each channel of float `images` correlated with the 2-D `kernel2d`."""
    channels = shape(images)[-1 if last else 1]
    kernel = np.tile(kernel2d[:, :, None, None], (1, 1, channels, 1)).astype(dtype(images))
    return _depthwise_conv(
        images, kernel, padding=padding, data_format="channels_last" if last else "channels_first"
    )


@composite
def sobel_edges(images, data_format=None):
    """Sobel gradients of each channel, vertical and horizontal.

    Each channel is correlated with the 3x3 Sobel kernels (zero padding, so border
    pixels see zeros outside): `[..., 0]` holds the vertical gradient (row `i + 1` minus
    row `i - 1`, smoothed across columns), `[..., 1]` the horizontal one.

    Args:
        images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
            `data_format="channels_first"`); integers are computed as floats.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The gradients, a float tensor of shape `images.shape + (2,)`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ramp = np.tile(np.arange(4.0), (4, 1)).reshape(4, 4, 1)  # grows to the right
    >>> edges = ops.convert_to_numpy(ops.image.sobel_edges(ramp))
    >>> edges.shape, edges[1:3, 1:3, 0, 0].tolist(), edges[1:3, 1:3, 0, 1].tolist()
    ((4, 4, 1, 2), [[0.0, 0.0], [0.0, 0.0]], [[8.0, 8.0], [8.0, 8.0]])
    """
    images, single = _batched(images, "sobel_edges")
    last = _channels_last(data_format)
    x = _float(images)
    dx = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], "float64")
    edges = [_depthwise(x, dx.T, last), _depthwise(x, dx, last)]
    return _unbatch(lnp.stack(edges, axis=-1), single)


def _gaussian_1d(size, sigma):
    offsets = np.arange(size) - (size - 1) / 2
    kernel = np.exp(-0.5 * (offsets / sigma) ** 2)
    return kernel / kernel.sum()


@composite
def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Each channel blurred with a Gaussian kernel (zero padding, same size).

    The kernel is the outer product of two normalized 1-D Gaussians, so it sums to 1;
    pixels near the border see zeros outside and come out darker.

    Args:
        images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
            `data_format="channels_first"`).
        kernel_size: The kernel's size, `(width, height)` as in Keras (an int for a
            square kernel).
        sigma: The standard deviations, `(along the width, along the height)` (a number
            for both).
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The blurred images, of the shape and dtype of `images`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> impulse = np.zeros((3, 3, 1))
    >>> impulse[1, 1] = 1.0
    >>> y = ops.convert_to_numpy(ops.image.gaussian_blur(impulse))
    >>> np.round(y[:, :, 0].astype(float), 4).tolist()
    [[0.0751, 0.1238, 0.0751], [0.1238, 0.2042, 0.1238], [0.0751, 0.1238, 0.0751]]
    """
    images, single = _batched(images, "gaussian_blur")
    last = _channels_last(data_format)
    ksize, sig = _tuple(kernel_size, 2), tuple(float(s) for s in np.broadcast_to(sigma, (2,)))
    kernel = np.outer(_gaussian_1d(ksize[1], sig[1]), _gaussian_1d(ksize[0], sig[0]))
    x = _float(images)
    return _unbatch(cast(_depthwise(x, kernel, last), dtype(images)), single)


@composite
def ssim(
    image1,
    image2,
    max_val=1.0,
    filter_size=11,
    filter_sigma=1.5,
    k1=0.01,
    k2=0.03,
    data_format=None,
):
    """Structural similarity of two images (batches give one value per pair).

    Local means, variances and covariance come from a `filter_size` Gaussian window of
    `filter_sigma` (valid positions only); the SSIM map
    `(2 mu_x mu_y + c1) (2 sigma_xy + c2) / ((mu_x^2 + mu_y^2 + c1) (sigma_x^2 +
    sigma_y^2 + c2))`, with `c1 = (k1 max_val)^2` and `c2 = (k2 max_val)^2`, is averaged
    over height, width and channels.

    Args:
        image1: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
            `data_format="channels_first"`); `H` and `W` at least `filter_size`.
        image2: Images of the same shape.
        max_val: The dynamic range of the pixel values (1.0 for `[0, 1]`, 255 for
            8-bit images).
        filter_size: The side of the Gaussian window.
        filter_sigma: The standard deviation of the Gaussian window.
        k1: The luminance stabilizing constant.
        k2: The contrast stabilizing constant.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The SSIM, a scalar for one pair of images, shape `(N,)` for batches; 1.0 for
        identical images.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = np.linspace(0.0, 1.0, 64).reshape(8, 8, 1)
    >>> y = ops.image.ssim(x, x, filter_size=3)
    >>> np.round(ops.convert_to_numpy(y).astype(float), 4).tolist()
    1.0
    >>> y = ops.image.ssim(x, 1.0 - x, filter_size=3)
    >>> np.round(ops.convert_to_numpy(y).astype(float), 4).tolist()
    -0.6503
    """
    image1, single = _batched(image1, "ssim")
    image2, _ = _batched(image2, "ssim")
    if shape(image1) != shape(image2):
        raise ValueError(
            f"ssim: the images must have one shape, received {shape(image1)} and {shape(image2)}."
        )
    last = _channels_last(data_format)
    x, y = _float(image1), cast(_float(image2), dtype(_float(image1)))
    window = np.outer(
        _gaussian_1d(filter_size, filter_sigma), _gaussian_1d(filter_size, filter_sigma)
    )

    def blur(v):
        return _depthwise(v, window, last, padding="valid")

    mu_x, mu_y = blur(x), blur(y)
    sigma_x = blur(x * x) - mu_x * mu_x
    sigma_y = blur(y * y) - mu_y * mu_y
    sigma_xy = blur(x * y) - mu_x * mu_y
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    luminance = (2.0 * mu_x * mu_y + c1) / (mu_x * mu_x + mu_y * mu_y + c1)
    structure = (2.0 * sigma_xy + c2) / (sigma_x + sigma_y + c2)
    values = lnp.mean(luminance * structure, axis=(1, 2, 3))
    return values[0] if single else values


def _perspective_coefficients(start_points, end_points):
    """The 8 numbers mapping output pixels (`end_points`) to input pixels (`start_points`)."""
    start, end = _float(start_points), _float(end_points)
    xs, ys = end[..., 0], end[..., 1]
    us, vs = start[..., 0], start[..., 1]
    zeros, ones = lnp.zeros_like(xs), lnp.ones_like(xs)
    rows_u = lnp.stack([xs, ys, ones, zeros, zeros, zeros, -xs * us, -ys * us], axis=-1)
    rows_v = lnp.stack([zeros, zeros, zeros, xs, ys, ones, -xs * vs, -ys * vs], axis=-1)
    matrix = lnp.concatenate([rows_u, rows_v], axis=-2)
    target = lnp.concatenate([us, vs], axis=-1)
    return lnp.squeeze(_solve(matrix, lnp.expand_dims(target, -1)), -1)


@composite
def perspective_transform(
    images, start_points, end_points, interpolation="bilinear", fill_value=0, data_format=None
):
    """`images` warped so that the 4 `start_points` `(x, y)` land on `end_points`.

    The projective transform taking each of the four `end_points` to its
    `start_point` is solved for, and every output pixel takes the input value there
    (as `affine_transform` does); positions outside the input get `fill_value`.

    Args:
        images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
            `data_format="channels_first"`).
        start_points: Four points `(x, y)` (column, row) in the input, shape `(4, 2)`,
            or one set per image `(N, 4, 2)`.
        end_points: Where those points land in the output, of the same shape.
        interpolation: `"bilinear"` (default) or `"nearest"`.
        fill_value: The value of output pixels that come from outside the input.
        data_format: `"channels_last"` or `"channels_first"` (default: the configured
            image data format, `lamina.config.image_data_format()`).

    Returns:
        The warped images, of the shape and dtype of `images`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> corners = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0], [3.0, 3.0]])
    >>> x = np.arange(16.0).reshape(4, 4, 1)
    >>> y = ops.image.perspective_transform(x, corners, corners + [1.0, 0.0])  # 1 px right
    >>> ops.convert_to_numpy(y)[:, :, 0].tolist()
    [[0.0, 0.0, 1.0, 2.0], [0.0, 4.0, 5.0, 6.0], [0.0, 8.0, 9.0, 10.0], [0.0, 12.0, 13.0, 14.0]]
    """
    images, single = _batched(images, "perspective_transform")
    start, end = convert_to_tensor(start_points), convert_to_tensor(end_points)
    if len(shape(start)) == 2:
        start, end = lnp.expand_dims(start, 0), lnp.expand_dims(end, 0)
    if shape(start)[-2:] != (4, 2) or shape(end)[-2:] != (4, 2):
        raise ValueError(
            "perspective_transform: `start_points` and `end_points` must be 4 (x, y) points "
            f"each, shape (4, 2) or (batch, 4, 2); received {shape(start)} and {shape(end)}."
        )
    transform = _perspective_coefficients(start, end)
    if shape(transform)[0] != shape(images)[0]:
        transform = lnp.broadcast_to(transform, (shape(images)[0], 8))
    out = _affine_transform(
        images,
        cast(transform, dtype(_float(images))),
        interpolation=interpolation,
        fill_mode="constant",
        fill_value=fill_value,
        data_format=data_format,
    )
    return _unbatch(out, single)


__all__ = [
    "crop_images",
    "extract_patches",
    "extract_patches_3d",
    "gaussian_blur",
    "hsv_to_rgb",
    "pad_images",
    "perspective_transform",
    "rgb_to_grayscale",
    "rgb_to_hsv",
    "sobel_edges",
    "ssim",
]
