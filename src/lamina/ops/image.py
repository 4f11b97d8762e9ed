"""Image ops: resizing, affine (projective) resampling, patches, colors, filters, warps.

Built from the backend contract (`lamina.backend.contract.IMAGE`), plus the ops written
once from other ops, one module per family (`image_patches`, `image_color`,
`image_crops`, `image_filters`, `image_warps`); all found here, as in `keras.ops.image`.

>>> import numpy as np
>>> from lamina import ops
>>> from lamina.ops import image
>>> ops.convert_to_numpy(image.resize(np.ones((1, 2, 2, 3)), (4, 4))).shape
(1, 4, 4, 3)
"""

from lamina.ops.core import build_ops

_OPS = build_ops("image")
globals().update(_OPS)

# After the contract ops: the families are built from them.
from lamina.ops.image_color import *  # noqa: E402, F403
from lamina.ops.image_color import __all__ as _color_all  # noqa: E402
from lamina.ops.image_crops import *  # noqa: E402, F403
from lamina.ops.image_crops import __all__ as _crops_all  # noqa: E402
from lamina.ops.image_filters import *  # noqa: E402, F403
from lamina.ops.image_filters import __all__ as _filters_all  # noqa: E402
from lamina.ops.image_patches import *  # noqa: E402, F403
from lamina.ops.image_patches import __all__ as _patches_all  # noqa: E402
from lamina.ops.image_warps import *  # noqa: E402, F403
from lamina.ops.image_warps import __all__ as _warps_all  # noqa: E402

__all__ = [*_OPS, *_color_all, *_crops_all, *_filters_all, *_patches_all, *_warps_all]
