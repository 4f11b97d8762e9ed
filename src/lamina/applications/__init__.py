"""Ready-made image classifiers, as `keras.applications`, that load Keras's weights.

Each model function builds a functional `lamina.Model` whose layer names and order
are Keras's, so Keras's ImageNet weight files (`weights="imagenet"`, read from the
Keras cache `~/.keras/models` or downloaded once) and weights saved from the same
Keras model load unchanged. Each family's module also has `preprocess_input` and
`decode_predictions`.

>>> import numpy as np
>>> import lamina
>>> images = np.full((1, 2, 2, 3), 255.0)
>>> lamina.applications.resnet_v2.preprocess_input(images).max()
np.float64(1.0)

Building one takes a line (`weights=None` for random initialization; a small input
is allowed without the top): `lamina.applications.ResNet50(weights=None,
include_top=False, input_shape=(32, 32, 3))`.
"""

from lamina.applications import (
    convnext,
    densenet,
    efficientnet,
    efficientnet_v2,
    imagenet_utils,
    inception_resnet_v2,
    inception_v3,
    mobilenet,
    mobilenet_v2,
    mobilenet_v3,
    nasnet,
    resnet,
    resnet50,
    resnet_v2,
    vgg16,
    vgg19,
    xception,
)
from lamina.applications.convnext import (
    ConvNeXtBase,
    ConvNeXtLarge,
    ConvNeXtSmall,
    ConvNeXtTiny,
    ConvNeXtXLarge,
)
from lamina.applications.densenet import (
    DenseNet121,
    DenseNet169,
    DenseNet201,
)
from lamina.applications.efficientnet import (
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
)
from lamina.applications.efficientnet_v2 import (
    EfficientNetV2B0,
    EfficientNetV2B1,
    EfficientNetV2B2,
    EfficientNetV2B3,
    EfficientNetV2L,
    EfficientNetV2M,
    EfficientNetV2S,
)
from lamina.applications.inception_resnet_v2 import (
    InceptionResNetV2,
)
from lamina.applications.inception_v3 import (
    InceptionV3,
)
from lamina.applications.mobilenet import (
    MobileNet,
)
from lamina.applications.mobilenet_v2 import (
    MobileNetV2,
)
from lamina.applications.mobilenet_v3 import (
    MobileNetV3Large,
    MobileNetV3Small,
)
from lamina.applications.nasnet import NASNetLarge, NASNetMobile
from lamina.applications.resnet import (
    ResNet50,
    ResNet101,
    ResNet152,
)
from lamina.applications.resnet_v2 import (
    ResNet50V2,
    ResNet101V2,
    ResNet152V2,
)
from lamina.applications.vgg16 import (
    VGG16,
)
from lamina.applications.vgg19 import (
    VGG19,
)
from lamina.applications.xception import (
    Xception,
)

__all__ = [
    "ConvNeXtBase",
    "ConvNeXtLarge",
    "ConvNeXtSmall",
    "ConvNeXtTiny",
    "ConvNeXtXLarge",
    "DenseNet121",
    "DenseNet169",
    "DenseNet201",
    "EfficientNetB0",
    "EfficientNetB1",
    "EfficientNetB2",
    "EfficientNetB3",
    "EfficientNetB4",
    "EfficientNetB5",
    "EfficientNetB6",
    "EfficientNetB7",
    "EfficientNetV2B0",
    "EfficientNetV2B1",
    "EfficientNetV2B2",
    "EfficientNetV2B3",
    "EfficientNetV2L",
    "EfficientNetV2M",
    "EfficientNetV2S",
    "InceptionResNetV2",
    "InceptionV3",
    "MobileNet",
    "MobileNetV2",
    "MobileNetV3Large",
    "MobileNetV3Small",
    "NASNetLarge",
    "NASNetMobile",
    "ResNet101",
    "ResNet101V2",
    "ResNet152",
    "ResNet152V2",
    "ResNet50",
    "ResNet50V2",
    "VGG16",
    "VGG19",
    "Xception",
    "convnext",
    "densenet",
    "efficientnet",
    "efficientnet_v2",
    "imagenet_utils",
    "inception_resnet_v2",
    "inception_v3",
    "mobilenet",
    "mobilenet_v2",
    "mobilenet_v3",
    "nasnet",
    "resnet",
    "resnet50",
    "resnet_v2",
    "vgg16",
    "vgg19",
    "xception",
]
