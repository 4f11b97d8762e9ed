"""Image functions on JAX arrays: resizing."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from lamina.backend import config

_METHODS = {"bilinear": "bilinear", "nearest": "nearest", "bicubic": "bicubic"}


def resize(images, size, interpolation="bilinear", data_format=None):
    """Resize the spatial axes of `images` (a batch or a single image) to `size`.

    Uses half-pixel centers (as `jax.image.resize`); `"nearest"`, `"bilinear"` or
    `"bicubic"` interpolation; no antialiasing.
    """
    if interpolation not in _METHODS:
        raise ValueError(
            f"resize: unknown interpolation {interpolation!r}; expected one of {list(_METHODS)}."
        )
    data_format = config.standardize_data_format(data_format)
    images = jnp.asarray(images)
    size = tuple(int(s) for s in size)
    if images.ndim < len(size) + 1:
        raise ValueError(
            f"resize: images of rank {images.ndim} cannot be resized to {len(size)} spatial "
            "dimensions (need at least a channel axis as well)."
        )
    shape = list(images.shape)
    n = len(size)
    if data_format == "channels_last":
        shape[-n - 1 : -1] = size
    else:
        shape[-n:] = size
    dtype = images.dtype
    if not jnp.issubdtype(dtype, jnp.floating):
        images = images.astype("float32")
    out = jax.image.resize(images, tuple(shape), method=_METHODS[interpolation], antialias=False)
    return out.astype(dtype) if out.dtype != dtype and jnp.issubdtype(dtype, jnp.floating) else out
