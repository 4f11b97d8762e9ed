"""Image ops: resizing and affine (projective) resampling.

Built from the backend contract (`lamina.backend.contract.IMAGE`).

>>> import numpy as np
>>> from lamina.ops import image
>>> image.resize(np.ones((1, 2, 2, 3)), (4, 4)).shape
(1, 4, 4, 3)
"""

from lamina.ops.core import build_ops

_OPS = build_ops("image")
globals().update(_OPS)

__all__ = list(_OPS)
