"""Layers on JAX's CPU, one training step's worth each: lamina against Keras 3.

For each layer, the time of one compiled call computing the layer's output, a loss and
its gradients with respect to the inputs and every weight (`jax.value_and_grad` of
`stateless_call`, what a train step does with that layer), lamina's layer against Keras
3's with the same weights on the same inputs, both on JAX in this process. Keras's layers
run XLA's convolutions; lamina's run 1x1 kernels as a matrix product, depthwise kernels as
a sum over taps (kernel gradient summed a few images at a time), strided transposed
convolutions with gradients from their adjoint, and Dense and EinsumDense layers on a
sequence as one 2-D product (docs/guides/performance.md). A plain 3x3 convolution, which both run as XLA's
convolution, is the control row.

Prints per layer the median time of each side over rounds (each round the best of 3 calls,
the sides alternating) and the median over rounds of Keras's time / lamina's, with its
lowest and highest round.

Usage: python bench/cpu_layers.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("LAMINA_BACKEND", "jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

# name, layer class, constructor arguments, input shape (batch first)
LAYERS = [
    ("1x1 Conv2D 256->256 (ConvMixer)", "Conv2D", {"filters": 256, "kernel_size": 1}, (128, 16, 16, 256)),
    ("5x5 DepthwiseConv2D (ConvMixer)", "DepthwiseConv2D", {"kernel_size": 5, "padding": "same"}, (128, 16, 16, 256)),
    ("3x3 SeparableConv2D 128->128", "SeparableConv2D", {"filters": 128, "kernel_size": 3, "padding": "same"}, (64, 16, 16, 128)),
    ("3x3/2 Conv2DTranspose 64->64 (decoder)", "Conv2DTranspose", {"filters": 64, "kernel_size": 3, "strides": 2, "padding": "same"}, (128, 7, 7, 64)),
    ("4x4/2 Conv2DTranspose 128->64 (DCGAN)", "Conv2DTranspose", {"filters": 64, "kernel_size": 4, "strides": 2, "padding": "same"}, (64, 16, 16, 128)),
    ("Dense 64->256 on 64x200 (a sequence)", "Dense", {"units": 256}, (64, 200, 64)),
    ("Dense 256->256 on 64x200 (a sequence)", "Dense", {"units": 256}, (64, 200, 256)),
    ("EinsumDense abc,cde->abde 256->8x32 on 64x200", "EinsumDense", {"equation": "abc,cde->abde", "output_shape": (None, 8, 32), "bias_axes": "de"}, (64, 200, 256)),
    ("3x3 Conv2D 64->64 (control)", "Conv2D", {"filters": 64, "kernel_size": 3, "padding": "same"}, (64, 32, 32, 64)),
]  # fmt: skip


def step_fn(layer):
    """A compiled call: the layer's output, a loss, and its gradients (inputs, weights)."""

    def loss(weights, x):
        out, _ = layer.stateless_call(weights, [], x)
        return jnp.sum(jnp.sin(out))

    return jax.jit(jax.value_and_grad(loss, argnums=(0, 1)))


def best_of(fn, args, calls=3):
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    import keras

    import lamina

    print(f"lamina on JAX {jax.__version__} against Keras {keras.__version__} (XLA's convolutions)")
    print(
        f"{os.cpu_count()} CPUs; one call = output, loss, gradients; ms, median over {args.rounds} rounds"
    )
    print(f"{'layer':42s} {'lamina':>9s} {'keras':>9s}  keras/lamina [lowest, highest]")
    rng = np.random.default_rng(0)
    for name, cls, kwargs, shape in LAYERS:
        x = jnp.asarray(rng.standard_normal(shape).astype("float32"))
        ours, theirs = getattr(lamina.layers, cls)(**kwargs), getattr(keras.layers, cls)(**kwargs)
        ours.build(shape)
        theirs.build(shape)
        theirs.set_weights(ours.get_weights())
        sides = {}
        for label, layer in (("lamina", ours), ("keras", theirs)):
            weights = [jnp.asarray(v.value) for v in layer.trainable_variables]
            fn = step_fn(layer)
            jax.block_until_ready(fn(weights, x))  # compile
            sides[label] = (fn, (weights, x))
        times = {"lamina": [], "keras": []}
        for r in range(args.rounds):
            order = ("lamina", "keras") if r % 2 == 0 else ("keras", "lamina")
            for label in order:
                times[label].append(best_of(*sides[label]))
        ratios = sorted(k / m for k, m in zip(times["keras"], times["lamina"], strict=True))
        lam, ker = (statistics.median(times[s]) * 1e3 for s in ("lamina", "keras"))
        print(
            f"{name:42s} {lam:9.1f} {ker:9.1f}  {statistics.median(ratios):5.2f}x "
            f"[{ratios[0]:.2f}, {ratios[-1]:.2f}]"
        )


if __name__ == "__main__":
    main()
