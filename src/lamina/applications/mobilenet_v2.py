"""MobileNetV2, as `keras.applications.mobilenet_v2` builds it.

Sandler et al., "MobileNetV2: Inverted Residuals and Linear Bottlenecks" (CVPR 2018).
Layer names and order follow Keras (`Conv1`, `block_3_expand`, ...), so Keras's
ImageNet weights and weights saved from a Keras model load. Inputs are preprocessed in
tf mode (scaled to [-1, 1]).
"""

from __future__ import annotations

from lamina import backend, layers
from lamina.applications import imagenet_utils
from lamina.graph.keras_tensor import is_keras_tensor
from lamina.models import Model

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"
_ALPHAS = (0.35, 0.50, 0.75, 1.0, 1.3, 1.4)
_SIZES = (96, 128, 160, 192, 224)
# (filters, stride, expansion) of the 17 inverted residual blocks, in order.
_BLOCKS = (
    [(16, 1, 1)]
    + [(24, 2, 6), (24, 1, 6)]
    + [(32, 2, 6)] + [(32, 1, 6)] * 2
    + [(64, 2, 6)] + [(64, 1, 6)] * 3
    + [(96, 1, 6)] * 3
    + [(160, 2, 6)] + [(160, 1, 6)] * 2
    + [(320, 1, 6)]
)  # fmt: skip


def _bn(name):
    return layers.BatchNormalization(
        axis=imagenet_utils.channel_axis(), epsilon=1e-3, momentum=0.999, name=name
    )


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    """Expand (1x1), depthwise 3x3, project (1x1); a residual add when shapes allow."""
    in_channels = inputs.shape[imagenet_utils.channel_axis()]
    pointwise_filters = imagenet_utils.make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(
            expansion * in_channels, 1, padding="same", use_bias=False, name=f"{prefix}expand"
        )(x)
        x = _bn(f"{prefix}expand_BN")(x)
        x = layers.ReLU(6.0, name=f"{prefix}expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name=f"{prefix}pad")(x)
    x = layers.DepthwiseConv2D(
        3,
        strides=stride,
        use_bias=False,
        padding="same" if stride == 1 else "valid",
        name=f"{prefix}depthwise",
    )(x)
    x = _bn(f"{prefix}depthwise_BN")(x)
    x = layers.ReLU(6.0, name=f"{prefix}depthwise_relu")(x)
    x = layers.Conv2D(
        pointwise_filters, 1, padding="same", use_bias=False, name=f"{prefix}project"
    )(x)
    x = _bn(f"{prefix}project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=f"{prefix}add")([inputs, x])
    return x


def MobileNetV2(
    input_shape=None,
    alpha=1.0,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name=None,
):
    """MobileNetV2 (preprocess inputs with `mobilenet_v2.preprocess_input`).

    Args:
        input_shape: Optional `(height, width, channels)`; height and width at least
            32. With ImageNet weights, a square 96, 128, 160, 192 or 224 picks the
            matching weights file (otherwise the 224 weights, with a warning).
        alpha: Width multiplier: fewer (`< 1`) or more (`> 1`) filters in every layer.
            ImageNet weights exist for 0.35, 0.5, 0.75, 1.0, 1.3 and 1.4.
        include_top: Whether to end with global average pooling and the `classes`-way
            dense classifier named `predictions`.
        weights: None (random initialization), `"imagenet"` (Keras's ImageNet weights,
            from the cache or downloaded once), or the path of a weights file.
        input_tensor: Optional tensor (e.g. from `lamina.Input`) to use as the input.
        pooling: With `include_top=False`: None, `"avg"` or `"max"`.
        classes: Number of classes of the top classifier.
        classifier_activation: Activation of the top layer (`None` for logits).
        name: Name of the model; None gives Keras's `mobilenetv2_{alpha}_{rows}`.

    Returns:
        A `lamina.Model`.
    """
    imagenet_utils.check_weights_and_classes(weights, include_top, classes)
    if input_shape is not None and input_tensor is not None:
        if not is_keras_tensor(input_tensor):
            raise ValueError(
                "MobileNetV2: `input_tensor` must be a symbolic tensor (from lamina.Input). "
                f"Received: {type(input_tensor).__name__}"
            )
        if tuple(input_tensor.shape[1:]) != tuple(input_shape):
            raise ValueError(
                f"MobileNetV2: `input_shape`={tuple(input_shape)} does not match the shape "
                f"of `input_tensor`, {tuple(input_tensor.shape)}. Pass only one of them."
            )
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape,
        default_size=imagenet_utils.square_size(input_shape, input_tensor, _SIZES),
        min_size=32,
        data_format=backend.image_data_format(),
        require_flatten=include_top,
        weights=weights,
    )
    channels_first = backend.image_data_format() == "channels_first"
    rows, cols = input_shape[1:] if channels_first else input_shape[:2]
    if weights == "imagenet":
        if alpha not in _ALPHAS:
            raise ValueError(
                f"MobileNetV2 ImageNet weights exist for alpha in {_ALPHAS}. "
                f"Received: alpha={alpha}. Use weights=None for other widths."
            )
        rows = imagenet_utils.pretrained_size(rows, cols, _SIZES, "MobileNetV2")
    suffix = "" if include_top else "_no_top"
    file_name = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}{suffix}.h5"
    # Keras publishes no hashes for these files.
    path = imagenet_utils.weights_path(
        weights, file_name, BASE_WEIGHT_PATH + file_name, None, "MobileNetV2"
    )
    img_input = imagenet_utils.make_input(input_tensor, input_shape)

    x = layers.Conv2D(
        imagenet_utils.make_divisible(32 * alpha, 8),
        3,
        strides=(2, 2),
        padding="same",
        use_bias=False,
        name="Conv1",
    )(img_input)
    x = _bn("bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(
            x, filters=filters, alpha=alpha, stride=stride, expansion=expansion, block_id=block_id
        )
    last_filters = imagenet_utils.make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_filters, 1, use_bias=False, name="Conv_1")(x)
    x = _bn("Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    x = imagenet_utils.top_or_pooling(
        x, include_top, pooling, classes, classifier_activation, weights, (None, None)
    )
    if name is None:
        name = f"mobilenetv2_{alpha:0.2f}_{rows}"
    model = Model(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    return imagenet_utils.finish(model, path)


def preprocess_input(x, data_format=None):
    """Preprocess images for MobileNetV2: scale [0, 255] to [-1, 1].

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


imagenet_utils.add_checks_example(32, MobileNetV2)
