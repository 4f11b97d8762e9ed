"""Classic Keras's `keras.utils.vis_utils`: `model_to_dot` and `plot_model` (the same
functions as `lamina.utils`)."""

from lamina.utils.model_visualization import model_to_dot, plot_model

__all__ = ["model_to_dot", "plot_model"]
