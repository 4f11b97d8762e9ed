"""VGG16, as `keras.applications.vgg16` builds it.

Simonyan and Zisserman, "Very Deep Convolutional Networks for Large-Scale Image
Recognition" (ICLR 2015). Layer names follow Keras (`block1_conv1`, ..., `fc1`, `fc2`,
`predictions`), so Keras's ImageNet weights and weights saved from a Keras model load.
Inputs are preprocessed in caffe mode (RGB to BGR, minus the ImageNet channel means).
"""

from __future__ import annotations

from lamina import backend, layers
from lamina.applications import imagenet_utils
from lamina.models import Model

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/vgg16/"
FILE_NAMES = (
    "vgg16_weights_tf_dim_ordering_tf_kernels.h5",
    "vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5",
)
WEIGHTS_PATH = BASE_WEIGHTS_PATH + FILE_NAMES[0]
WEIGHTS_PATH_NO_TOP = BASE_WEIGHTS_PATH + FILE_NAMES[1]
_HASHES = ("64373286793e3c8b2b4e3219cbf3544b", "6d6bbae143d832006294945121d1f1fc")

# Filters of the five blocks; VGG16 and VGG19 differ only in convolutions per block.
_FILTERS = (64, 128, 256, 512, 512)


def VGG16(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="vgg16",
):
    """VGG16: 13 3x3 convolutions in five blocks, then three dense layers.

    Preprocess inputs with `vgg16.preprocess_input`.

    Args:
        include_top: Whether to end with `flatten`, the 4096-unit `fc1` and `fc2`, and
            the `classes`-way `predictions` layer.
        weights: None (random initialization), `"imagenet"` (Keras's ImageNet weights,
            from the cache or downloaded once), or the path of a weights file.
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
    return build_vgg(
        (2, 2, 3, 3, 3),
        (BASE_WEIGHTS_PATH, FILE_NAMES, _HASHES),
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        input_shape=input_shape,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
        name=name,
    )


def build_vgg(
    convs_per_block,
    weight_files,
    *,
    include_top,
    weights,
    input_tensor,
    input_shape,
    pooling,
    classes,
    classifier_activation,
    name,
):
    """A VGG network with `convs_per_block[i]` 3x3 convolutions in block `i + 1`.

    `weight_files` is `(base URL, (file with top, file without), (their MD5 hashes))`,
    Keras's ImageNet files for this depth.
    """
    base_path, file_names, hashes = weight_files
    imagenet_utils.check_weights_and_classes(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape,
        default_size=224,
        min_size=32,
        data_format=backend.image_data_format(),
        require_flatten=include_top,
        weights=weights,
    )
    which = 0 if include_top else 1
    path = imagenet_utils.weights_path(
        weights, file_names[which], base_path + file_names[which], hashes[which], name
    )
    img_input = imagenet_utils.make_input(input_tensor, input_shape)
    x = img_input
    for block, (filters, convs) in enumerate(zip(_FILTERS, convs_per_block), start=1):
        for conv in range(1, convs + 1):
            x = layers.Conv2D(
                filters, (3, 3), activation="relu", padding="same", name=f"block{block}_conv{conv}"
            )(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.top_or_pooling(
            x, False, pooling, classes, classifier_activation, weights, (None, None)
        )
    model = Model(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    return imagenet_utils.finish(model, path)


def preprocess_input(x, data_format=None):
    """Preprocess images for VGG16: RGB to BGR, minus the ImageNet channel means.

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


imagenet_utils.add_checks_example(32, VGG16)
