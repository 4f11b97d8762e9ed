"""Classic Keras's `keras.engine.sequential`: `Sequential`."""

from lamina.models import Sequential

__all__ = ["Sequential"]
