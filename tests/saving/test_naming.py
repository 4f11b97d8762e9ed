"""Default names follow Keras's snake-case rule exactly: weight paths and layer names in
`.keras` files depend on it (`Conv1D` is `conv1d`, not `conv1_d`)."""

import pytest

from lamina import layers
from lamina.backend.common.global_state import to_snake_case

# Expected values are what keras.src.utils.naming.to_snake_case returns.
KERAS_NAMES = {
    "Conv1D": "conv1d",
    "Conv2D": "conv2d",
    "Conv3D": "conv3d",
    "Conv2DTranspose": "conv2d_transpose",
    "DepthwiseConv2D": "depthwise_conv2d",
    "SeparableConv1D": "separable_conv1d",
    "SpatialDropout1D": "spatial_dropout1d",
    "GlobalAveragePooling2D": "global_average_pooling2d",
    "MaxPooling1D": "max_pooling1d",
    "UpSampling2D": "up_sampling2d",
    "ZeroPadding3D": "zero_padding3d",
    "Dense": "dense",
    "LSTM": "lstm",
    "GRUCell": "gru_cell",
    "MultiHeadAttention": "multi_head_attention",
    "F1Score": "f1_score",
    "AUC": "auc",
    "MeanIoU": "mean_io_u",
    "Dense.Layer": "dense_layer",
}


@pytest.mark.parametrize("name", sorted(KERAS_NAMES))
def test_to_snake_case_matches_keras(name):
    assert to_snake_case(name) == KERAS_NAMES[name]


def test_default_layer_names_match_keras():
    assert layers.Conv1D(2, 3).name.startswith("conv1d")
    assert layers.Conv2DTranspose(2, 3).name.startswith("conv2d_transpose")
    assert layers.DepthwiseConv2D(3).name.startswith("depthwise_conv2d")
    assert layers.SpatialDropout1D(0.1).name.startswith("spatial_dropout1d")
