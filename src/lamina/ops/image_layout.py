"""How the image ops take images: one image or a batch, channels first or last.

The shared helpers of the `image_*` op modules: images are batches `(N, H, W, C)` (or
`(N, C, H, W)` with `data_format="channels_first"`), and most ops also take one image.
"""

from __future__ import annotations

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, convert_to_tensor, shape


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
