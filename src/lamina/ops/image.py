"""Image ops: resizing, affine (projective) resampling, patches, colors, filters.

Built from the backend contract (`lamina.backend.contract.IMAGE`), plus the ops written
once from other ops in `image_extra` (all found here, as in `keras.ops.image`).

>>> import numpy as np
>>> from lamina.ops import image
>>> image.resize(np.ones((1, 2, 2, 3)), (4, 4)).shape
(1, 4, 4, 3)
"""

from lamina.ops.core import build_ops
from lamina.ops.image_extra import *  # noqa: F403
from lamina.ops.image_extra import __all__ as _extra_all

_OPS = build_ops("image")
globals().update(_OPS)

__all__ = [*_OPS, *_extra_all]
