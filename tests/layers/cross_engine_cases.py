"""Layer cases computed on one engine and compared with the other (see
`test_cross_engine_layers.py`). Run as a script, it computes every case on the engine
chosen by `LAMINA_BACKEND` and writes the results to the `.npz` file it is given."""

from __future__ import annotations

import sys

import numpy as np


def cases():
    from lamina import layers

    return {
        "dense": (lambda: layers.Dense(4, activation="tanh"), (3, 5)),
        "conv1d_same_strided": (lambda: layers.Conv1D(3, 3, strides=2, padding="same"), (2, 9, 4)),
        "conv2d_dilated": (lambda: layers.Conv2D(3, 3, dilation_rate=2), (2, 9, 9, 2)),
        "conv2d_grouped": (lambda: layers.Conv2D(4, 3, groups=2, padding="same"), (2, 6, 6, 4)),
        "conv3d": (lambda: layers.Conv3D(2, 2), (1, 4, 4, 4, 2)),
        "conv2d_transpose": (
            lambda: layers.Conv2DTranspose(3, 3, strides=2, padding="same"),
            (2, 4, 4, 2),
        ),
        "depthwise_conv2d": (lambda: layers.DepthwiseConv2D(3, depth_multiplier=2), (2, 6, 6, 3)),
        "separable_conv2d": (lambda: layers.SeparableConv2D(4, 3, padding="same"), (2, 6, 6, 3)),
        "max_pool2d_same": (
            lambda: layers.MaxPooling2D(3, strides=2, padding="same"),
            (2, 7, 7, 2),
        ),
        "avg_pool2d_same": (
            lambda: layers.AveragePooling2D(3, strides=2, padding="same"),
            (2, 7, 7, 2),
        ),
        "global_avg_pool": (lambda: layers.GlobalAveragePooling2D(), (2, 5, 5, 3)),
        "batch_norm": (lambda: layers.BatchNormalization(), (4, 6)),
        "layer_norm": (lambda: layers.LayerNormalization(), (3, 4, 6)),
        "lstm": (lambda: layers.LSTM(4, return_sequences=True), (2, 5, 3)),
        "gru": (lambda: layers.GRU(4), (2, 5, 3)),
        "simple_rnn": (lambda: layers.SimpleRNN(4), (2, 5, 3)),
        "bidirectional_lstm": (lambda: layers.Bidirectional(layers.LSTM(3)), (2, 4, 3)),
        "multi_head_attention": (lambda: _SelfAttention(), (2, 4, 6)),
        "prelu": (lambda: layers.PReLU(), (3, 5)),
        "gelu": (lambda: layers.Activation("gelu"), (3, 5)),
        "upsampling2d_bilinear": (
            lambda: layers.UpSampling2D(2, interpolation="bilinear"),
            (1, 3, 3, 2),
        ),
        "zero_padding_cropping": (lambda: _PadCrop(), (1, 4, 4, 2)),
    }


class _SelfAttention:
    def __new__(cls):
        from lamina import layers

        class SelfAttention(layers.Layer):
            def __init__(self):
                super().__init__()
                self.mha = layers.MultiHeadAttention(num_heads=2, key_dim=3)

            def call(self, x):
                return self.mha(x, x)

        return SelfAttention()


class _PadCrop:
    def __new__(cls):
        from lamina import layers

        class PadCrop(layers.Layer):
            def __init__(self):
                super().__init__()
                self.pad = layers.ZeroPadding2D(((1, 2), (0, 1)))
                self.crop = layers.Cropping2D(((0, 1), (1, 0)))

            def call(self, x):
                return self.crop(self.pad(x))

        return PadCrop()


def compute():
    """Outputs and gradients (inputs and weights) of every case on this engine."""
    import lamina
    from lamina import backend, ops

    if backend.backend() == "jax":
        # One compiled program per computation: eagerly, JAX compiles every op of the
        # forward and backward passes on its own (~3x the time).
        import jax

        compiled = jax.jit
    else:
        compiled = lambda fn: fn  # noqa: E731 (eager torch runs the ops as they come)

    results = {}
    for name, (make, shape) in cases().items():
        rng = np.random.RandomState(len(name))
        x = rng.normal(size=shape).astype("float32")
        layer = make()
        layer(lamina.Input(batch_shape=shape))  # build (symbolically: no eager compute)
        weights = [rng.normal(scale=0.5, size=w.shape).astype(w.dtype) for w in layer.get_weights()]
        if weights:
            layer.set_weights(weights)
        trainable = [v.value for v in layer.trainable_variables]
        non_trainable = [v.value for v in layer.non_trainable_variables]
        kwargs = {"training": True} if name == "batch_norm" else {}

        def forward(tv, xv, layer=layer, non_trainable=non_trainable, kwargs=kwargs):
            return layer.stateless_call(tv, non_trainable, xv, **kwargs)[0]

        out = ops.convert_to_numpy(compiled(forward)(trainable, ops.convert_to_tensor(x)))
        probe = rng.normal(size=out.shape).astype("float32")

        def loss(values, forward=forward, probe=probe):
            return ops.sum(ops.multiply(forward(*values), probe))

        _, (grad_w, grad_x) = compiled(backend.value_and_grad(loss))(
            (trainable, ops.convert_to_tensor(x))
        )
        results[f"{name}/out"] = out
        results[f"{name}/grad_x"] = ops.convert_to_numpy(grad_x)
        for i, g in enumerate(grad_w):
            results[f"{name}/grad_w{i}"] = ops.convert_to_numpy(g)
    return results


if __name__ == "__main__":
    np.savez(sys.argv[1], **compute())
