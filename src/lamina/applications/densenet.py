"""DenseNet 121, 169 and 201, as `keras.applications.densenet` builds them.

Huang et al., "Densely Connected Convolutional Networks" (CVPR 2017). Layer names and
order follow Keras (`conv1_conv`, `conv2_block1_0_bn`, `pool2_conv`, ...), so Keras's
ImageNet weights and weights saved from a Keras model load. Inputs are preprocessed
in torch mode (scaled to [0, 1], then normalized per channel). Like Keras, only the
`"channels_last"` data format is supported.
"""

from __future__ import annotations

from lamina import backend, layers
from lamina.applications import imagenet_utils
from lamina.models import Model

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/densenet/"
# blocks per stage -> (name, hash with top, hash without top)
_WEIGHTS = {
    (6, 12, 24, 16): (
        "densenet121",
        "9d60b8095a5708f2dcce2bca79d332c7",
        "30ee3e1110167f948a6b9946edeeb738",
    ),
    (6, 12, 32, 32): (
        "densenet169",
        "d699b8f76981ab1b30698df4c175e90b",
        "b8c4d4c20dd625c148057b9ff1c1176b",
    ),
    (6, 12, 48, 32): (
        "densenet201",
        "1ceb130c1ea1b78c3bf6114dbdfd8807",
        "c13680b51ded0fb44dff2d8f86ac8bb1",
    ),
}
_EPSILON = 1.001e-5


def _bn(name):
    return layers.BatchNormalization(axis=-1, epsilon=_EPSILON, name=name)


def conv_block(x, growth_rate, name):
    """BN-ReLU-1x1 conv, BN-ReLU-3x3 conv, and the result concatenated to the input."""
    x1 = _bn(f"{name}_0_bn")(x)
    x1 = layers.Activation("relu", name=f"{name}_0_relu")(x1)
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=f"{name}_1_conv")(x1)
    x1 = _bn(f"{name}_1_bn")(x1)
    x1 = layers.Activation("relu", name=f"{name}_1_relu")(x1)
    x1 = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False, name=f"{name}_2_conv")(x1)
    return layers.Concatenate(axis=-1, name=f"{name}_concat")([x, x1])


def dense_block(x, blocks, name):
    """`blocks` conv blocks, each adding 32 channels."""
    for i in range(blocks):
        x = conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def transition_block(x, reduction, name):
    """BN-ReLU, a 1x1 conv keeping `reduction` of the channels, and 2x2 average pooling."""
    x = _bn(f"{name}_bn")(x)
    x = layers.Activation("relu", name=f"{name}_relu")(x)
    x = layers.Conv2D(int(x.shape[-1] * reduction), 1, use_bias=False, name=f"{name}_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def DenseNet(
    blocks,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="densenet",
):
    """Build a DenseNet with `blocks` conv blocks in each of its four dense blocks.

    Args:
        blocks: Four integers, the conv blocks per dense block.
        include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation, name: as for `DenseNet121`.

    Returns:
        A `lamina.Model`.
    """
    if backend.image_data_format() == "channels_first":
        raise ValueError(
            "DenseNet supports only the 'channels_last' image data format, as in Keras. "
            "Call lamina.backend.set_image_data_format('channels_last') first."
        )
    imagenet_utils.check_weights_and_classes(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape,
        default_size=224,
        min_size=32,
        data_format=backend.image_data_format(),
        require_flatten=include_top,
        weights=weights,
    )
    path = weights
    if weights == "imagenet":
        known = _WEIGHTS.get(tuple(blocks))
        if known is None:
            raise ValueError(
                f"No ImageNet weights exist for a DenseNet with blocks={list(blocks)}; "
                f"Keras has them for {[list(b) for b in _WEIGHTS]}. Use weights=None."
            )
        stem, top_hash, notop_hash = known
        suffix = "" if include_top else "_notop"
        file_name = f"{stem}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
        path = imagenet_utils.weights_path(
            weights,
            file_name,
            BASE_WEIGHTS_PATH + file_name,
            top_hash if include_top else notop_hash,
            name,
        )
    img_input = imagenet_utils.make_input(input_tensor, input_shape)

    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = _bn("conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, count in enumerate(blocks):
        x = dense_block(x, count, name=f"conv{stage + 2}")
        if stage < 3:
            x = transition_block(x, 0.5, name=f"pool{stage + 2}")
    x = _bn("bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    x = imagenet_utils.top_or_pooling(
        x, include_top, pooling, classes, classifier_activation, weights, ("avg_pool", "max_pool")
    )
    model = Model(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    return imagenet_utils.finish(model, path)


_ARGS_DOC = """

    Args:
        include_top: Whether to end with global average pooling and the `classes`-way
            dense classifier named `predictions`.
        weights: None (random initialization), `"imagenet"` (Keras's ImageNet
            weights, from the cache or downloaded once), or the path of a weights file.
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


def DenseNet121(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="densenet121",
):
    """DenseNet121 (preprocess inputs with `densenet.preprocess_input`)."""
    return DenseNet(
        [6, 12, 24, 16],
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name=name,
    )


def DenseNet169(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="densenet169",
):
    """DenseNet169 (preprocess inputs with `densenet.preprocess_input`)."""
    return DenseNet(
        [6, 12, 32, 32],
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name=name,
    )


def DenseNet201(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="densenet201",
):
    """DenseNet201 (preprocess inputs with `densenet.preprocess_input`)."""
    return DenseNet(
        [6, 12, 48, 32],
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name=name,
    )


for _fn in (DenseNet121, DenseNet169, DenseNet201):
    _fn.__doc__ += _ARGS_DOC


def preprocess_input(x, data_format=None):
    """Preprocess images for DenseNet: scale to [0, 1], then normalize each channel.

    Args:
        x: Images with values in [0, 255] (array or tensor, 3D or 4D).
        data_format: None (the global setting), `"channels_last"` or `"channels_first"`.

    Returns:
        The preprocessed images.
    """
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="torch")


def decode_predictions(preds, top=5):
    """Decode ImageNet predictions; see `imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)


imagenet_utils.add_checks_example(32, DenseNet121, DenseNet169, DenseNet201)
