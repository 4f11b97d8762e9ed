"""ResNet v2 (pre-activation) image classifiers, as `keras.applications.resnet_v2`.

He et al., "Identity Mappings in Deep Residual Networks" (ECCV 2016). The blocks live in
`lamina.applications.resnet`; inputs are preprocessed in tf mode (scaled to [-1, 1]).
"""

from __future__ import annotations

from lamina.applications import imagenet_utils, resnet


def _resnet_v2(sizes, weights_name, **kwargs):
    return resnet.ResNet(
        resnet._stages(resnet.stack_residual_blocks_v2, sizes, 1),
        True,
        True,
        weights_name=weights_name,
        **kwargs,
    )


def ResNet50V2(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet50v2",
):
    """ResNet50V2: the 50-layer pre-activation ResNet (preprocess with `resnet_v2.preprocess_input`)."""
    return _resnet_v2(
        (3, 4, 6, 3),
        "resnet50v2",
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        input_shape=input_shape,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
        name=name,
    )


def ResNet101V2(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet101v2",
):
    """ResNet101V2: the 101-layer pre-activation ResNet."""
    return _resnet_v2(
        (3, 4, 23, 3),
        "resnet101v2",
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        input_shape=input_shape,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
        name=name,
    )


def ResNet152V2(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet152v2",
):
    """ResNet152V2: the 152-layer pre-activation ResNet."""
    return _resnet_v2(
        (3, 8, 36, 3),
        "resnet152v2",
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        input_shape=input_shape,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
        name=name,
    )


def preprocess_input(x, data_format=None):
    """Preprocess images for ResNet v2: scale [0, 255] to [-1, 1].

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


for _fn in (ResNet50V2, ResNet101V2, ResNet152V2):
    _fn.__doc__ += resnet._ARGS_DOC.format(min_size=32)


imagenet_utils.add_checks_example(32, ResNet50V2, ResNet101V2, ResNet152V2)
