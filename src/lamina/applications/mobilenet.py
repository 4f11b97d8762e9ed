"""MobileNet (v1), as `keras.applications.mobilenet` builds it.

Howard et al., "MobileNets: Efficient Convolutional Neural Networks for Mobile Vision
Applications" (2017): a strided 3x3 convolution, then 13 depthwise-separable blocks
(depthwise 3x3, pointwise 1x1, each with batch norm and ReLU6). Layer names and order
follow Keras (`conv1`, `conv_dw_1`, `conv_pw_1`, ..., `conv_preds`), so Keras's ImageNet
weights and weights saved from a Keras model load. Inputs are preprocessed in tf mode
(scaled to [-1, 1]).

>>> import numpy as np
>>> preprocess_input(np.array([[[[0.0, 127.5, 255.0]]]])).ravel().tolist()
[-1.0, 0.0, 1.0]
"""

from __future__ import annotations

from lamina import backend, layers
from lamina.applications import imagenet_utils
from lamina.models import Model

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"
_ALPHAS = {0.25: "2_5", 0.50: "5_0", 0.75: "7_5", 1.0: "1_0"}  # alpha -> file name part
_SIZES = (128, 160, 192, 224)
# (pointwise filters, stride) of the 13 depthwise-separable blocks, in order.
_BLOCKS = (
    [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)]
    + [(512, 1)] * 5
    + [(1024, 2), (1024, 1)]
)  # fmt: skip


def _depthwise_separable_block(x, filters, alpha, depth_multiplier, stride, block_id):
    """Depthwise 3x3 then pointwise 1x1, each followed by batch norm and ReLU6."""
    axis = imagenet_utils.channel_axis()
    if stride == 2:
        # Pad bottom and right only: TF's "same" for a stride-2 3x3 on even sizes.
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D(
        (3, 3),
        padding="same" if stride == 1 else "valid",
        depth_multiplier=depth_multiplier,
        strides=stride,
        use_bias=False,
        name=f"conv_dw_{block_id}",
    )(x)
    x = layers.BatchNormalization(axis=axis, name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(
        int(filters * alpha), (1, 1), padding="same", use_bias=False, name=f"conv_pw_{block_id}"
    )(x)
    x = layers.BatchNormalization(axis=axis, name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def MobileNet(
    input_shape=None,
    alpha=1.0,
    depth_multiplier=1,
    dropout=1e-3,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name=None,
):
    """MobileNet (v1) (preprocess inputs with `mobilenet.preprocess_input`).

    Args:
        input_shape: Optional `(height, width, channels)`; height and width at least
            32. With ImageNet weights, a square 128, 160, 192 or 224 picks the matching
            weights file (otherwise the 224 weights, with a warning).
        alpha: Width multiplier: fewer (`< 1`) or more (`> 1`) filters in every layer.
            ImageNet weights exist for 0.25, 0.5, 0.75 and 1.0.
        depth_multiplier: Depthwise channels per input channel (the resolution
            multiplier of the paper); ImageNet weights need 1.
        dropout: Dropout rate before the classifier.
        include_top: Whether to end with global average pooling, dropout and the
            `classes`-way 1x1 convolution `conv_preds` (the classifier).
        weights: None (random initialization), `"imagenet"` (Keras's ImageNet weights,
            from the cache or downloaded once), or the path of a weights file.
        input_tensor: Optional tensor (e.g. from `lamina.Input`) to use as the input.
        pooling: With `include_top=False`: None, `"avg"` or `"max"`.
        classes: Number of classes of the top classifier.
        classifier_activation: Activation of the top layer (`None` for logits).
        name: Name of the model; None gives Keras's `mobilenet_{alpha}_{rows}`.

    Returns:
        A `lamina.Model`.
    """
    imagenet_utils.check_weights_and_classes(weights, include_top, classes)
    # As in Keras, only `input_shape` (not `input_tensor`) picks the default size.
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape,
        default_size=imagenet_utils.square_size(input_shape, None, _SIZES),
        min_size=32,
        data_format=backend.image_data_format(),
        require_flatten=include_top,
        weights=weights,
    )
    channels_first = backend.image_data_format() == "channels_first"
    rows, cols = input_shape[1:] if channels_first else input_shape[:2]
    path = weights
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError(
                "MobileNet ImageNet weights need depth_multiplier=1. Received: "
                f"depth_multiplier={depth_multiplier}. Use weights=None for other values."
            )
        if alpha not in _ALPHAS:
            raise ValueError(
                f"MobileNet ImageNet weights exist for alpha in {tuple(_ALPHAS)}. "
                f"Received: alpha={alpha}. Use weights=None for other widths."
            )
        rows = imagenet_utils.pretrained_size(rows, cols, _SIZES, "MobileNet")
        suffix = "" if include_top else "_no_top"
        file_name = f"mobilenet_{_ALPHAS[alpha]}_{rows}_tf{suffix}.h5"
        # Keras publishes no hashes for these files.
        path = imagenet_utils.weights_path(
            weights, file_name, BASE_WEIGHT_PATH + file_name, None, "MobileNet"
        )
    img_input = imagenet_utils.make_input(input_tensor, input_shape)

    x = layers.Conv2D(
        int(32 * alpha), (3, 3), padding="same", use_bias=False, strides=(2, 2), name="conv1"
    )(img_input)
    x = layers.BatchNormalization(axis=imagenet_utils.channel_axis(), name="conv1_bn")(x)
    x = layers.ReLU(6.0, name="conv1_relu")(x)
    for block_id, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = _depthwise_separable_block(x, filters, alpha, depth_multiplier, stride, block_id)
    if include_top:
        # The classifier is a 1x1 convolution on the pooled (1, 1) map, as in Keras.
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.top_or_pooling(
            x, False, pooling, classes, classifier_activation, weights, (None, None)
        )
    if name is None:
        name = f"mobilenet_{alpha:0.2f}_{rows}"
    model = Model(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    return imagenet_utils.finish(model, path)


def preprocess_input(x, data_format=None):
    """Preprocess images for MobileNet: scale [0, 255] to [-1, 1].

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


imagenet_utils.add_checks_example(32, MobileNet)
