"""VGG19, as `keras.applications.vgg19` builds it.

Simonyan and Zisserman, "Very Deep Convolutional Networks for Large-Scale Image
Recognition" (ICLR 2015): VGG16's network (see `vgg16`) with four convolutions instead
of three in each of the last three blocks (`block3_conv4`, `block4_conv4`,
`block5_conv4`). Layer names follow Keras, so Keras's ImageNet weights and weights saved
from a Keras model load. Inputs are preprocessed in caffe mode (RGB to BGR, minus the
ImageNet channel means).

>>> import numpy as np
>>> preprocess_input(np.zeros((1, 1, 1, 3))).ravel().tolist()
[-103.939, -116.779, -123.68]
"""

from __future__ import annotations

from lamina.applications import imagenet_utils
from lamina.applications.vgg16 import build_vgg

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/vgg19/"
FILE_NAMES = (
    "vgg19_weights_tf_dim_ordering_tf_kernels.h5",
    "vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5",
)
WEIGHTS_PATH = BASE_WEIGHTS_PATH + FILE_NAMES[0]
WEIGHTS_PATH_NO_TOP = BASE_WEIGHTS_PATH + FILE_NAMES[1]
_HASHES = ("cbe5617147190e668d6c5d5026f83318", "253f8cb515780f3b799900260a226db6")


def VGG19(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="vgg19",
):
    """VGG19: 16 3x3 convolutions in five blocks, then three dense layers.

    Preprocess inputs with `vgg19.preprocess_input`.

    Args:
        include_top: Whether to end with `flatten`, the 4096-unit `fc1` and `fc2`, and
            the `classes`-way `predictions` layer.
        weights: None (random initialization), `"imagenet"` (Keras's ImageNet weights,
            from the cache or downloaded once), or the path of a weights file.
        input_tensor: Optional tensor (e.g. from `lamina.Input`) to use as the input.
        input_shape: Optional `(height, width, channels)`; height and width at least
            32. With `include_top=True` and ImageNet weights it must be (224, 224, 3).
        pooling: With `include_top=False`: None, `"avg"` or `"max"`.
        classes: Number of classes of the top classifier.
        classifier_activation: Activation of the top layer (`None` for logits).
        name: Name of the model.

    Returns:
        A `lamina.Model`.
    """
    return build_vgg(
        (2, 2, 4, 4, 4),
        (BASE_WEIGHTS_PATH, FILE_NAMES, _HASHES),
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        input_shape=input_shape,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
        name=name,
    )


def preprocess_input(x, data_format=None):
    """Preprocess images for VGG19: RGB to BGR, minus the ImageNet channel means.

    Args:
        x: Images with values in [0, 255] (array or tensor, 3D or 4D).
        data_format: None (the global setting), `"channels_last"` or `"channels_first"`.

    Returns:
        The preprocessed images.
    """
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds, top=5):
    """Decode ImageNet predictions; see `imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)


imagenet_utils.add_checks_example(32, VGG19)
