"""InceptionV3, as `keras.applications.inception_v3` builds it.

Szegedy et al., "Rethinking the Inception Architecture for Computer Vision" (CVPR
2016): a convolutional stem, then eleven Inception modules (`mixed0` to `mixed10`) whose
parallel towers are concatenated along the channels; two of them (`mixed3`, `mixed8`)
halve the resolution. Every convolution is followed by batch norm (no scale) and ReLU.
The concatenations are named as in Keras and the convolutions keep Keras's automatic
names, so Keras's ImageNet weights (matched by layer order) and weights saved from a
Keras model load. Inputs are preprocessed in tf mode (scaled to [-1, 1]); the default
input size is 299x299, the smallest 75x75.

>>> import numpy as np
>>> preprocess_input(np.array([[[[0.0, 127.5, 255.0]]]])).ravel().tolist()
[-1.0, 0.0, 1.0]
"""

from __future__ import annotations

from lamina import backend, layers
from lamina.applications import imagenet_utils
from lamina.models import Model

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/inception_v3/"
FILE_NAMES = (
    "inception_v3_weights_tf_dim_ordering_tf_kernels.h5",
    "inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5",
)
WEIGHTS_PATH = BASE_WEIGHTS_PATH + FILE_NAMES[0]
WEIGHTS_PATH_NO_TOP = BASE_WEIGHTS_PATH + FILE_NAMES[1]
_HASHES = ("9a0d58056eeedaa3f26cb7ebd46da564", "bcbd6486424b2319ff4ef7d526e38f63")


def conv2d_bn(x, filters, num_row, num_col, padding="same", strides=(1, 1), name=None):
    """Convolution (no bias), batch norm (no scale) and ReLU: Keras's `conv2d_bn`.

    With `name`, the layers are `{name}_conv`, `{name}_bn` and `{name}`; without, they
    keep automatic names, as InceptionV3 leaves them.
    """
    x = layers.Conv2D(
        filters,
        (num_row, num_col),
        strides=strides,
        padding=padding,
        use_bias=False,
        name=None if name is None else f"{name}_conv",
    )(x)
    x = layers.BatchNormalization(
        axis=imagenet_utils.channel_axis(), scale=False, name=None if name is None else f"{name}_bn"
    )(x)
    return layers.Activation("relu", name=name)(x)


def conv_tower(x, *convs):
    """A chain of `conv2d_bn`s, each given as `(filters, rows, cols[, strides, padding])`."""
    for filters, rows, cols, *rest in convs:
        strides, padding = rest if rest else ((1, 1), "same")
        x = conv2d_bn(x, filters, rows, cols, padding=padding, strides=strides)
    return x


def avg_pool_tower(x, filters):
    """A 3x3 average pool (stride 1) then a 1x1 `conv2d_bn`."""
    x = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return conv2d_bn(x, filters, 1, 1)


def concat(towers, name=None):
    """Concatenate towers along the channels."""
    return layers.Concatenate(axis=imagenet_utils.channel_axis(), name=name)(towers)


def _module_a(x, pool_filters, name):
    """35x35: 1x1, 5x5, double 3x3 and pooling towers."""
    return concat(
        [
            conv_tower(x, (64, 1, 1)),
            conv_tower(x, (48, 1, 1), (64, 5, 5)),
            conv_tower(x, (64, 1, 1), (96, 3, 3), (96, 3, 3)),
            avg_pool_tower(x, pool_filters),
        ],
        name,
    )


def _module_b(x, filters, name):
    """17x17: 1x1, factorized 7x7 (1x7 then 7x1), double 7x7 and pooling towers."""
    return concat(
        [
            conv_tower(x, (192, 1, 1)),
            conv_tower(x, (filters, 1, 1), (filters, 1, 7), (192, 7, 1)),
            conv_tower(
                x, (filters, 1, 1), (filters, 7, 1), (filters, 1, 7), (filters, 7, 1), (192, 1, 7)
            ),
            avg_pool_tower(x, 192),
        ],
        name,
    )


def _module_c(x, index):
    """8x8: 1x1, and two towers that end split into parallel 1x3 and 3x1 convolutions."""
    branch3x3 = conv_tower(x, (384, 1, 1))
    branch3x3 = concat(
        [conv_tower(branch3x3, (384, 1, 3)), conv_tower(branch3x3, (384, 3, 1))], f"mixed9_{index}"
    )
    branch3x3dbl = conv_tower(x, (448, 1, 1), (384, 3, 3))
    branch3x3dbl = concat(
        [conv_tower(branch3x3dbl, (384, 1, 3)), conv_tower(branch3x3dbl, (384, 3, 1))]
    )
    return concat(
        [conv_tower(x, (320, 1, 1)), branch3x3, branch3x3dbl, avg_pool_tower(x, 192)],
        f"mixed{9 + index}",
    )


def reduction(x, towers, name):
    """Strided towers beside a strided max pool: half the resolution."""
    pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    return concat([conv_tower(x, *convs) for convs in towers] + [pool], name)


def InceptionV3(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="inception_v3",
):
    """InceptionV3 (preprocess inputs with `inception_v3.preprocess_input`).

    Args:
        include_top: Whether to end with global average pooling (`avg_pool`) and the
            `classes`-way dense classifier named `predictions`.
        weights: None (random initialization), `"imagenet"` (Keras's ImageNet weights,
            from the cache or downloaded once), or the path of a weights file.
        input_tensor: Optional tensor (e.g. from `lamina.Input`) to use as the input.
        input_shape: Optional `(height, width, channels)`; height and width at least
            75. With `include_top=True` and ImageNet weights it must be (299, 299, 3).
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
        min_size=75,
        data_format=backend.image_data_format(),
        require_flatten=include_top,
        weights=weights,
    )
    which = 0 if include_top else 1
    path = imagenet_utils.weights_path(
        weights, FILE_NAMES[which], BASE_WEIGHTS_PATH + FILE_NAMES[which], _HASHES[which], name
    )
    img_input = imagenet_utils.make_input(input_tensor, input_shape)

    valid, stride2 = "valid", (2, 2)
    x = conv_tower(img_input, (32, 3, 3, stride2, valid), (32, 3, 3, (1, 1), valid), (64, 3, 3))
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = conv_tower(x, (80, 1, 1, (1, 1), valid), (192, 3, 3, (1, 1), valid))
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    for index, pool_filters in enumerate((32, 64, 64)):
        x = _module_a(x, pool_filters, f"mixed{index}")
    x = reduction(
        x,
        [[(384, 3, 3, stride2, valid)], [(64, 1, 1), (96, 3, 3), (96, 3, 3, stride2, valid)]],
        "mixed3",
    )
    for index, filters in enumerate((128, 160, 160, 192), start=4):
        x = _module_b(x, filters, f"mixed{index}")
    x = reduction(
        x,
        [
            [(192, 1, 1), (320, 3, 3, stride2, valid)],
            [(192, 1, 1), (192, 1, 7), (192, 7, 1), (192, 3, 3, stride2, valid)],
        ],
        "mixed8",
    )
    for index in range(2):
        x = _module_c(x, index)
    # Keras names the head's pooling `avg_pool`, not the headless model's.
    pool_names = ("avg_pool", None) if include_top else (None, None)
    x = imagenet_utils.top_or_pooling(
        x, include_top, pooling, classes, classifier_activation, weights, pool_names
    )
    model = Model(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    return imagenet_utils.finish(model, path)


def preprocess_input(x, data_format=None):
    """Preprocess images for InceptionV3: scale [0, 255] to [-1, 1].

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


imagenet_utils.add_checks_example(75, InceptionV3)
