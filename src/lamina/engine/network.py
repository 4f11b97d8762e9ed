"""Classic Keras's `keras.engine.network`: `Network` (lamina's `Model`) and
`get_source_inputs`."""

from lamina.models import Model as Network
from lamina.utils import get_source_inputs

__all__ = ["Network", "get_source_inputs"]
