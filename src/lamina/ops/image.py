"""Image ops: resizing and affine (projective) resampling.

>>> import numpy as np
>>> from lamina.ops import image
>>> image.resize(np.ones((1, 2, 2, 3)), (4, 4)).shape
(1, 4, 4, 3)
"""

from lamina.backend import image as _b
from lamina.ops.core import _op

resize = _op(_b.resize)
affine_transform = _op(_b.affine_transform)

__all__ = ["affine_transform", "resize"]
