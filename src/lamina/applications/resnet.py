"""ResNet (v1 and v2) image classifiers, as `keras.applications.resnet` builds them.

He et al., "Deep Residual Learning for Image Recognition" (CVPR 2015) and "Identity
Mappings in Deep Residual Networks" (ECCV 2016). Layer names and order follow Keras
(`conv1_conv`, `conv2_block1_1_conv`, ...), so Keras's ImageNet weights and weights
saved from a Keras model load. Inputs are preprocessed with `preprocess_input`
(caffe mode for v1: RGB to BGR and mean subtraction; tf mode for v2).
"""

from __future__ import annotations

from lamina import backend, layers
from lamina.applications import imagenet_utils
from lamina.models import Model

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"
# (with top, without top) MD5 hashes of Keras's files.
WEIGHTS_HASHES = {
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}

_EPSILON = 1.001e-5


def _bn(name):
    return layers.BatchNormalization(
        axis=imagenet_utils.channel_axis(), epsilon=_EPSILON, name=name
    )


def ResNet(
    stack_fn,
    preact,
    use_bias,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet",
    weights_name=None,
):
    """Build a ResNet from `stack_fn` (the residual stages) and the shared stem and head.

    Args:
        stack_fn: Function from the stem's output tensor to the last stage's output.
        preact: True for v2 (pre-activation: batch norm and ReLU after the stages).
        use_bias: Whether the stem convolution has a bias.
        include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation, name: as for `ResNet50`.
        weights_name: Key of Keras's ImageNet file in `WEIGHTS_HASHES`.

    Returns:
        A `lamina.Model`.
    """
    imagenet_utils.check_weights_and_classes(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape,
        default_size=224,
        min_size=32,
        data_format=backend.image_data_format(),
        require_flatten=include_top,
        weights=weights,
    )
    suffix = "" if include_top else "_notop"
    file_name = f"{weights_name}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
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

    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = _bn("conv1_bn")(x)
        x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if preact:
        x = _bn("post_bn")(x)
        x = layers.Activation("relu", name="post_relu")(x)
    x = imagenet_utils.top_or_pooling(
        x, include_top, pooling, classes, classifier_activation, weights, ("avg_pool", "max_pool")
    )
    model = Model(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    return imagenet_utils.finish(model, path)


def residual_block_v1(x, filters, kernel_size=3, stride=1, conv_shortcut=True, name=None):
    """One bottleneck block of ResNet v1 (1x1, kxk, 1x1 convolutions plus a shortcut)."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = _bn(f"{name}_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = _bn(f"{name}_1_bn")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.Conv2D(filters, kernel_size, padding="same", name=f"{name}_2_conv")(x)
    x = _bn(f"{name}_2_bn")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    x = _bn(f"{name}_3_bn")(x)
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def stack_residual_blocks_v1(x, filters, blocks, stride1=2, name=None):
    """A stage of `blocks` v1 blocks; the first one projects the shortcut and strides."""
    x = residual_block_v1(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = residual_block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def residual_block_v2(x, filters, kernel_size=3, stride=1, conv_shortcut=False, name=None):
    """One pre-activation bottleneck block of ResNet v2."""
    preact = _bn(f"{name}_preact_bn")(x)
    preact = layers.Activation("relu", name=f"{name}_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    elif stride > 1:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = _bn(f"{name}_1_bn")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False, name=f"{name}_2_conv")(
        x
    )
    x = _bn(f"{name}_2_bn")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return layers.Add(name=f"{name}_out")([shortcut, x])


def stack_residual_blocks_v2(x, filters, blocks, stride1=2, name=None):
    """A stage of `blocks` v2 blocks; the last one strides, as in Keras."""
    x = residual_block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = residual_block_v2(x, filters, name=f"{name}_block{i}")
    return residual_block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


_ARGS_DOC = """

    Args:
        include_top: Whether to end with the global average pooling and the
            `classes`-way dense classifier named `predictions`.
        weights: None (random initialization), `"imagenet"` (Keras's ImageNet
            weights, from the cache or downloaded once with `lamina.utils.get_file`),
            or the path of a weights file (`.weights.h5` or Keras's legacy `.h5`).
        input_tensor: Optional tensor (e.g. from `lamina.Input`) to use as the input.
        input_shape: Optional `(height, width, channels)` (channels first under
            `"channels_first"`); with `include_top=True` and ImageNet weights it must
            be the default size. Height and width are at least {min_size}.
        pooling: With `include_top=False`: None (the 4D feature map), `"avg"` or
            `"max"` (global pooling to a 2D output).
        classes: Number of classes of the top classifier.
        classifier_activation: Activation of the top layer (`None` for logits);
            with pretrained weights only None or `"softmax"`.
        name: Name of the model.

    Returns:
        A `lamina.Model`.
"""


def _stages(stack, sizes, last_stride):
    def stack_fn(x):
        for index, (filters, blocks) in enumerate(zip((64, 128, 256, 512), sizes)):
            if stack is stack_residual_blocks_v1:
                stride = 1 if index == 0 else 2
            else:
                stride = last_stride if index == 3 else 2
            x = stack(x, filters, blocks, stride1=stride, name=f"conv{index + 2}")
        return x

    return stack_fn


def ResNet50(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet50",
):
    """ResNet50: the 50-layer ResNet v1 (preprocess inputs with `resnet.preprocess_input`)."""
    return ResNet(
        _stages(stack_residual_blocks_v1, (3, 4, 6, 3), 1),
        False,
        True,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        input_shape=input_shape,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
        name=name,
        weights_name="resnet50",
    )


def ResNet101(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet101",
):
    """ResNet101: the 101-layer ResNet v1."""
    return ResNet(
        _stages(stack_residual_blocks_v1, (3, 4, 23, 3), 1),
        False,
        True,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        input_shape=input_shape,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
        name=name,
        weights_name="resnet101",
    )


def ResNet152(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet152",
):
    """ResNet152: the 152-layer ResNet v1."""
    return ResNet(
        _stages(stack_residual_blocks_v1, (3, 8, 36, 3), 1),
        False,
        True,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        input_shape=input_shape,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
        name=name,
        weights_name="resnet152",
    )


def preprocess_input(x, data_format=None):
    """Preprocess images for ResNet v1: RGB to BGR, minus the ImageNet channel means.

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


for _fn in (ResNet50, ResNet101, ResNet152):
    _fn.__doc__ += _ARGS_DOC.format(min_size=32)


imagenet_utils.add_checks_example(32, ResNet50, ResNet101, ResNet152)
