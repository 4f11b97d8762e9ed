"""EfficientNetV2 B0 to B3, S, M and L, as `keras.applications.efficientnet_v2` builds them.

Tan and Le, "EfficientNetV2: Smaller Models and Faster Training" (ICML 2021).
EfficientNet's mobile inverted bottlenecks (`MBConv`, see `efficientnet`) in the late
stages, and in the early ones "fused" blocks (`FusedMBConv`) whose expansion is a full
3x3 convolution instead of a 1x1 followed by a depthwise one. Layer names and order
follow Keras (`stem_conv`, `block1a_project_conv`, `block4a_dwconv2`, ...), so Keras's
ImageNet weights and weights saved from a Keras model load.

The models take raw images in [0, 255]: the scaling is inside the model
(`include_preprocessing=True`: the ImageNet normalization for B0-B3, a rescaling to
[-1, 1] for S, M and L), so `preprocess_input` returns its input unchanged.

>>> import numpy as np
>>> images = np.full((1, 2, 2, 3), 255.0)
>>> preprocess_input(images) is images
True
"""

from __future__ import annotations

import math

from lamina import backend, layers
from lamina.applications import imagenet_utils
from lamina.applications.efficientnet import CONV_KERNEL_INITIALIZER, DENSE_KERNEL_INITIALIZER
from lamina.models import Model

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/efficientnet_v2/"
# (with top, without top) MD5 hashes of Keras's files, by size.
WEIGHTS_HASHES = {
    "b0": ("21ecbf6da12460d5c40bb2f29ceb2188", "893217f2bb855e2983157299931e43ff"),
    "b1": ("069f0534ff22adf035c89e2d9547a9dc", "0e80663031ca32d657f9caa404b6ec37"),
    "b2": ("424e49f28180edbde1e94797771950a7", "1dfe2e7a5d45b6632553a8961ea609eb"),
    "b3": ("1f1fc43bd98a6e4fd8fdfd551e02c7a0", "f6abf7b5849ac99a89b50dd3fd532856"),
    "s": ("e1d88a8495beba45748fedd0cecbe016", "af0682fb74e8c54910f2d4393339c070"),
    "m": ("a3bf6aa3276309f4fc6a34aa114c95cd", "1b8dc055df72dde80d614482840fe342"),
    "l": ("27e6d408b53c7ebc868fefa357689935", "b0b66b5c863aef5b46e8608fe1711615"),
}


def _stages(*rows):
    keys = ("kernel_size", "num_repeat", "input_filters", "output_filters",
            "expand_ratio", "se_ratio", "strides", "conv_type")  # fmt: skip
    return [dict(zip(keys, row)) for row in rows]


# One dict per stage: conv_type 1 is a fused block, 0 an MBConv block. B1-B3 scale B0's.
_B0 = _stages(
    (3, 1, 32, 16, 1, 0, 1, 1),
    (3, 2, 16, 32, 4, 0, 2, 1),
    (3, 2, 32, 48, 4, 0, 2, 1),
    (3, 3, 48, 96, 4, 0.25, 2, 0),
    (3, 5, 96, 112, 6, 0.25, 1, 0),
    (3, 8, 112, 192, 6, 0.25, 2, 0),
)  # fmt: skip
DEFAULT_BLOCKS_ARGS = {
    "b0": _B0,
    "b1": _B0,
    "b2": _B0,
    "b3": _B0,
    "s": _stages(
        (3, 2, 24, 24, 1, 0, 1, 1),
        (3, 4, 24, 48, 4, 0, 2, 1),
        (3, 4, 48, 64, 4, 0, 2, 1),
        (3, 6, 64, 128, 4, 0.25, 2, 0),
        (3, 9, 128, 160, 6, 0.25, 1, 0),
        (3, 15, 160, 256, 6, 0.25, 2, 0),
    ),
    "m": _stages(
        (3, 3, 24, 24, 1, 0, 1, 1),
        (3, 5, 24, 48, 4, 0, 2, 1),
        (3, 5, 48, 80, 4, 0, 2, 1),
        (3, 7, 80, 160, 4, 0.25, 2, 0),
        (3, 14, 160, 176, 6, 0.25, 1, 0),
        (3, 18, 176, 304, 6, 0.25, 2, 0),
        (3, 5, 304, 512, 6, 0.25, 1, 0),
    ),
    "l": _stages(
        (3, 4, 32, 32, 1, 0, 1, 1),
        (3, 7, 32, 64, 4, 0, 2, 1),
        (3, 7, 64, 96, 4, 0, 2, 1),
        (3, 10, 96, 192, 4, 0.25, 2, 0),
        (3, 19, 192, 224, 6, 0.25, 1, 0),
        (3, 25, 224, 384, 6, 0.25, 2, 0),
        (3, 7, 384, 640, 6, 0.25, 1, 0),
    ),
}  # fmt: skip

# (width, depth, default size) of each size.
_SCALING = {
    "b0": (1.0, 1.0, 224),
    "b1": (1.0, 1.1, 240),
    "b2": (1.1, 1.2, 260),
    "b3": (1.2, 1.4, 300),
    "s": (1.0, 1.0, 384),
    "m": (1.0, 1.0, 480),
    "l": (1.0, 1.0, 480),
}
IMAGENET_MEAN_RGB = [0.485, 0.456, 0.406]
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]


def round_filters(filters, width_coefficient, min_depth, depth_divisor):
    """Scale a filter count by the width and round it to a multiple of `depth_divisor`."""
    filters *= width_coefficient
    minimum = min_depth or depth_divisor
    return int(max(minimum, int(filters + depth_divisor / 2) // depth_divisor * depth_divisor))


def round_repeats(repeats, depth_coefficient):
    """Scale a stage's number of blocks by the depth, rounding up."""
    return int(math.ceil(depth_coefficient * repeats))


def _conv(filters, kernel_size, strides=1, name=None, **kwargs):
    return layers.Conv2D(
        filters,
        kernel_size,
        strides=strides,
        padding="same",
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name=name,
        **kwargs,
    )


def _squeeze_excite(x, filters, input_filters, se_ratio, activation, name):
    """Rescale each channel by a gate computed from the globally pooled features."""
    filters_se = max(1, int(input_filters * se_ratio))
    se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    se_shape = (filters, 1, 1) if imagenet_utils.channel_axis() == 1 else (1, 1, filters)
    se = layers.Reshape(se_shape, name=f"{name}se_reshape")(se)
    se = _conv(filters_se, 1, activation=activation, name=f"{name}se_reduce")(se)
    se = _conv(filters, 1, activation="sigmoid", name=f"{name}se_expand")(se)
    return layers.Multiply(name=f"{name}se_excite")([x, se])


def _residual(x, inputs, strides, input_filters, output_filters, drop_rate, name):
    """Add the block's input when the shapes allow, after stochastic depth in training."""
    if strides == 1 and input_filters == output_filters:
        if drop_rate:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = layers.Add(name=f"{name}add")([x, inputs])
    return x


def mb_conv_block(
    inputs,
    input_filters,
    output_filters,
    expand_ratio=1,
    kernel_size=3,
    strides=1,
    se_ratio=0.0,
    bn_momentum=0.9,
    activation="swish",
    drop_rate=0.0,
    name="",
):
    """Mobile inverted bottleneck: 1x1 expand, depthwise, squeeze-and-excite, 1x1 project."""
    bn_axis = imagenet_utils.channel_axis()

    def bn(suffix):
        return layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum, name=name + suffix)

    filters = input_filters * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = _conv(filters, 1, use_bias=False, name=f"{name}expand_conv")(x)
        x = bn("expand_bn")(x)
        x = layers.Activation(activation, name=f"{name}expand_activation")(x)
    x = layers.DepthwiseConv2D(
        kernel_size,
        strides=strides,
        padding="same",
        use_bias=False,
        depthwise_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}dwconv2",
    )(x)
    x = bn("bn")(x)
    x = layers.Activation(activation, name=f"{name}activation")(x)
    if 0 < se_ratio <= 1:
        x = _squeeze_excite(x, filters, input_filters, se_ratio, activation, name)
    x = _conv(output_filters, 1, use_bias=False, name=f"{name}project_conv")(x)
    x = bn("project_bn")(x)
    return _residual(x, inputs, strides, input_filters, output_filters, drop_rate, name)


def fused_mb_conv_block(
    inputs,
    input_filters,
    output_filters,
    expand_ratio=1,
    kernel_size=3,
    strides=1,
    se_ratio=0.0,
    bn_momentum=0.9,
    activation="swish",
    drop_rate=0.0,
    name="",
):
    """Fused bottleneck: one full convolution expands (or, unexpanded, is the whole block)."""
    bn_axis = imagenet_utils.channel_axis()

    def bn(suffix):
        return layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum, name=name + suffix)

    filters = input_filters * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = _conv(filters, kernel_size, strides, use_bias=False, name=f"{name}expand_conv")(x)
        x = bn("expand_bn")(x)
        x = layers.Activation(activation, name=f"{name}expand_activation")(x)
    if 0 < se_ratio <= 1:
        x = _squeeze_excite(x, filters, input_filters, se_ratio, activation, name)
    # Without expansion the projection is the block's one convolution: full kernel, stride.
    expanded = expand_ratio != 1
    x = _conv(
        output_filters,
        1 if expanded else kernel_size,
        1 if expanded else strides,
        use_bias=False,
        name=f"{name}project_conv",
    )(x)
    x = bn("project_bn")(x)
    if not expanded:
        x = layers.Activation(activation, name=f"{name}project_activation")(x)
    return _residual(x, inputs, strides, input_filters, output_filters, drop_rate, name)


def EfficientNetV2(
    width_coefficient,
    depth_coefficient,
    default_size,
    dropout_rate=0.2,
    drop_connect_rate=0.2,
    depth_divisor=8,
    min_depth=8,
    bn_momentum=0.9,
    activation="swish",
    blocks_args="default",
    name="efficientnetv2",
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    include_preprocessing=True,
    weights_name=None,
):
    """Build an EfficientNetV2 scaled by width and depth coefficients.

    Args:
        width_coefficient: Multiplier of the number of filters.
        depth_coefficient: Multiplier of the number of blocks per stage.
        default_size: The image size the model was designed for.
        dropout_rate: Dropout before the classifier.
        drop_connect_rate: Largest stochastic-depth rate (grows linearly with depth).
        depth_divisor: Filters are rounded to multiples of this.
        min_depth: The fewest filters of any layer.
        bn_momentum: Momentum of the batch normalizations.
        activation: Activation of the blocks.
        blocks_args: `"default"` (the stages of `weights_name`'s size) or a list of
            per-stage dicts like those of `DEFAULT_BLOCKS_ARGS`.
        name, include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation, include_preprocessing: as for `EfficientNetV2B0`.
        weights_name: The size (`"b0"` ... `"b3"`, `"s"`, `"m"`, `"l"`): its default
            stages, its preprocessing and its ImageNet file.

    Returns:
        A `lamina.Model`.
    """
    if weights_name not in DEFAULT_BLOCKS_ARGS and (
        blocks_args == "default" or weights == "imagenet"
    ):
        raise ValueError(
            f"EfficientNetV2: `weights_name` must be one of {list(DEFAULT_BLOCKS_ARGS)} for "
            f"the default stages or ImageNet weights. Received: weights_name={weights_name!r}"
        )
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS[weights_name]
    imagenet_utils.check_weights_and_classes(weights, include_top, classes)
    if pooling not in (None, "avg", "max"):
        raise ValueError(f"`pooling` must be None, 'avg' or 'max'. Received: pooling={pooling!r}")
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape,
        default_size=default_size,
        min_size=32,
        data_format=backend.image_data_format(),
        require_flatten=include_top,
        weights=weights,
    )
    path = weights
    if weights == "imagenet":
        # Keras names the file after the model's default name (`efficientnetv2-b0`).
        file_name = f"efficientnetv2-{weights_name}" + (".h5" if include_top else "_notop.h5")
        path = imagenet_utils.weights_path(
            weights,
            file_name,
            BASE_WEIGHTS_PATH + file_name,
            WEIGHTS_HASHES[weights_name][0 if include_top else 1],
            name,
        )
    img_input = imagenet_utils.make_input(input_tensor, input_shape)
    bn_axis = imagenet_utils.channel_axis()

    def filters(count):
        return round_filters(count, width_coefficient, min_depth, depth_divisor)

    x = img_input
    if include_preprocessing:
        channels = input_shape[0] if bn_axis == 1 else input_shape[-1]
        if str(weights_name).startswith("b") and channels == 3:
            # B0-B3 were trained on ImageNet-normalized images (EfficientNet's).
            x = layers.Rescaling(scale=1.0 / 255)(x)
            x = layers.Normalization(
                mean=IMAGENET_MEAN_RGB,
                variance=[s**2 for s in IMAGENET_STDDEV_RGB],
                axis=bn_axis,
            )(x)
        else:
            x = layers.Rescaling(scale=1.0 / 128.0, offset=-1)(x)

    x = _conv(filters(blocks_args[0]["input_filters"]), 3, 2, use_bias=False, name="stem_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)

    total = float(sum(args["num_repeat"] for args in blocks_args))
    index = 0
    for stage, stage_args in enumerate(blocks_args):
        if stage_args["num_repeat"] <= 0:
            raise ValueError(
                "EfficientNetV2: every stage needs num_repeat > 0. "
                f"Received: num_repeat={stage_args['num_repeat']} in stage {stage}."
            )
        args = dict(stage_args)
        block = fused_mb_conv_block if args.pop("conv_type") == 1 else mb_conv_block
        repeats = round_repeats(args.pop("num_repeat"), depth_coefficient)
        args["input_filters"] = filters(args["input_filters"])
        args["output_filters"] = filters(args["output_filters"])
        for j in range(repeats):
            if j > 0:
                args["strides"] = 1
                args["input_filters"] = args["output_filters"]
            # The rate counts blocks over the unscaled total, as Keras's code does.
            x = block(
                x,
                activation=activation,
                bn_momentum=bn_momentum,
                drop_rate=drop_connect_rate * index / total,
                name=f"block{stage + 1}{chr(j + 97)}_",
                **args,
            )
            index += 1

    x = _conv(filters(1280), 1, use_bias=False, name="top_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(
            classes,
            activation=classifier_activation,
            kernel_initializer=DENSE_KERNEL_INITIALIZER,
            bias_initializer="zeros",
            name="predictions",
        )(x)
    else:
        x = imagenet_utils.top_or_pooling(
            x, False, pooling, classes, classifier_activation, weights, ("avg_pool", "max_pool")
        )
    model = Model(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    return imagenet_utils.finish(model, path)


_ARGS_DOC = """
    Args:
        include_top: Whether to end with global average pooling, dropout and the
            `classes`-way dense classifier named `predictions`.
        weights: None (random initialization), `"imagenet"` (Keras's ImageNet
            weights, from the cache or downloaded once), or the path of a weights file.
        input_tensor: Optional tensor (e.g. from `lamina.Input`) to use as the input.
        input_shape: Optional `(height, width, channels)`; height and width at least 32.
            With `include_top=True` and ImageNet weights it must be the default size.
        pooling: With `include_top=False`: None, `"avg"` or `"max"`.
        classes: Number of classes of the top classifier.
        classifier_activation: Activation of the top layer (`None` for logits).
        include_preprocessing: Whether the model starts with the scaling of [0, 255]
            images that the ImageNet weights expect.
        name: Name of the model.

    Returns:
        A `lamina.Model` taking images with values in [0, 255].
"""


def _variant(key):
    width, depth, size = _SCALING[key]

    def build(
        include_top=True,
        weights="imagenet",
        input_tensor=None,
        input_shape=None,
        pooling=None,
        classes=1000,
        classifier_activation="softmax",
        include_preprocessing=True,
        name=f"efficientnetv2-{key}",
    ):
        return EfficientNetV2(
            width,
            depth,
            size,
            name=name,
            include_top=include_top,
            weights=weights,
            input_tensor=input_tensor,
            input_shape=input_shape,
            pooling=pooling,
            classes=classes,
            classifier_activation=classifier_activation,
            include_preprocessing=include_preprocessing,
            weights_name=key,
        )

    build.__name__ = build.__qualname__ = f"EfficientNetV2{key.upper()}"
    build.__doc__ = (
        f"EfficientNetV2{key.upper()}: width x{width}, depth x{depth}, "
        f"designed for {size}x{size} images.\n" + _ARGS_DOC
    )
    return build


EfficientNetV2B0 = _variant("b0")
EfficientNetV2B1 = _variant("b1")
EfficientNetV2B2 = _variant("b2")
EfficientNetV2B3 = _variant("b3")
EfficientNetV2S = _variant("s")
EfficientNetV2M = _variant("m")
EfficientNetV2L = _variant("l")


def preprocess_input(x, data_format=None):
    """Return `x` unchanged: EfficientNetV2 models scale inside (Keras's no-op).

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


imagenet_utils.add_checks_example(
    32,
    EfficientNetV2B0,
    EfficientNetV2B1,
    EfficientNetV2B2,
    EfficientNetV2B3,
    EfficientNetV2S,
    EfficientNetV2M,
    EfficientNetV2L,
)
