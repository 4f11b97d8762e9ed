"""EfficientNet B0 to B7, as `keras.applications.efficientnet` builds them.

Tan and Le, "EfficientNet: Rethinking Model Scaling for Convolutional Neural Networks"
(ICML 2019). The models take raw images in [0, 255]: rescaling and normalization are
layers inside the model, so `preprocess_input` returns its input unchanged. Layer names
and order follow Keras (`stem_conv`, `block2a_expand_conv`, ...), so Keras's ImageNet
weights and weights saved from a Keras model load.
"""

from __future__ import annotations

import math

from lamina import backend, layers
from lamina.applications import imagenet_utils
from lamina.models import Model

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/keras-applications/"
# (with top, without top) MD5 hashes of Keras's files.
WEIGHTS_HASHES = {
    "b0": ("902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"),
    "b1": ("1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"),
    "b2": ("b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"),
    "b3": ("ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"),
    "b4": ("18c95ad55216b8f92d7e70b3a046e2fc", "ebc24e6d6c33eaebbd558eafbeedf1ba"),
    "b5": ("ace28f2a6363774853a83a0b21b9421a", "38879255a25d3c92d5e44e04ae6cec6f"),
    "b6": ("165f6e37dce68623721b423839de8be5", "9ecce42647a20130c1f39a5d4cb75743"),
    "b7": ("8c03f828fec3ef71311cd463b6759d99", "cbcfe4450ddf6f3ad90b1b398090fe4a"),
}

# One dict per stage of the B0 network; the other sizes scale filters and repeats.
DEFAULT_BLOCKS_ARGS = [
    {"kernel_size": k, "repeats": r, "filters_in": fi, "filters_out": fo,
     "expand_ratio": e, "id_skip": True, "strides": s, "se_ratio": 0.25}
    for k, r, fi, fo, e, s in (
        (3, 1, 32, 16, 1, 1),
        (3, 2, 16, 24, 6, 2),
        (5, 2, 24, 40, 6, 2),
        (3, 3, 40, 80, 6, 2),
        (5, 3, 80, 112, 6, 1),
        (5, 4, 112, 192, 6, 2),
        (3, 1, 192, 320, 6, 1),
    )
]  # fmt: skip

CONV_KERNEL_INITIALIZER = {
    "class_name": "VarianceScaling",
    "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"},
}
DENSE_KERNEL_INITIALIZER = {
    "class_name": "VarianceScaling",
    "config": {"scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"},
}
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]


def block(
    inputs,
    activation="swish",
    drop_rate=0.0,
    name="",
    filters_in=32,
    filters_out=16,
    kernel_size=3,
    strides=1,
    expand_ratio=1,
    se_ratio=0.0,
    id_skip=True,
):
    """One mobile inverted bottleneck: expand, depthwise, squeeze-and-excite, project."""
    bn_axis = imagenet_utils.channel_axis()
    filters = filters_in * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = layers.Conv2D(
            filters,
            1,
            padding="same",
            use_bias=False,
            kernel_initializer=CONV_KERNEL_INITIALIZER,
            name=f"{name}expand_conv",
        )(x)
        x = layers.BatchNormalization(axis=bn_axis, name=f"{name}expand_bn")(x)
        x = layers.Activation(activation, name=f"{name}expand_activation")(x)
    if strides == 2:
        x = layers.ZeroPadding2D(
            padding=imagenet_utils.correct_pad(x, kernel_size), name=f"{name}dwconv_pad"
        )(x)
    x = layers.DepthwiseConv2D(
        kernel_size,
        strides=strides,
        padding="valid" if strides == 2 else "same",
        use_bias=False,
        depthwise_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}dwconv",
    )(x)
    x = layers.BatchNormalization(axis=bn_axis, name=f"{name}bn")(x)
    x = layers.Activation(activation, name=f"{name}activation")(x)
    if 0 < se_ratio <= 1:
        filters_se = max(1, int(filters_in * se_ratio))
        se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
        se_shape = (filters, 1, 1) if bn_axis == 1 else (1, 1, filters)
        se = layers.Reshape(se_shape, name=f"{name}se_reshape")(se)
        se = layers.Conv2D(
            filters_se,
            1,
            padding="same",
            activation=activation,
            kernel_initializer=CONV_KERNEL_INITIALIZER,
            name=f"{name}se_reduce",
        )(se)
        se = layers.Conv2D(
            filters,
            1,
            padding="same",
            activation="sigmoid",
            kernel_initializer=CONV_KERNEL_INITIALIZER,
            name=f"{name}se_expand",
        )(se)
        x = layers.Multiply(name=f"{name}se_excite")([x, se])
    x = layers.Conv2D(
        filters_out,
        1,
        padding="same",
        use_bias=False,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}project_conv",
    )(x)
    x = layers.BatchNormalization(axis=bn_axis, name=f"{name}project_bn")(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            # Stochastic depth: drop the whole residual branch per sample.
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = layers.Add(name=f"{name}add")([x, inputs])
    return x


def EfficientNet(
    width_coefficient,
    depth_coefficient,
    default_size,
    dropout_rate=0.2,
    drop_connect_rate=0.2,
    depth_divisor=8,
    activation="swish",
    blocks_args="default",
    name="efficientnet",
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    weights_name=None,
):
    """Build an EfficientNet scaled by width and depth coefficients.

    Args:
        width_coefficient: Multiplier of the number of filters.
        depth_coefficient: Multiplier of the number of blocks per stage.
        default_size: The image size the model was designed for.
        dropout_rate: Dropout before the classifier.
        drop_connect_rate: Largest stochastic-depth rate (grows linearly with depth).
        depth_divisor: Filters are rounded to multiples of this.
        activation: Activation of the blocks.
        blocks_args: `"default"` or a list of per-stage dicts like `DEFAULT_BLOCKS_ARGS`.
        name, include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation: as for `EfficientNetB0`.
        weights_name: Key of Keras's ImageNet file in `WEIGHTS_HASHES`.

    Returns:
        A `lamina.Model`.
    """
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS
    imagenet_utils.check_weights_and_classes(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape,
        default_size=default_size,
        min_size=32,
        data_format=backend.image_data_format(),
        require_flatten=include_top,
        weights=weights,
    )
    file_name = name + ("" if include_top else "_notop") + ".h5"
    hashes = WEIGHTS_HASHES.get(weights_name)
    if weights == "imagenet" and hashes is None:
        raise ValueError(f"No ImageNet weights are known for {name!r}. Use weights=None.")
    path = imagenet_utils.weights_path(
        weights,
        file_name,
        BASE_WEIGHTS_PATH + file_name,
        hashes and hashes[0 if include_top else 1],
        name,
    )
    img_input = imagenet_utils.make_input(input_tensor, input_shape)
    bn_axis = imagenet_utils.channel_axis()

    def round_filters(filters):
        filters *= width_coefficient
        rounded = max(
            depth_divisor, int(filters + depth_divisor / 2) // depth_divisor * depth_divisor
        )
        return int(rounded + depth_divisor if rounded < 0.9 * filters else rounded)

    def round_repeats(repeats):
        return int(math.ceil(depth_coefficient * repeats))

    x = layers.Rescaling(1.0 / 255.0)(img_input)
    x = layers.Normalization(axis=bn_axis)(x)
    if weights == "imagenet":
        # Keras's ImageNet weights store the variance where the original code divided
        # by the standard deviation; this layer restores the intended scaling.
        x = layers.Rescaling([1.0 / math.sqrt(stddev) for stddev in IMAGENET_STDDEV_RGB])(x)
    x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(
        round_filters(32),
        3,
        strides=2,
        padding="valid",
        use_bias=False,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name="stem_conv",
    )(x)
    x = layers.BatchNormalization(axis=bn_axis, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)

    total = float(sum(round_repeats(args["repeats"]) for args in blocks_args))
    index = 0
    for stage, stage_args in enumerate(blocks_args):
        if stage_args["repeats"] <= 0:
            raise ValueError(
                "EfficientNet: every stage needs repeats > 0. "
                f"Received: repeats={stage_args['repeats']} in stage {stage}."
            )
        args = dict(stage_args)
        repeats = round_repeats(args.pop("repeats"))
        args["filters_in"] = round_filters(args["filters_in"])
        args["filters_out"] = round_filters(args["filters_out"])
        for j in range(repeats):
            if j > 0:
                args["strides"] = 1
                args["filters_in"] = args["filters_out"]
            x = block(
                x,
                activation,
                drop_connect_rate * index / total,
                name=f"block{stage + 1}{chr(j + 97)}_",
                **args,
            )
            index += 1

    x = layers.Conv2D(
        round_filters(1280),
        1,
        padding="same",
        use_bias=False,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name="top_conv",
    )(x)
    x = layers.BatchNormalization(axis=bn_axis, name="top_bn")(x)
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
        name: Name of the model.

    Returns:
        A `lamina.Model` taking images with values in [0, 255].
"""

# (width, depth, default size, dropout) of each size, from the paper.
_SCALING = {
    "b0": (1.0, 1.0, 224, 0.2),
    "b1": (1.0, 1.1, 240, 0.2),
    "b2": (1.1, 1.2, 260, 0.3),
    "b3": (1.2, 1.4, 300, 0.3),
    "b4": (1.4, 1.8, 380, 0.4),
    "b5": (1.6, 2.2, 456, 0.4),
    "b6": (1.8, 2.6, 528, 0.5),
    "b7": (2.0, 3.1, 600, 0.5),
}


def _variant(key):
    width, depth, size, dropout = _SCALING[key]

    def build(
        include_top=True,
        weights="imagenet",
        input_tensor=None,
        input_shape=None,
        pooling=None,
        classes=1000,
        classifier_activation="softmax",
        name=f"efficientnet{key}",
    ):
        return EfficientNet(
            width,
            depth,
            size,
            dropout,
            name=name,
            include_top=include_top,
            weights=weights,
            input_tensor=input_tensor,
            input_shape=input_shape,
            pooling=pooling,
            classes=classes,
            classifier_activation=classifier_activation,
            weights_name=key,
        )

    build.__name__ = build.__qualname__ = f"EfficientNet{key.upper()}"
    build.__doc__ = (
        f"EfficientNet{key.upper()}: width x{width}, depth x{depth}, "
        f"designed for {size}x{size} images." + _ARGS_DOC
    )
    return build


EfficientNetB0 = _variant("b0")
EfficientNetB1 = _variant("b1")
EfficientNetB2 = _variant("b2")
EfficientNetB3 = _variant("b3")
EfficientNetB4 = _variant("b4")
EfficientNetB5 = _variant("b5")
EfficientNetB6 = _variant("b6")
EfficientNetB7 = _variant("b7")


def preprocess_input(x, data_format=None):
    """Return `x` unchanged: EfficientNet models rescale and normalize inside.

    Kept so that code written for other applications works unchanged.

    Args:
        x: Images with values in [0, 255].
        data_format: Ignored (kept for the common signature).

    Returns:
        `x`, unchanged.
    """
    return x


def decode_predictions(preds, top=5):
    """Decode ImageNet predictions; see `imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)


imagenet_utils.add_checks_example(
    32,
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
)
