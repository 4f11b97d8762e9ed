"""Xception, as `keras.applications.xception` builds it.

Chollet, "Xception: Deep Learning with Depthwise Separable Convolutions" (CVPR 2017).
Layer names and order follow Keras (`block1_conv1`, `block2_sepconv1`, ...; the
strided 1x1 shortcut convolutions keep Keras's automatic names), so Keras's ImageNet
weights and weights saved from a Keras model load. Inputs are preprocessed in tf mode
(scaled to [-1, 1]); the default input size is 299x299, the smallest 71x71.
"""

from __future__ import annotations

from lamina import backend, layers
from lamina.applications import imagenet_utils
from lamina.models import Model

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/xception/"
FILE_NAMES = (
    "xception_weights_tf_dim_ordering_tf_kernels.h5",
    "xception_weights_tf_dim_ordering_tf_kernels_notop.h5",
)
WEIGHTS_PATH = BASE_WEIGHTS_PATH + FILE_NAMES[0]
WEIGHTS_PATH_NO_TOP = BASE_WEIGHTS_PATH + FILE_NAMES[1]
_HASHES = ("0a58e3b7378bc2990ea3b43d5981f1f6", "b0042744bf5b25fce3cb969f33bebb97")


def _sepconv_bn(x, filters, name, relu_first=True, relu_name=None):
    """(ReLU,) separable 3x3 conv and batch norm, the unit Xception repeats."""
    axis = imagenet_utils.channel_axis()
    if relu_first:
        x = layers.Activation("relu", name=relu_name)(x)
    x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return layers.BatchNormalization(axis=axis, name=f"{name}_bn")(x)


def _downsampling_block(x, filters, block, first_relu=True):
    """Two separable convs and a strided max pool, plus a strided 1x1 conv shortcut."""
    axis = imagenet_utils.channel_axis()
    residual = layers.Conv2D(filters[1], (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
    residual = layers.BatchNormalization(axis=axis)(residual)
    prefix = f"block{block}"
    x = _sepconv_bn(
        x, filters[0], f"{prefix}_sepconv1", first_relu, relu_name=f"{prefix}_sepconv1_act"
    )
    x = _sepconv_bn(x, filters[1], f"{prefix}_sepconv2", relu_name=f"{prefix}_sepconv2_act")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"{prefix}_pool")(x)
    return layers.Add()([x, residual])


def Xception(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="xception",
):
    """Xception (preprocess inputs with `xception.preprocess_input`).

    Args:
        include_top: Whether to end with global average pooling and the `classes`-way
            dense classifier named `predictions`.
        weights: None (random initialization), `"imagenet"` (Keras's ImageNet weights,
            from the cache or downloaded once), or the path of a weights file.
        input_tensor: Optional tensor (e.g. from `lamina.Input`) to use as the input.
        input_shape: Optional `(height, width, channels)`; height and width at least
            71. With `include_top=True` and ImageNet weights it must be (299, 299, 3).
        pooling: With `include_top=False`: None, `"avg"` or `"max"`.
        classes: Number of classes of the top classifier.
        classifier_activation: Activation of the top layer (`None` for logits).
        name: Name of the model.

    Returns:
        A `lamina.Model`.
    """
    imagenet_utils.check_weights_and_classes(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape,
        default_size=299,
        min_size=71,
        data_format=backend.image_data_format(),
        require_flatten=include_top,
        weights=weights,
    )
    which = 0 if include_top else 1
    path = imagenet_utils.weights_path(
        weights, FILE_NAMES[which], BASE_WEIGHTS_PATH + FILE_NAMES[which], _HASHES[which], name
    )
    img_input = imagenet_utils.make_input(input_tensor, input_shape)
    axis = imagenet_utils.channel_axis()

    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(img_input)
    x = layers.BatchNormalization(axis=axis, name="block1_conv1_bn")(x)
    x = layers.Activation("relu", name="block1_conv1_act")(x)
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = layers.BatchNormalization(axis=axis, name="block1_conv2_bn")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(x)

    # Entry flow. Block 2 starts right after an activation, and Keras names its
    # second ReLU `block2_sepconv2_act`.
    x = _downsampling_block(x, (128, 128), 2, first_relu=False)
    x = _downsampling_block(x, (256, 256), 3)
    x = _downsampling_block(x, (728, 728), 4)
    # Middle flow: eight residual blocks of three separable convolutions.
    for i in range(8):
        residual = x
        prefix = f"block{i + 5}"
        for j in (1, 2, 3):
            x = _sepconv_bn(x, 728, f"{prefix}_sepconv{j}", relu_name=f"{prefix}_sepconv{j}_act")
        x = layers.Add()([x, residual])
    # Exit flow.
    x = _downsampling_block(x, (728, 1024), 13)
    x = _sepconv_bn(x, 1536, "block14_sepconv1", relu_first=False)
    x = layers.Activation("relu", name="block14_sepconv1_act")(x)
    x = _sepconv_bn(x, 2048, "block14_sepconv2", relu_first=False)
    x = layers.Activation("relu", name="block14_sepconv2_act")(x)
    if include_top:
        x = imagenet_utils.top_or_pooling(
            x, True, None, classes, classifier_activation, weights, ("avg_pool", None)
        )
    else:
        x = imagenet_utils.top_or_pooling(
            x, False, pooling, classes, classifier_activation, weights, (None, None)
        )
    model = Model(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    return imagenet_utils.finish(model, path)


def preprocess_input(x, data_format=None):
    """Preprocess images for Xception: scale [0, 255] to [-1, 1].

    Args:
        x: Images with values in [0, 255] (array or tensor, 3D or 4D).
        data_format: None (the global setting), `"channels_last"` or `"channels_first"`.

    Returns:
        The preprocessed images.
    """
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds, top=5):
    """Decode ImageNet predictions; see `imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)


imagenet_utils.add_checks_example(71, Xception)
