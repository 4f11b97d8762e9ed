"""`keras.applications.resnet50`: ResNet50 and its pre/post-processing (see `resnet`)."""

from lamina.applications.resnet import ResNet50, decode_predictions, preprocess_input

__all__ = ["ResNet50", "decode_predictions", "preprocess_input"]
