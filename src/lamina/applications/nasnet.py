"""NASNet-A (Mobile and Large), as `keras.applications.nasnet` builds them.

Zoph, Vasudevan, Shlens and Le, "Learning Transferable Architectures for Scalable Image
Recognition" (CVPR 2018). The network is a stem, then stacks of *normal* cells (which
keep the size) separated by *reduction* cells (which halve it); every cell combines the
two previous cells' outputs through separable convolutions and poolings found by
architecture search. Layer names and the order in which the layers are made follow
Keras, so Keras's ImageNet weight files (Keras 2's HDF5 layout, matched layer by layer
in order) and weights saved from a Keras model load. Inputs are preprocessed in tf mode
(scaled to [-1, 1]). Like Keras's, the models need `channels_last` images.

NASNetMobile's default input is 224x224, NASNetLarge's 331x331; without the top any
size from 32x32 up is accepted. (Keras refuses NASNetMobile on its torch engine; lamina
builds it on every engine.)
"""

from __future__ import annotations

from lamina import backend, layers
from lamina.applications import imagenet_utils
from lamina.models import Model

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/nasnet/"
# (cache file name, file at BASE_WEIGHTS_PATH, MD5) by (model, include_top).
_WEIGHTS = {
    ("mobile", True): ("nasnet_mobile.h5", "NASNet-mobile.h5", "020fb642bf7360b370c678b08e0adf61"),
    ("mobile", False): (
        "nasnet_mobile_no_top.h5",
        "NASNet-mobile-no-top.h5",
        "1ed92395b5b598bdda52abe5c0dbfd63",
    ),
    ("large", True): ("nasnet_large.h5", "NASNet-large.h5", "11577c9a518f0070763c2b964a382f17"),
    ("large", False): (
        "nasnet_large_no_top.h5",
        "NASNet-large-no-top.h5",
        "d81d89dc07e6e56530c4e77faddd61b5",
    ),
}

# Every batch normalization of NASNet: Keras's (the reference implementation's) settings.
_BN = {"momentum": 0.9997, "epsilon": 1e-3}


def _bn(name=None):
    return layers.BatchNormalization(axis=-1, name=name, **_BN)


def _conv1x1(filters, name, strides=(1, 1)):
    return layers.Conv2D(
        filters,
        (1, 1),
        strides=strides,
        padding="same",
        use_bias=False,
        name=name,
        kernel_initializer="he_normal",
    )


def _separable_block(x, filters, kernel_size=(3, 3), strides=(1, 1), block_id=None):
    """ReLU, separable conv (strided: after TF-style padding), BN; ReLU, separable conv,
    BN: the unit every NASNet cell is built of."""
    x = layers.Activation("relu")(x)
    if strides == (2, 2):
        padding = imagenet_utils.correct_pad(x, kernel_size)
        x = layers.ZeroPadding2D(padding=padding, name=f"separable_conv_1_pad_{block_id}")(x)
        conv_padding = "valid"
    else:
        conv_padding = "same"
    x = layers.SeparableConv2D(
        filters,
        kernel_size,
        strides=strides,
        name=f"separable_conv_1_{block_id}",
        padding=conv_padding,
        use_bias=False,
    )(x)
    x = _bn(f"separable_conv_1_bn_{block_id}")(x)
    x = layers.Activation("relu")(x)
    x = layers.SeparableConv2D(
        filters, kernel_size, name=f"separable_conv_2_{block_id}", padding="same", use_bias=False
    )(x)
    return _bn(f"separable_conv_2_bn_{block_id}")(x)


def _adjust(previous, current, filters, block_id):
    """The previous cell's output made to fit this cell: halved in size (two offset
    strided paths, concatenated) when the sizes differ, projected to `filters`
    channels when only those differ."""
    if previous is None:
        return current
    if previous.shape[-2] != current.shape[-2]:
        previous = layers.Activation("relu", name=f"adjust_relu_1_{block_id}")(previous)
        path1 = layers.AveragePooling2D(
            (1, 1), strides=(2, 2), padding="valid", name=f"adjust_avg_pool_1_{block_id}"
        )(previous)
        path1 = _conv1x1(filters // 2, f"adjust_conv_1_{block_id}")(path1)
        # The second path samples the pixels one step down and right of the first's.
        path2 = layers.ZeroPadding2D(padding=((0, 1), (0, 1)))(previous)
        path2 = layers.Cropping2D(cropping=((1, 0), (1, 0)))(path2)
        path2 = layers.AveragePooling2D(
            (1, 1), strides=(2, 2), padding="valid", name=f"adjust_avg_pool_2_{block_id}"
        )(path2)
        path2 = _conv1x1(filters // 2, f"adjust_conv_2_{block_id}")(path2)
        previous = layers.concatenate([path1, path2], axis=-1)
        return _bn(f"adjust_bn_{block_id}")(previous)
    if previous.shape[-1] != filters:
        previous = layers.Activation("relu")(previous)
        previous = _conv1x1(filters, f"adjust_conv_projection_{block_id}")(previous)
        return _bn(f"adjust_bn_{block_id}")(previous)
    return previous


def _normal_cell(current, previous, filters, block_id):
    """A normal cell: five combinations of the two inputs, concatenated with the
    adjusted previous input. Returns (output, this cell's input)."""
    previous = _adjust(previous, current, filters, block_id)
    h = layers.Activation("relu")(current)
    h = _conv1x1(filters, f"normal_conv_1_{block_id}")(h)
    h = _bn(f"normal_bn_1_{block_id}")(h)

    def pool(x, name):
        return layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same", name=name)(x)

    x1 = layers.add(
        [
            _separable_block(h, filters, (5, 5), block_id=f"normal_left1_{block_id}"),
            _separable_block(previous, filters, block_id=f"normal_right1_{block_id}"),
        ],
        name=f"normal_add_1_{block_id}",
    )
    x2 = layers.add(
        [
            _separable_block(previous, filters, (5, 5), block_id=f"normal_left2_{block_id}"),
            _separable_block(previous, filters, (3, 3), block_id=f"normal_right2_{block_id}"),
        ],
        name=f"normal_add_2_{block_id}",
    )
    x3 = layers.add(
        [pool(h, f"normal_left3_{block_id}"), previous], name=f"normal_add_3_{block_id}"
    )
    x4 = layers.add(
        [pool(previous, f"normal_left4_{block_id}"), pool(previous, f"normal_right4_{block_id}")],
        name=f"normal_add_4_{block_id}",
    )
    x5 = layers.add(
        [_separable_block(h, filters, block_id=f"normal_left5_{block_id}"), h],
        name=f"normal_add_5_{block_id}",
    )
    x = layers.concatenate(
        [previous, x1, x2, x3, x4, x5], axis=-1, name=f"normal_concat_{block_id}"
    )
    return x, current


def _reduction_cell(current, previous, filters, block_id):
    """A reduction cell: halves the size; four combinations concatenated. Returns
    (output, this cell's input)."""
    previous = _adjust(previous, current, filters, block_id)
    h = layers.Activation("relu")(current)
    h = _conv1x1(filters, f"reduction_conv_1_{block_id}")(h)
    h = _bn(f"reduction_bn_1_{block_id}")(h)
    h3 = layers.ZeroPadding2D(
        padding=imagenet_utils.correct_pad(h, 3), name=f"reduction_pad_1_{block_id}"
    )(h)

    def strided(x, size, side):
        return _separable_block(x, filters, size, (2, 2), block_id=f"reduction_{side}_{block_id}")

    x1 = layers.add(
        [strided(h, (5, 5), "left1"), strided(previous, (7, 7), "right1")],
        name=f"reduction_add_1_{block_id}",
    )
    left2 = layers.MaxPooling2D(
        (3, 3), strides=(2, 2), padding="valid", name=f"reduction_left2_{block_id}"
    )(h3)
    x2 = layers.add(
        [left2, strided(previous, (7, 7), "right2")], name=f"reduction_add_2_{block_id}"
    )
    left3 = layers.AveragePooling2D(
        (3, 3), strides=(2, 2), padding="valid", name=f"reduction_left3_{block_id}"
    )(h3)
    x3 = layers.add([left3, strided(previous, (5, 5), "right3")], name=f"reduction_add3_{block_id}")
    x4 = layers.AveragePooling2D(
        (3, 3), strides=(1, 1), padding="same", name=f"reduction_left4_{block_id}"
    )(x1)
    x4 = layers.add([x2, x4])
    # Keras (after the reference code) names this block "left4", not "left5".
    x5 = _separable_block(x1, filters, (3, 3), block_id=f"reduction_left4_{block_id}")
    right5 = layers.MaxPooling2D(
        (3, 3), strides=(2, 2), padding="valid", name=f"reduction_right5_{block_id}"
    )(h3)
    x5 = layers.add([x5, right5], name=f"reduction_add4_{block_id}")
    x = layers.concatenate([x2, x3, x4, x5], axis=-1, name=f"reduction_concat_{block_id}")
    return x, current


def _nasnet(
    input_shape,
    penultimate_filters,
    num_blocks,
    stem_block_filters,
    skip_reduction,
    filter_multiplier,
    include_top,
    weights,
    input_tensor,
    pooling,
    classes,
    default_size,
    classifier_activation,
    name,
    which,
):
    if backend.image_data_format() == "channels_first":
        raise ValueError(
            "NASNet does not support the `channels_first` image data format (as in "
            "Keras). Switch to `channels_last`: "
            "`lamina.config.set_image_data_format('channels_last')`."
        )
    imagenet_utils.check_weights_and_classes(weights, include_top, classes)
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError(
            "When specifying the input shape of a NASNet and loading `ImageNet` weights, "
            f"the input_shape argument must be static (no None entries). Got: "
            f"`input_shape={input_shape}`."
        )
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape,
        default_size=default_size,
        min_size=32,
        data_format=backend.image_data_format(),
        require_flatten=include_top,
        weights=weights,
    )
    if penultimate_filters % (24 * filter_multiplier**2) != 0:
        raise ValueError(
            "For NASNet-A models, the `penultimate_filters` must be a multiple of 24 * "
            f"(`filter_multiplier` ** 2). Current value: {penultimate_filters}"
        )
    if include_top:
        imagenet_utils.validate_activation(classifier_activation, weights)
    file_name = origin = file_hash = None
    if weights == "imagenet":
        file_name, remote, file_hash = _WEIGHTS[(which, bool(include_top))]
        origin = BASE_WEIGHTS_PATH + remote
    path = imagenet_utils.weights_path(weights, file_name, origin, file_hash, name)
    img_input = imagenet_utils.make_input(input_tensor, input_shape)

    filters = penultimate_filters // 24
    x = layers.Conv2D(
        stem_block_filters,
        (3, 3),
        strides=(2, 2),
        padding="valid",
        use_bias=False,
        name="stem_conv1",
        kernel_initializer="he_normal",
    )(img_input)
    x = _bn("stem_bn1")(x)
    x, p = _reduction_cell(x, None, filters // filter_multiplier**2, "stem_1")
    x, p = _reduction_cell(x, p, filters // filter_multiplier, "stem_2")
    for stage in range(3):
        width = filters * filter_multiplier**stage
        if stage:
            x, p0 = _reduction_cell(x, p, width, f"reduce_{stage * num_blocks}")
            p = p if skip_reduction else p0
        for i in range(num_blocks):
            block = f"{i}" if stage == 0 else f"{stage * num_blocks + i + 1}"
            x, p = _normal_cell(x, p, width, block)
    x = layers.Activation("relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.top_or_pooling(
            x, False, pooling, classes, classifier_activation, weights, (None, None)
        )
    model = Model(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    return imagenet_utils.finish(model, path)


_ARGS_DOC = """
    Args:
        input_shape: Optional `(height, width, 3)`; height and width at least 32. With
            `include_top=True` and ImageNet weights it must be the default size.
        include_top: Whether to end with global average pooling and the `classes`-way
            dense classifier named `predictions`.
        weights: None (random initialization), `"imagenet"` (Keras's ImageNet weights,
            from the cache or downloaded once), or the path of a weights file.
        input_tensor: Optional tensor (e.g. from `lamina.Input`) to use as the input.
        pooling: With `include_top=False`: None, `"avg"` or `"max"`.
        classes: Number of classes of the top classifier.
        classifier_activation: Activation of the top layer (`None` for logits).
        name: Name of the model.

    Returns:
        A `lamina.Model`.
"""


def NASNetMobile(
    input_shape=None,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="nasnet_mobile",
):
    if not include_top and input_shape is None:
        input_shape = (224, 224, 3)  # as Keras: the no-top weights' size
    return _nasnet(
        input_shape,
        penultimate_filters=1056,
        num_blocks=4,
        stem_block_filters=32,
        skip_reduction=False,
        filter_multiplier=2,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        pooling=pooling,
        classes=classes,
        default_size=224,
        classifier_activation=classifier_activation,
        name=name,
        which="mobile",
    )


def NASNetLarge(
    input_shape=None,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="nasnet_large",
):
    return _nasnet(
        input_shape,
        penultimate_filters=4032,
        num_blocks=6,
        stem_block_filters=96,
        skip_reduction=True,
        filter_multiplier=2,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        pooling=pooling,
        classes=classes,
        default_size=331,
        classifier_activation=classifier_activation,
        name=name,
        which="large",
    )


NASNetMobile.__doc__ = (
    "NASNet-A Mobile, 224x224 (preprocess inputs with `nasnet.preprocess_input`).\n" + _ARGS_DOC
)
NASNetLarge.__doc__ = (
    "NASNet-A Large, 331x331 (preprocess inputs with `nasnet.preprocess_input`).\n" + _ARGS_DOC
)


def preprocess_input(x, data_format=None):
    """Preprocess images for NASNet: scale [0, 255] to [-1, 1].

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


imagenet_utils.add_checks_example(32, NASNetMobile, NASNetLarge)
