"""Classic Keras's `keras.objectives`: Keras 1's name for `keras.losses`, which Keras 2
kept. Every loss function and class of `lamina.losses`, by the same names
(`objectives.mse is losses.mse`).

>>> from lamina import losses, objectives
>>> objectives.categorical_crossentropy is losses.categorical_crossentropy
True
"""

from lamina.losses import *  # noqa: F403
from lamina.losses import __all__ as __all__  # noqa: F401
