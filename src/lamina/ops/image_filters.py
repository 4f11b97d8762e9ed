"""Image filters: `sobel_edges`, `gaussian_blur`, and the `ssim` similarity built on a blur.

Depthwise convolutions with small fixed kernels, written once from contract ops.

>>> import numpy as np
>>> from lamina.ops import image
>>> image.gaussian_blur(np.ones((1, 5, 5, 1))).shape
(1, 5, 5, 1)
"""

from __future__ import annotations

import numpy as np

from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, declared_op, shape
from lamina.ops.image_layout import _batched, _channels_last, _float, _tuple, _unbatch

_depthwise_conv = declared_op("nn", "depthwise_conv")


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


__all__ = [
    "gaussian_blur",
    "sobel_edges",
    "ssim",
]
