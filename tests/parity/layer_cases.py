"""The layer cases of the differential harness: each builds one layer from a `layers`
namespace (Keras 3's or lamina's, the constructor written once) and gives the inputs to
call it on.

A case's id starts with the name of the class it covers (`Conv2D-same-strided`), unless
`layer` names it; `covers` names further classes the case exercises inside it (the cells
of a stacked RNN). Compared with the case's tolerances where it states them, else with
those of the output's dtype (`parity_tools.TOLERANCES`).

Random layers (dropout, noise, augmentation) are compared in inference mode, where they
are the identity (or, for RandomCrop, a deterministic center crop).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

RNG = np.random.default_rng(1234)


def _f(*shape, low=None, high=None):
    if low is not None:
        return RNG.uniform(low, high, shape).astype("float32")
    return RNG.normal(size=shape).astype("float32")


def _ints(high, *shape, low=0):
    return RNG.integers(low, high, shape).astype("int32")


@dataclass
class Case:
    id: str
    make: Callable[[Any], Any]  # layers namespace -> layer
    args: tuple  # positional call arguments (arrays or lists of arrays)
    kwargs: dict = field(default_factory=dict)  # call keyword arguments
    rtol: float = 1e-5
    atol: float = 1e-5
    mask: bool = False  # compare compute_mask(args[0], previous_mask or kwargs["mask"])
    previous_mask: Any = None
    shape: bool = True  # compare compute_output_shape on a None batch
    adapt: Any = None  # data both layers adapt on before the call
    xfail: str | None = None  # a known difference, with its reason
    layer: str | None = None  # the class covered, when the id does not start with it
    covers: tuple = ()  # further classes the case exercises (wrapped, stacked)

    @property
    def layer_name(self) -> str:
        return self.layer or self.id.split("-")[0]


def _c(id, make, *args, **options):
    kwargs = options.pop("call", {})
    return Case(id, make, args, kwargs, **options)


X1 = _f(2, 7, 3)  # (batch, steps, channels)
X2 = _f(2, 6, 5, 3)  # (batch, rows, cols, channels)
X3 = _f(2, 4, 5, 3, 2)  # (batch, d1, d2, d3, channels)
IMG = _f(2, 8, 6, 3, low=0.0, high=1.0)
SEQ_MASK = np.array([[1, 1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1]], bool)

CASES = [
    # -- core ------------------------------------------------------------------------
    _c("Dense", lambda L: L.Dense(4), _f(2, 5)),
    _c("Dense-3d-relu-nobias", lambda L: L.Dense(4, activation="relu", use_bias=False), X1),
    _c(
        "EinsumDense", lambda L: L.EinsumDense("ab,bc->ac", output_shape=4, bias_axes="c"), _f(2, 5)
    ),
    _c(
        "EinsumDense-3d",
        lambda L: L.EinsumDense("abc,cde->abde", output_shape=(None, 2, 4), bias_axes="de"),
        X1,
    ),
    _c("Embedding", lambda L: L.Embedding(10, 3), _ints(10, 2, 5)),
    _c(
        "Embedding-mask_zero",
        lambda L: L.Embedding(10, 3, mask_zero=True),
        _ints(4, 2, 5),
        mask=True,
    ),
    _c("ReversibleEmbedding", lambda L: L.ReversibleEmbedding(10, 3), _ints(10, 2, 5)),
    _c(
        "ReversibleEmbedding-reverse-untied",
        lambda L: L.ReversibleEmbedding(10, 3, tie_weights=False),
        _f(2, 3),
        call={"reverse": True},
        shape=False,
    ),
    _c("Identity", lambda L: L.Identity(), _f(2, 5)),
    _c("Activation-gelu", lambda L: L.Activation("gelu"), _f(2, 5)),
    _c("Activation-softmax", lambda L: L.Activation("softmax"), X1),
    _c("Lambda", lambda L: L.Lambda(lambda x: x * 2.0 + 1.0), _f(2, 5)),
    _c("Masking", lambda L: L.Masking(0.0), np.where(SEQ_MASK[..., None], X1, 0.0), mask=True),
    _c("Flatten", lambda L: L.Flatten(), X2),
    _c("Flatten-channels_first", lambda L: L.Flatten(data_format="channels_first"), X2),
    _c("Reshape", lambda L: L.Reshape((3, 7)), X1),
    _c("Reshape-minus1", lambda L: L.Reshape((-1, 2)), X2),
    _c("Permute", lambda L: L.Permute((3, 1, 2)), X2),
    _c("RepeatVector", lambda L: L.RepeatVector(3), _f(2, 4)),
    _c("Rescaling", lambda L: L.Rescaling(1 / 255.0, offset=-1.0), IMG * 255),
    _c("Softmax-axis1", lambda L: L.Softmax(axis=1), X1),
    _c("Softmax-mask", lambda L: L.Softmax(), _f(2, 7), call={"mask": SEQ_MASK}),
    _c("ReLU-args", lambda L: L.ReLU(max_value=1.0, negative_slope=0.1, threshold=0.2), _f(2, 9)),
    _c("LeakyReLU", lambda L: L.LeakyReLU(0.2), _f(2, 9)),
    _c("ELU", lambda L: L.ELU(0.5), _f(2, 9)),
    _c("PReLU-shared", lambda L: L.PReLU(shared_axes=[1]), X1),
    _c("ActivityRegularization", lambda L: L.ActivityRegularization(l1=0.1), _f(2, 5)),
    _c("UnitNormalization", lambda L: L.UnitNormalization(), X1),
    _c("UnitNormalization-axes", lambda L: L.UnitNormalization(axis=[1, 2]), X1),
    # -- regularization (inference: identity) ----------------------------------------
    _c("Dropout", lambda L: L.Dropout(0.5), _f(2, 5)),
    _c("SpatialDropout1D", lambda L: L.SpatialDropout1D(0.5), X1),
    _c("SpatialDropout2D", lambda L: L.SpatialDropout2D(0.5), X2),
    _c("SpatialDropout3D", lambda L: L.SpatialDropout3D(0.5), X3),
    _c("GaussianDropout", lambda L: L.GaussianDropout(0.5), _f(2, 5)),
    _c("GaussianNoise", lambda L: L.GaussianNoise(0.5), _f(2, 5)),
    _c("AlphaDropout", lambda L: L.AlphaDropout(0.5), _f(2, 5)),
    # -- merging ---------------------------------------------------------------------
    _c("Add", lambda L: L.Add(), [_f(2, 4), _f(2, 4), _f(2, 4)]),
    _c("Subtract", lambda L: L.Subtract(), [_f(2, 4), _f(2, 4)]),
    _c("Multiply", lambda L: L.Multiply(), [_f(2, 4), _f(2, 4)]),
    _c("Average", lambda L: L.Average(), [_f(2, 4), _f(2, 4)]),
    _c("Maximum", lambda L: L.Maximum(), [_f(2, 4), _f(2, 4)]),
    _c("Minimum", lambda L: L.Minimum(), [_f(2, 4), _f(2, 4)]),
    _c("Concatenate", lambda L: L.Concatenate(), [X1, _f(2, 7, 2)]),
    _c("Concatenate-axis1", lambda L: L.Concatenate(axis=1), [X1, _f(2, 2, 3)]),
    _c(
        "Concatenate-masks",
        lambda L: L.Concatenate(),
        [X1, _f(2, 7, 2)],
        mask=True,
        previous_mask=[SEQ_MASK, None],
    ),
    _c("Dot", lambda L: L.Dot(axes=1), [_f(2, 4), _f(2, 4)]),
    _c("Dot-normalize", lambda L: L.Dot(axes=(1, 1), normalize=True), [X1, _f(2, 7, 2)]),
    _c("Add-broadcast", lambda L: L.Add(), [_f(2, 3, 4), _f(2, 1, 4)]),
    # -- convolution -----------------------------------------------------------------
    _c("Conv1D", lambda L: L.Conv1D(4, 3), X1),
    _c("Conv1D-same-strided", lambda L: L.Conv1D(4, 3, strides=2, padding="same"), X1),
    _c("Conv1D-causal-dilated", lambda L: L.Conv1D(4, 2, padding="causal", dilation_rate=2), X1),
    _c("Conv1D-channels_first", lambda L: L.Conv1D(4, 2, data_format="channels_first"), X1),
    _c("Conv1D-groups", lambda L: L.Conv1D(4, 2, groups=2), _f(2, 7, 4)),
    _c("Conv2D", lambda L: L.Conv2D(4, 3, activation="relu"), X2),
    _c("Conv2D-same-strided", lambda L: L.Conv2D(4, (3, 2), strides=2, padding="same"), X2),
    _c("Conv2D-dilated-nobias", lambda L: L.Conv2D(2, 2, dilation_rate=2, use_bias=False), X2),
    _c("Conv2D-channels_first", lambda L: L.Conv2D(2, 2, data_format="channels_first"), X2),
    _c("Conv3D", lambda L: L.Conv3D(2, 2, padding="same"), X3),
    _c("Conv1DTranspose", lambda L: L.Conv1DTranspose(4, 3, strides=2), X1),
    _c(
        "Conv1DTranspose-same",
        lambda L: L.Conv1DTranspose(4, 3, strides=2, padding="same"),
        X1,
    ),
    _c("Conv2DTranspose", lambda L: L.Conv2DTranspose(3, 3, strides=2), X2),
    _c(
        "Conv2DTranspose-output_padding",
        lambda L: L.Conv2DTranspose(3, 3, strides=2, padding="same", output_padding=1),
        X2,
    ),
    _c(
        "Conv2DTranspose-dilated",
        lambda L: L.Conv2DTranspose(3, 2, dilation_rate=2),
        X2,
    ),
    _c(
        "Conv2DTranspose-channels_first",
        lambda L: L.Conv2DTranspose(3, 2, strides=2, data_format="channels_first"),
        X2,
    ),
    _c("Conv3DTranspose", lambda L: L.Conv3DTranspose(2, 2, strides=2), X3),
    _c("DepthwiseConv1D", lambda L: L.DepthwiseConv1D(3, depth_multiplier=2), X1),
    _c("DepthwiseConv2D", lambda L: L.DepthwiseConv2D(3, padding="same", strides=2), X2),
    _c(
        "DepthwiseConv2D-channels_first",
        lambda L: L.DepthwiseConv2D(2, data_format="channels_first"),
        X2,
    ),
    _c("SeparableConv1D", lambda L: L.SeparableConv1D(4, 3, depth_multiplier=2), X1),
    _c("SeparableConv2D", lambda L: L.SeparableConv2D(4, 3, padding="same"), X2),
    _c(
        "SeparableConv2D-dilated",
        lambda L: L.SeparableConv2D(4, 2, dilation_rate=2, use_bias=False),
        X2,
    ),
    # -- pooling ---------------------------------------------------------------------
    _c("MaxPooling1D", lambda L: L.MaxPooling1D(2), X1),
    _c("MaxPooling1D-same", lambda L: L.MaxPooling1D(3, strides=2, padding="same"), X1),
    _c("MaxPooling2D", lambda L: L.MaxPooling2D((2, 3), strides=1), X2),
    _c("MaxPooling2D-same", lambda L: L.MaxPooling2D(3, strides=2, padding="same"), X2),
    _c(
        "MaxPooling2D-channels_first",
        lambda L: L.MaxPooling2D(2, data_format="channels_first"),
        X2,
    ),
    _c("MaxPooling3D", lambda L: L.MaxPooling3D(2, padding="same"), X3),
    _c("AveragePooling1D-same", lambda L: L.AveragePooling1D(3, strides=2, padding="same"), X1),
    _c("AveragePooling2D", lambda L: L.AveragePooling2D(2), X2),
    _c("AveragePooling2D-same", lambda L: L.AveragePooling2D(3, strides=2, padding="same"), X2),
    _c(
        "AveragePooling2D-channels_first",
        lambda L: L.AveragePooling2D(2, strides=1, data_format="channels_first"),
        X2,
    ),
    _c("AveragePooling3D", lambda L: L.AveragePooling3D(2, strides=1, padding="same"), X3),
    _c("GlobalMaxPooling1D", lambda L: L.GlobalMaxPooling1D(), X1),
    _c(
        "GlobalAveragePooling1D-mask",
        lambda L: L.GlobalAveragePooling1D(),
        X1,
        call={"mask": SEQ_MASK},
    ),
    _c("GlobalAveragePooling2D-keepdims", lambda L: L.GlobalAveragePooling2D(keepdims=True), X2),
    _c(
        "GlobalMaxPooling2D-channels_first",
        lambda L: L.GlobalMaxPooling2D(data_format="channels_first"),
        X2,
    ),
    _c("GlobalAveragePooling3D", lambda L: L.GlobalAveragePooling3D(), X3),
    _c("GlobalMaxPooling3D-keepdims", lambda L: L.GlobalMaxPooling3D(keepdims=True), X3),
    _c("AdaptiveAveragePooling1D", lambda L: L.AdaptiveAveragePooling1D(3), X1),
    _c("AdaptiveMaxPooling1D", lambda L: L.AdaptiveMaxPooling1D(3), X1),
    _c("AdaptiveAveragePooling2D", lambda L: L.AdaptiveAveragePooling2D((4, 2)), X2),
    _c(
        "AdaptiveMaxPooling2D-channels_first",
        lambda L: L.AdaptiveMaxPooling2D(2, data_format="channels_first"),
        X2,
    ),
    _c("AdaptiveAveragePooling3D", lambda L: L.AdaptiveAveragePooling3D((2, 3, 2)), X3),
    _c("AdaptiveMaxPooling3D", lambda L: L.AdaptiveMaxPooling3D(2), X3),
    # -- reshaping -------------------------------------------------------------------
    _c("Cropping1D", lambda L: L.Cropping1D((1, 2)), X1),
    _c("Cropping2D", lambda L: L.Cropping2D(((1, 0), (2, 1))), X2),
    _c(
        "Cropping2D-channels_first",
        lambda L: L.Cropping2D(1, data_format="channels_first"),
        _f(2, 3, 5, 6),
    ),
    _c("Cropping3D", lambda L: L.Cropping3D(((1, 0), (1, 1), (0, 1))), X3),
    _c("ZeroPadding1D", lambda L: L.ZeroPadding1D((1, 2)), X1),
    _c("ZeroPadding2D", lambda L: L.ZeroPadding2D(((1, 0), (2, 1))), X2),
    _c(
        "ZeroPadding2D-channels_first",
        lambda L: L.ZeroPadding2D(1, data_format="channels_first"),
        X2,
    ),
    _c("ZeroPadding3D", lambda L: L.ZeroPadding3D(1), X3),
    _c("UpSampling1D", lambda L: L.UpSampling1D(2), X1),
    _c("UpSampling2D", lambda L: L.UpSampling2D((2, 3)), X2),
    _c("UpSampling2D-bilinear", lambda L: L.UpSampling2D(2, interpolation="bilinear"), X2),
    _c(
        "UpSampling2D-bicubic-channels_first",
        lambda L: L.UpSampling2D(2, interpolation="bicubic", data_format="channels_first"),
        _f(2, 3, 4, 5),
    ),
    _c("UpSampling3D", lambda L: L.UpSampling3D((1, 2, 2)), X3),
    # -- normalization ---------------------------------------------------------------
    _c("BatchNormalization", lambda L: L.BatchNormalization(), X2),
    _c(
        "BatchNormalization-axis1-noscale",
        lambda L: L.BatchNormalization(axis=1, scale=False, epsilon=0.1),
        X1,
    ),
    _c("LayerNormalization", lambda L: L.LayerNormalization(), X1),
    _c(
        "LayerNormalization-axes-nocenter",
        lambda L: L.LayerNormalization(axis=[1, 2], center=False),
        X1,
    ),
    _c("LayerNormalization-rms", lambda L: L.LayerNormalization(rms_scaling=True), X1),
    _c("GroupNormalization", lambda L: L.GroupNormalization(groups=2), _f(2, 5, 4)),
    _c("GroupNormalization-axis1", lambda L: L.GroupNormalization(groups=3, axis=1), X2),
    _c("RMSNormalization", lambda L: L.RMSNormalization(), X1),
    _c(
        "Normalization-given",
        lambda L: L.Normalization(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 9.0]),
        X1,
    ),
    _c(
        "Normalization-invert",
        lambda L: L.Normalization(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 9.0], invert=True),
        X1,
    ),
    _c("Normalization-adapt", lambda L: L.Normalization(axis=-1), X1, adapt=_f(10, 7, 3)),
    _c(
        "Normalization-adapt-axis-none",
        lambda L: L.Normalization(axis=None),
        X1,
        adapt=_f(10, 7, 3),
    ),
    _c("SpectralNormalization", lambda L: L.SpectralNormalization(L.Dense(4)), _f(2, 5)),
    # -- recurrent -------------------------------------------------------------------
    _c("SimpleRNN", lambda L: L.SimpleRNN(4), X1),
    _c(
        "SimpleRNN-sequences-backwards",
        lambda L: L.SimpleRNN(4, return_sequences=True, go_backwards=True),
        X1,
    ),
    _c("LSTM", lambda L: L.LSTM(4, return_sequences=True), X1),
    _c("LSTM-state-mask", lambda L: L.LSTM(4, return_state=True), X1, call={"mask": SEQ_MASK}),
    _c(
        "LSTM-backwards-mask-sequences",
        lambda L: L.LSTM(3, go_backwards=True, return_sequences=True),
        X1,
        call={"mask": SEQ_MASK},
        mask=True,
    ),
    _c("LSTM-initial_state", lambda L: L.LSTM(2), X1, call={"initial_state": [_f(2, 2), _f(2, 2)]}),
    _c("GRU", lambda L: L.GRU(4), X1),
    _c(
        "GRU-reset_before-sequences",
        lambda L: L.GRU(4, reset_after=False, return_sequences=True),
        X1,
    ),
    _c("GRU-mask-state", lambda L: L.GRU(3, return_state=True), X1, call={"mask": SEQ_MASK}),
    _c("RNN-LSTMCell-unroll", lambda L: L.RNN(L.LSTMCell(3), unroll=True), X1),
    _c(
        "RNN-StackedRNNCells",
        lambda L: L.RNN(L.StackedRNNCells([L.SimpleRNNCell(3), L.GRUCell(2)])),
        X1,
        covers=("StackedRNNCells",),
    ),
    _c("RNN-cell-list", lambda L: L.RNN([L.GRUCell(2), L.LSTMCell(3)], return_sequences=True), X1),
    _c("LSTMCell", lambda L: L.LSTMCell(3), _f(2, 4), [_f(2, 3), _f(2, 3)], shape=False),
    _c(
        "GRUCell-reset_before",
        lambda L: L.GRUCell(3, reset_after=False),
        _f(2, 4),
        [_f(2, 3)],
        shape=False,
    ),
    _c("SimpleRNNCell", lambda L: L.SimpleRNNCell(3), _f(2, 4), [_f(2, 3)], shape=False),
    _c("Bidirectional-LSTM", lambda L: L.Bidirectional(L.LSTM(3)), X1),
    _c(
        "Bidirectional-GRU-sum-sequences",
        lambda L: L.Bidirectional(L.GRU(3, return_sequences=True), merge_mode="sum"),
        X1,
    ),
    _c(
        "Bidirectional-mask-state",
        lambda L: L.Bidirectional(L.SimpleRNN(3, return_state=True)),
        X1,
        call={"mask": SEQ_MASK},
    ),
    _c("TimeDistributed-Dense", lambda L: L.TimeDistributed(L.Dense(4)), X1),
    _c("TimeDistributed-Conv2D", lambda L: L.TimeDistributed(L.Conv2D(2, 2)), _f(2, 3, 4, 4, 2)),
    _c("ConvLSTM1D", lambda L: L.ConvLSTM1D(2, 3, padding="same"), _f(2, 3, 5, 2)),
    _c(
        "ConvLSTM2D-sequences",
        lambda L: L.ConvLSTM2D(2, 2, return_sequences=True),
        _f(2, 3, 4, 4, 2),
    ),
    _c(
        "ConvLSTM2D-channels_first",
        lambda L: L.ConvLSTM2D(2, 2, data_format="channels_first"),
        _f(2, 3, 2, 4, 4),
    ),
    _c("ConvLSTM3D", lambda L: L.ConvLSTM3D(2, 2), _f(2, 2, 3, 3, 3, 1)),
    # -- attention -------------------------------------------------------------------
    _c("Attention", lambda L: L.Attention(), [_f(2, 3, 4), _f(2, 5, 4)]),
    _c(
        "Attention-scale-concat-causal",
        lambda L: L.Attention(use_scale=True, score_mode="concat"),
        [_f(2, 5, 4), _f(2, 5, 4), _f(2, 5, 4)],
        call={"use_causal_mask": True},
    ),
    _c(
        "Attention-masks",
        lambda L: L.Attention(),
        [_f(2, 7, 4), _f(2, 7, 4)],
        call={"mask": [SEQ_MASK, SEQ_MASK]},
        mask=True,
        shape=False,
    ),
    _c("AdditiveAttention", lambda L: L.AdditiveAttention(), [_f(2, 3, 4), _f(2, 5, 4)]),
    _c(
        "AdditiveAttention-noscale",
        lambda L: L.AdditiveAttention(use_scale=False),
        [_f(2, 3, 4), _f(2, 5, 4), _f(2, 5, 4)],
    ),
    _c(
        "MultiHeadAttention",
        lambda L: L.MultiHeadAttention(num_heads=2, key_dim=3),
        _f(2, 4, 5),
        _f(2, 6, 5),
    ),
    _c(
        "MultiHeadAttention-key-mask-output_shape",
        # Not value_dim != key_dim: Keras 3.15 on JAX fails on it (its fused attention
        # wants one head size).
        lambda L: L.MultiHeadAttention(num_heads=2, key_dim=3, output_shape=4),
        _f(2, 4, 5),
        _f(2, 6, 3),
        _f(2, 6, 2),
        call={"attention_mask": _ints(2, 2, 4, 6).astype(bool)},
    ),
    _c(
        "MultiHeadAttention-causal-nobias",
        lambda L: L.MultiHeadAttention(num_heads=1, key_dim=4, use_bias=False),
        _f(2, 4, 5),
        _f(2, 4, 5),
        call={"use_causal_mask": True},
    ),
    _c(
        "GroupQueryAttention",
        lambda L: L.GroupQueryAttention(head_dim=3, num_query_heads=4, num_key_value_heads=2),
        _f(2, 4, 5),
        _f(2, 6, 5),
    ),
    # -- preprocessing ---------------------------------------------------------------
    _c("CategoryEncoding-multi_hot", lambda L: L.CategoryEncoding(6), _ints(6, 2, 3)),
    _c(
        "CategoryEncoding-one_hot",
        lambda L: L.CategoryEncoding(6, output_mode="one_hot"),
        _ints(6, 2, 3),
    ),
    _c(
        "CategoryEncoding-count",
        lambda L: L.CategoryEncoding(6, output_mode="count"),
        _ints(6, 2, 3),
    ),
    _c(
        "CategoryEncoding-count-weights",
        lambda L: L.CategoryEncoding(6, output_mode="count"),
        _ints(6, 2, 3),
        call={"count_weights": _f(2, 3)},
        shape=False,
    ),
    _c("Discretization", lambda L: L.Discretization(bin_boundaries=[-0.5, 0.0, 0.5]), _f(2, 5)),
    _c(
        "Discretization-one_hot",
        lambda L: L.Discretization(bin_boundaries=[-0.5, 0.5], output_mode="one_hot"),
        _f(2),
    ),
    _c("Resizing", lambda L: L.Resizing(4, 5), IMG),
    _c("Resizing-nearest", lambda L: L.Resizing(5, 3, interpolation="nearest"), IMG),
    _c("Resizing-bicubic", lambda L: L.Resizing(12, 9, interpolation="bicubic"), IMG, atol=1e-4),
    _c("Resizing-crop_to_aspect", lambda L: L.Resizing(4, 4, crop_to_aspect_ratio=True), IMG),
    _c("Resizing-pad_to_aspect", lambda L: L.Resizing(4, 4, pad_to_aspect_ratio=True), IMG),
    _c(
        "Resizing-channels_first-lanczos3",
        lambda L: L.Resizing(3, 2, interpolation="lanczos3", data_format="channels_first"),
        _f(2, 3, 6, 4),
    ),
    _c("CenterCrop", lambda L: L.CenterCrop(4, 4), IMG),
    _c("CenterCrop-upscale", lambda L: L.CenterCrop(10, 5), IMG),
    _c("AutoContrast", lambda L: L.AutoContrast(value_range=(0, 1)), IMG),
    _c("Equalization", lambda L: L.Equalization(value_range=(0, 255)), np.round(IMG * 255)),
    _c(
        "Solarization-deterministic",
        lambda L: L.Solarization(threshold_factor=(0.5, 0.5), value_range=(0, 1)),
        IMG,
    ),
    _c(
        "CLAHE",
        lambda L: L.ContrastLimitedAdaptiveHistogramEqualization(
            value_range=(0, 255), tile_grid_size=(2, 2)
        ),
        np.round(IMG * 255),
        atol=1e-3,
        layer="ContrastLimitedAdaptiveHistogramEqualization",
    ),
    _c(
        "STFTSpectrogram",
        lambda L: L.STFTSpectrogram(frame_length=8, frame_step=4, fft_length=8),
        _f(2, 32, 1),
        atol=1e-4,
    ),
    _c(
        "STFTSpectrogram-log-stack",
        lambda L: L.STFTSpectrogram(
            mode="log", frame_length=8, frame_step=4, expand_dims=True, padding="same"
        ),
        _f(2, 32, 2),
        atol=1e-4,
    ),
    _c(
        "MelSpectrogram",
        lambda L: L.MelSpectrogram(
            fft_length=16, sequence_stride=4, sequence_length=16, num_mel_bins=4, sampling_rate=800
        ),
        _f(2, 64),
        rtol=1e-4,
        atol=1e-3,
    ),
    _c(
        "MaxNumBoundingBoxes",
        lambda L: L.MaxNumBoundingBoxes(max_number=5, fill_value=-1, bounding_box_format="xyxy"),
        {
            "images": IMG,
            "bounding_boxes": {"boxes": _f(2, 3, 4, low=0, high=8), "labels": _ints(4, 2, 3)},
        },
    ),
    # -- dtypes: policies and integer inputs -------------------------------------------
    _c(
        "Dense-mixed_float16",
        lambda L: L.Dense(4, dtype="mixed_float16"),
        _f(2, 5),
        rtol=2e-3,
        atol=2e-3,
    ),
    _c(
        "Conv2D-mixed_bfloat16",
        lambda L: L.Conv2D(2, 2, dtype="mixed_bfloat16"),
        X2,
        rtol=2e-2,
        atol=3e-2,
    ),
    _c(
        "BatchNormalization-mixed_float16",
        lambda L: L.BatchNormalization(dtype="mixed_float16"),
        X1,
        rtol=2e-3,
        atol=2e-3,
    ),
    _c(
        "LayerNormalization-float16",
        lambda L: L.LayerNormalization(dtype="float16"),
        X1,
        rtol=2e-3,
        atol=2e-3,
    ),
    _c(
        "Softmax-mixed_float16",
        lambda L: L.Softmax(dtype="mixed_float16"),
        X1,
        rtol=2e-3,
        atol=2e-3,
    ),
    _c("Dense-int-input", lambda L: L.Dense(3), _ints(5, 2, 4)),
    _c("Rescaling-uint8", lambda L: L.Rescaling(1 / 255.0), (IMG * 255).astype("uint8")),
    _c("Resizing-uint8", lambda L: L.Resizing(4, 3), (IMG * 255).astype("uint8"), atol=1e-3),
    _c("CenterCrop-int", lambda L: L.CenterCrop(4, 4), _ints(255, 2, 8, 6, 3)),
    _c("Flatten-int", lambda L: L.Flatten(), _ints(5, 2, 3, 2)),
    _c(
        "Normalization-int-input", lambda L: L.Normalization(mean=2.0, variance=4.0), _ints(5, 2, 3)
    ),
    _c(
        "CategoryEncoding-int-dtype",
        lambda L: L.CategoryEncoding(5, output_mode="count", dtype="int32"),
        _ints(5, 2, 4),
    ),
    _c(
        "Embedding-float16",
        lambda L: L.Embedding(10, 3, dtype="float16"),
        _ints(10, 2, 5),
        rtol=1e-3,
    ),
    # -- more arguments ----------------------------------------------------------------
    _c(
        "Attention-scores",
        lambda L: L.Attention(),
        [_f(2, 3, 4), _f(2, 5, 4)],
        call={"return_attention_scores": True},
        shape=False,
    ),
    _c(
        "MultiHeadAttention-scores-axes",
        lambda L: L.MultiHeadAttention(num_heads=2, key_dim=2, attention_axes=(1, 2)),
        _f(2, 3, 4, 5),
        _f(2, 3, 4, 5),
        call={"return_attention_scores": True},
        shape=False,
    ),
    _c("Conv2D-groups-same", lambda L: L.Conv2D(4, 3, groups=2, padding="same"), _f(2, 5, 5, 4)),
    _c("Conv1D-same-even-kernel", lambda L: L.Conv1D(2, 4, padding="same"), X1),
    _c(
        "Conv2DTranspose-same-even",
        lambda L: L.Conv2DTranspose(2, 4, strides=3, padding="same"),
        X2,
    ),
    _c("Conv1DTranspose-dilated", lambda L: L.Conv1DTranspose(2, 3, dilation_rate=2), X1),
    _c(
        "AveragePooling1D-channels_first",
        lambda L: L.AveragePooling1D(2, data_format="channels_first"),
        X1,
    ),
    _c("MaxPooling2D-same-even", lambda L: L.MaxPooling2D(2, strides=3, padding="same"), X2),
    _c(
        "GlobalAveragePooling1D-channels_first-mask",
        lambda L: L.GlobalAveragePooling1D(data_format="channels_first"),
        _f(2, 3, 7),
        call={"mask": SEQ_MASK},
    ),
    _c("GlobalMaxPooling1D-keepdims", lambda L: L.GlobalMaxPooling1D(keepdims=True), X1),
    _c(
        "UpSampling2D-bilinear-channels_first",
        lambda L: L.UpSampling2D((2, 3), interpolation="bilinear", data_format="channels_first"),
        _f(2, 3, 4, 5),
    ),
    _c("Softmax-axes", lambda L: L.Softmax(axis=(1, 2)), X1),
    _c("ReLU-threshold", lambda L: L.ReLU(threshold=0.5), _f(2, 9)),
    _c("Dot-3d-last", lambda L: L.Dot(axes=-1), [X1, _f(2, 7, 3)]),
    _c("Dot-axes-pair", lambda L: L.Dot(axes=(2, 1)), [_f(2, 4, 3), _f(2, 3, 5)]),
    _c(
        "TimeDistributed-mask",
        lambda L: L.TimeDistributed(L.Dense(2)),
        X1,
        call={"mask": SEQ_MASK},
        mask=True,
    ),
    _c("Reshape-batch-none", lambda L: L.Reshape((-1,)), X3),
    _c("Cropping1D-zero", lambda L: L.Cropping1D((0, 3)), X1),
    _c(
        "EinsumDense-activation",
        lambda L: L.EinsumDense("ab,bc->ac", 3, activation="relu"),
        _f(2, 5),
    ),
    _c(
        "Embedding-mask_zero-3d",
        lambda L: L.Embedding(6, 2, mask_zero=True),
        _ints(3, 2, 3, 2),
        mask=True,
    ),
    _c("PReLU-2d", lambda L: L.PReLU(), X2),
    _c("ELU-default", lambda L: L.ELU(), _f(2, 9)),
    _c("LeakyReLU-default", lambda L: L.LeakyReLU(), _f(2, 9)),
    _c("Activation-int", lambda L: L.Activation("relu"), _ints(5, 2, 3, low=-5)),
    # -- augmentation in inference mode ------------------------------------------------
    _c(
        "RandomCrop-inference",
        lambda L: L.RandomCrop(4, 3),
        IMG,
        xfail="Keras 3.15 bug (keras-team/keras#21868): RandomCrop(training=False) returns "
        "the input uncropped, against its docstring and its own compute_output_shape; "
        "lamina center-crops as documented",
    ),
    _c("RandomFlip", lambda L: L.RandomFlip(), IMG),
    _c("RandomRotation", lambda L: L.RandomRotation(0.2), IMG),
    _c("RandomTranslation", lambda L: L.RandomTranslation(0.2, 0.2), IMG),
    _c("RandomZoom", lambda L: L.RandomZoom(0.2), IMG),
    _c("RandomContrast", lambda L: L.RandomContrast(0.3), IMG),
    _c("RandomBrightness", lambda L: L.RandomBrightness(0.3), IMG),
    _c("RandomShear", lambda L: L.RandomShear(0.2), IMG),
    _c("RandomPerspective", lambda L: L.RandomPerspective(), IMG),
    _c("RandomGrayscale", lambda L: L.RandomGrayscale(), IMG),
    _c("RandomHue", lambda L: L.RandomHue(0.3, value_range=(0, 1)), IMG),
    _c("RandomSaturation", lambda L: L.RandomSaturation(0.3, value_range=(0, 1)), IMG),
    _c("RandomSharpness", lambda L: L.RandomSharpness(0.3, value_range=(0, 1)), IMG),
    _c("RandomInvert", lambda L: L.RandomInvert(value_range=(0, 1)), IMG),
    _c("RandomPosterization", lambda L: L.RandomPosterization(4, value_range=(0, 1)), IMG),
    _c("RandomColorDegeneration", lambda L: L.RandomColorDegeneration(0.3), IMG),
    _c("RandomColorJitter", lambda L: L.RandomColorJitter(brightness_factor=0.2), IMG),
    _c("RandomGaussianBlur", lambda L: L.RandomGaussianBlur(value_range=(0, 1)), IMG),
    _c("RandomErasing", lambda L: L.RandomErasing(value_range=(0, 1)), IMG),
    _c("RandomElasticTransform", lambda L: L.RandomElasticTransform(value_range=(0, 1)), IMG),
    _c("AugMix", lambda L: L.AugMix(value_range=(0, 1)), IMG),
    _c("CutMix", lambda L: L.CutMix(), IMG),
    _c("MixUp", lambda L: L.MixUp(), IMG),
    _c("RandAugment", lambda L: L.RandAugment(value_range=(0, 1)), IMG),
    _c(
        "Pipeline",
        lambda L: L.Pipeline([L.RandomFlip(), L.Rescaling(2.0), L.CenterCrop(4, 4)]),
        IMG,
        shape=False,  # Keras's Pipeline has no compute_output_shape
    ),
]
