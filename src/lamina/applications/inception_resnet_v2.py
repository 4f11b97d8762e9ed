"""InceptionResNetV2, as `keras.applications.inception_resnet_v2` builds it.

Szegedy et al., "Inception-v4, Inception-ResNet and the Impact of Residual Connections
on Learning" (AAAI 2017): InceptionV3's stem and reduction modules (see `inception_v3`,
whose towers this module reuses) around three stacks of residual Inception blocks
(`block35_*`, `block17_*`, `block8_*`), each adding its scaled tower output to its
input. Layer names and order follow Keras (unnamed convolutions keep Keras's automatic
names), so Keras's ImageNet weights and weights saved from a Keras model load. Inputs
are preprocessed in tf mode (scaled to [-1, 1]); the default input size is 299x299, the
smallest 75x75.

>>> import numpy as np
>>> preprocess_input(np.array([[[[0.0, 127.5, 255.0]]]])).ravel().tolist()
[-1.0, 0.0, 1.0]
"""

from __future__ import annotations

from lamina import backend, layers
from lamina.applications import imagenet_utils
from lamina.applications.inception_v3 import avg_pool_tower, concat, conv_tower, reduction
from lamina.common import serialization
from lamina.layers.layer import Layer
from lamina.models import Model

BASE_WEIGHT_URL = (
    "https://storage.googleapis.com/tensorflow/keras-applications/inception_resnet_v2/"
)
FILE_NAMES = (
    "inception_resnet_v2_weights_tf_dim_ordering_tf_kernels.h5",
    "inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5",
)
_HASHES = ("e693bd0210a403b3192acc6073ad2e96", "d19885ff4a710c122648d3b5c3b684e4")

# Towers of each residual block type, as `conv_tower` specs; (scale, repeats).
_BLOCKS = {
    "block35": (
        [[(32, 1, 1)], [(32, 1, 1), (32, 3, 3)], [(32, 1, 1), (48, 3, 3), (64, 3, 3)]],
        (0.17, 10),
    ),
    "block17": ([[(192, 1, 1)], [(128, 1, 1), (160, 1, 7), (192, 7, 1)]], (0.1, 20)),
    "block8": ([[(192, 1, 1)], [(192, 1, 1), (224, 1, 3), (256, 3, 1)]], (0.2, 10)),
}


class CustomScaleLayer(Layer):
    """`inputs[0] + scale * inputs[1]`: the scaled residual sum (Keras's layer of this name).

    Args:
        scale: The factor of the residual branch.
    """

    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, inputs):
        return inputs[0] + inputs[1] * self.scale

    def get_config(self):
        return {**super().get_config(), "scale": self.scale}

    def _keras_serialized_names(self):
        # Where Keras keeps the layer, so Keras loads the file; a user's subclass is not it.
        if type(self) is not CustomScaleLayer:
            return type(self).__module__, type(self).__name__, None
        return "keras.src.applications.inception_resnet_v2", "CustomScaleLayer", "CustomScaleLayer"


# A built-in, so that a `.keras` file holding the model (lamina's or Keras's) loads
# without `custom_objects`.
serialization.register_builtin("layers", CustomScaleLayer)


def inception_resnet_block(x, scale, block_type, block_idx, activation="relu"):
    """Towers, concatenated, projected (1x1 with bias) and added to `x` scaled by `scale`."""
    towers, _ = _BLOCKS[block_type]
    name = f"{block_type}_{block_idx}"
    mixed = concat([conv_tower(x, *convs) for convs in towers], f"{name}_mixed")
    up = layers.Conv2D(x.shape[imagenet_utils.channel_axis()], 1, name=f"{name}_conv")(mixed)
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=f"{name}_ac")(x)
    return x


def InceptionResNetV2(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="inception_resnet_v2",
):
    """InceptionResNetV2 (preprocess inputs with `inception_resnet_v2.preprocess_input`).

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
        weights, FILE_NAMES[which], BASE_WEIGHT_URL + FILE_NAMES[which], _HASHES[which], name
    )
    img_input = imagenet_utils.make_input(input_tensor, input_shape)

    valid, stride2 = "valid", (2, 2)
    x = conv_tower(img_input, (32, 3, 3, stride2, valid), (32, 3, 3, (1, 1), valid), (64, 3, 3))
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = conv_tower(x, (80, 1, 1, (1, 1), valid), (192, 3, 3, (1, 1), valid))
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = concat(
        [
            conv_tower(x, (96, 1, 1)),
            conv_tower(x, (48, 1, 1), (64, 5, 5)),
            conv_tower(x, (64, 1, 1), (96, 3, 3), (96, 3, 3)),
            avg_pool_tower(x, 64),
        ],
        "mixed_5b",
    )
    reductions = {
        "block35": (
            [
                [(384, 3, 3, stride2, valid)],
                [(256, 1, 1), (256, 3, 3), (384, 3, 3, stride2, valid)],
            ],
            "mixed_6a",
        ),
        "block17": (
            [
                [(256, 1, 1), (384, 3, 3, stride2, valid)],
                [(256, 1, 1), (288, 3, 3, stride2, valid)],
                [(256, 1, 1), (288, 3, 3), (320, 3, 3, stride2, valid)],
            ],
            "mixed_7a",
        ),
    }
    for block_type, (_, (scale, repeats)) in _BLOCKS.items():
        for block_idx in range(1, repeats + 1):
            # The very last block is linear: no activation, unscaled.
            last = block_type == "block8" and block_idx == repeats
            x = inception_resnet_block(
                x,
                1.0 if last else scale,
                block_type,
                block_idx,
                activation=None if last else "relu",
            )
        if block_type in reductions:
            x = reduction(x, *reductions[block_type])

    x = layers.Conv2D(1536, 1, use_bias=False, name="conv_7b")(x)
    x = layers.BatchNormalization(
        axis=imagenet_utils.channel_axis(), scale=False, name="conv_7b_bn"
    )(x)
    x = layers.Activation("relu", name="conv_7b_ac")(x)
    # Keras names the head's pooling `avg_pool`, not the headless model's.
    pool_names = ("avg_pool", None) if include_top else (None, None)
    x = imagenet_utils.top_or_pooling(
        x, include_top, pooling, classes, classifier_activation, weights, pool_names
    )
    model = Model(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    return imagenet_utils.finish(model, path)


def preprocess_input(x, data_format=None):
    """Preprocess images for InceptionResNetV2: scale [0, 255] to [-1, 1].

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


imagenet_utils.add_checks_example(75, InceptionResNetV2)
