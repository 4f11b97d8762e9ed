"""MobileNetV3Small and MobileNetV3Large, as `keras.applications.mobilenet_v3` builds them.

Howard et al., "Searching for MobileNetV3" (ICCV 2019): MobileNetV2's inverted residual
blocks (see `mobilenet_v2`) with squeeze-and-excitation and the hard-swish activation,
in the two sizes the architecture search found. The `minimalistic` variants drop
squeeze-and-excitation, hard-swish and the 5x5 depthwise kernels. Layer names and order
follow Keras (`conv`, `expanded_conv_3_depthwise`, ..., `logits`), so Keras's ImageNet
weights and weights saved from a Keras model load.

The models take raw images in [0, 255]: the rescaling to [-1, 1] is a `Rescaling` layer
inside the model (`include_preprocessing=True`), so `preprocess_input` returns its input
unchanged.

>>> import numpy as np
>>> images = np.full((1, 2, 2, 3), 255.0)
>>> preprocess_input(images) is images
True
"""

from __future__ import annotations

from lamina import backend, layers
from lamina.applications import imagenet_utils
from lamina.graph.keras_tensor import is_keras_tensor
from lamina.models import Model

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/"
# (with top, without top) MD5 hashes of Keras's files, by model type, variant and alpha.
WEIGHTS_HASHES = {
    "large_224_0.75_float": (
        "765b44a33ad4005b3ac83185abf1d0eb",
        "40af19a13ebea4e2ee0c676887f69a2e",
    ),
    "large_224_1.0_float": (
        "59e551e166be033d707958cf9e29a6a7",
        "07fb09a5933dd0c8eaafa16978110389",
    ),
    "large_minimalistic_224_1.0_float": (
        "675e7b876c45c57e9e63e6d90a36599c",
        "ec5221f64a2f6d1ef965a614bdae7973",
    ),
    "small_224_0.75_float": (
        "cb65d4e5be93758266aa0a7f2c6708b7",
        "ebdb5cc8e0b497cd13a7c275d475c819",
    ),
    "small_224_1.0_float": (
        "8768d4c2e7dee89b9d02b2d03d65d862",
        "d3e8ec802a04aa4fc771ee12a9a9b836",
    ),
    "small_minimalistic_224_1.0_float": (
        "99cd97fb2fcdad2bf028eb838de69e37",
        "cde8136e733e811080d9fcd8a252f7e4",
    ),
}

# The inverted residual blocks, in order: (expansion, filters, kernel, stride,
# squeeze-excite, activation). Kernel "k" is 5 (3 when minimalistic); squeeze-excite
# blocks and activation "hs" (hard-swish) fall back to none and ReLU when minimalistic.
_SMALL_BLOCKS = (
    [(1, 16, 3, 2, True, "relu"), (72 / 16, 24, 3, 2, False, "relu")]
    + [(88 / 24, 24, 3, 1, False, "relu"), (4, 40, "k", 2, True, "hs")]
    + [(6, 40, "k", 1, True, "hs")] * 2
    + [(3, 48, "k", 1, True, "hs")] * 2
    + [(6, 96, "k", 2, True, "hs")] + [(6, 96, "k", 1, True, "hs")] * 2
)  # fmt: skip
_LARGE_BLOCKS = (
    [(1, 16, 3, 1, False, "relu"), (4, 24, 3, 2, False, "relu"), (3, 24, 3, 1, False, "relu")]
    + [(3, 40, "k", 2, True, "relu")] + [(3, 40, "k", 1, True, "relu")] * 2
    + [(6, 80, 3, 2, False, "hs"), (2.5, 80, 3, 1, False, "hs")]
    + [(2.3, 80, 3, 1, False, "hs")] * 2
    + [(6, 112, 3, 1, True, "hs")] * 2
    + [(6, 160, "k", 2, True, "hs")] + [(6, 160, "k", 1, True, "hs")] * 2
)  # fmt: skip


def _relu(x):
    return layers.ReLU()(x)


def _hard_swish(x):
    return layers.Activation("hard_swish")(x)


def _hard_sigmoid(x):
    # Graph ops around a ReLU6 layer, not a layer of its own: Keras's layer list.
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def _bn(name):
    return layers.BatchNormalization(
        axis=imagenet_utils.channel_axis(), epsilon=1e-3, momentum=0.999, name=name
    )


def _squeeze_excite(inputs, filters, se_ratio, prefix):
    """Rescale each channel by a gate computed from the globally pooled features."""
    x = layers.GlobalAveragePooling2D(keepdims=True, name=f"{prefix}squeeze_excite_avg_pool")(
        inputs
    )
    x = layers.Conv2D(
        imagenet_utils.make_divisible(filters * se_ratio),
        kernel_size=1,
        padding="same",
        name=f"{prefix}squeeze_excite_conv",
    )(x)
    x = layers.ReLU(name=f"{prefix}squeeze_excite_relu")(x)
    x = layers.Conv2D(
        filters, kernel_size=1, padding="same", name=f"{prefix}squeeze_excite_conv_1"
    )(x)
    x = _hard_sigmoid(x)
    return layers.Multiply(name=f"{prefix}squeeze_excite_mul")([inputs, x])


def _inverted_res_block(x, expansion, filters, kernel_size, stride, se_ratio, activation, block_id):
    """Expand (1x1), depthwise, optional squeeze-excite, project (1x1); add when shapes allow."""
    shortcut = x
    in_channels = x.shape[imagenet_utils.channel_axis()]
    expanded = imagenet_utils.make_divisible(in_channels * expansion)
    prefix = "expanded_conv_"
    if block_id:
        prefix = f"expanded_conv_{block_id}_"
        x = layers.Conv2D(expanded, 1, padding="same", use_bias=False, name=f"{prefix}expand")(x)
        x = activation(_bn(f"{prefix}expand_bn")(x))
    if stride == 2:
        x = layers.ZeroPadding2D(
            padding=imagenet_utils.correct_pad(x, kernel_size), name=f"{prefix}depthwise_pad"
        )(x)
    x = layers.DepthwiseConv2D(
        kernel_size,
        strides=stride,
        padding="same" if stride == 1 else "valid",
        use_bias=False,
        name=f"{prefix}depthwise",
    )(x)
    x = activation(_bn(f"{prefix}depthwise_bn")(x))
    if se_ratio:
        x = _squeeze_excite(x, expanded, se_ratio, prefix)
    x = layers.Conv2D(filters, 1, padding="same", use_bias=False, name=f"{prefix}project")(x)
    x = _bn(f"{prefix}project_bn")(x)
    if stride == 1 and in_channels == filters:
        x = layers.Add(name=f"{prefix}add")([shortcut, x])
    return x


def _input_shape(input_shape, input_tensor, model_name):
    """The input shape as Keras's MobileNetV3 finds it: given, the tensor's, or any size."""
    channels_first = backend.image_data_format() == "channels_first"
    if input_tensor is not None and input_shape is not None:
        if not is_keras_tensor(input_tensor):
            raise ValueError(
                f"{model_name}: with `input_shape`, `input_tensor` must be a symbolic tensor "
                f"(from lamina.Input). Received: {type(input_tensor).__name__}"
            )
        # Keras compares the widths only.
        axis = 3 if channels_first else 2
        if input_tensor.shape[axis] != tuple(input_shape)[axis - 1]:
            raise ValueError(
                f"{model_name}: `input_shape`={tuple(input_shape)} does not match the shape "
                f"of `input_tensor`, {tuple(input_tensor.shape)}. Pass only one of them."
            )
    if input_shape is None and input_tensor is not None and is_keras_tensor(input_tensor):
        input_shape = tuple(input_tensor.shape[1:])
    if input_shape is None:
        input_shape = (3, None, None) if channels_first else (None, None, 3)
    input_shape = tuple(input_shape)
    rows, cols = input_shape[1:3] if channels_first else input_shape[:2]
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(
            f"{model_name}: input size must be at least 32x32. Received: input_shape={input_shape}"
        )
    return input_shape, rows, cols


def _mobilenet_v3(
    blocks,
    last_point_channels,
    model_type,
    *,
    input_shape,
    alpha,
    minimalistic,
    include_top,
    weights,
    input_tensor,
    classes,
    pooling,
    dropout_rate,
    classifier_activation,
    include_preprocessing,
    name,
):
    """The network both sizes share, around their table of blocks."""
    imagenet_utils.check_weights_and_classes(weights, include_top, classes)
    model_name = f"MobileNetV3{model_type.capitalize()}"
    input_shape, rows, cols = _input_shape(input_shape, input_tensor, model_name)
    path = weights
    if weights == "imagenet":
        if alpha not in ((1.0,) if minimalistic else (0.75, 1.0)):
            raise ValueError(
                f"{model_name} ImageNet weights exist for alpha 0.75 and 1.0, and for 1.0 "
                f"only when minimalistic. Received: alpha={alpha}, "
                f"minimalistic={minimalistic}. Use weights=None for other widths."
            )
        imagenet_utils.pretrained_size(rows, cols, (224,), model_name)
        variant = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{float(alpha)}_float"
        file_name = f"weights_mobilenet_v3_{variant}{'' if include_top else '_no_top_v2'}.h5"
        path = imagenet_utils.weights_path(
            weights,
            file_name,
            BASE_WEIGHT_PATH + file_name,
            WEIGHTS_HASHES[variant][0 if include_top else 1],
            model_name,
        )
    img_input = imagenet_utils.make_input(input_tensor, input_shape)
    if minimalistic:
        kernel, activation, se_ratio = 3, _relu, None
    else:
        kernel, activation, se_ratio = 5, _hard_swish, 0.25

    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, 3, strides=(2, 2), padding="same", use_bias=False, name="conv")(x)
    x = activation(_bn("conv_bn")(x))
    for block_id, (expansion, filters, size, stride, se, act) in enumerate(blocks):
        x = _inverted_res_block(
            x,
            expansion,
            imagenet_utils.make_divisible(filters * alpha),
            kernel if size == "k" else size,
            stride,
            se_ratio if se else None,
            activation if act == "hs" else _relu,
            block_id,
        )
    last_conv_channels = imagenet_utils.make_divisible(x.shape[imagenet_utils.channel_axis()] * 6)
    if alpha > 1.0:
        last_point_channels = imagenet_utils.make_divisible(last_point_channels * alpha)
    x = layers.Conv2D(last_conv_channels, 1, padding="same", use_bias=False, name="conv_1")(x)
    x = activation(_bn("conv_1_bn")(x))
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_channels, 1, padding="same", name="conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, 1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.top_or_pooling(
            x, False, pooling, classes, classifier_activation, weights, ("avg_pool", "max_pool")
        )
    model = Model(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    return imagenet_utils.finish(model, path)


_ARGS_DOC = """
    Args:
        input_shape: Optional `(height, width, channels)`; height and width at least
            32 (None for any size). ImageNet weights were trained on 224x224 inputs.
        alpha: Width multiplier: fewer (`< 1`) or more (`> 1`) filters in every layer.
            ImageNet weights exist for 0.75 and 1.0 (1.0 only when minimalistic).
        minimalistic: Whether to use the variant without squeeze-and-excitation,
            hard-swish and 5x5 kernels (faster on some hardware).
        include_top: Whether to end with global average pooling, the 1x1 convolutions
            `conv_2` and `logits` (the classifier) and the `predictions` activation.
        weights: None (random initialization), `"imagenet"` (Keras's ImageNet weights,
            from the cache or downloaded once), or the path of a weights file.
        input_tensor: Optional tensor (e.g. from `lamina.Input`) to use as the input.
        classes: Number of classes of the top classifier.
        pooling: With `include_top=False`: None, `"avg"` or `"max"`.
        dropout_rate: Dropout rate before the classifier (0 for none).
        classifier_activation: Activation of the top layer (`None` for logits).
        include_preprocessing: Whether the model starts with a `Rescaling` layer that
            maps [0, 255] inputs to [-1, 1] (as the ImageNet weights expect).
        name: Name of the model.

    Returns:
        A `lamina.Model`.
"""


def MobileNetV3Small(
    input_shape=None,
    alpha=1.0,
    minimalistic=False,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    classes=1000,
    pooling=None,
    dropout_rate=0.2,
    classifier_activation="softmax",
    include_preprocessing=True,
    name="MobileNetV3Small",
):
    return _mobilenet_v3(
        _SMALL_BLOCKS,
        1024,
        "small",
        input_shape=input_shape,
        alpha=alpha,
        minimalistic=minimalistic,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        classes=classes,
        pooling=pooling,
        dropout_rate=dropout_rate,
        classifier_activation=classifier_activation,
        include_preprocessing=include_preprocessing,
        name=name,
    )


def MobileNetV3Large(
    input_shape=None,
    alpha=1.0,
    minimalistic=False,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    classes=1000,
    pooling=None,
    dropout_rate=0.2,
    classifier_activation="softmax",
    include_preprocessing=True,
    name="MobileNetV3Large",
):
    return _mobilenet_v3(
        _LARGE_BLOCKS,
        1280,
        "large",
        input_shape=input_shape,
        alpha=alpha,
        minimalistic=minimalistic,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        classes=classes,
        pooling=pooling,
        dropout_rate=dropout_rate,
        classifier_activation=classifier_activation,
        include_preprocessing=include_preprocessing,
        name=name,
    )


MobileNetV3Small.__doc__ = (
    "MobileNetV3Small: 11 inverted residual blocks, for low-resource devices.\n" + _ARGS_DOC
)
MobileNetV3Large.__doc__ = (
    "MobileNetV3Large: 15 inverted residual blocks, for higher accuracy.\n" + _ARGS_DOC
)


def preprocess_input(x, data_format=None):
    """Return `x` unchanged: MobileNetV3 rescales inside the model (Keras's no-op).

    Args:
        x: Images with values in [0, 255] (array or tensor).
        data_format: Unused; accepted for the same signature as the other families.

    Returns:
        `x` itself.
    """
    return x


def decode_predictions(preds, top=5):
    """Decode ImageNet predictions; see `imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)


imagenet_utils.add_checks_example(32, MobileNetV3Small, MobileNetV3Large)
