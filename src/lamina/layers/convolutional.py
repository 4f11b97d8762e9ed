"""Classic Keras's `keras.layers.convolutional`: convolutions, and the upsampling,
padding, cropping and pooling layers Keras 2 kept beside them.

The same objects as `lamina.layers`, with Keras 2's aliases (`Convolution2D`,
`Deconvolution2D`, `Deconv2D`, ...). Keras 1's `AtrousConvolution2D` is not here: its
Keras 1 signature (`nb_filter`, `nb_row`, `atrous_rate`) is `Conv2D(filters,
kernel_size, dilation_rate=...)`.

>>> from lamina import layers
>>> from lamina.layers import convolutional
>>> convolutional.Deconvolution2D is layers.Conv2DTranspose
True
"""

from lamina.layers.convolution import (
    Conv1D,
    Conv1DTranspose,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    Conv3DTranspose,
    Convolution1D,
    Convolution2D,
    Convolution2DTranspose,
    Convolution3D,
    DepthwiseConv1D,
    DepthwiseConv2D,
    SeparableConv1D,
    SeparableConv2D,
    SeparableConvolution1D,
    SeparableConvolution2D,
)
from lamina.layers.pooling import (
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
)
from lamina.layers.reshaping_nd import (
    Cropping1D,
    Cropping2D,
    Cropping3D,
    UpSampling1D,
    UpSampling2D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding2D,
    ZeroPadding3D,
)

# Keras 2's older names of the transposed convolutions.
Deconvolution2D = Deconv2D = Conv2DTranspose
Deconvolution3D = Deconv3D = Conv3DTranspose

__all__ = [
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "Conv1D",
    "Conv1DTranspose",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "Convolution1D",
    "Convolution2D",
    "Convolution2DTranspose",
    "Convolution3D",
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "Deconv2D",
    "Deconv3D",
    "Deconvolution2D",
    "Deconvolution3D",
    "DepthwiseConv1D",
    "DepthwiseConv2D",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
    "SeparableConv1D",
    "SeparableConv2D",
    "SeparableConvolution1D",
    "SeparableConvolution2D",
    "UpSampling1D",
    "UpSampling2D",
    "UpSampling3D",
    "ZeroPadding1D",
    "ZeroPadding2D",
    "ZeroPadding3D",
]
