"""ConvNeXt Tiny, Small, Base, Large and XLarge, as `keras.applications.convnext` builds them.

Liu et al., "A ConvNet for the 2020s" (CVPR 2022): a ResNet modernized step by step
towards a vision Transformer. A 4x4 stride-4 "patchify" stem, then four stages of
blocks (7x7 depthwise convolution, layer normalization, an inverted bottleneck of two
pointwise `Dense` layers around a GELU, a learned per-channel `LayerScale`) with a
2x2 stride-2 downsampling between stages. The stem and each downsampling are nested
`Sequential` models, as in Keras, so that Keras's weight files (whose paths follow
the nesting) load; layer names are Keras's (`convnext_tiny_stage_0_block_0_...`).

The models take raw images in [0, 255]: the ImageNet normalization is a
`Normalization` layer inside the model (`include_preprocessing=True`), so
`preprocess_input` returns its input unchanged. Only `channels_last` is supported.

>>> import numpy as np
>>> images = np.full((1, 2, 2, 3), 255.0)
>>> preprocess_input(images) is images
True
"""

from __future__ import annotations

import numpy as np

from lamina import backend, initializers, layers
from lamina.applications import imagenet_utils
from lamina.common import serialization
from lamina.layers.layer import Layer
from lamina.models import Model, Sequential
from lamina.ops import random as ops_random

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/convnext/"
# (with top, without top) SHA-256 hashes of Keras's files.
WEIGHTS_HASHES = {
    "convnext_tiny": (
        "8ae6e78ce2933352b1ef4008e6dd2f17bc40771563877d156bc6426c7cf503ff",
        "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1",
    ),
    "convnext_small": (
        "ce1277d8f1ee5a0ef0e171469089c18f5233860ceaf9b168049cb9263fd7483c",
        "6fc8009faa2f00c1c1dfce59feea9b0745eb260a7dd11bee65c8e20843da6eab",
    ),
    "convnext_base": (
        "52cbb006d3dadd03f6e095a8ca1aca47aecdd75acb4bc74bce1f5c695d0086e6",
        "40a20c5548a5e9202f69735ecc06c990e6b7c9d2de39f0361e27baeb24cb7c45",
    ),
    "convnext_large": (
        "070c5ed9ed289581e477741d3b34beffa920db8cf590899d6d2c67fba2a198a6",
        "96f02b6f0753d4f543261bc9d09bed650f24dd6bc02ddde3066135b63d23a1cd",
    ),
    "convnext_xlarge": (
        "c1f5ccab661354fc3a79a10fa99af82f0fbf10ec65cb894a3ae0815f17a889ee",
        "de3f8a54174130e0cecdc71583354753d557fcf1f4487331558e2a16ba0cfe05",
    ),
}

# Blocks per stage and channels per stage of each size (all designed for 224x224).
MODEL_CONFIGS = {
    "tiny": ([3, 3, 9, 3], [96, 192, 384, 768]),
    "small": ([3, 3, 27, 3], [96, 192, 384, 768]),
    "base": ([3, 3, 27, 3], [128, 256, 512, 1024]),
    "large": ([3, 3, 27, 3], [192, 384, 768, 1536]),
    "xlarge": ([3, 3, 27, 3], [256, 512, 1024, 2048]),
}

# ImageNet channel statistics of [0, 255] images.
_MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
_VARIANCE = [(0.229 * 255) ** 2, (0.224 * 255) ** 2, (0.225 * 255) ** 2]


def _keras_names(layer, cls):
    """Where Keras keeps the layer: a `.keras` file names it so, for Keras to load."""
    if type(layer) is not cls:  # a user's subclass is not Keras's
        return type(layer).__module__, type(layer).__name__, None
    return "keras.src.applications.convnext", cls.__name__, cls.__name__


class StochasticDepth(Layer):
    """Drops a residual branch for whole samples in training (Keras's layer of this name).

    Each sample's branch is zeroed with probability `drop_path_rate` and otherwise
    scaled by `1 / (1 - drop_path_rate)`, so the expected output is unchanged; in
    inference it is the identity.

    Args:
        drop_path_rate: Probability of dropping a sample's branch, in [0, 1).
        seed: Optional int for reproducible draws.

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(StochasticDepth(0.5)(np.ones((1, 2)))).tolist()
    [[1.0, 1.0]]
    """

    def __init__(self, drop_path_rate: float, seed=None, **kwargs):
        super().__init__(**kwargs)
        rate = drop_path_rate
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
            raise ValueError(
                "StochasticDepth expects `drop_path_rate` to be a float in [0, 1). "
                f"Received: drop_path_rate={rate!r}"
            )
        self.drop_path_rate = float(rate)
        self.seed = seed
        self.seed_generator = ops_random.SeedGenerator(seed)
        self.built = True

    def call(self, x, training=False):
        if training and self.drop_path_rate > 0:
            noise_shape = (tuple(x.shape)[0],) + (1,) * (len(x.shape) - 1)
            return ops_random.dropout(x, self.drop_path_rate, noise_shape, seed=self.seed_generator)
        return x

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def _keras_serialized_names(self):
        return _keras_names(self, StochasticDepth)

    def get_config(self):
        config = {**super().get_config(), "drop_path_rate": self.drop_path_rate}
        if self.seed is not None:
            config["seed"] = self.seed
        return config


class LayerScale(Layer):
    """Multiplies each channel by a learned factor (Keras's layer of this name).

    Touvron et al., "Going deeper with Image Transformers" (ICCV 2021): a residual
    branch scaled by small learned factors starts close to the identity.

    Args:
        init_values: Initial value of every factor (small, e.g. 1e-6).
        projection_dim: Number of channels (the last axis of the input).

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(LayerScale(0.5, 2)(np.ones((1, 2)))).tolist()
    [[0.5, 0.5]]
    """

    def __init__(self, init_values: float, projection_dim: int, **kwargs):
        super().__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, input_shape):
        channels = tuple(input_shape)[-1]
        if channels is not None and channels != self.projection_dim:
            raise ValueError(
                f"LayerScale {self.name!r} was made for {self.projection_dim} channels "
                f"(projection_dim) but received input of shape {tuple(input_shape)}. Pass "
                "projection_dim equal to the input's last dimension."
            )
        self.gamma = self.add_weight(
            shape=(self.projection_dim,),
            initializer=initializers.Constant(self.init_values),
            name="gamma",
        )
        self.built = True

    def call(self, x):
        return x * self.gamma

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def _keras_serialized_names(self):
        return _keras_names(self, LayerScale)

    def get_config(self):
        return {
            **super().get_config(),
            "init_values": self.init_values,
            "projection_dim": self.projection_dim,
        }


# Built-ins, so that a `.keras` file holding a ConvNeXt (lamina's or Keras's) loads
# without `custom_objects`.
serialization.register_builtin("layers", StochasticDepth)
serialization.register_builtin("layers", LayerScale)


def _layer_norm(name=None):
    return layers.LayerNormalization(epsilon=1e-6, name=name)


def convnext_block(x, projection_dim, drop_path_rate=0.0, layer_scale_init_value=1e-6, name=""):
    """One ConvNeXt block: depthwise 7x7, layer norm, Dense-GELU-Dense, scale, residual add."""
    inputs = x
    x = layers.Conv2D(
        projection_dim,
        7,
        padding="same",
        groups=projection_dim,
        name=f"{name}_depthwise_conv",
    )(x)
    x = _layer_norm(f"{name}_layernorm")(x)
    x = layers.Dense(4 * projection_dim, name=f"{name}_pointwise_conv_1")(x)
    x = layers.Activation("gelu", name=f"{name}_gelu")(x)
    x = layers.Dense(projection_dim, name=f"{name}_pointwise_conv_2")(x)
    if layer_scale_init_value is not None:
        x = LayerScale(layer_scale_init_value, projection_dim, name=f"{name}_layer_scale")(x)
    if drop_path_rate:
        x = StochasticDepth(drop_path_rate, name=f"{name}_stochastic_depth")(x)
    else:
        # Keras keeps an identity layer here, so its layer list (and files) have it.
        x = layers.Activation("linear", name=f"{name}_identity")(x)
    return inputs + x


def ConvNeXt(
    depths,
    projection_dims,
    drop_path_rate=0.0,
    layer_scale_init_value=1e-6,
    default_size=224,
    name="convnext",
    include_preprocessing=True,
    include_top=True,
    weights=None,
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    weights_name=None,
):
    """Build a ConvNeXt of any depths and widths.

    Args:
        depths: Number of blocks in each of the four stages.
        projection_dims: Number of channels of each of the four stages.
        drop_path_rate: Largest stochastic-depth rate (grows linearly over the blocks
            from 0); 0 for none.
        layer_scale_init_value: Initial `LayerScale` factor; None for no `LayerScale`.
        default_size: The image size the model was designed for.
        name, include_preprocessing, include_top, weights, input_tensor, input_shape,
        pooling, classes, classifier_activation: as for `ConvNeXtTiny`.
        weights_name: Key of Keras's ImageNet file in `WEIGHTS_HASHES`
            (`"convnext_tiny"`, ...).

    Returns:
        A `lamina.Model`.
    """
    if backend.image_data_format() == "channels_first":
        raise ValueError(
            "ConvNeXt supports only the 'channels_last' image data format; the current "
            "one is 'channels_first'. Call lamina.backend.set_image_data_format("
            "'channels_last') before building it."
        )
    if len(depths) != 4 or len(projection_dims) != 4:
        raise ValueError(
            "ConvNeXt has four stages: `depths` and `projection_dims` need four entries "
            f"each. Received: depths={depths}, projection_dims={projection_dims}"
        )
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
        size = str(weights_name).split("convnext_")[-1]
        if weights_name not in WEIGHTS_HASHES or (
            list(depths),
            list(projection_dims),
        ) != tuple(MODEL_CONFIGS[size]):
            raise ValueError(
                f"ImageNet weights exist only for the ConvNeXt sizes {list(WEIGHTS_HASHES)} "
                f"with their own depths and widths. Received: weights_name={weights_name!r}, "
                f"depths={depths}, projection_dims={projection_dims}. Use weights=None."
            )
        if weights_name not in name:
            # Keras's file name is the model name; another name has no file.
            raise ValueError(
                f"With weights='imagenet' the model name must contain {weights_name!r} (the "
                f"weights file is named after it). Received: name={name!r}"
            )
        file_name = name + (".h5" if include_top else "_notop.h5")
        path = imagenet_utils.weights_path(
            weights,
            file_name,
            BASE_WEIGHTS_PATH + file_name,
            WEIGHTS_HASHES[weights_name][0 if include_top else 1],
            name,
        )
    img_input = imagenet_utils.make_input(input_tensor, input_shape)

    x = img_input
    if include_preprocessing and input_shape[-1] == 3:
        x = layers.Normalization(
            mean=_MEAN, variance=_VARIANCE, name=f"{name}_prestem_normalization"
        )(x)
    stem = Sequential(
        [
            layers.Conv2D(projection_dims[0], 4, strides=4, name=f"{name}_stem_conv"),
            _layer_norm(f"{name}_stem_layernorm"),
        ],
        name=f"{name}_stem",
    )
    downsamplings = [
        Sequential(
            [
                _layer_norm(f"{name}_downsampling_layernorm_{i}"),
                layers.Conv2D(
                    projection_dims[i + 1], 2, strides=2, name=f"{name}_downsampling_conv_{i}"
                ),
            ],
            name=f"{name}_downsampling_block_{i}",
        )
        for i in range(3)
    ]
    # The stochastic-depth rate grows linearly over all blocks, as in the paper's code.
    rates = [float(r) for r in np.linspace(0.0, drop_path_rate, sum(depths))]
    index = 0
    for stage, downsampling in enumerate([stem, *downsamplings]):
        x = downsampling(x)
        for j in range(depths[stage]):
            x = convnext_block(
                x,
                projection_dims[stage],
                drop_path_rate=rates[index],
                layer_scale_init_value=layer_scale_init_value,
                name=f"{name}_stage_{stage}_block_{j}",
            )
            index += 1

    if include_top:
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.GlobalAveragePooling2D(name=f"{name}_head_gap")(x)
        x = _layer_norm(f"{name}_head_layernorm")(x)
        x = layers.Dense(classes, activation=classifier_activation, name=f"{name}_head_dense")(x)
    else:
        if pooling == "avg":
            x = layers.GlobalAveragePooling2D()(x)
        elif pooling == "max":
            x = layers.GlobalMaxPooling2D()(x)
        # Keras normalizes the features of a headless model, pooled or not.
        x = _layer_norm()(x)
    model = Model(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    return imagenet_utils.finish(model, path)


_ARGS_DOC = """
    Args:
        include_top: Whether to end with global average pooling, layer normalization
            and the `classes`-way dense classifier (`<name>_head_dense`).
        include_preprocessing: Whether the model starts with a `Normalization` layer
            that normalizes [0, 255] images by the ImageNet channel statistics (as the
            ImageNet weights expect).
        weights: None (random initialization), `"imagenet"` (Keras's ImageNet
            weights, from the cache or downloaded once), or the path of a weights file.
        input_tensor: Optional tensor (e.g. from `lamina.Input`) to use as the input.
        input_shape: Optional `(height, width, channels)`; height and width at least 32.
            With `include_top=True` and ImageNet weights it must be (224, 224, 3).
        pooling: With `include_top=False`: None, `"avg"` or `"max"` (followed by a
            layer normalization in every case, as in Keras).
        classes: Number of classes of the top classifier.
        classifier_activation: Activation of the top layer (`None` for logits).
        name: Name of the model; with ImageNet weights it must contain
            `convnext_<size>` (the weights file is named after it).

    Returns:
        A `lamina.Model` taking images with values in [0, 255] (channels last).
"""


def _variant(size):
    depths, dims = MODEL_CONFIGS[size]

    def build(
        include_top=True,
        include_preprocessing=True,
        weights="imagenet",
        input_tensor=None,
        input_shape=None,
        pooling=None,
        classes=1000,
        classifier_activation="softmax",
        name=f"convnext_{size}",
    ):
        return ConvNeXt(
            depths,
            dims,
            drop_path_rate=0.0,
            layer_scale_init_value=1e-6,
            default_size=224,
            name=name,
            include_preprocessing=include_preprocessing,
            include_top=include_top,
            weights=weights,
            input_tensor=input_tensor,
            input_shape=input_shape,
            pooling=pooling,
            classes=classes,
            classifier_activation=classifier_activation,
            weights_name=f"convnext_{size}",
        )

    title = "XLarge" if size == "xlarge" else size.capitalize()
    build.__name__ = build.__qualname__ = f"ConvNeXt{title}"
    build.__doc__ = (
        f"ConvNeXt{title}: stages of {depths} blocks with {dims} channels.\n" + _ARGS_DOC
    )
    return build


ConvNeXtTiny = _variant("tiny")
ConvNeXtSmall = _variant("small")
ConvNeXtBase = _variant("base")
ConvNeXtLarge = _variant("large")
ConvNeXtXLarge = _variant("xlarge")


def preprocess_input(x, data_format=None):
    """Return `x` unchanged: ConvNeXt models normalize inside (Keras's no-op).

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
    32, ConvNeXtTiny, ConvNeXtSmall, ConvNeXtBase, ConvNeXtLarge, ConvNeXtXLarge
)
